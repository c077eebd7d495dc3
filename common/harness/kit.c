/* kit.c: the plain-C half of the harness (see kit.h and kit_internal.h).
 * Errors, data, references, tolerance, the in-memory records and pictures.
 * Nothing here calls CUDA, so the grader links it too. */
#include "kit_internal.h"
#include "kit_program.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Errors ------------------------------------------------------------ */

static kit_error_handler error_handler;

void kit_set_error_handler(kit_error_handler handler) { error_handler = handler; }

void kit_fail(const char *file, int line, const char *fmt, ...)
{
    char message[2048];
    int used = snprintf(message, sizeof message, "%s:%d: ", file, line);
    va_list args;
    va_start(args, fmt);
    vsnprintf(message + used, sizeof message - (size_t)used, fmt, args);
    va_end(args);
    if (error_handler)
        error_handler(message); /* the grader's handler does not return */
    fflush(stdout);
    fprintf(stderr, "%s\n", message);
    exit(1);
}

static const char *first_pending_todo;

void kit_not_implemented(const char *todo)
{
    if (first_pending_todo)
        return;
    first_pending_todo = todo;
    fprintf(stderr, "note: %s is not implemented yet, so what depends on it below is wrong.\n", todo);
}

const char *kit_todo_pending(void) { return first_pending_todo; }

/* ---- Timing (host side) ------------------------------------------------ */

