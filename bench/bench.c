/* bench.c: options, the repeat loop, the lab's shared object and the CSV rows
 * (see bench.h).  Plain C: the CUDA side is in libraries.cu. */
#include "bench.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

/* ---- The repeat loop -------------------------------------------------------- */

bench_result bench_repeat(const bench_plan *plan, bench_run_fn run, void *context)
{
    bench_result result;
    memset(&result, 0, sizeof result);
    result.median_ms = result.min_ms = result.max_ms = NAN;

    for (int i = 0; i < plan->warmups; i++)
        if (run(context, result.note) < 0)
            return result; /* ok = 0: the note says why */

    double *times = malloc((size_t)plan->max_runs * sizeof *times);
    if (!times) {
        snprintf(result.note, sizeof result.note, "no host memory");
        return result;
    }
    double started = kit_wall_ms();
    int runs = 0;
    while (runs < plan->max_runs &&
           (runs < plan->min_runs || kit_wall_ms() - started < 1e3 * plan->min_seconds)) {
        double ms = run(context, result.note);
        if (ms < 0) {
            free(times);
            result.runs = runs;
            return result;
        }
        times[runs++] = ms;
    }
    result.runs = runs;
    result.ok = 1;
    result.median_ms = kit_median(times, runs); /* sorts them */
    result.min_ms = times[0];
    result.max_ms = times[runs - 1];
    free(times);
    return result;
}

/* ---- Options ----------------------------------------------------------------------- */

static const char *option_value(int argc, char **argv, const char *name, const char *fallback)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], name, len) == 0 && argv[i][len] == '=')
            return argv[i] + len + 1;
    return fallback;
}

/* Reads a list of numbers such as "16 20 24" into out[]; returns the count. */
static int parse_list(const char *text, long *out, int max)
{
    int count = 0;
    char *end;
    while (text && *text && count < max) {
        long value = strtol(text, &end, 10);
        if (end == text) {
            text++;
            continue;
        }
        out[count++] = value;
        text = end;
    }
    return count;
}

bench_options bench_parse(int argc, char **argv)
{
    bench_options o;
    memset(&o, 0, sizeof o);
    o.lab = option_value(argc, argv, "--lab", NULL);
    o.side = option_value(argc, argv, "--side", "reference");
    o.build = option_value(argc, argv, "--build", "build/gpu");
    const char *csv = option_value(argc, argv, "--csv", NULL);
    if (!o.lab || !csv || (strcmp(o.side, "reference") != 0 && strcmp(o.side, "student") != 0)) {
        fprintf(stderr, "usage: %s --lab=labN-name --side=reference|student --csv=FILE [--build=DIR]\n", argv[0]);
        exit(2);
    }
    o.csv = fopen(csv, "a");
    if (!o.csv) {
        perror(csv);
        exit(2);
    }
    o.reference = strcmp(o.side, "reference") == 0;
    o.who = o.reference ? "solution" : "student";

    const char *quick = getenv("BENCH_QUICK");
    int is_quick = quick && *quick && strcmp(quick, "0") != 0;
    long log2_sizes[BENCH_MAX_SIZES];
    int count = parse_list(getenv("BENCH_SIZES"), log2_sizes, BENCH_MAX_SIZES);
    if (count == 0) {
        static const long full[] = {16, 18, 20, 22, 24, 26, 28}, fast[] = {16, 20, 24, 28};
        const long *chosen = is_quick ? fast : full;
        count = is_quick ? 4 : 7;
        memcpy(log2_sizes, chosen, (size_t)count * sizeof *chosen);
    }
    for (int i = 0; i < count; i++)
        if (log2_sizes[i] >= 0 && log2_sizes[i] <= 30)
            o.sizes[o.size_count++] = 1L << log2_sizes[i];

    o.side_count = parse_list(getenv("BENCH_MATMUL"), o.sides, BENCH_MAX_SIZES);
    if (o.side_count == 0) {
        static const long full[] = {512, 1024, 2048, 4096}, fast[] = {1024, 4096};
        o.side_count = is_quick ? 2 : 4;
        memcpy(o.sides, is_quick ? fast : full, (size_t)o.side_count * sizeof *full);
    }

    /* The quick plan still takes a median of at least 5 runs after 2 warm-ups. */
    bench_plan quick_plan = {2, 5, 200, 0.15}, full_plan = {3, 10, 1000, 0.5};
    o.plan = is_quick ? quick_plan : full_plan;
    return o;
}

