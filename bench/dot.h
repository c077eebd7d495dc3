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

/* The vectors of a dot-product bench: x and y with room for the run's
 * largest size, and at the size last made, the exact dot product and the
 * sum of |x[i] y[i]|. */
typedef struct {
    float *x, *y;
    double exact, abs_sum;
} bench_dot_vectors;
/* The vectors, after the ceiling's rows on the reference side. */
bench_dot_vectors bench_dot_start(const bench_options *options);
/* x and y at size n (bench_dot_inputs), then, on the reference side, the library's rows. */
void bench_dot_size(const bench_options *options, bench_dot_vectors *v, long n);
void bench_dot_end(bench_dot_vectors *v);

/* The end of one run: the device time since bench_lab_start, or a negative
 * number (with the note) when there was none or got is out of the
 * tolerance with constant c (the lab's DOT_TOLERANCE_C). */
double bench_dot_checked(bench_lab *lab, float got, const bench_dot_vectors *v, double c, char *note);

/* The block size, from BENCH_BLOCK (default 256, at least 32). */
int bench_dot_block_size(void);

#endif
