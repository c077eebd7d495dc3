/* grading/lab3-folding/model.h: the grader's model of lab 3's rounds, which
 * grading/lab3-folding/suite.c checks the student's states against.  A student
 * copy holds this header and the compiled model, not its source: the source
 * answers the lab's TODOs (see docs/developing.md, "a lab's model"). */
#ifndef MODELS_LAB3_FOLDING_H
#define MODELS_LAB3_FOLDING_H

/* The width of the residue class that A[i] holds after `round` rounds of
 * folding n elements: P >> round while i is live, else the width of the
 * last round it was live in. */
int lab3_class_width(int n, int round, int i);

/* The sum of a[j] over j = i, i + width, i + 2 width, ... below n. */
long long lab3_class_sum(const int *a, int n, int i, int width);

/* The whole array after `round` rounds of folding a[0..n-1], into state. */
void lab3_fold_state(const int *a, int n, int round, int *state);

/* The array after `round` rounds of lab 4's tournament on a[0..n-1], into
 * state: "the other algorithm", which fold_invariant_holds must reject. */
void lab3_tournament_state(const int *a, int n, int round, int *state);

/* 1 when the live part of `state` is what `round` rounds of folding a[]
 * leave, else 0: what fold_invariant_holds must decide. */
int lab3_live_part_holds(const int *a, const int *state, int n, int round);

#endif