/* ---- The lab's shared object ---------------------------------------------------------- */

struct bench_lab {
    void *handle;
    char path[512];
    void (*reset_records)(void);
    void (*set_timing)(int);
    double (*timed_ms)(void);
    int (*launch_count)(void);
};

static void *harness_symbol(bench_lab *lab, const char *name)
{
    void *symbol = dlsym(lab->handle, name);
    if (!symbol) {
        fprintf(stderr, "bench: %s has no %s (is it built with the kit's harness?)\n", lab->path, name);
        exit(2);
    }
    return symbol;
}

bench_lab *bench_open(const bench_options *options)
{
    bench_lab *lab = calloc(1, sizeof *lab);
    snprintf(lab->path, sizeof lab->path, "%s/%s/%s.so", options->build, options->lab, options->side);
    /* RTLD_LOCAL: each shared object keeps its own harness (its own records). */
    lab->handle = dlopen(lab->path, RTLD_NOW | RTLD_LOCAL);
    if (!lab->handle) {
        fprintf(stderr, "bench: cannot load %s: %s\n", lab->path, dlerror());
        exit(2);
    }
    lab->reset_records = (void (*)(void))harness_symbol(lab, "kit_reset_records");
    lab->set_timing = (void (*)(int))harness_symbol(lab, "kit_set_timing");
    lab->timed_ms = (double (*)(void))harness_symbol(lab, "kit_timed_ms");
    lab->launch_count = (int (*)(void))harness_symbol(lab, "kit_launch_count");
    lab->set_timing(1);
    kit_set_timing(1); /* this program's own harness too (bench_lab_start(NULL)) */
    return lab;
}

void *bench_symbol(bench_lab *lab, const char *name)
{
    void *symbol = dlsym(lab->handle, name);
    if (!symbol)
        fprintf(stderr, "bench: %s has no entry point %s: its rows are skipped\n", lab->path, name);
    return symbol;
}

void bench_lab_start(bench_lab *lab) { lab ? lab->reset_records() : kit_reset_records(); }

int bench_lab_launches(bench_lab *lab) { return lab ? lab->launch_count() : kit_launch_count(); }

double bench_lab_elapsed(bench_lab *lab, char *note)
{
    double ms = lab ? lab->timed_ms() : kit_timed_ms();
    int launches = bench_lab_launches(lab);
    if (launches == 0) {
        snprintf(note, 200, "no kernel launch went through LAUNCH, so nothing was timed");
        return -1;
    }
    if (!(ms > 0)) {
        snprintf(note, 200, "%d launches but no timed device time (a launch outside LAUNCH?)", launches);
        return -1;
    }
    return ms;
}

/* ---- CSV rows --------------------------------------------------------------------------- */

/* Text fields lose commas and quotes so that the CSV stays one field per column. */
static void csv_text(FILE *out, const char *text)
{
    for (; text && *text; text++)
        fputc(*text == ',' ? ';' : *text == '"' || *text == '\n' ? ' ' : *text, out);
}

static void row(const bench_options *o, const char *side, const char *version, long size, int runs,
                double median, double lo, double hi, double work, const char *unit, const char *check,
                const char *target, const char *note)
{
    fprintf(o->csv, "%s,%s,", o->lab, side);
    csv_text(o->csv, version);
    fprintf(o->csv, ",%ld,%d,%.6g,%.6g,%.6g,%.6g,%s,%s,%s,", size, runs, median, lo, hi, work, unit, check,
            target ? target : "");
    csv_text(o->csv, note);
    fputc('\n', o->csv);
    fflush(o->csv);
}

void bench_row(const bench_options *o, const char *side, const char *version, long size, double work,
               const char *unit, const char *target, const bench_result *r)
{
    const char *check = r->ok ? "ok" : strncmp(r->note, "wrong", 5) == 0 ? "wrong" : "failed";
    row(o, side, version, size, r->runs, r->median_ms, r->min_ms, r->max_ms, work, unit, check, target, r->note);
    fprintf(stderr, "bench: %-13s %-9s %-40s %10ld  %s\n", o->lab, side, version, size, r->ok ? "ok" : r->note);
}

