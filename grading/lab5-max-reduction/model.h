/* grading/lab5-max-reduction/model.h: the grader's model of lab 5's tournament of
 * pairs, which grading/lab5-max-reduction/suite.c checks the student's states
 * against.  A student copy holds this header and the compiled model, not its
 * source: the source answers the lab's TODOs (see docs/developing.md,
 * "a lab's model"). */
#ifndef MODELS_LAB5_MAX_REDUCTION_H
#define MODELS_LAB5_MAX_REDUCTION_H

/* The ceil(n / 2^round) values after `round` rounds of the tournament of
 * pairs on a[0..n-1], into state: B[t] the largest of a[tW .. min((t + 1)W, n)), W = 2^round. */
void lab5_tournament_state(const float *a, int n, int round, float *state);

/* The n values after `round` rounds of lab 4's in-place tournament with max
 * on a[0..n-1], into state: "the other algorithm", which max_invariant_holds
 * must reject. */
void lab5_in_place_state(const float *a, int n, int round, float *state);

/* 1 when the first ceil(n / 2^round) values of `state` are, bit for bit,
 * what `round` rounds on a[] leave, else 0: what max_invariant_holds must decide. */
int lab5_invariant_holds(const float *a, const float *state, int n, int round);

#endif
