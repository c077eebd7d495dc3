/* bench_clock.h: the clocks and the median that the backend's benchmark
 * (bench.cu) and its OpenCL twin for PoCL (bench_opencl.c) both read, so
 * that the two tables are measured alike.  Plain C, for both compilers. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

/* Seconds on the wall clock. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Seconds of CPU time of the whole process, every thread. */
static inline double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int bench_by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0 .. n-1] (sorts v). */
static inline double median(double *v, int n)
{
    qsort(v, n, sizeof *v, bench_by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* BENCH_CLOCK_H */
