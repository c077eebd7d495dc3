/* dot.c: the inputs and library rows of the dot-product benches (dot.h). */
#include "dot.h"

#include <stdlib.h>

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
    bench_result warm = lib_dot(x, y, (size_t)n, 1, exact, abs_sum, &options->plan);
    bench_result cold = lib_dot(x, y, (size_t)n, 0, exact, abs_sum, &options->plan);
    bench_library_rows(options, "cuBLAS Sdot", n, bytes, &warm, &cold);
}

bench_dot_vectors bench_dot_start(const bench_options *options)
{
    if (options->reference)
        bench_ceiling(options);
    size_t largest = bench_largest_size(options);
    bench_dot_vectors v = {bench_host_alloc(largest * sizeof(float)), bench_host_alloc(largest * sizeof(float)), 0, 0};
    return v;
}

void bench_dot_size(const bench_options *options, bench_dot_vectors *v, long n)
{
    bench_dot_inputs(v->x, v->y, n, &v->exact, &v->abs_sum);
    if (options->reference)
        bench_dot_library_rows(options, v->x, v->y, n, v->exact, v->abs_sum);
}

void bench_dot_end(bench_dot_vectors *v)
{
    bench_host_free(v->x);
    bench_host_free(v->y);
}

double bench_dot_checked(bench_lab *lab, float got, const bench_dot_vectors *v, double c, char *note)
{
    double ms = bench_lab_elapsed(lab, note);
    if (ms < 0)
        return ms;
    return bench_check_sum(got, v->exact, v->abs_sum, c, note) ? ms : -1;
}

int bench_dot_block_size(void)
{
    const char *text = getenv("BENCH_BLOCK");
    return text && atoi(text) >= 32 ? atoi(text) : 256;
}
