/* main.c: the lab 4 program (fixed: do not edit).
 *
 *     lab [n] [seed]
 *
 * Sums n seeded integers with both of your tournaments, prints each result
 * beside the CPU's, the rounds drawn for n <= 32, and the time of the naive
 * and compact tournaments beside lab 3's folding.
 * Exit status: 0 when both sums are right, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "kit.h"
#include "kit_program.h"
#include "lab4.h"

enum { PICTURE_MAX = 32, TIMED_RUNS = 3 };

static void draw_rounds(int n)
{
    for (int k = 0; k < kit_snapshot_count(); k++) {
        const kit_snapshot *s = kit_snapshot_at(k);
        int width = 1 << s->round;
        if (s->round == 0)
            printf("\nround 0, the array as copied to the device:\n");
        else
            printf("\nafter round %d (D = %d): each A[i], i a multiple of %d, holds the sum of its block of %d\n",
                   s->round, width / 2, width, width);
        kit_draw_ints(stdout, "   ", (const int *)s->data, (int)s->count, -1, -1);
        if (s->round > 0) {
            /* a caret under each winner (the prefix, then the box's left edge) */
            printf("    ");
            int cell = 3;
            for (int i = 0; i < n; i++) {
                int len = snprintf(NULL, 0, "%d", ((const int *)s->data)[i]);
                if (len > cell)
                    cell = len;
            }
            for (int i = 0; i < n; i++)
                printf("%*s%c", cell, i % width == 0 ? "^" : "", ' ');
            printf("\n");
        }
    }
    printf("\n");
}

/* Best device time (ms) of a few runs, after one run to warm up. */
static double best_time(int (*sum)(const int *, int), const int *a, int n)
{
    double best = 0;
    sum(a, n);
    for (int k = 0; k < TIMED_RUNS; k++) {
        kit_reset_records();
        sum(a, n);
        if (k == 0 || kit_timed_ms() < best)
            best = kit_timed_ms();
    }
    return best;
}

static int report(const char *name, int sum, long long expected)
{
    printf("%-30s %d   %s\n", name, sum, sum == expected ? "(same as the CPU)" : "(WRONG)");
    return sum == expected;
}

int main(int argc, char **argv)
{
    int n = kit_arg_n(argc, argv, 13, 1 << 30, "[n, 1..2^30] [seed]");
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    int *a = kit_host_array((size_t)n, sizeof *a, n);
    kit_fill_ints(a, (size_t)n, 0, 9, seed);
    printf("lab4 tournament: n = %d, seed = %llu, %d rounds expected, device: %s\n", n, seed, kit_halving_rounds(n),
           kit_device_name());

    int small = n <= PICTURE_MAX;
    long long expected = kit_sum_ints(a, (size_t)n);
    kit_set_snapshots(small);
    kit_reset_records();
    int naive = tournament_sum_naive(a, n);
    if (small) {
        printf("\nthe naive tournament, round by round:");
        draw_rounds(n);
    }
    kit_reset_records();
    int compact = tournament_sum_compact(a, n);
    kit_set_snapshots(0);

    printf("%-30s %lld\n", "sum on the CPU:", expected);
    int right = report("naive tournament:", naive, expected);
    right = report("compact tournament:", compact, expected) && right;

    kit_set_timing(1);
    printf("\ndevice time (best of %d runs, %d launches each):\n", TIMED_RUNS, kit_halving_rounds(n));
    printf("  naive tournament    %9.3f ms\n", best_time(tournament_sum_naive, a, n));
    printf("  compact tournament  %9.3f ms\n", best_time(tournament_sum_compact, a, n));
    printf("  folding (lab 3)     %9.3f ms\n", best_time(folding_sum_for_comparison, a, n));
    if (!kit_on_gpu())
        printf("(cpu backend: these times say nothing about a GPU)\n");
    else if (n < (1 << 20))
        printf("(for small n the times are mostly launch overhead: try n = 16777216)\n");

    kit_print_reminder("lab4-tournament");
    free(a);
    return right ? 0 : 1;
}
