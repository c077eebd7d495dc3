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
#include <stdio.h>
#include <stdlib.h>

#include "kit.h"
#include "lab6.h"

#define PICTURE_MAX_N 256
#define PICTURE_ROW 16

static int arg_or(int argc, char **argv, int i, long fallback)
{
    return argc > i ? (int)strtol(argv[i], NULL, 0) : (int)fallback;
}

static int is_power_of_two_block(int b)
{
    return b >= 32 && b <= 1024 && (b & (b - 1)) == 0;
}

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
static int report(const char *what, float got, double exact, double abs_dot, double kernel_ms, double call_ms)
{
    int ok = kit_within_tolerance(got, exact, abs_dot, DOT_TOLERANCE_C);
    printf("  %-28s %16.8g  %10.2f u  %-5s  kernels %9.3f ms   whole call %9.3f ms\n", what, got,
           kit_error_units(got, exact, abs_dot), ok ? "ok" : "WRONG", kernel_ms, call_ms);
    return ok;
}

int main(int argc, char **argv)
{
    int n = arg_or(argc, argv, 1, kit_on_gpu() ? 1L << 24 : 1L << 20);
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    int small = n <= PICTURE_MAX_N;
    int block_size = arg_or(argc, argv, 3, small ? 32 : 256);
    if (n < 1 || !is_power_of_two_block(block_size)) {
        fprintf(stderr, "usage: %s [n >= 1] [seed] [block_size: a power of two, 32..1024] [blocks]\n", argv[0]);
        return 2;
    }

    float *x = malloc((size_t)n * sizeof(float));
    float *y = malloc((size_t)n * sizeof(float));
    if (!x || !y) {
        fprintf(stderr, "no host memory for n = %d\n", n);
        return 2;
    }
    if (small) {
        kit_fill_small_floats(x, (size_t)n, 0, 3, seed);
        kit_fill_small_floats(y, (size_t)n, 0, 3, seed + 1);
    } else {
        kit_fill_uniform(x, (size_t)n, 0.0f, 1.0f, seed);
        kit_fill_uniform(y, (size_t)n, 0.0f, 1.0f, seed + 1);
    }
    double exact = kit_dot(x, y, (size_t)n);
    double abs_dot = kit_abs_dot(x, y, (size_t)n);

    printf("lab 6, shared-dot: n = %d, seed = %llu, blocks of %d threads, on %s\n", n, seed, block_size,
           kit_device_name());
    printf("x and y: %s\n", small ? "whole numbers in [0, 3], so every order of the sum is exact"
                                   : "uniform in [0, 1)");

    /* Warm up the device so the first timed call does not pay for it. */
    float warm[32] = {0};
    dot_sum_on_host(warm, warm, 32);

    int blocks = argc > 4 ? arg_or(argc, argv, 4, 1) : dot_choose_blocks(n, block_size);
    if (blocks < 1) {
        fprintf(stderr, "the block count must be at least 1 (got %d)\n", blocks);
        return 2;
    }
    printf("blocks: %d (%s)\n", blocks, argc > 4 ? "from the command line" : "dot_choose_blocks");
    printf("\n  %-28s %16s  %12s  %-5s\n", "", "result", "error", "");
    printf("  %-28s %16.8g\n", "exact (double, on the CPU)", exact);

    int all_ok = 1;
    kit_set_timing(1);

    kit_reset_records();
    double t0 = kit_wall_ms();
    float s = dot_sum_on_host(x, y, n);
    all_ok &= report("1-2 sum on the host", s, exact, abs_dot, kit_timed_ms(), kit_wall_ms() - t0);

    kit_reset_records();
    t0 = kit_wall_ms();
    s = dot_host_finish(x, y, n, block_size, blocks, NULL);
    all_ok &= report("3-7 partials, host finish", s, exact, abs_dot, kit_timed_ms(), kit_wall_ms() - t0);

    kit_reset_records();
    t0 = kit_wall_ms();
    s = dot_device_finish(x, y, n, block_size, blocks);
    double kernel_ms = kit_timed_ms();
    all_ok &= report("8   device finish", s, exact, abs_dot, kernel_ms, kit_wall_ms() - t0);

    if (kit_on_gpu() && kernel_ms > 0) {
        double gbs = 2.0 * n * sizeof(float) / (kernel_ms * 1e6);
        double peak = dot_peak_bandwidth_gbs();
        printf("\ndevice finish: %.0f GB/s read", gbs);
        if (peak > 0)
            printf(", %.0f%% of the device's %.0f GB/s", 100.0 * gbs / peak, peak);
        printf(" (%d launches)\n", kit_launch_count());
    } else {
        printf("\n(the cpu backend emulates the GPU: its times say nothing about a GPU)\n");
    }

    if (small) {
        /* Once more, with snapshots on, for the picture. */
        kit_set_timing(0);
        kit_reset_records();
        kit_set_snapshots(1);
        dot_host_finish(x, y, n, block_size, blocks, NULL);
        kit_set_snapshots(0);
        draw_ownership(x, y, n, block_size, blocks);
    }

    if (kit_todo_pending())
        printf("\nreminder: %s is not done yet.\n", kit_todo_pending());
    printf("%s\n", all_ok ? "all results within the tolerance" : "some results are WRONG");
    free(x);
    free(y);
    return all_ok ? 0 : 1;
}
