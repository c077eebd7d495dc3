/* main.c: the lab 7 program (fixed: you do not edit it).
 *
 *   lab [n] [seed] [block_size] [offset]
 *
 * Runs your dot products on the same vectors, prints each result next to
 * the exact one (in double, on the CPU) with its error, the kernel time and
 * the bandwidth it reaches.  `offset` (0 to 3) places the vectors of
 * dot_vectorized that many floats past a 16-byte boundary.  For n <= 64 the
 * vectors hold small whole numbers (every sum is exact).  Exits 0 when every
 * result is within the tolerance, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "lab7.h"

#define SMALL_N 64
#define PICTURE_MAX_N 24

static int arg_or(int argc, char **argv, int i, long fallback)
{
    return argc > i ? (int)strtol(argv[i], NULL, 0) : (int)fallback;
}

static int is_power_of_two_block(int b)
{
    return b >= 32 && b <= 1024 && (b & (b - 1)) == 0;
}

/* How dot_vectorized's float4 loads must cover the n floats (for small n,
 * the products drawn with the float4 body marked). */
static void draw_vector_plan(const float *x, const float *y, int n, int offset)
{
    int head = offset ? 4 - offset : 0;
    if (head > n)
        head = n;
    int quads = (n - head) / 4, tail = n - head - 4 * quads;
    printf("\nHow float4 loads cover n = %d floats that start %d float%s past a 16-byte boundary:\n", n, offset,
           offset == 1 ? "" : "s");
    if (head)
        printf("  x[0..%d]  the head: one by one, up to the boundary\n", head - 1);
    if (quads)
        printf("  x[%d..%d]  the body: %d float4 load%s\n", head, head + 4 * quads - 1, quads, quads == 1 ? "" : "s");
    if (tail)
        printf("  x[%d..%d]  the tail: one by one (n %% 4 != 0 after the head)\n", head + 4 * quads, n - 1);
    if (n <= PICTURE_MAX_N) {
        float products[PICTURE_MAX_N];
        for (int i = 0; i < n; i++)
            products[i] = x[i] * y[i];
        printf("The products x[i]*y[i], the body marked *:\n");
        kit_draw_floats(stdout, "  ", products, n, head, head + 4 * quads);
    }
}

typedef struct {
    const char *name, *todos;
    int vectorized; /* takes the offset */
    float (*plain)(const float *, const float *, int, int);
    float (*with_offset)(const float *, const float *, int, int, int);
} variant;

int main(int argc, char **argv)
{
    int n = arg_or(argc, argv, 1, kit_on_gpu() ? 1L << 24 : 1L << 20);
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    int block_size = arg_or(argc, argv, 3, 256);
    int offset = arg_or(argc, argv, 4, 1);
    if (n < 1 || !is_power_of_two_block(block_size) || offset < 0 || offset > 3) {
        fprintf(stderr, "usage: %s [n >= 1] [seed] [block_size: a power of two, 32..1024] [offset: 0..3]\n", argv[0]);
        return 2;
    }

    float *x = malloc((size_t)n * sizeof(float));
    float *y = malloc((size_t)n * sizeof(float));
    if (!x || !y) {
        fprintf(stderr, "no host memory for n = %d\n", n);
        return 2;
    }
    int small = n <= SMALL_N;
    if (small) {
        kit_fill_small_floats(x, (size_t)n, 0, 3, seed);
        kit_fill_small_floats(y, (size_t)n, 0, 3, seed + 1);
    } else {
        kit_fill_uniform(x, (size_t)n, 0.0f, 1.0f, seed);
        kit_fill_uniform(y, (size_t)n, 0.0f, 1.0f, seed + 1);
    }
    double exact = kit_dot(x, y, (size_t)n);
    double abs_dot = kit_abs_dot(x, y, (size_t)n);

    printf("lab 7, coop-groups: n = %d, seed = %llu, blocks of %d threads, on %s\n", n, seed, block_size,
           kit_device_name());
    printf("x and y: %s\n", small ? "whole numbers in [0, 3], so every order of the sum is exact"
                                   : "uniform in [0, 1)");
    draw_vector_plan(x, y, n, offset);

    /* Warm up the device so the first timed call does not pay for it. */
    float warm[32] = {0};
    dot_block_sync(warm, warm, 32, 32);

    const variant variants[] = {
        {"dot_block_sync", "TODO 1", 0, dot_block_sync, NULL},
        {"dot_tile_shuffle", "TODOs 2, 4", 0, dot_tile_shuffle, NULL},
        {"dot_cg_reduce", "TODOs 3, 4", 0, dot_cg_reduce, NULL},
        {"dot_vectorized", "TODOs 3-5", 1, NULL, dot_vectorized},
        {"dot_grid_sync", "TODO 6", 0, dot_grid_sync, NULL},
    };
    double peak = kit_on_gpu() ? dot_peak_bandwidth_gbs() : 0;
    double bytes = 2.0 * n * sizeof(float);

    printf("\n  %-18s %-11s %16s  %12s  %-5s  %10s  %s\n", "", "", "result", "error", "", "kernel", "bandwidth");
    printf("  %-18s %-11s %16.8g\n", "exact (double)", "", exact);
    int all_ok = 1, whole_call_shown = 0;
    kit_set_timing(1);
    for (int v = 0; v < (int)(sizeof variants / sizeof variants[0]); v++) {
        const variant *f = &variants[v];
        kit_reset_records();
        double t0 = kit_wall_ms();
        float got = f->vectorized ? f->with_offset(x, y, n, block_size, offset) : f->plain(x, y, n, block_size);
        double wall = kit_wall_ms() - t0;
        if (f->plain == dot_grid_sync && kit_todo_pending() && strstr(kit_todo_pending(), "TODO 6")) {
            printf("  %-18s %-11s %16s  (going further: not attempted)\n", f->name, f->todos, "-");
            continue;
        }
        /* Cooperative launches do not go through LAUNCH, so they are not
         * timed by events: their time is the whole call's. */
        double ms = kit_timed_ms() > 0 ? kit_timed_ms() : wall;
        whole_call_shown |= !(kit_timed_ms() > 0);
        int ok = kit_within_tolerance(got, exact, abs_dot, DOT_TOLERANCE_C);
        all_ok &= ok;
        printf("  %-18s %-11s %16.8g  %10.2f u  %-5s  %7.3f ms%s", f->name, f->todos, got,
               kit_error_units(got, exact, abs_dot), ok ? "ok" : "WRONG", ms, kit_timed_ms() > 0 ? " " : "*");
        if (kit_on_gpu() && ms > 0) {
            double gbs = bytes / (ms * 1e6);
            printf("  %6.0f GB/s", gbs);
            if (peak > 0)
                printf(" (%3.0f%% of %.0f)", 100.0 * gbs / peak, peak);
        }
        printf("\n");
    }
    if (whole_call_shown)
        printf("  (* the whole call, copies included: a cooperative launch is not timed by LAUNCH)\n");
    if (!kit_on_gpu())
        printf("  (the cpu backend emulates the GPU: its times say nothing about a GPU)\n");

    if (!all_ok)
        printf("\nA WRONG result depends on the TODOs named beside it.\n");
    if (kit_todo_pending())
        printf("\nreminder: %s is not done yet%s.\n", kit_todo_pending(),
               strstr(kit_todo_pending(), "TODO 6") ? " (it is optional)" : "");
    printf("%s\n", all_ok ? "all results within the tolerance" : "some results are WRONG");
    free(x);
    free(y);
    return all_ok ? 0 : 1;
}