double kit_wall_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kit_median(double *values, int count)
{
    if (count <= 0)
        return NAN;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* ---- Seeded data (splitmix64: tiny, fast, the same everywhere) ---------- */

kit_rng kit_rng_new(uint64_t seed)
{
    kit_rng rng = {seed};
    return rng;
}

uint64_t kit_rng_next(kit_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* in [0, 1) */
static double rng_uniform(kit_rng *rng) { return (double)(kit_rng_next(rng) >> 11) * 0x1.0p-53; }

static int rng_int(kit_rng *rng, int lo, int hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
    return (int)(lo + (int64_t)(kit_rng_next(rng) % span));
}

void kit_fill_ints(int *a, size_t n, int lo, int hi, uint64_t seed)
{
    kit_rng rng = kit_rng_new(seed);
    for (size_t i = 0; i < n; i++)
        a[i] = rng_int(&rng, lo, hi);
}

void kit_fill_small_floats(float *a, size_t n, int lo, int hi, uint64_t seed)
{
    kit_rng rng = kit_rng_new(seed);
    for (size_t i = 0; i < n; i++)
        a[i] = (float)rng_int(&rng, lo, hi);
}

void kit_fill_uniform(float *a, size_t n, float lo, float hi, uint64_t seed)
{
    kit_rng rng = kit_rng_new(seed);
    for (size_t i = 0; i < n; i++)
        a[i] = lo + (hi - lo) * (float)rng_uniform(&rng);
}

/* ---- References in double precision ------------------------------------ */

long long kit_sum_ints(const int *a, size_t n)
{
    long long s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

double kit_dot(const float *x, const float *y, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)x[i] * (double)y[i];
    return s;
}

double kit_abs_dot(const float *x, const float *y, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += fabs((double)x[i] * (double)y[i]);
    return s;
}

float kit_max_floats(const float *a, size_t n)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (a[i] > m)
            m = a[i];
    return m;
}

/* ---- The tolerance policy ------------------------------------------------ */

double kit_error_units(double got, double exact, double abs_sum)
{
    double error = fabs(got - exact);
    if (abs_sum == 0)
        return error == 0 ? 0 : INFINITY;
    return error / (KIT_UNIT_ROUNDOFF * abs_sum);
}

int kit_within_tolerance(double got, double exact, double abs_sum, double c)
{
    if (isnan(got) || isnan(exact))
        return 0;
    /* Written so that NaN in any term compares false. */
    return fabs(got - exact) <= c * KIT_UNIT_ROUNDOFF * abs_sum;
}

/* ---- The records: snapshots and launches ---------------------------
 * Kept here (plain C) and filled by kit_cuda.cu; each program or shared
 * object has its own. */

static int snapshots_enabled;
static kit_snapshot *snapshots;
static int snapshot_total, snapshot_capacity;

static kit_launch *launches;
static int launch_total, launch_capacity;

static void *grow(void *array, int *capacity, size_t element_size)
{
    int wanted = *capacity ? 2 * *capacity : 64;
    void *bigger = realloc(array, (size_t)wanted * element_size);
    if (!bigger) {
        fprintf(stderr, "kit: out of host memory for its records\n");
        exit(1);
    }
    *capacity = wanted;
    return bigger;
}

void kit_set_snapshots(int on) { snapshots_enabled = on; }
int kit_snapshots_on(void) { return snapshots_enabled; }
int kit_snapshot_count(void) { return snapshot_total; }
const kit_snapshot *kit_snapshot_at(int i) { return i >= 0 && i < snapshot_total ? &snapshots[i] : NULL; }

/* The record keepers below are the harness's own (KIT_INTERNAL, in
 * kit_internal.h): kit_cuda.cu calls them; the runner reads the records
 * through the accessors above them. */

/* Takes ownership of `data` (malloc'ed by the caller). */
KIT_INTERNAL void kit_keep_snapshot(void *data, size_t count, size_t element_size, int round,
                                    const void *device_array, const char *file, int line)
{
    if (snapshot_total == snapshot_capacity)
        snapshots = grow(snapshots, &snapshot_capacity, sizeof *snapshots);
    kit_snapshot s = {round, count, element_size, data, (uint64_t)(uintptr_t)device_array, file, line};
    snapshots[snapshot_total++] = s;
}

int kit_launch_count(void) { return launch_total; }
const kit_launch *kit_launch_at(int i) { return i >= 0 && i < launch_total ? &launches[i] : NULL; }

KIT_INTERNAL kit_launch *kit_latest_launch(void) { return launch_total ? &launches[launch_total - 1] : NULL; }

KIT_INTERNAL void kit_keep_launch(const kit_launch *launch)
{
    if (launch_total == launch_capacity)
        launches = grow(launches, &launch_capacity, sizeof *launches);
    launches[launch_total++] = *launch;
}

static kit_copy *copies;
static int copy_total, copy_capacity;

int kit_copy_count(void) { return copy_total; }
const kit_copy *kit_copy_at(int i) { return i >= 0 && i < copy_total ? &copies[i] : NULL; }

KIT_INTERNAL void kit_keep_copy(const kit_copy *copy)
{
    if (copy_total == copy_capacity)
        copies = grow(copies, &copy_capacity, sizeof *copies);
    copies[copy_total] = *copy;
    copies[copy_total++].launches_before = launch_total;
}

/* Eight bytes at a time, so that checking a copy of 64 MB costs a few
 * milliseconds; not cryptographic, only unlikely to match by accident. */
/* One lane of kit_checksum: a multiply, then high bits folded down. */
static uint64_t checksum_step(uint64_t h, const unsigned char *p)
{
    uint64_t word;
    memcpy(&word, p, 8);
    h = (h ^ word) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

uint64_t kit_checksum(const void *bytes, size_t size)
{
    /* four independent lanes, so that the multiplications overlap: the copy
     * record takes the checksum of every array a call copies, hundreds of
     * megabytes on a GPU */
    const unsigned char *p = bytes;
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ size, b = 0xc2b2ae3d27d4eb4fULL, c = 0x165667b19e3779f9ULL,
             d = 0x27d4eb2f165667c5ULL;
    size_t i = 0;
    for (; i + 32 <= size; i += 32) {
        a = checksum_step(a, p + i);
        b = checksum_step(b, p + i + 8);
        c = checksum_step(c, p + i + 16);
        d = checksum_step(d, p + i + 24);
    }
    uint64_t h = ((a * 31 + b) * 31 + c) * 31 + d;
    for (; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

static double timed_total_ms;
KIT_INTERNAL void kit_add_timed_ms(double ms) { timed_total_ms += ms; }
double kit_timed_ms(void) { return timed_total_ms; }

void kit_reset_records(void)
{
    for (int i = 0; i < snapshot_total; i++)
        free((void *)snapshots[i].data);
    snapshot_total = 0;
    launch_total = 0;
    copy_total = 0;
    timed_total_ms = 0;
}

/* ---- Pictures ------------------------------------------------------------- */

static void draw_row(FILE *out, const char *prefix, int n, int width, const char *cells, int mark_from, int mark_to)
{
    fprintf(out, "%s+", prefix);
    for (int i = 0; i < n; i++)
        fprintf(out, "%.*s+", width, "----------------------------------------");
    fprintf(out, "\n%s|", prefix);
    for (int i = 0; i < n; i++) {
        int marked = i >= mark_from && i < mark_to;
        fprintf(out, "%*.*s%c", width, width, cells + (size_t)i * 32, marked ? '*' : (i + 1 < n ? ' ' : '|'));
    }
    fprintf(out, "\n%s+", prefix);
    for (int i = 0; i < n; i++)
        fprintf(out, "%.*s+", width, "----------------------------------------");
    fprintf(out, "\n");
}

/* Cells are formatted first so that every box gets the width of the widest;
 * a holds n ints, or n floats when floats is set. */
static void draw(FILE *out, const char *prefix, const void *a, int floats, int n, int mark_from, int mark_to)
{
    if (n <= 0)
        return;
    char *cells = malloc((size_t)n * 32);
    int width = 3;
    for (int i = 0; i < n; i++) {
        char *cell = cells + (size_t)i * 32;
        if (floats)
            snprintf(cell, 32, "%g", ((const float *)a)[i]);
        else
            snprintf(cell, 32, "%d", ((const int *)a)[i]);
        if ((int)strlen(cell) > width)
            width = (int)strlen(cell);
    }
    draw_row(out, prefix ? prefix : "", n, width, cells, mark_from, mark_to);
    free(cells);
}

void kit_draw_ints(FILE *out, const char *prefix, const int *a, int n, int mark_from, int mark_to)
{
    draw(out, prefix, a, 0, n, mark_from, mark_to);
}

void kit_draw_floats(FILE *out, const char *prefix, const float *a, int n, int mark_from, int mark_to)
{
    draw(out, prefix, a, 1, n, mark_from, mark_to);
}

/* ---- The labs' programs (kit_program.h) ------------------------------------------ */

long kit_arg_long(int argc, char **argv, int i, long fallback)
{
    return argc > i ? strtol(argv[i], NULL, 10) : fallback;
}

long kit_arg_n(int argc, char **argv, long fallback, long max, const char *usage)
{
    long n = kit_arg_long(argc, argv, 1, fallback);
    if (n < 1 || n > max)
        kit_usage_exit(argv[0], usage);
    return n;
}

unsigned long long kit_arg_seed(int argc, char **argv, int i)
{
    return argc > i ? strtoull(argv[i], NULL, 10) : 1;
}

void kit_usage_exit(const char *program, const char *arguments)
{
    fprintf(stderr, "usage: %s %s\n", program, arguments);
    exit(2);
}

int kit_is_power_of_two_in(int v, int lo, int hi)
{
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

int kit_halving_rounds(long n)
{
    int rounds = 0;
    while ((1LL << rounds) < n)
        rounds++;
    return rounds;
}

void *kit_host_array(size_t count, size_t size, long n)
{
    void *array = malloc((count ? count : 1) * size);
    if (!array) {
        fprintf(stderr, "not enough host memory for n = %ld\n", n);
        exit(2);
    }
    return array;
}

kit_dot_vectors kit_dot_vectors_make(int n, int small, unsigned long long seed)
{
    kit_dot_vectors v = {kit_host_array((size_t)n, sizeof(float), n), kit_host_array((size_t)n, sizeof(float), n),
                         n, small, 0, 0};
    if (small) {
        kit_fill_small_floats(v.x, (size_t)n, 0, 3, seed);
        kit_fill_small_floats(v.y, (size_t)n, 0, 3, seed + 1);
    } else {
        kit_fill_uniform(v.x, (size_t)n, 0.0f, 1.0f, seed);
        kit_fill_uniform(v.y, (size_t)n, 0.0f, 1.0f, seed + 1);
    }
    v.exact = kit_dot(v.x, v.y, (size_t)n);
    v.abs_dot = kit_abs_dot(v.x, v.y, (size_t)n);
    return v;
}

const char *kit_dot_vectors_words(const kit_dot_vectors *v)
{
    return v->small ? "whole numbers in [0, 3], so every order of the sum is exact" : "uniform in [0, 1)";
}

void kit_dot_vectors_free(kit_dot_vectors *v)
{
    free(v->x);
    free(v->y);
    v->x = v->y = NULL;
}

void kit_print_reminder(const char *handout)
{
    if (kit_todo_pending())
        printf("reminder: %s is not done yet; see handouts/%s.md\n", kit_todo_pending(), handout);
}
