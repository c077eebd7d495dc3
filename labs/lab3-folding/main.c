/* main.c: the lab 3 program (fixed: do not edit).
 *
 *     lab [n] [seed] [unfold]
 *
 * Sums n seeded integers with your fold_sum(), prints the result beside the
 * CPU's, the time, and for n <= 32 the array after every round.  With a
 * third argument "unfold" it also tries fold_unfold() (going further).
 * Exit status: 0 when the sum is right, 1 when it is wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "kit_program.h"
#include "lab3.h"

enum { PICTURE_MAX = 32 };

static int power_of_two_above(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* The state after the last round, computed on the CPU (for the unfold test). */
static void fold_on_host(int *a, int n)
{
    for (int d = power_of_two_above(n) / 2; d >= 1; d /= 2)
        for (int i = 0; i < d && i + d < n; i++)
            a[i] += a[i + d];
}

/* Says what is wrong with the state after a round, if anything: the first
 * element that differs from the fold done on the CPU. */
static void judge_round(const int *state, const int *expected, int n, int live)
{
    for (int i = 0; i < n; i++) {
        if (state[i] == expected[i])
            continue;
        if (i < live)
            printf("   WRONG: A[%d] = %d, but after this round it should be %d\n", i, state[i], expected[i]);
        else
            printf("   WRONG: A[%d] = %d changed, but it lies outside the live part and should still be %d: no "
                   "round writes A[i] for i >= d\n", i, state[i], expected[i]);
        return;
    }
}

static void draw_rounds(const int *a, int n)
{
    int top = power_of_two_above(n);
    int *expected = malloc((size_t)n * sizeof *expected);
    memcpy(expected, a, (size_t)n * sizeof *expected);
    int folded = 0; /* rounds applied to expected[] */
    for (int k = 0; k < kit_snapshot_count(); k++) {
        const kit_snapshot *s = kit_snapshot_at(k);
        int width = top >> s->round;
        int live = width < n ? width : n;
        if (s->round == 0)
            printf("\nround 0, the array as copied to the device:\n");
        else
            printf("\nafter round %d (d = %d), the live part A[0..%d) is marked *:\n", s->round, width, live);
        kit_draw_ints(stdout, "   ", (const int *)s->data, (int)s->count, s->round == 0 ? -1 : 0, s->round == 0 ? -1 : live);
        for (; folded < s->round && (top >> (folded + 1)) >= 1; folded++) {
            int d = top >> (folded + 1);
            for (int i = 0; i < d && i + d < n; i++)
                expected[i] += expected[i + d];
        }
        if (folded == s->round && s->count == (size_t)n)
            judge_round((const int *)s->data, expected, n, s->round == 0 ? n : live);
    }
    free(expected);
    printf("\n");
}

static int try_unfold(const int *a, int n)
{
    int *state = malloc((size_t)n * sizeof *state);
    memcpy(state, a, (size_t)n * sizeof *state);
    fold_on_host(state, n);
    fold_unfold(state, n);
    int first_wrong = -1;
    for (int i = 0; i < n && first_wrong < 0; i++)
        if (state[i] != a[i])
            first_wrong = i;
    if (first_wrong < 0)
        printf("unfold: every element is back to its original value\n");
    else
        printf("unfold: A[%d] = %d after unfolding, but the original was %d\n", first_wrong, state[first_wrong],
               a[first_wrong]);
    free(state);
    return first_wrong < 0;
}

int main(int argc, char **argv)
{
    int n = kit_arg_n(argc, argv, 13, 1 << 30, "[n, 1..2^30] [seed] [unfold]");
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    int unfold = argc > 3 && strcmp(argv[3], "unfold") == 0;

    int *a = kit_host_array((size_t)n, sizeof *a, n);
    kit_fill_ints(a, (size_t)n, 0, 9, seed);
    printf("lab3 folding: n = %d, seed = %llu, %d rounds expected, device: %s\n", n, seed,
           kit_halving_rounds(n), kit_device_name());

    int small = n <= PICTURE_MAX;
    kit_set_snapshots(small);
    kit_set_timing(1);
    kit_reset_records();
    double started = kit_wall_ms();
    int sum = fold_sum(a, n);
    double call_ms = kit_wall_ms() - started;

    if (small)
        draw_rounds(a, n);
    long long expected = kit_sum_ints(a, (size_t)n);
    int right = sum == expected;
    printf("sum on the device: %d\n", sum);
    printf("sum on the CPU:    %lld   %s\n", expected, right ? "(same)" : "(WRONG)");
    printf("time: %.3f ms in %d kernel launches; %.3f ms for the whole call (allocation and copies too)\n",
           kit_timed_ms(), kit_launch_count(), call_ms);
    if (!small)
        printf("(pictures of the rounds are drawn for n <= %d)\n", PICTURE_MAX);

    if (unfold)
        right = try_unfold(a, n) && right;
    kit_print_reminder("lab3-folding");
    free(a);
    return right ? 0 : 1;
}