void bench_skip_row(const bench_options *o, const char *side, const char *version, long size, const char *why)
{
    row(o, side, version, size, 0, NAN, NAN, NAN, 0, "-", "skipped", "", why);
}

void bench_model_row(const bench_options *o, const char *version, long size, double ms, double work,
                     const char *unit, const char *note)
{
    row(o, "floor", version, size, 0, ms, ms, ms, work, unit, "model", "", note);
}

/* ---- Checks ---------------------------------------------------------------------------- */

void bench_library_rows(const bench_options *o, const char *version, long size, double work,
                        const bench_result *warm, const bench_result *cold)
{
    char cold_version[200];
    snprintf(cold_version, sizeof cold_version, "%s (inputs not in L2)", version);
    bench_row(o, "library", version, size, work, "GB/s", NULL, warm);
    bench_row(o, "library-cold", cold_version, size, work, "GB/s", NULL, cold);
}

int bench_present(const bench_options *o, const void *fn, const char *version, long size)
{
    if (!fn)
        bench_skip_row(o, o->who, version, size, "no such entry point in the shared object");
    return fn != NULL;
}

void bench_timed_row(const bench_options *o, const void *fn, const char *version, long size, double work,
                     const char *unit, const char *target, bench_run_fn run, void *context)
{
    if (!bench_present(o, fn, version, size))
        return;
    bench_result r = bench_repeat(&o->plan, run, context);
    bench_row(o, o->who, version, size, work, unit, target, &r);
}

size_t bench_largest_size(const bench_options *o) { return (size_t)o->sizes[o->size_count - 1]; }

double bench_sum_once(void *context, char *note)
{
    bench_sum_run *r = context;
    bench_lab_start(r->lab);
    int got = r->sum(r->a, r->n);
    double ms = bench_lab_elapsed(r->lab, note);
    if (ms >= 0 && got != r->exact) {
        snprintf(note, 200, "wrong: %d but the sum is %lld", got, r->exact);
        return -1;
    }
    return ms;
}

long long bench_sum_inputs(int *a, long n)
{
    kit_fill_ints(a, (size_t)n, -4, 4, (uint64_t)n);
    return kit_sum_ints(a, (size_t)n);
}

int bench_check_sum(double got, double exact, double abs_sum, double c, char *note)
{
    if (kit_within_tolerance(got, exact, abs_sum, c))
        return 1;
    snprintf(note, 200, "wrong: %.9g but the exact value is %.9g (error %.3g units of u*sum|terms|, tolerance %g)",
             got, exact, kit_error_units(got, exact, abs_sum), c);
    return 0;
}

void bench_poison(float *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = NAN;
}

int bench_check_matrix(const float *got, const float *expected, const float *bound, int rows, int cols,
                       char *note)
{
    for (size_t i = 0; i < (size_t)rows * cols; i++) {
        /* Written so that a NaN anywhere fails. */
        if (!(fabsf(got[i] - expected[i]) <= bound[i])) {
            snprintf(note, 200, "wrong: C[%zu][%zu] = %.9g but cuBLAS gives %.9g (allowed difference %.3g)",
                     i / cols, i % cols, got[i], expected[i], bound[i]);
            return 0;
        }
    }
    return 1;
}

int bench_check_matmul_samples(const float *a, const float *b, const float *c, int m, int k, int n,
                               int samples, double max_units, double *worst_units, char *note)
{
    kit_rng rng = kit_rng_new(2024);
    *worst_units = 0;
    for (int s = 0; s < samples; s++) {
        int r = (int)(kit_rng_next(&rng) % (uint64_t)m), col = (int)(kit_rng_next(&rng) % (uint64_t)n);
        double exact = 0, abs_sum = 0;
        for (int i = 0; i < k; i++) {
            double term = (double)a[(size_t)r * k + i] * b[(size_t)i * n + col];
            exact += term;
            abs_sum += fabs(term);
        }
        double units = kit_error_units(c[(size_t)r * n + col], exact, abs_sum);
        if (!(units <= max_units)) {
            snprintf(note, 200, "wrong: C[%d][%d] = %.9g but the exact value is %.9g (%.3g units of u*sum|terms|, "
                     "more than %g)", r, col, c[(size_t)r * n + col], exact, units, max_units);
            *worst_units = units;
            return 0;
        }
        if (units > *worst_units)
            *worst_units = units;
    }
    return 1;
}
