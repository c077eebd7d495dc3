/* grading/lab3-folding/model.c: the grader's model of lab 3's rounds.
 * (dist: compiled only: these functions answer the lab's TODOs, the
 * invariant predicate above all, so a student copy holds their object,
 * prebuilt/host/grading/lab3-folding/model.o, and lab3-folding/model.h,
 * not this source.) */
#include <string.h>

#include "model.h"

static int power_of_two_above(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* The width whose residue class element i holds after `round` rounds: the
 * live width while i is live, else the width of the last round it was live
 * in (the smallest power of two above i). */
int lab3_class_width(int n, int round, int i)
{
    int live_width = power_of_two_above(n) >> round;
    int frozen_width = power_of_two_above(i + 1);
    return live_width > frozen_width ? live_width : frozen_width;
}

long long lab3_class_sum(const int *a, int n, int i, int width)
{
    long long s = 0;
    for (int j = i; j < n; j += width)
        s += a[j];
    return s;
}

/* The whole state after `round` rounds, computed on the host. */
void lab3_fold_state(const int *a, int n, int round, int *state)
{
    for (int i = 0; i < n; i++)
        state[i] = (int)lab3_class_sum(a, n, i, lab3_class_width(n, round, i));
}

/* The tournament's state after `round` rounds (lab 4), for "the other algorithm". */
void lab3_tournament_state(const int *a, int n, int round, int *state)
{
    memcpy(state, a, (size_t)n * sizeof *state);
    for (int r = 1; r <= round; r++) {
        int d = 1 << (r - 1);
        for (int i = 0; i + d < n; i += 2 * d)
            state[i] += state[i + d];
    }
}

/* The invariant as fold_invariant_holds() must decide it (the live part). */
int lab3_live_part_holds(const int *a, const int *state, int n, int round)
{
    int width = power_of_two_above(n) >> round;
    for (int i = 0; i < width && i < n; i++)
        if (state[i] != lab3_class_sum(a, n, i, width))
            return 0;
    return 1;
}
