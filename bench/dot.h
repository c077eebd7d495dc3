/* dot.h: what the benches of the two dot-product labs (6 and 7) share. */
#ifndef BENCH_DOT_H
#define BENCH_DOT_H

#include "bench.h"

/* x and y at size n (n floats each, uniform in [-1, 1], the same at every
 * run), with their exact dot product and the sum of |x[i] y[i]|. */
void bench_dot_inputs(float *x, float *y, long n, double *exact, double *abs_sum);

/* The rows of cuBLAS Sdot on them: its inputs uploaded just before, as the
 * labs' are, and from device memory (not in L2). */
void bench_dot_library_rows(const bench_options *options, const float *x, const float *y, long n, double exact,
                            double abs_sum);

#endif
