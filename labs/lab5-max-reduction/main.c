/* main.c: the lab 5 program (fixed: do not edit).
 *
 *     lab [n] [seed]
 *
 * Finds the largest of n seeded values with your tournament_max() and your
 * block_max(), prints both beside the CPU's, the rounds of the tournament
 * drawn for n <= 32, and the time of each.  The values are whole numbers in
 * [-99, 99] so that the pictures stay readable; with seed 0 they are all
 * negative, where a 0 used as the identity shows at once.
 * Exit status: 0 when both results are right, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "kit.h"
#include "kit_program.h"
#include "lab5.h"

enum { PICTURE_MAX = 32 };

static void draw_rounds(void)
{
    for (int k = 0; k < kit_snapshot_count(); k++) {
        const kit_snapshot *s = kit_snapshot_at(k);
        if (s->round == 0)
            printf("\nround 0, the values as copied to the device:\n");
        else
            printf("\nafter round %d: %zu winner%s, each the largest of a block of %d\n", s->round, s->count,
                   s->count == 1 ? "" : "s", 1 << s->round);
        kit_draw_floats(stdout, "   ", (const float *)s->data, (int)s->count, -1, -1);
    }
    printf("\n");
}

static int report(const char *name, float got, float expected, double ms, int launches)
{
    int right = got == expected;
    printf("%-22s %-10g %s   %.3f ms in %d launch%s\n", name, got, right ? "(same as the CPU)" : "(WRONG)   ", ms,
           launches, launches == 1 ? "" : "es");
    return right;
}

int main(int argc, char **argv)
{
    int n = kit_arg_n(argc, argv, 13, 1 << 30, "[n, 1..2^30] [seed]");
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    float *a = kit_host_array((size_t)n, sizeof *a, n);
    kit_fill_small_floats(a, (size_t)n, -99, seed == 0 ? -1 : 99, seed);
    printf("lab5 max-reduction: n = %d, seed = %llu%s, device: %s\n", n, seed, seed == 0 ? " (all negative)" : "",
           kit_device_name());

    int small = n <= PICTURE_MAX;
    float expected = kit_max_floats(a, (size_t)n);
    kit_set_timing(1);

    kit_set_snapshots(small);
    kit_reset_records();
    float by_tournament = tournament_max(a, n);
    double tournament_ms = kit_timed_ms();
    int tournament_launches = kit_launch_count();
    if (small) {
        printf("\nthe tournament of pairs, round by round:");
        draw_rounds();
    }
    kit_set_snapshots(0);

    kit_reset_records();
    float by_blocks = block_max(a, n);
    double block_ms = kit_timed_ms();
    int block_launches = kit_launch_count();

    printf("%-22s %g\n", "maximum on the CPU:", expected);
    int right = report("tournament of pairs:", by_tournament, expected, tournament_ms, tournament_launches);
    right = report("block reduction:", by_blocks, expected, block_ms, block_launches) && right;
    if (!kit_on_gpu())
        printf("(cpu backend: the times say nothing about a GPU)\n");

    kit_print_reminder("lab5-max-reduction");
    free(a);
    return right ? 0 : 1;
}
