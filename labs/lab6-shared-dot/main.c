/* main.c: the lab 6 program (fixed: you do not edit it).
 *
 *   lab [n] [seed] [block_size] [blocks]
 *
 * Runs your three dot products on the same vectors, prints each result next
 * to the exact one (in double, on the CPU) with its error, the time of the
 * kernels and the bandwidth they reach.  For n <= 256 the vectors hold
 * small whole numbers (every sum is exact) and the program draws which
 * block owns which products, and the partials after the first pass.
 * Exits 0 when every result is within the tolerance, 1 otherwise.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "kit.h"
#include "kit_program.h"
#include "lab6.h"

#define PICTURE_MAX_N 256
#define PICTURE_ROW 16

/* The products chunk by chunk (B elements each), with the block that owns
 * each chunk, then the partials of the first pass from its snapshot. */
static void draw_ownership(const float *x, const float *y, int n, int block_size, int blocks)
{
    printf("\nThe products x[i]*y[i] in chunks of %d; block b owns the chunks b, b + %d, b + %d, ...\n", block_size,
           blocks, 2 * blocks);
    float row[PICTURE_ROW];
    for (int chunk = 0; chunk * block_size < n; chunk++) {
        int first = chunk * block_size, end = first + block_size < n ? first + block_size : n;
        printf("  chunk %d, i = %d..%d: block %d\n", chunk, first, end - 1, chunk % blocks);
        for (int start = first; start < end; start += PICTURE_ROW) {
            int count = end - start < PICTURE_ROW ? end - start : PICTURE_ROW;
            for (int k = 0; k < count; k++)
                row[k] = x[start + k] * y[start + k];
            kit_draw_floats(stdout, "    ", row, count, -1, -1);
        }
    }
    for (int s = 0; s < kit_snapshot_count(); s++) {
        const kit_snapshot *snap = kit_snapshot_at(s);
        printf("\nThe partials after pass %d, one per block (SNAPSHOT at %s:%d):\n", snap->round, snap->file,
               snap->line);
        kit_draw_floats(stdout, "  ", (const float *)snap->data, (int)snap->count, -1, -1);
    }
}

/* Prints one line of the results table; returns 1 when within tolerance. */
static int report(const char *what, float got, const kit_dot_vectors *v, double kernel_ms, double call_ms)
{
    int ok = kit_within_tolerance(got, v->exact, v->abs_dot, DOT_TOLERANCE_C);
    printf("  %-28s %16.8g  %10.2f u  %-5s  kernels %9.3f ms   whole call %9.3f ms\n", what, got,
           kit_error_units(got, v->exact, v->abs_dot), ok ? "ok" : "WRONG", kernel_ms, call_ms);
    return ok;
}

/* The three steps of the lab, in the order of its TODOs. */
enum step { SUM_ON_HOST, HOST_FINISH, DEVICE_FINISH, STEPS };
static const char *const step_names[STEPS] = {"1-2 sum on the host", "3-7 partials, host finish",
                                              "8   device finish"};

static float run_step(enum step step, const kit_dot_vectors *v, int block_size, int blocks)
{
    if (step == SUM_ON_HOST)
        return dot_sum_on_host(v->x, v->y, v->n);
    if (step == HOST_FINISH)
        return dot_host_finish(v->x, v->y, v->n, block_size, blocks, NULL);
    return dot_device_finish(v->x, v->y, v->n, block_size, blocks);
}

/* The device finish's bandwidth, against the device's (GPU only). */
static void print_bandwidth(int n, double kernel_ms)
{
    if (kit_on_gpu() && kernel_ms > 0) {
        double gbs = 2.0 * n * sizeof(float) / (kernel_ms * 1e6);
        double peak = kit_device_peak_gbs();
        printf("\ndevice finish: %.0f GB/s read", gbs);
        if (peak > 0)
            printf(", %.0f%% of the device's %.0f GB/s", 100.0 * gbs / peak, peak);
        printf(" (%d launches)\n", kit_launch_count());
    } else {
        printf("\n(the cpu backend emulates the GPU: its times say nothing about a GPU)\n");
    }
}

/* Runs and times every step, prints the results table; 1 when all are right. */
static int run_steps(const kit_dot_vectors *v, int block_size, int blocks)
{
    printf("\n  %-28s %16s  %12s  %-5s\n", "", "result", "error", "");
    printf("  %-28s %16.8g\n", "exact (double, on the CPU)", v->exact);
    int all_ok = 1;
    double kernel_ms = 0;
    kit_set_timing(1);
    for (int step = SUM_ON_HOST; step < STEPS; step++) {
        kit_reset_records();
        double t0 = kit_wall_ms();
        float s = run_step(step, v, block_size, blocks);
        kernel_ms = kit_timed_ms();
        all_ok &= report(step_names[step], s, v, kernel_ms, kit_wall_ms() - t0);
    }
    print_bandwidth(v->n, kernel_ms);
    return all_ok;
}

/* Once more, with snapshots on, for the picture. */
static void draw_with_snapshots(const kit_dot_vectors *v, int block_size, int blocks)
{
    kit_set_timing(0);
    kit_reset_records();
    kit_set_snapshots(1);
    dot_host_finish(v->x, v->y, v->n, block_size, blocks, NULL);
    kit_set_snapshots(0);
    draw_ownership(v->x, v->y, v->n, block_size, blocks);
}

/* The block count: from the command line, else dot_choose_blocks's. */
static int choose_blocks(int argc, char **argv, int n, int block_size)
{
    int blocks = argc > 4 ? kit_arg_long(argc, argv, 4, 1) : dot_choose_blocks(n, block_size);
    if (blocks < 1) {
        fprintf(stderr, "the block count must be at least 1 (got %d)\n", blocks);
        exit(2);
    }
    printf("blocks: %d (%s)\n", blocks, argc > 4 ? "from the command line" : "dot_choose_blocks");
    return blocks;
}

int main(int argc, char **argv)
{
    const char *usage = "[n >= 1] [seed] [block_size: a power of two, 32..1024] [blocks]";
    int n = kit_arg_n(argc, argv, kit_on_gpu() ? 1L << 24 : 1L << 20, INT_MAX, usage);
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    int small = n <= PICTURE_MAX_N;
    int block_size = kit_arg_long(argc, argv, 3, small ? 32 : 256);
    if (!kit_is_power_of_two_in(block_size, 32, 1024))
        kit_usage_exit(argv[0], usage);

    kit_dot_vectors v = kit_dot_vectors_make(n, small, seed);
    printf("lab 6, shared-dot: n = %d, seed = %llu, blocks of %d threads, on %s\n", n, seed, block_size,
           kit_device_name());
    printf("x and y: %s\n", kit_dot_vectors_words(&v));

    /* Warm up the device so the first timed call does not pay for it. */
    float warm[32] = {0};
    dot_sum_on_host(warm, warm, 32);

    int blocks = choose_blocks(argc, argv, n, block_size);
    int all_ok = run_steps(&v, block_size, blocks);
    if (small)
        draw_with_snapshots(&v, block_size, blocks);

    if (kit_todo_pending())
        printf("\nreminder: %s is not done yet.\n", kit_todo_pending());
    printf("%s\n", all_ok ? "all results within the tolerance" : "some results are WRONG");
    kit_dot_vectors_free(&v);
    return all_ok ? 0 : 1;
}
