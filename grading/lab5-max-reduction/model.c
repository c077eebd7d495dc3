/* grading/lab5-max-reduction/model.c: the grader's model of lab 5's tournament of pairs.
 * (dist: compiled only: these functions answer the lab's TODOs, the
 * invariant predicate above all, so a student copy holds their object,
 * prebuilt/host/grading/lab5-max-reduction/model.o, and
 * lab5-max-reduction/model.h, not this source.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Two of the suite's helpers, here too (block_best without the position). */
static int values_after(int n, int round) { return (int)((n + (1LL << round) - 1) >> round); }

/* The largest of a[from, to). */
static float block_best(const float *a, long long from, long long to)
{
    float best = -INFINITY;
    for (long long j = from; j < to; j++)
        if (a[j] > best)
            best = a[j];
    return best;
}

void lab5_tournament_state(const float *a, int n, int round, float *state)
{
    long long width = 1LL << round;
    for (int t = 0; t < values_after(n, round); t++)
        state[t] = block_best(a, t * width, (t + 1) * width < n ? (t + 1) * width : n);
}

/* Lab 4's tournament with max, in place, for "the other algorithm". */
void lab5_in_place_state(const float *a, int n, int round, float *state)
{
    memcpy(state, a, (size_t)n * sizeof *state);
    for (int r = 1; r <= round; r++) {
        int d = 1 << (r - 1);
        for (int i = 0; i + d < n; i += 2 * d)
            state[i] = fmaxf(state[i], state[i + d]);
    }
}

int lab5_invariant_holds(const float *a, const float *state, int n, int round)
{
    float *right = malloc((size_t)n * sizeof *right);
    lab5_tournament_state(a, n, round, right);
    int same = memcmp(right, state, (size_t)values_after(n, round) * sizeof *right) == 0;
    free(right);
    return same;
}
