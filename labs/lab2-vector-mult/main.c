/* main.c: the lab 2 program (do not edit).
 *
 *     lab [n] [seed]        (defaults: 1048576 1)
 *
 * Makes two vectors of n random floats in [-1, 1) from the seed, then runs
 * the three parts of vector_mult.cu: the element products, the in-place
 * products with a grid of only a few blocks, and the dot product with the
 * time of each phase.  Each result is compared with one computed here on the
 * CPU.  Exits 0 when everything is right, 1 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "lab2.h"

#define FEW_BLOCKS 4        /* the grid of part 2, far smaller than n usually */
#define DOT_TOLERANCE 2000  /* c of the tolerance policy (kit.h part 9) */

/* The first i where got[i] differs from want[i] bit for bit, or -1. */
static int first_difference(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0)
            return i;
    return -1;
}

/* Draws a small array in rows of 8 boxes, each row under the index it starts at. */
static void draw_rows(const char *name, const float *x, int n, int mark)
{
    for (int row = 0; row < n; row += 8) {
        int count = n - row < 8 ? n - row : 8;
        printf("  %s[%d..%d]\n", name, row, row + count - 1);
        int at = mark - row;
        kit_draw_floats(stdout, "    ", x + row, count, at >= 0 && at < count ? at : -1,
                        at >= 0 && at < count ? at + 1 : -1);
    }
}

static int report_products(const char *what, const float *got, const float *want, int n)
{
    int wrong = first_difference(got, want, n);
    if (n <= 32)
        draw_rows(what, got, n, wrong);
    if (wrong >= 0)
        printf("  WRONG: %s[%d] = %g, expected %g\n", what, wrong, got[wrong], want[wrong]);
    else
        printf("  all %d products are exact\n", n);
    return wrong < 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    if (n < 0 || n > (1 << 28)) {
        fprintf(stderr, "usage: %s [n (0..2^28)] [seed]\n", argv[0]);
        return 2;
    }
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *want = malloc(bytes);
    kit_fill_uniform(a, (size_t)n, -1.0f, 1.0f, seed);
    kit_fill_uniform(b, (size_t)n, -1.0f, 1.0f, seed + 1);
    for (int i = 0; i < n; i++)
        want[i] = a[i] * b[i];
    int ok = 1;

    printf("lab 2 on %s: n = %d, seed %llu\n", kit_device_name(), n, seed);
    if (n <= 32) {
        draw_rows("a", a, n, -1);
        draw_rows("b", b, n, -1);
    }
    kit_set_timing(1);

    /* Part 1 */
    printf("\nPart 1: c[i] = a[i] * b[i], one thread per element\n");
    memset(c, 0xff, bytes); /* NaN everywhere, so an element nobody wrote shows */
    kit_reset_records();
    double started = kit_wall_ms();
    vector_mult(a, b, c, n);
    double wall = kit_wall_ms() - started;
    if (kit_launch_count() > 0) {
        const kit_launch *l = kit_launch_at(0);
        printf("  launch: %u blocks of %u threads; kernel %.3f ms, whole call %.3f ms\n", l->grid[0], l->block[0],
               kit_timed_ms(), wall);
    }
    ok &= report_products("c", c, want, n);

    /* Part 2 */
    printf("\nPart 2: a[i] *= b[i] in place, with only %d blocks (a grid-stride loop)\n", FEW_BLOCKS);
    memcpy(c, a, bytes);
    kit_reset_records();
    started = kit_wall_ms();
    vector_mult_in_place(c, b, n, FEW_BLOCKS);
    wall = kit_wall_ms() - started;
    if (kit_launch_count() > 0) {
        const kit_launch *l = kit_launch_at(0);
        printf("  launch: %u blocks of %u threads, %.2f elements per thread; kernel %.3f ms, whole call %.3f ms\n",
               l->grid[0], l->block[0], (double)n / ((double)l->grid[0] * l->block[0]), kit_timed_ms(), wall);
    }
    ok &= report_products("a", c, want, n);

    /* Part 3 */
    printf("\nPart 3: the dot product, products on the device, sum on the host\n");
    lab2_phase_times t;
    kit_reset_records();
    started = kit_wall_ms();
    float dot = dot_product(a, b, n, &t);
    wall = kit_wall_ms() - started;
    double exact = kit_dot(a, b, (size_t)n), abs_sum = kit_abs_dot(a, b, (size_t)n);
    printf("  phase       time (ms)\n");
    printf("  copy in     %9.3f\n", t.copy_in_ms);
    printf("  kernel      %9.3f\n", t.kernel_ms);
    printf("  copy out    %9.3f\n", t.copy_out_ms);
    printf("  host sum    %9.3f\n", t.host_sum_ms);
    printf("  whole call  %9.3f   (a phase shown as -1.000 was not timed)\n", wall);
    printf("  dot = %.9g, exact %.9g, error %.2f units of u*sum|a[i]*b[i]| (allowed: %d)\n", dot, exact,
           kit_error_units(dot, exact, abs_sum), DOT_TOLERANCE);
    if (!kit_within_tolerance(dot, exact, abs_sum, DOT_TOLERANCE)) {
        printf("  WRONG: the dot product is off by more than the tolerance allows\n");
        ok = 0;
    }

    if (kit_todo_pending())
        printf("\nreminder: not every TODO is done yet, %s among them (see the handout).\n", kit_todo_pending());
    printf("\n%s\n", ok ? "lab 2: all right" : "lab 2: something is wrong (see WRONG above)");
    free(a), free(b), free(c), free(want);
    return ok ? 0 : 1;
}
