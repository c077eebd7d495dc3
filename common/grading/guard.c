/* guard.c: whether a wrong value came from past the end of a device array.
 *
 * The cpu backend (common/cpu/src/memory.cpp) follows every device array
 * with guard bytes, all 0xA5, up to the end of its last page and one page
 * more.  A write there fails the launch at once; a read does not (no check
 * sees it), so a kernel that reads past the end of an array computes on with
 * the guard's value:
 *   an int:    0xA5A5A5A5 = -1515870811, and a sum it feeds is off by that
 *              much (modulo 2^32, as int sums wrap), or by a few times it;
 *   a float:   -2.87e-16, whose bytes are all 0xA5; a product of two such
 *              floats is 8.26e-32 (a dot product reading past both arrays);
 *   a double:  -2.50e-127, likewise.
 * These values are far from the labs' data (small whole numbers, floats of
 * about 1), so a wrong result that is, or is off by, a few of them is read
 * as a read past the end.  On a GPU memory past an array holds anything
 * (another array, zeros): no hint there. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"

#define GUARD_INT32 0xA5A5A5A5u
#define GUARD_INT64 0xA5A5A5A5A5A5A5A5ull
enum { MOST_GUARD_READS = 8 };    /* how many guard ints a wrong int may hold */
#define INT_SLACK (1 << 20)       /* the labs' data are small: "about" is within 2^20 */
#define MOST_GUARD_FLOATS 65536.0 /* a float sum may add many: a tree over a block reading past */

static float guard_float(void)
{
    uint32_t bits = GUARD_INT32;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static double guard_double(void)
{
    uint64_t bits = GUARD_INT64;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* "a, at a[13] or beyond" for an array named like a variable, else the name. */
static void name_the_place(char *out, size_t size, const char *array, long long n)
{
    int identifier = array && *array && !isdigit((unsigned char)*array);
    for (const char *c = array; identifier && *c; c++)
        identifier = isalnum((unsigned char)*c) || *c == '_';
    if (!array || !*array)
        snprintf(out, size, "a device array");
    else if (identifier && n >= 0)
        snprintf(out, size, "%s, at %s[%lld] or beyond", array, array, n);
    else if (n >= 0)
        snprintf(out, size, "%s (n = %lld)", array, n);
    else
        snprintf(out, size, "%s", array);
}

/* " (<what>: the cpu backend's guard bytes ... A thread read past the end of <place> ...)" */
static const char *guard_hint_text(const char *what, const char *array, long long n)
{
    static char text[700];
    char place[160];
    name_the_place(place, sizeof place, array, n);
    snprintf(text, sizeof text,
             " (%s: the cpu backend's guard bytes, which fill the memory after every device array. A thread read "
             "past the end of %s: does every thread check its index against the end of the array (n, or the part "
             "still in play) before it reads?)",
             what, place);
    return text;
}

/* The k, 1 <= |k| <= MOST_GUARD_READS, for which x is about k guard ints
 * (modulo 2^32), or 0. */
static int guard_ints_in(uint32_t x)
{
    for (int k = 1; k <= MOST_GUARD_READS; k++)
        for (int sign = -1; sign <= 1; sign += 2) {
            uint32_t multiple = (uint32_t)((int64_t)sign * k * (int64_t)(int32_t)GUARD_INT32);
            if (llabs((long long)(int32_t)(x - multiple)) < INT_SLACK)
                return sign * k;
        }
    return 0;
}

/* "plus 0xA5A5A5A5", "minus 2 x 0xA5A5A5A5" */
static void plus_guards(char *out, size_t size, int k)
{
    if (k == 1 || k == -1)
        snprintf(out, size, "%s 0xA5A5A5A5", k < 0 ? "minus" : "plus");
    else
        snprintf(out, size, "%s %d x 0xA5A5A5A5", k < 0 ? "minus" : "plus", abs(k));
}

const char *grade_guard_hint_int(long long got, long long needed, const char *array, long long n)
{
    if (grade_on_gpu())
        return "";
    char what[240], k_text[40];
    uint32_t off = (uint32_t)((uint64_t)got - (uint64_t)needed);
    int k;
    if ((uint32_t)got == GUARD_INT32) {
        snprintf(what, sizeof what, "%lld is 0xA5A5A5A5 as an int", got);
    } else if ((k = guard_ints_in(off)) != 0) {
        plus_guards(k_text, sizeof k_text, k);
        snprintf(what, sizeof what, "%lld is the right value, %lld, %s%s, as int sums wrap; 0xA5A5A5A5 is "
                 "-1515870811 as an int", got, needed, k_text,
                 off == (uint32_t)((int64_t)k * (int32_t)GUARD_INT32) ? "" : ", give or take a little");
    } else if ((k = guard_ints_in((uint32_t)got)) != 0) {
        plus_guards(k_text, sizeof k_text, k);
        snprintf(what, sizeof what, "%lld is about 0 %s, and 0xA5A5A5A5 is -1515870811 as an int", got, k_text);
    } else {
        return "";
    }
    return guard_hint_text(what, array, n);
}

/* The k, 1 <= |k| <= MOST_GUARD_FLOATS, for which x is k units, or 0. */
static double guard_units_in(double x, double unit)
{
    if (x == 0 || !isfinite(x))
        return 0;
    double r = x / unit, k = nearbyint(r);
    return k != 0 && fabs(k) <= MOST_GUARD_FLOATS && fabs(r - k) < 0.01 ? k : 0;
}

/* For a float or double result off from `needed` (NAN: not known): which
 * guard values it is off by, in `what`; 0 if none. */
static int off_by_guard_values(char *what, size_t size, double got, double needed)
{
    const double f = guard_float(), d = guard_double();
    const struct { double unit; const char *name; } units[] = {
        {f, "the float whose four bytes are all 0xA5"},
        {(double)f * f, "the product of two floats whose bytes are all 0xA5"},
        {d, "the double whose eight bytes are all 0xA5"},
        {d * d, "the product of two doubles whose bytes are all 0xA5"},
    };
    if (isnan(needed))
        return 0;
    for (int u = 0; u < (int)(sizeof units / sizeof units[0]); u++) {
        double k = guard_units_in(got - needed, units[u].unit);
        if (k == 1)
            snprintf(what, size, "%.9g is the right value, %.9g, plus %.3g, %s", got, needed, units[u].unit,
                     units[u].name);
        else if (k != 0)
            snprintf(what, size, "%.9g is the right value, %.9g, plus %.0f x %.3g, %s", got, needed, k,
                     units[u].unit, units[u].name);
        if (k != 0)
            return 1;
    }
    return 0;
}


/* A float widened to a double keeps its value: the guard float's bits
 * become the double equal to guard_float(), and no float widens to the
 * guard double's bits, so the double's hint is the float's. */
const char *grade_guard_hint_float(float got, double needed, const char *array, long long n)
{
    return grade_guard_hint_double(got, needed, array, n);
}

const char *grade_guard_hint_double(double got, double needed, const char *array, long long n)
{
    if (grade_on_gpu())
        return "";
    char what[240];
    uint64_t bits;
    memcpy(&bits, &got, sizeof bits);
    if (bits == GUARD_INT64)
        snprintf(what, sizeof what, "%.3g is the double whose eight bytes are all 0xA5", got);
    else if ((float)got == guard_float())
        snprintf(what, sizeof what, "%.3g is the float whose four bytes are all 0xA5", got);
    else if (!off_by_guard_values(what, sizeof what, got, needed))
        return "";
    return guard_hint_text(what, array, n);
}
