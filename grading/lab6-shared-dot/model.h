/* grading/lab6-shared-dot/model.h: the grader's model of lab 6's partials, which
 * grading/lab6-shared-dot/suite.c checks the student's partials against.  A
 * student copy holds this header and the compiled model, not its source: the
 * source answers the lab's TODOs (see docs/developing.md, "a lab's model"). */
#ifndef MODELS_LAB6_SHARED_DOT_H
#define MODELS_LAB6_SHARED_DOT_H

#include "dot_inputs.h"

/* For each of `blocks` blocks of block_size threads, in double: dot[b], the
 * dot of the elements block b owns ((i / block_size) % blocks == b), and
 * abs_dot[b], the sum of their |x_i y_i|. */
void lab6_owned_sums(const vectors *v, int block_size, int blocks, double *dot, double *abs_dot);

/* 1 when every partial is within the tolerance (DOT_TOLERANCE_C) of the dot
 * of the elements its block owns, else 0: what dot_partials_hold must decide. */
int lab6_invariant_holds(const vectors *v, int block_size, int blocks, const float *partials);

#endif
