/* dot_inputs.h: the input vectors of the dot-product labs' suites (6 and 7),
 * and how feedback names them. */
#ifndef DOT_INPUTS_H
#define DOT_INPUTS_H

#include <stdint.h>

typedef struct {
    float *x, *y;
    int n;
    uint64_t seed;
    char kind[64]; /* how feedback describes the data */
} vectors;

/* Whole numbers, in [0, 3] while 9n < 2^24, else in [0, 1] (n <= 2^24):
 * every partial sum is exact, so any summation order gives the exact dot. */
vectors exact_vectors(int n, uint64_t seed);
/* Uniform floats in [lo, hi), for the tolerance tests. */
vectors random_vectors(int n, uint64_t seed, float lo, float hi);
void free_vectors(vectors *v);
/* "n = 1000 (whole numbers in [0, 3], seed 123)" (a static buffer) */
const char *case_text(const vectors *v);

#endif
