/* grading/lab4-tournament/model.h: the grader's model of lab 4's rounds, which
 * grading/lab4-tournament/suite.c checks the student's states against.  A student
 * copy holds this header and the compiled model, not its source: the source
 * answers the lab's TODOs (see docs/developing.md, "a lab's model"). */
#ifndef MODELS_LAB4_TOURNAMENT_H
#define MODELS_LAB4_TOURNAMENT_H

/* The width of the block that A[i] sums after `round` rounds: 2^round for
 * a winner (a multiple of 2^round), else the block it had when it last won
 * (as wide as the lowest set bit of i). */
long long lab4_block_width(int round, int i);

/* a[i] + ... + a[min(i + width, n) - 1]. */
long long lab4_block_sum(const int *a, int n, long long i, long long width);

/* The whole array after `round` rounds of the tournament on a[0..n-1], into state. */
void lab4_tournament_state(const int *a, int n, int round, int *state);

/* The array after `round` rounds of lab 3's folding on a[0..n-1], into
 * state: "the other algorithm", which tournament_invariant_holds must reject. */
void lab4_folding_state(const int *a, int n, int round, int *state);

/* 1 when every winner of `state` (every multiple of 2^round) holds its
 * block's sum after `round` rounds on a[], else 0: what
 * tournament_invariant_holds must decide. */
int lab4_winners_hold(const int *a, const int *state, int n, int round);

#endif
