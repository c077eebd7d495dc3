/* dot_inputs.c: see dot_inputs.h. */
#include "dot_inputs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"

static vectors new_vectors(int n, uint64_t seed)
{
    vectors v = {malloc((size_t)n * sizeof(float)), malloc((size_t)n * sizeof(float)), n, seed, ""};
    if (!v.x || !v.y)
        grade_fail("grading error: no host memory for n = %d", n);
    return v;
}

vectors exact_vectors(int n, uint64_t seed)
{
    vectors v = new_vectors(n, seed);
    int hi = 9.0 * n < 16777216.0 ? 3 : 1;
    kit_fill_small_floats(v.x, (size_t)n, 0, hi, seed);
    kit_fill_small_floats(v.y, (size_t)n, 0, hi, seed ^ 0x9e3779b9u);
    snprintf(v.kind, sizeof v.kind, "whole numbers in [0, %d]", hi);
    return v;
}

vectors random_vectors(int n, uint64_t seed, float lo, float hi)
{
    vectors v = new_vectors(n, seed);
    kit_fill_uniform(v.x, (size_t)n, lo, hi, seed);
    kit_fill_uniform(v.y, (size_t)n, lo, hi, seed ^ 0x9e3779b9u);
    snprintf(v.kind, sizeof v.kind, "uniform in [%g, %g)", lo, hi);
    return v;
}

vectors mixed_sign_vectors(int n, uint64_t seed)
{
    return random_vectors(n, seed, -0.5f, 1.0f);
}

vectors zero_dot_vectors(int n, uint64_t seed)
{
    vectors v = exact_vectors(n, seed);
    memset(v.x, 0, (size_t)n * sizeof(float));
    snprintf(v.kind, sizeof v.kind, "x all 0, y whole numbers: the dot is exactly 0");
    return v;
}

void free_vectors(vectors *v)
{
    free(v->x);
    free(v->y);
}

const char *case_text(const vectors *v)
{
    static char text[160];
    snprintf(text, sizeof text, "n = %d (%s, seed %llu)", v->n, v->kind, (unsigned long long)v->seed);
    return text;
}

int dot_all_zero(const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < size; i++)
        if (p[i])
            return 0;
    return 1;
}

int dot_same_as_input(const void *bytes, size_t size, const vectors *v)
{
    return size == (size_t)v->n * sizeof(float) && (!memcmp(bytes, v->x, size) || !memcmp(bytes, v->y, size));
}

const char *dot_schedule_text(const char *schedule)
{
    static char text[64];
    if (grade_on_gpu())
        return "";
    snprintf(text, sizeof text, ", schedule %s", schedule);
    return text;
}

/* The hint for a result made from the cpu backend's guard bytes: x and y
 * read past their end, or an array the code made (the partials). */
static const char *guard_hint(float got, double exact, const vectors *v)
{
    char arrays[96];
    snprintf(arrays, sizeof arrays, "x and y (n = %d each), or of an array of partials", v->n);
    return grade_guard_hint_float(got, exact, arrays, -1);
}

void dot_check_exact(const char *call, float got, const vectors *v, const char *hint)
{
    double exact = kit_dot(v->x, v->y, (size_t)v->n);
    if (got == (float)exact)
        return;
    if (isnan(got) || fabs(got) > 1e37) /* far beyond any sum of these data */
        grade_fail("%s, %s: returned %g but the dot product is %.0f. %s%s%s", call, case_text(v), got, exact,
                   grade_on_gpu() ? "The data hold no such value, so something read memory that was never written"
                                  : "On the cpu backend shared memory starts out filled with NaN or about 3.4e38 "
                                    "(which one depends on the thread order), so this value means something read a "
                                    "slot of shared memory that no thread had written yet (a missing barrier, or a "
                                    "slot past the ones in use)",
                   hint ? ". " : "", hint ? hint : "");
    const char *guard = guard_hint(got, exact, v);
    if (*guard)
        grade_fail("%s, %s: returned %.9g but the dot product is %.0f%s", call, case_text(v), got, exact, guard);
    grade_fail("%s, %s: returned %.9g but the dot product is %.0f (off by %.9g). The data are whole numbers, so "
               "every order of the sum is exact: the difference is elements dropped or counted twice, or a lost "
               "update%s%s",
               call, case_text(v), got, exact, got - exact, hint ? ". " : "", hint ? hint : "");
}

void dot_check_tolerance(const char *call, float got, const vectors *v, double c, const char *hint)
{
    double exact = kit_dot(v->x, v->y, (size_t)v->n);
    double abs_dot = kit_abs_dot(v->x, v->y, (size_t)v->n);
    if (kit_within_tolerance(got, exact, abs_dot, c))
        return;
    const char *guard = guard_hint(got, exact, v);
    grade_fail("%s, %s: returned %.9g but the dot product is %.9g: an error of %.4g u (u = 2^-24 times "
               "sum|x_i y_i| = %.6g), more than the tolerance of %.0f u%s%s%s",
               call, case_text(v), got, exact, kit_error_units(got, exact, abs_dot), abs_dot, c, guard,
               hint && !*guard ? ". " : "", hint && !*guard ? hint : "");
}

void dot_time_against_reference(const char *fn, void (*call)(void *), void *mine, void *theirs, const vectors *v,
                                int block_size, const char *my_detail, const char *their_detail)
{
    double my_ms = grade_time_ms(grade_student(), call, mine, 2, 9);
    double ref_ms = grade_time_ms(grade_reference(), call, theirs, 2, 9);
    double bytes = 2.0 * v->n * sizeof(float);
    grade_note("%s, n = 2^26, blocks of %d threads: your %s %.3f ms%s (%.0f GB/s), the reference %.3f ms%s (%.0f GB/s); "
               "kernel time, median of 9",
               grade_device_name(), block_size, fn, my_ms, my_detail, bytes / (my_ms * 1e6), ref_ms, their_detail,
               bytes / (ref_ms * 1e6));
    grade_score(grade_perf_fraction(my_ms, ref_ms));
}

void dot_time_if_correct(const char *fn, void (*call)(void *), dot_timed_call *mine, dot_timed_call *theirs, double c,
                         const char *my_detail, const char *their_detail)
{
    char timed_run[96];
    snprintf(timed_run, sizeof timed_run, "%s (the timed run)", fn);
    call(mine);
    dot_check_tolerance(timed_run, mine->result, mine->v, c, "Only a correct result is timed");
    dot_time_against_reference(fn, call, mine, theirs, mine->v, mine->block_size, my_detail, their_detail);
}
