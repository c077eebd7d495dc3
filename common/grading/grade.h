/* grade.h: the grading library every lab's suite is written with.
 *
 * A suite (grading/labN-name/suite.c) lists scored items.  The grader gives each
 * item its own Check TCase, runs it in a forked child with a timeout, and
 * turns the results into points.  Inside an item:
 *
 *   - the student's code and the reference solution each run in runner
 *     processes of their own: grade_student(), grade_reference();
 *   - GRADE_FN(side, fold_sum)(a, n) calls an entry point on that side, with
 *     its declared type: the arguments travel to the runner and what comes
 *     out travels back, as grading/labN-name/lab-calls.h describes the call;
 *   - the harness's records (launches, snapshots, timings) come back the same
 *     way, as evidence the item checks;
 *   - grade_fail(...) ends the item with feedback in the student's terms:
 *     what was expected, what came back, and which seed makes the input;
 *   - student code never runs in the grader's processes, so a crash, hang,
 *     exit() or attack costs that item only, and every verdict is the
 *     grader's own.
 *
 * Each item is declared on its own function, where it is checked:
 *
 *   GRADE_ITEM(block_max_negative, 8, GRADE_CORRECTNESS, 30, "4,5", "block reduction: all-negative inputs",
 *              "what the handout's table says it checks")
 *   { ...the check... }
 *
 * and the suite ends with GRADE_LAB(5, "max-reduction", "lab5-max-reduction"),
 * which collects its items in the order they are written (registry.c).  The
 * build collects the labs into the grader's table; `./grader list`, the
 * handouts' tables of items and the lab's total are all made from these.
 */
#ifndef GRADE_H
#define GRADE_H

#include <stddef.h>
#include <stdint.h>
#include "kit_internal.h"

enum grade_kind {
    GRADE_CORRECTNESS, /* all or nothing */
    GRADE_PERFORMANCE, /* gpu only (skipped on cpu); partial score from grade_score() */
    GRADE_SANITIZER    /* gpu only where compute-sanitizer exists; skipped otherwise */
};

/* Points.  A lab's maximum is the same for every student on a backend, on
 * every platform and in batch: the sum of its items' points, less the items
 * this backend cannot grade (grade_skip_elsewhere: the same for everyone
 * here) and less its going-further items.  A going-further item is one whose
 * title says "going further"; it is graded when attempted and skipped when
 * not, and either way it is reported apart ("going further: 5/5, not counted
 * in the total"): it neither adds nor costs points, as its skip tells the
 * student, so no student's maximum depends on what they attempted. */
typedef struct {
    const char *name;   /* stable id for --only and the reports, e.g. "sum_exact" */
    const char *title;  /* one line a student reads, e.g. "final sums exact for n = 1..1050" */
    double points;
    enum grade_kind kind;
    double timeout_s;   /* wall-clock limit of the item (scaled up on the cpu backend) */
    void (*run)(void);
    const char *todos;  /* the skeleton's TODOs it checks, "3,4"; "" for none */
    const char *what;   /* what it checks, in the handout's words (Markdown); "": the title */
    const char *file;   /* where GRADE_ITEM declared it: its suite (__FILE__) ... */
    int line;           /* ... and line, which orders the items */
} grade_item;

/* Declares the item `name` (its id for --only and the reports) and starts the
 * definition of its function, item_<name> (not <name>, which may be the
 * lab's own function: fold_unfold): the body follows.  The item
 * goes to the linker section grade_items, whence its suite's GRADE_LAB takes
 * it. */
#define GRADE_ITEM(name, points, kind, timeout_s, todos, title, what)                                          \
    static void item_##name(void);                                                                              \
    static const grade_item grade_item_##name = {#name, title, points, kind, timeout_s, item_##name, todos,    \
                                                 what, __FILE__, __LINE__};                                     \
    static const grade_item *grade_item_entry_##name                                                            \
        __attribute__((used, section("grade_items"), aligned(sizeof(void *)))) = &grade_item_##name;            \
    static void item_##name(void)

