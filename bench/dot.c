/* dot.c: the inputs and library rows of the dot-product benches (dot.h). */
#include "dot.h"

#include "kit.h"
#include "libraries.h"

void bench_dot_inputs(float *x, float *y, long n, double *exact, double *abs_sum)
{
    /* Mixed signs but a mean of 1/4: the exact dot is about n/16 and the
     * tolerance about 1e-4 * 0.17 n, so 0 (a kernel that did nothing) is
     * thousands of tolerances off at every size.  With a zero mean the dot is
     * only about sqrt(n)/3 and 0 passes from n = 2^27 or so. */
    kit_fill_uniform(x, (size_t)n, -0.5f, 1.0f, (uint64_t)n);
    kit_fill_uniform(y, (size_t)n, -0.5f, 1.0f, (uint64_t)n + 1);
    *exact = kit_dot(x, y, (size_t)n);
    *abs_sum = kit_abs_dot(x, y, (size_t)n);
}

void bench_dot_library_rows(const bench_options *options, const float *x, const float *y, long n, double exact,
                            double abs_sum)
{
    double bytes = 8.0 * n; /* x and y, read once */
    bench_result r = lib_dot(x, y, (size_t)n, 1, exact, abs_sum, &options->plan);
    bench_row(options, "library", "cuBLAS Sdot", n, bytes, "GB/s", NULL, &r);
    r = lib_dot(x, y, (size_t)n, 0, exact, abs_sum, &options->plan);
    bench_row(options, "library-cold", "cuBLAS Sdot (inputs not in L2)", n, bytes, "GB/s", NULL, &r);
}
