/* grading/lab6-shared-dot/model.c: the grader's model of lab 6's partials.
 * (dist: compiled only: these functions answer the lab's TODOs, the
 * invariant predicate dot_partials_hold above all, so a student copy holds
 * their object, prebuilt/host/grading/lab6-shared-dot/model.o, and
 * lab6-shared-dot/model.h, not this source.) */
#include <math.h>
#include <stdlib.h>

#include "kit.h"
#include "lab6.h"
#include "model.h"

/* The exact partials of the ownership rule, and the sums of |x_i y_i|. */
void lab6_owned_sums(const vectors *v, int block_size, int blocks, double *dot, double *abs_dot)
{
    for (int b = 0; b < blocks; b++)
        dot[b] = abs_dot[b] = 0.0;
    for (int i = 0; i < v->n; i++) {
        int owner = (i / block_size) % blocks;
        double p = (double)v->x[i] * (double)v->y[i];
        dot[owner] += p;
        abs_dot[owner] += fabs(p);
    }
}

/* The invariant as dot_partials_hold must decide it. */
int lab6_invariant_holds(const vectors *v, int block_size, int blocks, const float *partials)
{
    double *dot = malloc((size_t)blocks * sizeof(double)), *abs_dot = malloc((size_t)blocks * sizeof(double));
    lab6_owned_sums(v, block_size, blocks, dot, abs_dot);
    int holds = 1;
    for (int b = 0; b < blocks && holds; b++)
        holds = kit_within_tolerance(partials[b], dot[b], abs_dot[b], DOT_TOLERANCE_C);
    free(dot);
    free(abs_dot);
    return holds;
}