/* The sanitizer item every lab ends with: compute-sanitizer on a small run
 * of `make LAB`'s program with ARGS (GPU only); ALSO adds to the handout's
 * words, "" for none. */
#define GRADE_SANITIZER_ITEM(points, lab, args, also)                                                          \
    GRADE_ITEM(sanitizer, points, GRADE_SANITIZER, 300, "",                                                    \
               "compute-sanitizer (memcheck, racecheck, synccheck) finds nothing in a small run (GPU)",        \
               "GPU only, where compute-sanitizer is installed: its memcheck, racecheck and synccheck tools find " \
               "nothing in a small run of `make " lab "`'s program" also)                                     \
    { grade_sanitize(args); }

/* A constant's value as a string, for an item's title or words that quote it
 * ("c = " GRADE_STR(DOT_TOLERANCE)): written once, where it is defined. */
#define GRADE_STR(x) GRADE_STR_(x)
#define GRADE_STR_(x) #x

/* Defines grade_labN from the items this file declared, in their order; it is
 * filled before main() runs. */
#define GRADE_LAB(number, name, dir)                                                                           \
    grade_lab grade_lab##number = {number, name, dir, NULL, 0};                                                 \
    __attribute__((constructor)) static void grade_lab##number##_collect(void)                                 \
    {                                                                                                           \
        grade_registry_collect(&grade_lab##number, __FILE__);                                                   \
    }

/* 1 for a going-further item (its title says "going further"), else 0. */
int grade_item_going_further(const grade_item *item);

typedef struct {
    int number;               /* 3 */
    const char *name;         /* "folding" */
    const char *dir;          /* "lab3-folding": labs/<dir>, solutions/<dir>, handouts/<dir>.md */
    const grade_item *items;
    int item_count;
} grade_lab;

/* GRADE_LAB's work (registry.c): `lab`'s items are those GRADE_ITEM declared
 * in `file`, ordered by line. */
void grade_registry_collect(grade_lab *lab, const char *file);

/* ---- the two sides ---------------------------------------------------------- */
typedef struct grade_side grade_side;
grade_side *grade_student(void);
grade_side *grade_reference(void);
const char *grade_side_name(const grade_side *side);            /* "your code" / "the reference" */
int grade_side_is_student(const grade_side *side);
/* The entry point `fn` on `side`, as a function of fn's own type (the stubs
 * come from the lab's calls description, see calls.h). */
#define GRADE_FN(side, fn) (grade_side_is_student(side) ? fn##__student : fn##__reference)
/* What the last call on `side` printed: stream 1 (stdout) or 2 (stderr),
 * its first 64 KB. */
const char *grade_output(grade_side *side, int stream);

/* Used by the stubs that calls.h makes: one call being sent. */
typedef struct grade_call grade_call;
grade_call *grade_call_begin(grade_side *side, const char *name);
void grade_call_value(grade_call *call, const void *value, size_t size);
void grade_call_array(grade_call *call, const char *name, const void *array, long long count, size_t element_size,
                      int back);
void grade_call_finish(grade_call *call, void *ret, size_t ret_size);

/* From here to the end of the item, a call of the student's that changes an
 * input array (IN in the calls description: const in the header) fails the
 * item, naming the array and the first element changed. */
void grade_inputs_must_stay(void);

/* The harness of one side (each shared object carries its own). */
void grade_reset_records(grade_side *side);
void grade_set_snapshots(grade_side *side, int on);
void grade_set_timing(grade_side *side, int on);
double grade_timed_ms(grade_side *side);
int grade_launch_count(grade_side *side);
const kit_launch *grade_launch_at(grade_side *side, int i);
int grade_snapshot_count(grade_side *side);
const kit_snapshot *grade_snapshot_at(grade_side *side, int i);
long long grade_device_bytes_in_use(grade_side *side);
const char *grade_todo_pending(grade_side *side);               /* the first unfinished TODO it reported, or NULL */
/* Fails the item while `side` reports an unfinished TODO: what the untouched
 * skeleton does (`meaning`: "it accepts every state") earns nothing. */
void grade_require_written(grade_side *side, const char *fn, const char *meaning);
void grade_set_schedule(grade_side *side, const char *order);   /* cpu backend only */
/* The student's side ready for a run whose rounds are checked: its records
 * cleared, snapshots on, threads in `order` (NULL: the default); turn the
 * snapshots off again after the call. */
grade_side *grade_student_recording_rounds(const char *order);
/* kit_spoil(kind, at) on `side` (kit_internal.h, the grader's tests): the next call meets one
 * spoiled state or synchronization, to see whether the code's own checks
 * notice. */
void grade_spoil(grade_side *side, int kind, int at);
/* The next call of the student's may stop with an error (kit_fail, a failed
 * CHECK): instead of failing the item, it returns (its return value zeroed,
 * its records gone) and grade_caught_error() says what stopped it; NULL when
 * the call returned. */
void grade_expect_error(void);
const char *grade_caught_error(void);
int grade_copy_count(grade_side *side);                         /* cudaMemcpy calls since the last reset */
const kit_copy *grade_copy_at(grade_side *side, int i);

/* ---- evidence that the device did the work (from the copy record) ----------- */
/* Fails the item unless the `size` bytes at `bytes` (what `fn` returned or
 * wrote, named `what` in the feedback) are what one cudaMemcpy brought back
 * from the device; with `kernels_needed`, also unless a kernel ran on that
 * device memory after the host last wrote it, and the bytes did not simply
 * go to that device memory and back (so pass 0 where the right result may
 * equal an input). */
void grade_require_from_device(grade_side *side, const char *fn, const char *what, const void *bytes, size_t size,
                               int kernels_needed);
/* Fails the item if `fn` copied anything from the host to the device after
 * its first launch; `why` says why the lab forbids it. */
void grade_require_no_upload_after_launch(grade_side *side, const char *fn, const char *why);
/* Fails the item if `call` left device memory allocated; `before` is
 * grade_device_bytes_in_use(side) just before it.  Where kit.h could not
 * count (a negative count: more allocations at once than it follows),
 * nothing is checked. */
void grade_require_memory_freed(grade_side *side, const char *call, long long before);
/* Fails the item if `fn` copied more than `most` bytes back to the host. */
void grade_require_bytes_back_at_most(grade_side *side, const char *fn, size_t most, const char *why);
/* Fails the item if the last call on `side` (of the predicate `fn`) launched
 * a kernel or copied anything: a predicate is plain host code. */
void grade_require_host_only(grade_side *side, const char *fn);
/* Fails the item unless the student's code notices a spoiled state (kit.h
 * part 10): `call(arg)`, a call of the student's `fn`, runs once as it is,
 * then with the spoil `kind` at `at` (snapshots on for KIT_SPOIL_SNAPSHOT),
 * and must then stop with an error or say something new on stderr: its own
 * check of `predicate`. */
void grade_require_noticed(void (*call)(void *arg), void *arg, int kind, int at, const char *fn,
                           const char *predicate);
/* The same with the state after round 0, round 1, a middle round and the
 * last (of `rounds`) spoiled in turn: the code checks every state. */
void grade_require_checks_every_state(void (*call)(void *arg), void *arg, int rounds, const char *fn,
                                      const char *predicate);
/* Fails the item unless launch `launch` of the last call on `side` (of the
 * student's `fn`) used shared memory and made at least log2(block size)
 * barrier calls per thread, as a shared-memory tree must, a barrier after
 * each level (`rule` says what the lab asks): on the cpu backend, which
 * counts (kit.h part 4); on a GPU, its machine code must hold stores to
 * shared memory and a barrier. */
void grade_require_shared_tree(grade_side *side, int launch, const char *fn, const char *rule);
/* On a GPU: the machine code (SASS, as cuobjdump prints it) of `kernel` in
 * `side`'s shared object, to be freed; NULL where it cannot be had (the cpu
 * backend, no cuobjdump).  With the whole program's code where the kernel
 * calls functions it did not inline. */
char *grade_kernel_code(grade_side *side, const char *kernel);
/* Whether that code holds `instruction` (a SASS opcode such as "SHFL" or
 * "LDG.E.128"): 1 or 0, or -1 where the code cannot be had. */
int grade_kernel_code_has(grade_side *side, const char *kernel, const char *instruction);
/* ---- values read past the end of an array (guard.c) ----
 * " (...)" saying that a wrong result `got`, where `needed` was right, is or
 * is made from the cpu backend's guard bytes (0xA5 in every byte after every
 * device array), so a thread read past the end of `array` (a name, or NULL
 * for "a device array") of `n` elements (or -1: not said); "" for any other
 * value, and on a GPU.  `needed` NAN: not known (the float forms). */
const char *grade_guard_hint_int(long long got, long long needed, const char *array, long long n);
const char *grade_guard_hint_float(float got, double needed, const char *array, long long n);
const char *grade_guard_hint_double(double got, double needed, const char *array, long long n);

/* ---- outcome of the current item -------------------------------------------- */
void grade_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#define grade_check(cond, ...) do { if (!(cond)) grade_fail(__VA_ARGS__); } while (0)
void grade_note(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* shown even on a pass */
void grade_skip(const char *reason) __attribute__((noreturn));
/* A hint added to the feedback when the student's code stops with an error
 * (kit_fail, a failed CHECK) in a call that follows; NULL: none.  For a
 * check the student wrote that stops the program before the grader's own
 * diagnosis can run. */
void grade_hint_on_error(const char *hint);
/* the same, for an item this backend cannot grade and the other one can: the
 * lab's total says how many points are graded there */
void grade_skip_elsewhere(const char *reason) __attribute__((noreturn));
void grade_score(double fraction); /* performance items: 0..1 of the item's points */

/* Why a performance item scored below full, in the lab's terms: on a GPU
 * with Nsight Compute (ncu), `make LAB`'s program runs with `program_args`
 * under ncu, on your code and on the reference, and the counters of the
 * longest of the first launches of `kernel` are compared through `lenses`
 * (what the lab teaches about speed).  A note; the score stays the time
 * ratio.  Nothing where the item has full points or no score, or off a GPU;
 * one line where ncu is missing or may not read the counters. */
enum {
    GRADE_LENS_BANDWIDTH = 1,      /* DRAM throughput as a share of the device's, and bytes moved */
    GRADE_LENS_BANK_CONFLICTS = 2, /* shared-memory bank conflicts */
    GRADE_LENS_OCCUPANCY = 4,      /* achieved against theoretical occupancy, and what limits it */
    GRADE_LENS_IDLE_LANES = 8,     /* lanes busy per warp instruction, branches the whole warp took alike */
    GRADE_LENS_LOADS = 16          /* global load instructions, and the bytes of each fetched sector used */
};
void grade_explain_speed(const char *kernel, const char *program_args, unsigned lenses);

/* ---- the run ------------------------------------------------------------------- */
uint64_t grade_seed(void);          /* the run's seed (--seed=S, else fresh and printed) */
uint64_t grade_seed_for(int case_number); /* a distinct, replayable seed per case */
int grade_on_gpu(void);
const char *grade_device_name(void); /* the GPU (or emulated device) the student's code runs on */
int grade_device_multiprocessors(void); /* its SMs */
/* The cpu backend: from here to the item's end, both sides' runners emulate
 * `devices` devices (CUDAEMU_DEVICES; restarted now if running), so that a
 * multi-device lab is graded on several counts; returns 1.  On a GPU, the
 * first `devices` GPUs the grader sees (CUDA_VISIBLE_DEVICES, restarted
 * now), returns 1; or, with fewer GPUs listed there, nothing changes and it
 * returns 0 (the runners' device count says how many they see). */
int grade_use_devices(int devices);
/* From here to the item's end, both sides' runners may use sockets inside
 * a network of their own (restarted now if running): the loopback, the
 * only interface there, is brought up, and the runners' filters let them
 * make, bind and connect sockets (filter.h), which reach nothing outside.
 * For a library that starts through sockets even within one process
 * (NCCL).  Returns 1; or 0, changing nothing, where the runners have no
 * network namespace of their own on this host: the item should skip. */
int grade_use_loopback(void);
int grade_verbose(void);
/* Schedule orders to try on the cpu backend: "fwd", "rev", "rand:SEED"...;
 * on the gpu backend one entry, "gpu", for which grade_set_schedule does nothing. */
int grade_schedule_count(void);
const char *grade_schedule_name(int i);

/* ---- helpers that many suites need ----------------------------------------- */
/* ceil(log2 n): the rounds of a pairwise reduction of n elements (0 for
 * n <= 1), as labs 3, 4 and 5 play them (round_states.c). */
int log2_rounds(int n);
/* Performance: median kernel time (ms) of `call(arg)` on `side`, timing on,
 * after `warmup` calls, over `reps` calls. */
double grade_time_ms(grade_side *side, void (*call)(void *arg), void *arg, int warmup, int reps);
/* On the cpu backend: whether `call(arg, result)` (a call of the student's
 * code writing `size` bytes to `result`) gives different results in
 * different thread orders, which names a race (a missing barrier) better
 * than any wrong value can.  Always 0 on a GPU.  Leaves the first order set. */
int grade_depends_on_order(void (*call)(void *arg, void *result), void *arg, size_t size);
#define GRADE_RACE_HINT "your result changes with the order in which the threads of a block run (the cpu backend " \
                        "tried several): threads race on shared memory, so a barrier (__syncthreads) is missing " \
                        "between a write and another thread's read of it"
/* Full points up to 1.2x the reference time, reference/student beyond, 0 past 10x.
 * The student's time is never taken as less than grade_student_time_floor_ms(). */
double grade_perf_fraction(double student_ms, double reference_ms);

/* ---- speed evidence: pure functions (evidence.c), tested without a GPU ---------- */
/* A kernel time the harness recorded (it runs in the side's own process, so
 * the student's code can write it) is checked against what the grader sees
 * itself: NULL when `recorded_ms` is possible for a call that took
 * `outside_ms` by the grader's clock and read `bytes` of input on a device
 * of `peak_gbs`, else why not, written to `why`.  Impossible: longer than
 * the whole call, or shorter than reading the input once at peak bandwidth
 * (a quarter of that below 256 MB, which a cache may hold). */
const char *grade_timing_impossible(double recorded_ms, double outside_ms, double bytes, double peak_gbs, char *why,
                                    size_t size);
/* The least kernel time a speed verdict takes for the student's call: its
 * whole call by the grader's clock, less the host work the reference's call
 * did outside its kernels (half as much again, and 1 ms): the same run,
 * the same inputs, the same copies on both sides.  Can be <= 0 (no floor). */
double grade_speed_floor_ms(double student_outside_ms, double reference_outside_ms, double reference_recorded_ms);
/* That floor from the last grade_time_ms of each side in this item (0 when
 * either side has not been timed). */
double grade_student_time_floor_ms(void);
/* Sanitizer items: runs the student's lab program with `program_args` under
 * compute-sanitizer's memcheck, racecheck and synccheck; fails on the first
 * finding (the tool's exit code, or the errors its summary counts), or when
 * the program itself does not succeed (a program that computes nothing has
 * nothing to find).  Then runs the same program built with the cpu backend,
 * with the same arguments, and fails where it stops: a barrier only some
 * threads of a block reach, which a GPU runs past without a word from
 * synccheck. */
void grade_sanitize(const char *program_args);
/* ---- figures for the HTML report (figure.c) ------------------------------------
 * A failing item's figure, drawn as SVG beside its feedback in the report
 * (build/report/labN.html).  Attach it just before the grade_fail of the
 * input that fails: a later figure replaces an earlier one, and a passing
 * item's is dropped.  The values are the grader's copies of what the
 * runners sent back (snapshots, results), never text the code printed. */
enum {
    GRADE_CELL_LIVE = 1,    /* rounds: in the live part after this round */
    GRADE_CELL_WORKED = 2,  /* rounds: changed by this round (a thread did work there) */
    GRADE_CELL_PARTNER = 4, /* rounds: an input the marked element should combine */
    GRADE_CELL_WRONG = 8    /* breaks the rule (matrix: outside the tolerance) */
};
/* Begins a figure of an array after each round; grade_figure_round adds
 * the rows, round 0 first (at most 40; `threads`: the threads that round's
 * launch started, -1 where not known); grade_figure_mark names the element
 * that broke the invariant, what it held and what it should have held. */
void grade_figure_rounds(const char *caption);
void grade_figure_round(const char *label, const double *values, const unsigned char *flags, int count,
                        long long threads);
void grade_figure_mark(int row, int column, double got, double should);
/* The blocks' partials against the expected ones, block `wrong_block` marked (-1: none). */
void grade_figure_partials(const char *caption, const double *yours, const double *expected, int blocks,
                           int wrong_block);
/* A rows x columns matrix with `wrong` (1 per wrong element, row-major) and
 * the tiles of side `tile` outlined; the worst element (worst_row,
 * worst_column) marked with what it held and should have.  A large matrix
 * is drawn in cells of several elements (a cell is wrong where one is). */
void grade_figure_matrix(const char *caption, const unsigned char *wrong, int rows, int columns, int tile,
                         int worst_row, int worst_column, double got, double should);
/* A launch's indices as blocks (rows) of threads: writes[i] is how many
 * times index i was written (0: never, 2 or more: twice), for `indices`
 * indices, of which those below n must be written once and the others
 * never; mark_index marked (-1: none). */
void grade_figure_grid(const char *caption, const int *writes, int indices, int n, int threads_per_block,
                       int mark_index);

/* Figures beside the main one (at most two; where the item has none yet,
 * the first becomes it): a new main figure (the four above) drops them. */
/* One block's tree, from its threads' own sums (the grader's, from the
 * inputs: the runners cannot report a block's shared memory): the slots
 * after each step of a halving tree over the block (warp 0), or of each
 * warp's shuffles and then warp 0's over the warps' totals (warp 32); the
 * root marked with `yours`, what the block gave, and the slots that hold
 * that value. */
void grade_figure_tree(const char *caption, const double *thread_sums, int threads, int warp, double yours);
/* The last elements of an array, first .. first + count - 1 (n in all; the
 * first `head` read one by one before the float4s): times[i], how many
 * times the code counted element first + i (1 is right), and whether it
 * read past the end. */
void grade_figure_tail(const char *caption, const int *times, int first, int count, int n, int head,
                       int read_past_end);
/* A table, a row per case tried: `values` row-major, the wrong cell of each
 * row (-1: none) and what it should hold; two columns from bar_column drawn
 * as bars too (yours, then the right one; -1: none); row_notes the last
 * column's text. */
typedef struct {
    const char *caption;
    const char *const *headings; /* `columns` of them, then the notes' heading */
    int columns, rows;
    const double *values;
    const char *const *row_notes; /* or NULL */
    const int *wrong_column;      /* or NULL */
    const double *should;         /* or NULL */
    int bar_column;
    const char *note;             /* a line under the table, or NULL */
} grade_table;
void grade_figure_table(const grade_table *table);

/* Appends a picture of a small int array to the current feedback. */
void grade_picture_ints(const char *label, const int *a, int n, int mark_from, int mark_to);
void grade_picture_floats(const char *label, const float *a, int n, int mark_from, int mark_to);

#endif /* GRADE_H */
