/* bench.h: what every bench program shares (plain C).
 *
 * One bench program per lab (grading/labN-name/bench.c) loads the lab's two shared
 * objects, build/gpu/<lab>/reference.so and student.so, calls their entry
 * points with the harness's timing on, and times the library a professional
 * would call instead (libraries.h).  It writes raw measurements, one CSV row
 * each; bench/table.awk turns them into rates, percentages and the table.
 *
 * The lab's entry points take HOST arrays and copy them to the device
 * themselves, so a lab is timed by kit_timed_ms(): the device time of its
 * LAUNCHes alone, between events, without its copies and allocations.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- How long to repeat a measurement --------------------------------- */
typedef struct {
    int warmups;        /* untimed runs first: module loading, handles, clocks */
    int min_runs;       /* at least this many timed runs */
    int max_runs;       /* and at most this many */
    double min_seconds; /* keep going until this much wall time passed (min_runs first) */
} bench_plan;

/* ---- One measurement: the median of many runs ------------------------- */
typedef struct {
    int runs;
    double median_ms, min_ms, max_ms;
    int ok;          /* every run's result was checked and right */
    char note[200];  /* why not ok, or a remark */
} bench_result;

/* One run: returns its device time in milliseconds, or a negative number
 * when the run failed or its result was wrong (after writing why into
 * `note`, which holds 200 bytes). */
typedef double (*bench_run_fn)(void *context, char *note);

/* Warm-up, then timed runs until the plan is met; the median of those.
 * Stops at the first failed run (result.ok = 0, result.note says why). */
bench_result bench_repeat(const bench_plan *plan, bench_run_fn run, void *context);

/* ---- The options every bench program takes ----------------------------
 *   --lab=lab6-shared-dot     the lab's folder name
 *   --side=reference|student  whose shared object to time; "reference" also
 *                             times the library, the ceiling and the floors
 *   --build=build/gpu         where the lab's shared objects are
 *   --csv=FILE                the raw CSV to append rows to
 * and from the environment:
 *   BENCH_SIZES="16 20 24"    log2 of the element counts (default 16 18 ... 28)
 *   BENCH_MATMUL="512 1024"   matrix sides for lab 8 (default 512 1024 2048 4096)
 *   BENCH_QUICK=1             sizes 2^16, 2^20, 2^24, 2^28, sides 1024 and 4096, fewer runs */
enum { BENCH_MAX_SIZES = 32 };
typedef struct {
    const char *lab;
    const char *side;
    const char *build;
    FILE *csv;
    int reference;            /* side is "reference" */
    const char *who;          /* the rows' side: "solution" or "student" */
    long sizes[BENCH_MAX_SIZES];
    int size_count;
    long sides[BENCH_MAX_SIZES]; /* matrix sides */
    int side_count;
    bench_plan plan;
} bench_options;

bench_options bench_parse(int argc, char **argv);

/* ---- The lab's shared object --------------------------------------------- */
typedef struct bench_lab bench_lab;
bench_lab *bench_open(const bench_options *options); /* exits with a message when missing */
void *bench_symbol(bench_lab *lab, const char *name); /* NULL when missing (reported) */
#define BENCH_FN(lab, fn) ((__typeof__(&fn))bench_symbol((lab), #fn))

/* Around one call of an entry point: forget the previous records, then
 * read the device time of the LAUNCHes since.  bench_lab_elapsed returns a
 * negative number (with a note) when the call made no timed launch.  A NULL
 * lab is this program's own harness: the going-further versions of
 * solutions/ that the program links itself (mk/bench.mk). */
void bench_lab_start(bench_lab *lab);
double bench_lab_elapsed(bench_lab *lab, char *note);
int bench_lab_launches(bench_lab *lab);

/* ---- One CSV row ------------------------------------------------------------
 * lab,side,version,size,runs,median_ms,min_ms,max_ms,work,unit,check,target,note
 *   side:    ceiling | library | library-cold | floor | solution | student
 *   size:    elements (matrix side for lab 8)
 *   work:    bytes for unit "GB/s", floating-point operations for "TFLOP/s"
 *   check:   ok | wrong | failed | skipped | model
 *   target:  what this row must reach (the goals for the solutions),
 *            read by bench/table.awk:
 *              library>=X    at least X times the library's speed, same size
 *              ceiling>=P    at least P percent of the streaming ceiling
 *              floor<=X      at most X times the floor row's time, same size
 *              row:NAME>=X   at least X times the speed of row NAME, same side and size */
void bench_row(const bench_options *options, const char *side, const char *version, long size, double work,
               const char *unit, const char *target, const bench_result *result);
/* A row for something that could not be measured at all (missing entry point). */
void bench_skip_row(const bench_options *options, const char *side, const char *version, long size,
                    const char *why);
/* The library's two rows (GB/s): "library", its inputs just uploaded as a
 * lab's are (warm), and "library-cold", from device memory not in L2. */
void bench_library_rows(const bench_options *options, const char *version, long size, double work,
                        const bench_result *warm, const bench_result *cold);
/* 1 when fn (an entry point looked up with bench_symbol) is there; else
 * writes the skipped row that says it is missing, and returns 0. */
int bench_present(const bench_options *options, const void *fn, const char *version, long size);
/* The row of one timed entry point (fn, looked up with bench_symbol) at one
 * size, what every lab's bench writes for each of its versions: when fn is
 * there, `run` (a bench_run_fn over `context`) repeated as the plan says,
 * written for this side (o->who) with `work` in `unit` and `target` (or
 * NULL); else the skipped row of bench_present. */
void bench_timed_row(const bench_options *options, const void *fn, const char *version, long size, double work,
                     const char *unit, const char *target, bench_run_fn run, void *context);
/* The last of the sizes, the one the host arrays are allocated for once
 * (the sizes run smallest first). */
size_t bench_largest_size(const bench_options *options);
/* A row computed, not measured: a floor (side "floor", check "model"). */
void bench_model_row(const bench_options *options, const char *version, long size, double ms, double work,
                     const char *unit, const char *note);

/* ---- A sum of ints (labs 3 and 4) ------------------------------------------- */
typedef struct {
    bench_lab *lab;
    int (*sum)(const int *a, int n);
    const int *a;
    int n;
    long long exact;
} bench_sum_run;
/* One run of r->sum (a bench_run_fn over a bench_sum_run): wrong unless exact. */
double bench_sum_once(void *context, char *note);
/* The inputs of the int sums: n small whole numbers in [-4, 4], seeded by
 * n, so that every partial sum fits in an int (n <= 2^28); returns their sum. */
long long bench_sum_inputs(int *a, long n);

/* ---- Checks ------------------------------------------------------------------ */
/* The tolerance policy (kit.h), with the error in units for the note. */
int bench_check_sum(double got, double exact, double abs_sum, double c, char *note);

/* Every element NaN: an output poisoned before a run shows what it did not write. */
void bench_poison(float *a, size_t n);

/* A rows x cols matrix: passes when |got - expected| <= bound for every
 * element (NaN never passes); otherwise the note names the first miss. */
int bench_check_matrix(const float *got, const float *expected, const float *bound, int rows, int cols,
                       char *note);

/* C = A B (row-major, A m x k, B k x n) against a double-precision product
 * at `samples` seeded positions: passes when every error is at most
 * max_units * u * sum_i |a_ri b_ic|.  *worst_units gets the largest seen. */
int bench_check_matmul_samples(const float *a, const float *b, const float *c, int m, int k, int n,
                               int samples, double max_units, double *worst_units, char *note);

#ifdef __cplusplus
}
#endif
#endif /* BENCH_H */
