/* grading/lab4-tournament/model.c: the grader's model of lab 4's rounds.
 * (dist: compiled only: these functions answer the lab's TODOs, the
 * invariant predicate above all, so a student copy holds their object,
 * prebuilt/host/grading/lab4-tournament/model.o, and
 * lab4-tournament/model.h, not this source.) */
#include <string.h>

#include "model.h"

/* The block element i sums after `round` rounds: W = 2^round for the
 * winners (multiples of W); for the others, the block they had when they
 * last won, as wide as the lowest set bit of i. */
long long lab4_block_width(int round, int i)
{
    long long width = 1LL << round;
    long long lowest = i ? (long long)(i & -i) : width;
    return lowest < width ? lowest : width;
}

long long lab4_block_sum(const int *a, int n, long long i, long long width)
{
    long long s = 0;
    for (long long j = i; j < i + width && j < n; j++)
        s += a[j];
    return s;
}

void lab4_tournament_state(const int *a, int n, int round, int *state)
{
    for (int i = 0; i < n; i++)
        state[i] = (int)lab4_block_sum(a, n, i, lab4_block_width(round, i));
}

/* Folding's state after `round` rounds (lab 3), for "the other algorithm". */
void lab4_folding_state(const int *a, int n, int round, int *state)
{
    int top = 1;
    while (top < n)
        top *= 2;
    memcpy(state, a, (size_t)n * sizeof *state);
    for (int r = 1; r <= round; r++) {
        int d = top >> r;
        for (int i = 0; i < d && i + d < n; i++)
            state[i] += state[i + d];
    }
}

/* The invariant as tournament_invariant_holds() must decide it (the winners). */
int lab4_winners_hold(const int *a, const int *state, int n, int round)
{
    long long width = 1LL << round;
    for (long long i = 0; i < n; i += width)
        if (state[i] != lab4_block_sum(a, n, i, width))
            return 0;
    return 1;
}
