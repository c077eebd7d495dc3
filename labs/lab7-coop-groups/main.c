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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "kit_program.h"
#include "lab7.h"

#define SMALL_N 64
#define PICTURE_MAX_N 24

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

static const variant variants[] = {
    {"dot_block_sync", "TODO 1", 0, dot_block_sync, NULL},
    {"dot_tile_shuffle", "TODOs 2, 4", 0, dot_tile_shuffle, NULL},
    {"dot_cg_reduce", "TODOs 3, 4", 0, dot_cg_reduce, NULL},
    {"dot_vectorized", "TODOs 3-5", 1, NULL, dot_vectorized},
    {"dot_grid_sync", "TODO 6", 0, dot_grid_sync, NULL},
};

/* What a run of the variants found: every result right, and whether a time
 * shown is the whole call's (marked *); and the device's bandwidth (GB/s,
 * 0 when unknown) that each one's is compared with. */
typedef struct {
    int all_ok, whole_call_shown;
    double peak;
} outcome;

/* Runs one variant and prints its line of the table. */
static void run_variant(const variant *f, const kit_dot_vectors *v, int block_size, int offset, outcome *out)
{
    kit_reset_records();
    double t0 = kit_wall_ms();
    float got = f->vectorized ? f->with_offset(v->x, v->y, v->n, block_size, offset)
                              : f->plain(v->x, v->y, v->n, block_size);
    double wall = kit_wall_ms() - t0;
    if (f->plain == dot_grid_sync && kit_todo_pending() && strstr(kit_todo_pending(), "TODO 6")) {
        printf("  %-18s %-11s %16s  (going further: not attempted)\n", f->name, f->todos, "-");
        return;
    }
    /* Cooperative launches do not go through LAUNCH, so they are not
     * timed by events: their time is the whole call's. */
    double ms = kit_timed_ms() > 0 ? kit_timed_ms() : wall;
    out->whole_call_shown |= !(kit_timed_ms() > 0);
    int ok = kit_within_tolerance(got, v->exact, v->abs_dot, DOT_TOLERANCE_C);
    out->all_ok &= ok;
    printf("  %-18s %-11s %16.8g  %10.2f u  %-5s  %7.3f ms%s", f->name, f->todos, got,
           kit_error_units(got, v->exact, v->abs_dot), ok ? "ok" : "WRONG", ms, kit_timed_ms() > 0 ? " " : "*");
    if (kit_on_gpu() && ms > 0) {
        double gbs = 2.0 * v->n * sizeof(float) / (ms * 1e6);
        printf("  %6.0f GB/s", gbs);
        if (out->peak > 0)
            printf(" (%3.0f%% of %.0f)", 100.0 * gbs / out->peak, out->peak);
    }
    printf("\n");
}

/* Runs every variant, prints the results table; 1 when all are right. */
static int run_variants(const kit_dot_vectors *v, int block_size, int offset)
{
    outcome out = {1, 0, kit_on_gpu() ? kit_device_peak_gbs() : 0};
    printf("\n  %-18s %-11s %16s  %12s  %-5s  %10s  %s\n", "", "", "result", "error", "", "kernel", "bandwidth");
    printf("  %-18s %-11s %16.8g\n", "exact (double)", "", v->exact);
    kit_set_timing(1);
    for (int k = 0; k < (int)(sizeof variants / sizeof variants[0]); k++)
        run_variant(&variants[k], v, block_size, offset, &out);
    if (out.whole_call_shown)
        printf("  (* the whole call, copies included: a cooperative launch is not timed by LAUNCH)\n");
    if (!kit_on_gpu())
        printf("  (the cpu backend emulates the GPU: its times say nothing about a GPU)\n");
    if (!out.all_ok)
        printf("\nA WRONG result depends on the TODOs named beside it.\n");
    return out.all_ok;
}

int main(int argc, char **argv)
{
    const char *usage = "[n >= 1] [seed] [block_size: a power of two, 32..1024] [offset: 0..3]";
    int n = kit_arg_n(argc, argv, kit_on_gpu() ? 1L << 24 : 1L << 20, INT_MAX, usage);
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    int block_size = kit_arg_long(argc, argv, 3, 256);
    int offset = kit_arg_long(argc, argv, 4, 1);
    if (!kit_is_power_of_two_in(block_size, 32, 1024) || offset < 0 || offset > 3)
        kit_usage_exit(argv[0], usage);

    kit_dot_vectors v = kit_dot_vectors_make(n, n <= SMALL_N, seed);
    printf("lab 7, coop-groups: n = %d, seed = %llu, blocks of %d threads, on %s\n", n, seed, block_size,
           kit_device_name());
    printf("x and y: %s\n", kit_dot_vectors_words(&v));
    draw_vector_plan(v.x, v.y, n, offset);

    /* Warm up the device so the first timed call does not pay for it. */
    float warm[32] = {0};
    dot_block_sync(warm, warm, 32, 32);

    int all_ok = run_variants(&v, block_size, offset);
    if (kit_todo_pending())
        printf("\nreminder: %s is not done yet%s.\n", kit_todo_pending(),
               strstr(kit_todo_pending(), "TODO 6") ? " (it is optional)" : "");
    printf("%s\n", all_ok ? "all results within the tolerance" : "some results are WRONG");
    kit_dot_vectors_free(&v);
    return all_ok ? 0 : 1;
}
