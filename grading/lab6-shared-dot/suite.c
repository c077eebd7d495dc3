/* lab6-shared-dot.c: the grading suite of lab 6 (the shared-memory dot product).
 *
 * What it checks, item by item:
 *   host_sum_exact          steps 1-2: products on the device, sum on the host, exact data
 *   host_sum_random         ... random data up to 2^24 under the tolerance (a float sum of 2^24 terms fails)
 *   block_count             step 5: the block count fills the device (SMs x resident blocks), capped by n
 *   partials_invariant      steps 3-4: every block's partial is the dot of exactly the elements it owns
 *   host_finish_exact       steps 3-7: the total, exact data, every block size, odd sizes, small grids
 *   host_finish_random      ... random data under the tolerance, up to 2^24 (more on a GPU)
 *   predicate_accepts       step 6: your dot_partials_hold accepts correct partials (its sums in double)
 *   predicate_rejects       ... and rejects wrong ones (off by one, swapped, other ownership, NaN)
 *   device_finish_exact     step 8: the partials added on the device, exact data, odd block counts
 *   device_finish_random    ... random data under the tolerance, up to 2^24 (more on a GPU)
 *   performance             (GPU) dot_device_finish against the reference, same run, same GPU
 *
 * Exact data are whole numbers whose partial sums all stay below 2^24, so
 * every summation order gives the same, exact float: any difference is a
 * dropped or doubled element, never rounding.  Random data are judged by
 * the tolerance policy: |s - S| <= c u sum|x_i y_i|, u = 2^-24, c = DOT_TOLERANCE_C (lab6.h).
 *
 * Once a result is right, the copy record (kit_internal.h) must show that the
 * device computed it: the products of steps 1-2 and the partials of steps
 * 3-7 are what came back from the device (the host adds them up, as the
 * lab says), and in step 8 one float comes back and is the result.
 *
 * The header's rules and the items that check them:
 *   arrays are host memory: allocate, copy in, launch with LAUNCH, copy the result back -> host_sum_exact,
 *       host_sum_random, partials_invariant, host_finish_exact, host_finish_random, device_finish_exact,
 *       device_finish_random
 *   every function frees the device memory it allocated -> host_sum_exact, host_finish_exact,
 *       device_finish_exact
 *   every block size, a power of two from 32 to 1024, works -> partials_invariant, host_finish_exact,
 *       device_finish_exact
 *   ownership: a grid-stride loop, block b owns the i with (i / B) % G == b -> partials_invariant
 *   float results stay within |s - S| <= c u sum|x_i y_i| -> host_sum_random, host_finish_random,
 *       device_finish_random
 *   dot_sum_on_host: products on the device, copied back, added up on the host -> host_sum_exact,
 *       host_sum_random
 *   dot_choose_blocks: SMs times resident blocks, from the occupancy API -> block_count (within 2x)
 *   dot_choose_blocks: at most ceil(n / block_size) and at least 1 -> block_count
 *   dot_host_finish: the first pass is a single launch -> host_finish_exact (one launch, the call's shape)
 *   dot_host_finish: each block adds up its elements with a shared-memory tree -> host_finish_exact (cpu
 *       backend: shared memory and a barrier per thread at least)
 *   dot_host_finish: the partials come back to the host -> partials_invariant, host_finish_exact,
 *       host_finish_random
 *   dot_host_finish: the host checks dot_partials_hold on the partials and stops (kit_fail) when it says 0
 *       -> predicate_rejects (partials spoiled on their way back: the call must stop, not just print)
 *   dot_partials_hold is host code -> predicate_accepts, predicate_rejects
 *   dot_host_finish: the host adds up the partials and returns the total -> host_finish_exact,
 *       host_finish_random
 *   dot_host_finish: a non-NULL partials_out receives the `blocks` partials -> partials_invariant
 *   dot_partials_hold: 1 when each partial is within tolerance of its block's dot, in double ->
 *       predicate_accepts (also where products cancel: the tolerance is c u A_b, not c u |D_b|)
 *   dot_partials_hold: 0 when some partial is outside it -> predicate_rejects
 *   dot_partials_hold: before returning 0, says on stderr which block fails and why -> predicate_rejects
 *       (that it prints something; not what)
 *   dot_device_finish: the same first pass, then the partials added up on the device -> device_finish_exact,
 *       device_finish_random
 *   dot_device_finish: added by a one-block second launch or one atomicAdd per block -> device_finish_exact
 *       (the launches' shape)
 *   dot_device_finish: one float comes back, and it is the total returned -> device_finish_exact,
 *       device_finish_random
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "dot_inputs.h"
#include "lab6.h"
#include "lab6-shared-dot/model.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab6-shared-dot/lab-calls.h"

/* ---- inputs -------------------------------------------------------------------- */

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

static const int block_sizes[] = {32, 64, 128, 256, 512, 1024};
#define BLOCK_SIZE_COUNT ((int)(sizeof block_sizes / sizeof block_sizes[0]))

/* The exact partials of the ownership rule (lab6_owned_sums) are in
 * lab6-shared-dot/model.h. */

/* "i = 96..127, 320..351, ..." for the elements block b owns. */
static void owned_ranges(char *out, size_t size, int n, int block_size, int blocks, int b)
{
    size_t used = 0;
    int shown = 0;
    out[0] = 0;
    for (int start = b * block_size; start < n && used < size; start += blocks * block_size) {
        int end = start + block_size < n ? start + block_size : n;
        if (shown == 4) {
            used += (size_t)snprintf(out + used, size - used, ", ...");
            break;
        }
        used += (size_t)snprintf(out + used, size - used, "%s%d..%d", shown ? ", " : "i = ", start, end - 1);
        shown++;
    }
}

/* ---- checks of one result ------------------------------------------------------------ */

/* ---- evidence that the device did the work ------------------------------------------ */

#define PARTIALS_STAY_ON_DEVICE "the kernels compute from x and y alone; nothing from the host enters device memory " \
                                "after the first launch (zero a result before it, or with cudaMemset)"

/* The `count` floats at `values`, named `what`, came back from the device
 * and (where that can be told) a kernel computed them. */
static void require_floats_from_device(const char *fn, const char *what, const float *values, int count,
                                       const vectors *v)
{
    size_t size = (size_t)count * sizeof(float);
    if (!dot_all_zero(values, size))
        grade_require_from_device(grade_student(), fn, what, values, size, !dot_same_as_input(values, size, v));
}

/* Steps 1-2: the host adds up the products, but the products themselves are
 * the kernel's: what the host added must be what came back from the device.
 * One float multiplication rounds the same on every device, so the grader
 * knows them exactly. */
static void require_products_from_device(const vectors *v)
{
    float *products = malloc((size_t)v->n * sizeof(float));
    if (!products)
        grade_fail("grading error: out of host memory");
    for (int i = 0; i < v->n; i++)
        products[i] = v->x[i] * v->y[i];
    require_floats_from_device("dot_sum_on_host", "the array of products x[i]*y[i] it added up", products, v->n, v);
    free(products);
}

/* ---- host_sum_exact, host_sum_random ------------------------------------------------- */

GRADE_ITEM(host_sum_exact, 6, GRADE_CORRECTNESS, 30, "1,2", "steps 1-2: products on the device, sum on the host, exact data",
           "steps 1-2 on exact data, n from 1 to 10^6")
{
    static const int sizes[] = {1, 2, 3, 31, 255, 256, 257, 1000, 4099, 65537, 1000003};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        vectors v = exact_vectors(sizes[k], grade_seed_for(k));
        grade_reset_records(grade_student());
        long long before = grade_device_bytes_in_use(grade_student());
        float got = GRADE_FN(grade_student(), dot_sum_on_host)(v.x, v.y, v.n);
        dot_check_exact("dot_sum_on_host", got, &v,
                        "Does products_kernel cover every element, and the host loop add all n products?");
        grade_require_memory_freed(grade_student(), "dot_sum_on_host", before);
        require_products_from_device(&v);
        free_vectors(&v);
    }
}

GRADE_ITEM(host_sum_random, 6, GRADE_CORRECTNESS, 60, "1,2", "steps 1-2: random data up to 2^24 within the tolerance",
           "steps 1-2 on random data up to n = 2^24, within the tolerance")
{
    /* 2^24 positive terms: a float running sum loses most of the small ones
     * once it is large; a double one does not. */
    static const int sizes[] = {1000, 65537, 1 << 24};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        vectors v = k == 0 ? mixed_sign_vectors(sizes[k], grade_seed_for(k))
                           : random_vectors(sizes[k], grade_seed_for(k), 0.0f, 1.0f);
        grade_reset_records(grade_student());
        float got = GRADE_FN(grade_student(), dot_sum_on_host)(v.x, v.y, v.n);
        dot_check_tolerance("dot_sum_on_host", got, &v, DOT_TOLERANCE_C,
                            v.n < (1 << 24) ? NULL
                                            : "A float that adds millions of terms one after the other stops growing: "
                                              "once the sum is large, each small product is below half a unit of its "
                                              "last place and is rounded away. Add them up in a double");
        require_products_from_device(&v);
        free_vectors(&v);
    }
}

/* ---- block_count ---------------------------------------------------------------------- */

GRADE_ITEM(block_count, 6, GRADE_CORRECTNESS, 30, "5", "step 5: the block count fills the device, capped by n",
           "step 5: exactly ceil(n / B) blocks for small n; for n = 2^24, within a factor of 2 of what the "
           "device holds at once, for every block size")
{
    grade_side *you = grade_student(), *ref = grade_reference();
    for (int k = 0; k < BLOCK_SIZE_COUNT; k++) {
        int b = block_sizes[k];
        /* Small n: one block per chunk of b elements, no block without work. */
        int small[] = {1, b / 2, b, b + 1, 3 * b - 1};
        for (int j = 0; j < 5; j++) {
            int n = small[j];
            int got = GRADE_FN(you, dot_choose_blocks)(n, b);
            grade_check(got == ceil_div(n, b),
                        "dot_choose_blocks(n = %d, block_size = %d) returned %d, but %d elements make %d chunk%s of %d: "
                        "%s",
                        n, b, got, n, ceil_div(n, b), ceil_div(n, b) == 1 ? "" : "s", b,
                        got > ceil_div(n, b) ? "a block beyond them would have nothing to do"
                                             : "every chunk needs a block when the device has room for them all");
        }
        /* Large n: enough blocks to fill the device once. */
        int n = 1 << 24;
        int got = GRADE_FN(you, dot_choose_blocks)(n, b);
        int wanted = GRADE_FN(ref, dot_choose_blocks)(n, b);
        grade_check(got >= (wanted + 1) / 2 && got <= 2 * wanted,
                    "dot_choose_blocks(n = 2^24, block_size = %d) returned %d, but this device (%s) holds about %d "
                    "blocks of %d threads at once (its SMs times the blocks that fit on one SM, from "
                    "cudaOccupancyMaxActiveBlocksPerMultiprocessor).  %s",
                    b, got, grade_device_name(), wanted, b,
                    got < wanted ? "Fewer blocks leave SMs idle, as the fixed 32 blocks of older books do on a GPU "
                                   "of today"
                                 : "Far more blocks than fit at once only queue up: each thread's grid-stride loop "
                                   "already covers the whole array");
    }
}

/* ---- partials_invariant, host_finish_exact, host_finish_random -------------------------- */

typedef struct {
    int n, block_size, blocks; /* blocks 0: the student's dot_choose_blocks */
} shape;

static int blocks_for(const shape *s)
{
    return s->blocks > 0 ? s->blocks : GRADE_FN(grade_student(), dot_choose_blocks)(s->n, s->block_size);
}

/* Steps 3-7: the partials the host adds up are the first pass's, copied
 * back from the device; nothing from the host enters device memory after
 * the launch. */
static void require_partials_from_device(const float *partials, int blocks, const vectors *v)
{
    grade_require_no_upload_after_launch(grade_student(), "dot_host_finish", PARTIALS_STAY_ON_DEVICE);
    require_floats_from_device("dot_host_finish", "the array of partials (one per block)", partials, blocks, v);
}

/* The report's figure: the partials left against the ownership rule's, block b wrong. */
static void attach_partials_figure(const float *partials, const double *dot, int blocks, int b, int block_size,
                                   const char *what)
{
    double *yours = malloc((size_t)blocks * sizeof *yours);
    if (!yours)
        return;
    for (int c = 0; c < blocks; c++)
        yours[c] = partials[c];
    char caption[240];
    snprintf(caption, sizeof caption, "dot_host_finish, %s, %d blocks of %d threads: the partials after the first pass",
             what, blocks, block_size);
    grade_figure_partials(caption, yours, dot, blocks, b);
    free(yours);
}

/* The report's second figure: the tree block b should have built in shared
 * memory, from its threads' own sums (the ownership rule), against the
 * partial it left.  The runners cannot report the block's shared array, so
 * the steps are the grader's; only the root is the student's. */
static void attach_tree_figure(const vectors *v, int block_size, int blocks, int b, float partial)
{
    if (b < 0)
        return;
    double *sums = calloc((size_t)block_size, sizeof *sums);
    if (!sums)
        return;
    for (int t = 0; t < block_size; t++)
        for (long long i = (long long)b * block_size + t; i < v->n; i += (long long)blocks * block_size)
            sums[t] += (double)v->x[i] * v->y[i];
    char caption[400];
    snprintf(caption, sizeof caption, "block %d of %d, %d threads: the shared-memory tree it should build from its "
             "threads' sums (the grader's steps, from the inputs; the root is your partial)", b, blocks, block_size);
    grade_figure_tree(caption, sums, block_size, 0, partial);
    free(sums);
}

/* Runs dot_host_finish and checks every partial against the ownership rule. */
static void check_partials(const vectors *v, int block_size, int blocks, const char *schedule)
{
    grade_side *you = grade_student();
    float *partials = malloc((size_t)blocks * sizeof(float));
    double *dot = malloc((size_t)blocks * sizeof(double)), *abs_dot = malloc((size_t)blocks * sizeof(double));
    if (!partials || !dot || !abs_dot)
        grade_fail("grading error: out of host memory");
    for (int b = 0; b < blocks; b++)
        partials[b] = NAN; /* so a partial never written shows */
    grade_set_schedule(you, schedule);
    grade_reset_records(you);
    GRADE_FN(you, dot_host_finish)(v->x, v->y, v->n, block_size, blocks, partials);
    lab6_owned_sums(v, block_size, blocks, dot, abs_dot);
    for (int b = 0; b < blocks; b++) {
        if (partials[b] == (float)dot[b])
            continue;
        char ranges[160];
        owned_ranges(ranges, sizeof ranges, v->n, block_size, blocks, b);
        attach_partials_figure(partials, dot, blocks, b, block_size, case_text(v));
        attach_tree_figure(v, block_size, blocks, b, partials[b]);
        if (blocks <= 40) {
            float *expected = malloc((size_t)blocks * sizeof(float));
            for (int c = 0; c < blocks; c++)
                expected[c] = (float)dot[c];
            grade_picture_floats("the partials you left (one per block)", partials, blocks, b, b + 1);
            grade_picture_floats("the partials the ownership rule needs", expected, blocks, b, b + 1);
            free(expected);
        }
        grade_fail("dot_host_finish, %s, %d block%s of %d threads%s: after the first pass partial[%d] = %.9g, but "
                   "block %d owns the elements with (i / %d) %% %d == %d (%s) and their products add up to %.0f. "
                   "%s",
                   case_text(v), blocks, blocks == 1 ? "" : "s", block_size, dot_schedule_text(schedule), b, partials[b], b,
                   block_size, blocks, b,
                   ranges, dot[b],
                   *grade_guard_hint_float(partials[b], dot[b], "x and y", v->n)
                       ? grade_guard_hint_float(partials[b], dot[b], "x and y", v->n)
                   : isnan(partials[b]) ? "Nothing was written there: does thread 0 of every block store cache[0]?"
                   : partials[b] == 0.0f ? "Nothing was added up: does each thread add the products of its elements "
                                           "into `mine` (TODO 3), and does the tree bring them to cache[0] (TODO 4)?"
                   : b > 0 && blocks > 1 && v->n > blocks * block_size
                       ? "Does the grid-stride loop step by gridDim.x * blockDim.x, and does every thread wait at a "
                         "barrier before reading a slot another thread wrote?"
                       : "Does every level of the tree wait (__syncthreads) until the level before is done?");
    }
    require_partials_from_device(partials, blocks, v);
    free(partials);
    free(dot);
    free(abs_dot);
}

/* When the student's TODO 7 check stops the call (kit_fail), the grader's
 * diagnosis of the partials never runs: the feedback says what it would. */
#define TODO7_STOP_HINT                                                                                          \
    "(If that is your TODO 7 check: the partials the first pass left break the ownership rule, and "          \
    "dot_partials_hold's message below names the block. Does each thread step through its elements by "        \
    "gridDim.x * blockDim.x (TODO 3), and does every level of the tree wait (__syncthreads) until the level "  \
    "before is done (TODO 4)? `make lab6 BACKEND=cpu SANITIZE=thread` names the lines that race.%s)"

/* TODO7_STOP_HINT, and on the cpu backend what a partial made from its guard bytes means. */
static const char *todo7_stop_hint(void)
{
    static char text[1000];
    snprintf(text, sizeof text, TODO7_STOP_HINT,
             grade_on_gpu() ? ""
                            : " A partial of about 8.26e-32 or -2.87e-16 where the products add up to 0 (x is all 0 "
                              "in one case) is made from the cpu backend's guard bytes, 0xA5 in every byte after "
                              "every device array (-2.87e-16 as a float): a thread read past the end of x and y. "
                              "Does every thread's loop stop before n?");
    return text;
}

GRADE_ITEM(partials_invariant, 12, GRADE_CORRECTNESS, 60, "3,4", "steps 3-4: each partial is the dot of exactly the elements its block owns",
           "the grader's own invariant: every partial equals the dot of exactly the elements its block owns "
           "(exact data; every block size; grids of 1, 3, 7 blocks and your own; every thread order on the "
           "cpu backend; and x all 0, where every partial is exactly 0, so a value read past the end of x "
           "and y shows)")
{
    grade_hint_on_error(todo7_stop_hint());
    /* Small grids make the grid-stride loop go round several times. */
    static const int sizes[] = {1, 31, 1000, 4099};
    static const int grids[] = {0, 1, 3, 7};
    int c = 0;
    for (int k = 0; k < BLOCK_SIZE_COUNT; k++)
        for (int j = 0; j < 4; j++) {
            int b = block_sizes[k];
            vectors v = exact_vectors(sizes[j] == 31 ? b - 1 : sizes[j], grade_seed_for(c++));
            shape s = {v.n, b, grids[j]};
            int blocks = blocks_for(&s);
            for (int o = 0; o < grade_schedule_count(); o++)
                check_partials(&v, b, blocks, grade_schedule_name(o));
            free_vectors(&v);
        }
    vectors v = zero_dot_vectors(1000, grade_seed_for(c++));
    check_partials(&v, 256, 3, grade_schedule_name(0));
    free_vectors(&v);
}

/* dot_host_finish on exact data: the total, then the partials it added,
 * which on exact data the grader knows (every partial is exact). */
/* One call of a finishing pass, again, for grade_depends_on_order. */
typedef struct {
    const vectors *v;
    int block_size, blocks, on_device;
} finish_call;

static void rerun_finish(void *arg, void *result)
{
    const finish_call *c = arg;
    grade_side *you = grade_student();
    *(float *)result = c->on_device
                           ? GRADE_FN(you, dot_device_finish)(c->v->x, c->v->y, c->v->n, c->block_size, c->blocks)
                           : GRADE_FN(you, dot_host_finish)(c->v->x, c->v->y, c->v->n, c->block_size, c->blocks, NULL);
}

static void call_host_finish(void *arg)
{
    float total;
    rerun_finish(arg, &total);
}

static void require_host_finish_stops(finish_call *c);

/* For a wrong total of dot_device_finish: the block whose partial the
 * first pass (as dot_host_finish runs it, same shape) already gets wrong,
 * or -1 when every partial is right and the finishing pass is to blame. */
static int first_wrong_partial(const finish_call *c)
{
    float *partials = malloc((size_t)c->blocks * sizeof(float));
    double *dot = malloc((size_t)c->blocks * sizeof(double)), *abs_dot = malloc((size_t)c->blocks * sizeof(double));
    if (!partials || !dot || !abs_dot)
        grade_fail("grading error: out of host memory");
    GRADE_FN(grade_student(), dot_host_finish)(c->v->x, c->v->y, c->v->n, c->block_size, c->blocks, partials);
    lab6_owned_sums(c->v, c->block_size, c->blocks, dot, abs_dot);
    int wrong = -1;
    for (int b = 0; b < c->blocks && wrong < 0; b++)
        if (!kit_within_tolerance(partials[b], dot[b], abs_dot[b], DOT_TOLERANCE_C))
            wrong = b;
    attach_partials_figure(partials, dot, c->blocks, wrong, c->block_size, case_text(c->v));
    attach_tree_figure(c->v, c->block_size, c->blocks, wrong, wrong >= 0 ? partials[wrong] : 0);
    free(partials);
    free(dot);
    free(abs_dot);
    return wrong;
}

/* The hint for a wrong total: a race, where the thread order changes it;
 * for the device finish, a first pass that is wrong already. */
static const char *finish_hint(float got, const finish_call *c, const char *otherwise)
{
    double exact = kit_dot(c->v->x, c->v->y, (size_t)c->v->n);
    if (got == (float)exact || *grade_guard_hint_float(got, exact, NULL, -1)) /* (dot_check_exact says that one) */
        return otherwise;
    if (grade_depends_on_order(rerun_finish, (void *)c, sizeof(float)))
        return GRADE_RACE_HINT;
    if (c->on_device) {
        static char hint[320];
        int b = first_wrong_partial(c);
        if (b >= 0) {
            snprintf(hint, sizeof hint, "The first pass is wrong already: with this shape, partial[%d] of "
                     "dot_host_finish breaks the ownership rule, so fix the partials kernel first (TODOs 3-4; "
                     "partials_invariant says more) before the finishing pass.", b);
            return hint;
        }
    }
    return otherwise;
}

static void check_host_finish_exact(const vectors *v, int block_size, int blocks, const char *hint)
{
    grade_side *you = grade_student();
    char call[96];
    snprintf(call, sizeof call, "dot_host_finish with %d block%s of %d threads", blocks, blocks == 1 ? "" : "s",
             block_size);
    grade_reset_records(you);
    long long before = grade_device_bytes_in_use(you);
    float got = GRADE_FN(you, dot_host_finish)(v->x, v->y, v->n, block_size, blocks, NULL);
    finish_call again = {v, block_size, blocks, 0};
    dot_check_exact(call, got, v, finish_hint(got, &again, hint)); /* (reruns only for a wrong total, then fails) */
    grade_require_memory_freed(you, call, before);
    double *dot = malloc((size_t)blocks * sizeof(double)), *abs_dot = malloc((size_t)blocks * sizeof(double));
    float *partials = malloc((size_t)blocks * sizeof(float));
    if (!dot || !abs_dot || !partials)
        grade_fail("grading error: out of host memory");
    lab6_owned_sums(v, block_size, blocks, dot, abs_dot);
    for (int b = 0; b < blocks; b++)
        partials[b] = (float)dot[b];
    require_partials_from_device(partials, blocks, v);
    /* lab6.h: the first pass is one launch of `blocks` blocks of block_size threads */
    int launches = grade_launch_count(you);
    grade_check(launches == 1, "%s: made %d kernel launches; the first pass is one launch, and the host adds the "
                "partials", call, launches);
    const kit_launch *l = grade_launch_at(you, 0);
    grade_check((long long)l->grid[0] * l->grid[1] * l->grid[2] == blocks
                    && (long long)l->block[0] * l->block[1] * l->block[2] == block_size,
                "%s: %s was launched with %u x %u x %u blocks of %u x %u x %u threads; the call asks for %d blocks "
                "of %d", call, l->kernel, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                blocks, block_size);
    grade_require_shared_tree(you, 0, call, "lab6.h asks each block to add up its elements in a tree in shared "
                                            "memory whose levels are separated by __syncthreads() (TODOs 3 and 4)");
    free(dot);
    free(abs_dot);
    free(partials);
}

GRADE_ITEM(host_finish_exact, 10, GRADE_CORRECTNESS, 60, "3,4,5,6,7", "steps 3-7: exact totals for every block size, odd n and small grids",
           "the total of steps 3-7, exact, for every block size, n = 1, n smaller than a block, n not a "
           "multiple of it, x all 0 (the dot exactly 0) and a large n; each block adds up in a shared-memory "
           "tree")
{
    grade_hint_on_error(todo7_stop_hint());
    int c = 0;
    for (int k = 0; k < BLOCK_SIZE_COUNT; k++) {
        int b = block_sizes[k];
        const shape shapes[] = {{1, b, 0}, {b - 1, b, 0}, {b + 1, b, 0}, {3 * b + 5, b, 2}, {1009, b, 0}, {65537, b, 5}};
        for (int j = 0; j < (int)(sizeof shapes / sizeof shapes[0]); j++) {
            vectors v = exact_vectors(shapes[j].n, grade_seed_for(c++));
            check_host_finish_exact(&v, b, blocks_for(&shapes[j]),
                                    "Are the partials added up on the host, all of them?");
            free_vectors(&v);
        }
    }
    vectors zero = zero_dot_vectors(1000, grade_seed_for(c++));
    check_host_finish_exact(&zero, 256, 3, NULL);
    free_vectors(&zero);
    /* Large: 2^22 on the cpu backend, 2^24 on a GPU (whole numbers in [0, 1]). */
    vectors v = exact_vectors(grade_on_gpu() ? 1 << 24 : 1 << 22, grade_seed_for(c++));
    shape s = {v.n, 256, 0};
    check_host_finish_exact(&v, 256, blocks_for(&s), NULL);
    free_vectors(&v);
}

/* The random-data cases of steps 3-7 and of step 8: five sizes up to 2^24
 * (2^26 + 3 on a GPU), every other one of mixed signs, case k with blocks
 * of block_sizes[(k + first_block) % BLOCK_SIZE_COUNT] threads and the
 * student's block count.  `check(v, b, blocks, call)` runs `fn` on one and
 * checks it, `call` saying "fn with 7 blocks of 64 threads". */
static void random_finish_cases(const char *fn, int first_block,
                                void (*check)(const vectors *v, int block_size, int blocks, const char *call))
{
    grade_hint_on_error(todo7_stop_hint());
    static const int cpu_sizes[] = {1, 1000, 65537, 1 << 20, 1 << 24};
    static const int gpu_sizes[] = {1, 1000, 65537, 1 << 24, (1 << 26) + 3};
    const int *sizes = grade_on_gpu() ? gpu_sizes : cpu_sizes;
    for (int k = 0; k < 5; k++) {
        int b = block_sizes[(k + first_block) % BLOCK_SIZE_COUNT];
        vectors v = k % 2 ? mixed_sign_vectors(sizes[k], grade_seed_for(k))
                          : random_vectors(sizes[k], grade_seed_for(k), 0.0f, 1.0f);
        shape s = {v.n, b, 0};
        int blocks = blocks_for(&s);
        char call[96];
        snprintf(call, sizeof call, "%s with %d block%s of %d threads", fn, blocks, blocks == 1 ? "" : "s", b);
        check(&v, b, blocks, call);
        free_vectors(&v);
    }
}

static void check_host_finish_random(const vectors *v, int b, int blocks, const char *call)
{
    grade_reset_records(grade_student());
    dot_check_tolerance(call, GRADE_FN(grade_student(), dot_host_finish)(v->x, v->y, v->n, b, blocks, NULL), v,
                        DOT_TOLERANCE_C, "Are the partials added up in a double on the host?");
    /* Random partials depend on the order of the tree: only how much comes back is known. */
    grade_require_no_upload_after_launch(grade_student(), "dot_host_finish", PARTIALS_STAY_ON_DEVICE);
    grade_require_bytes_back_at_most(grade_student(), "dot_host_finish", (size_t)blocks * sizeof(float),
                                     "only the partials come back, one float per block: the blocks add up "
                                     "their elements on the device");
}

GRADE_ITEM(host_finish_random, 6, GRADE_CORRECTNESS, 60, "3,4,5,6,7", "steps 3-7: random data up to 2^24 within the tolerance",
           "steps 3-7 on random data up to 2^24 (2^26 on a GPU), within the tolerance")
{ random_finish_cases("dot_host_finish", 0, check_host_finish_random); }

/* lab6.h: the partials are added on the device by a second launch of one
 * block, or by one atomicAdd per block in the first: one or two launches,
 * and the second a single block. */
static void require_device_finish_shape(const char *call)
{
    grade_side *you = grade_student();
    int launches = grade_launch_count(you);
    grade_check(launches == 1 || launches == 2,
                "%s made %d launches: lab6.h finishes on the device with a second launch of one block, or with one "
                "atomicAdd per block in the first launch", call, launches);
    if (launches == 2) {
        const kit_launch *l = grade_launch_at(you, 1);
        unsigned long long blocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
        grade_check(blocks == 1,
                    "%s: its second launch (%s, %s:%d) has %llu blocks: lab6.h adds the partials with ONE block, "
                    "whose threads share them through shared memory", call, l->kernel, l->file, l->line, blocks);
    }
}

/* ---- predicate_accepts, predicate_rejects ---------------------------------------------- */

/* The invariant as dot_partials_hold must decide it: lab6_invariant_holds, in
 * lab6-shared-dot/model.h. */

/* Shapes where each block owns few enough elements (at most 400, each
 * product at most 9) that a partial off by one is outside the tolerance:
 * DOT_TOLERANCE_C u * 9 * 400 < 1/2, which the build checks, so that a
 * larger tolerance cannot make predicate_rejects check nothing. */
_Static_assert(DOT_TOLERANCE_C * 9 * 400 * 0x1p-24 < 0.5,
               "lab6.h's DOT_TOLERANCE_C is too large for predicate_shapes: take smaller blocks' shares there");
static const shape predicate_shapes[] = {{1000, 32, 7}, {300, 64, 3}, {2500, 128, 9}, {33, 32, 2}, {4000, 256, 13},
                                         {100, 32, 1}};
#define PREDICATE_SHAPES ((int)(sizeof predicate_shapes / sizeof predicate_shapes[0]))

/* The report's figure for the predicate's verdict: the partials it judged
 * against the dot of the elements each block owns, the first that differs
 * marked. */
static void attach_judged_partials_figure(const vectors *v, const shape *s, const float *partials, const char *verdict,
                                          const char *what)
{
    double *dot = malloc((size_t)s->blocks * sizeof(double)), *abs_dot = malloc((size_t)s->blocks * sizeof(double));
    double *judged = malloc((size_t)s->blocks * sizeof(double));
    lab6_owned_sums(v, s->block_size, s->blocks, dot, abs_dot);
    int first_off = -1;
    for (int b = 0; b < s->blocks; b++) {
        judged[b] = partials[b];
        if (first_off < 0 && (float)dot[b] != partials[b])
            first_off = b;
    }
    char caption[300];
    snprintf(caption, sizeof caption, "dot_partials_hold %s these partials (%s; %d blocks of %d threads): above, "
             "the partials judged; below, the dot of the elements each block owns", verdict, what, s->blocks,
             s->block_size);
    grade_figure_partials(caption, judged, dot, s->blocks, first_off);
    free(dot);
    free(abs_dot);
    free(judged);
}

static void offer_partials(const vectors *v, const shape *s, const float *partials, const char *what, int expected)
{
    grade_reset_records(grade_student());
    int said = GRADE_FN(grade_student(), dot_partials_hold)(v->x, v->y, v->n, s->block_size, s->blocks, partials);
    grade_require_host_only(grade_student(), "dot_partials_hold");
    /* lab6.h: before returning 0 it says on stderr which block breaks the invariant */
    if (!said && !expected && !*grade_output(grade_student(), 2)) {
        attach_judged_partials_figure(v, s, partials, "rightly rejected, without a word,", what);
        grade_fail("dot_partials_hold(%s, block_size = %d, blocks = %d) rightly returned 0 for %s, but printed nothing "
                   "on stderr: lab6.h asks it to say which block breaks the invariant, and why (its partial, the dot "
                   "of its elements, the difference and the tolerance), so that a failing run explains itself",
                   case_text(v), s->block_size, s->blocks, what);
    }
    if (!!said == expected)
        return;
    if (s->blocks <= 40)
        grade_picture_floats(expected ? "the partials (correct)" : "the partials it accepted", partials, s->blocks, -1,
                             -1);
    attach_judged_partials_figure(v, s, partials, expected ? "rejected" : "accepted", what);
    if (expected)
        grade_fail("dot_partials_hold(%s, block_size = %d, blocks = %d) returned 0 for %s: an invariant must hold "
                   "on every correct run (compare each block's partial with the dot of the elements it owns, "
                   "(i / block_size) %% blocks == b, within the tolerance)",
                   case_text(v), s->block_size, s->blocks, what);
    grade_fail("dot_partials_hold(%s, block_size = %d, blocks = %d) returned 1 for wrong partials: %s. An invariant "
               "this weak would let a broken kernel pass its own check",
               case_text(v), s->block_size, s->blocks, what);
}

/* lab6.h computes D_b in double.  In a float, 2^24 + 1 rounds back to 2^24,
 * so a float sum of 2^24 followed by ones stays at 2^24: with 10240 ones
 * it ends 10240 short, five times the tolerance. */
static void accepts_where_float_sums_fail(void)
{
    shape s = {10241, 32, 1};
    vectors v = exact_vectors(s.n, grade_seed_for(99));
    v.x[0] = v.y[0] = 4096.0f;
    for (int i = 1; i < v.n; i++)
        v.x[i] = v.y[i] = 1.0f;
    snprintf(v.kind, sizeof v.kind, "x[0] = y[0] = 4096, every other element 1");
    float partial = (float)(16777216.0 + 10240.0);
    int said = GRADE_FN(grade_student(), dot_partials_hold)(v.x, v.y, v.n, s.block_size, s.blocks, &partial);
    if (!said)
        grade_fail("dot_partials_hold(n = %d, %s, block_size = %d, blocks = %d) returned 0 for the exact partial, "
                   "%.0f: lab6.h computes each block's dot D_b in double. In a float, 2^24 + 1 rounds back to 2^24, "
                   "so a float sum of these products stays at 16777216, 10240 short. Keep the sums in double",
                   v.n, v.kind, s.block_size, s.blocks, (double)partial);
    free_vectors(&v);
}

/* lab6.h's tolerance is c u A_b, A_b the sum of |x_i y_i|, not c u |D_b|:
 * where products cancel, a float sum rounds on the way (2^24 + 1 is 2^24)
 * and ends far from D_b relative to |D_b|, yet well within c u A_b.  Each
 * block here owns 2^24, 1 and -2^24: in index order a float sum gives 0,
 * the exact dot is 1. */
static void accepts_where_products_cancel(void)
{
    shape s = {96, 32, 3};
    vectors v = exact_vectors(s.n, grade_seed_for(98));
    for (int i = 0; i < v.n; i++) {
        int j = i % 32;
        v.x[i] = j == 1 ? 1.0f : j == 0 || j == 2 ? 4096.0f : 0.0f;
        v.y[i] = j == 1 ? 1.0f : j == 0 ? 4096.0f : j == 2 ? -4096.0f : 0.0f;
    }
    snprintf(v.kind, sizeof v.kind, "each block's products 2^24, 1, -2^24, then zeros");
    float partials[3] = {0.0f, 0.0f, 0.0f}; /* (2^24 + 1) - 2^24 in float */
    int said = GRADE_FN(grade_student(), dot_partials_hold)(v.x, v.y, v.n, s.block_size, s.blocks, partials);
    if (!said)
        grade_fail("dot_partials_hold(n = %d, %s, block_size = %d, blocks = %d) returned 0 for partials of 0, what a "
                   "float sum in index order gives ((2^24 + 1) - 2^24: the 1 is rounded away). The exact dot of "
                   "each block is 1, but lab6.h's tolerance is c u A_b with A_b = sum |x_i y_i| = 2^25 + 1, about "
                   "4000 here, not c u |D_b|: products that cancel make |D_b| tiny while the rounding follows "
                   "the size of the terms",
                   v.n, v.kind, s.block_size, s.blocks);
    free_vectors(&v);
}

GRADE_ITEM(predicate_accepts, 4, GRADE_CORRECTNESS, 30, "6", "step 6: your invariant accepts correct partials",
           "your `dot_partials_hold` accepts correct partials (the reference's, and exact ones rounded)")
{
    grade_side *ref = grade_reference();
    for (int k = 0; k < PREDICATE_SHAPES; k++) {
        const shape *s = &predicate_shapes[k];
        for (int exact = 0; exact < 2; exact++) {
            vectors v = exact ? exact_vectors(s->n, grade_seed_for(2 * k))
                              : random_vectors(s->n, grade_seed_for(2 * k + 1), -1.0f, 1.0f);
            float *partials = malloc((size_t)s->blocks * sizeof(float));
            GRADE_FN(ref, dot_host_finish)(v.x, v.y, v.n, s->block_size, s->blocks, partials);
            offer_partials(&v, s, partials, "the reference's partials", 1);
            /* Partials summed in another order are just as correct. */
            double *dot = malloc((size_t)s->blocks * sizeof(double)), *abs_dot = malloc((size_t)s->blocks * sizeof(double));
            lab6_owned_sums(&v, s->block_size, s->blocks, dot, abs_dot);
            for (int b = 0; b < s->blocks; b++)
                partials[b] = (float)dot[b];
            offer_partials(&v, s, partials, "the exact partials rounded to float", 1);
            free(dot);
            free(abs_dot);
            free(partials);
            free_vectors(&v);
        }
    }
    accepts_where_float_sums_fail();
    accepts_where_products_cancel();
    grade_require_written(grade_student(), "dot_partials_hold", "it accepts any partials, right or wrong");
}

static void offer_wrong(const vectors *v, const shape *s, const float *wrong, const char *what)
{
    if (lab6_invariant_holds(v, s->block_size, s->blocks, wrong))
        return; /* this change happens to keep the invariant: not a wrong state */
    offer_partials(v, s, wrong, what, 0);
}

GRADE_ITEM(predicate_rejects, 8, GRADE_CORRECTNESS, 30, "6,7", "step 6: your invariant rejects wrong partials",
           "... and rejects wrong ones: a partial off by one, two partials swapped, partials of contiguous "
           "chunks (another ownership rule), an element counted twice, a NaN; and `dot_host_finish` reports "
           "partials that come back wrong (the grader spoils them on their way back)")
{
    for (int k = 0; k < PREDICATE_SHAPES; k++) {
        const shape *s = &predicate_shapes[k];
        int g = s->blocks;
        vectors v = exact_vectors(s->n, grade_seed_for(k));
        double *dot = malloc((size_t)g * sizeof(double)), *abs_dot = malloc((size_t)g * sizeof(double));
        float *right = malloc((size_t)g * sizeof(float)), *wrong = malloc((size_t)g * sizeof(float));
        lab6_owned_sums(&v, s->block_size, g, dot, abs_dot);
        for (int b = 0; b < g; b++)
            right[b] = (float)dot[b];
        char what[200];

        for (int b = 0; b < g; b += g > 1 ? g - 1 : 1) { /* the first and the last block */
            memcpy(wrong, right, (size_t)g * sizeof(float));
            wrong[b] += 1.0f;
            snprintf(what, sizeof what, "partial[%d] one more than the dot of the elements block %d owns", b, b);
            offer_wrong(&v, s, wrong, what);
        }

        for (int b = 1; b < g; b++)
            if (right[b] != right[0]) {
                memcpy(wrong, right, (size_t)g * sizeof(float));
                wrong[0] = right[b];
                wrong[b] = right[0];
                snprintf(what, sizeof what, "partial[0] and partial[%d] swapped (the total is still right)", b);
                offer_wrong(&v, s, wrong, what);
                break;
            }

        /* Contiguous chunks: block b takes elements [b*chunk, (b+1)*chunk). */
        int chunk = ceil_div(v.n, g);
        for (int b = 0; b < g; b++)
            wrong[b] = 0.0f;
        for (int i = 0; i < v.n; i++)
            wrong[i / chunk] += v.x[i] * v.y[i];
        snprintf(what, sizeof what,
                 "partials of contiguous chunks of %d elements, another ownership rule (the total is still right)",
                 chunk);
        offer_wrong(&v, s, wrong, what);

        /* One element counted twice: the last element is added to block 0 too. */
        memcpy(wrong, right, (size_t)g * sizeof(float));
        int last = v.n - 1;
        for (; last >= 0 && v.x[last] * v.y[last] == 0.0f; last--) {}
        if (last >= 0) {
            wrong[(last / s->block_size) % g == 0 && g > 1 ? 1 : 0] += v.x[last] * v.y[last];
            snprintf(what, sizeof what, "the product of element %d counted a second time", last);
            offer_wrong(&v, s, wrong, what);
        }

        memcpy(wrong, right, (size_t)g * sizeof(float));
        wrong[g - 1] = NAN;
        snprintf(what, sizeof what, "partial[%d] = NaN", g - 1);
        offer_wrong(&v, s, wrong, what);

        free(dot);
        free(abs_dot);
        free(right);
        free(wrong);
        free_vectors(&v);
    }
    /* lab6.h: dot_host_finish checks the partials that come back with dot_partials_hold */
    vectors v = exact_vectors(1000, grade_seed_for(91));
    finish_call c = {&v, 32, 7, 0};
    grade_require_noticed(call_host_finish, &c, KIT_SPOIL_COPY_BACK, 0, "dot_host_finish", "dot_partials_hold");
    require_host_finish_stops(&c);
    free_vectors(&v);
}

/* TODO 7 stops with kit_fail when dot_partials_hold returns 0.  The predicate
 * prints by itself, so "something appeared on stderr" (what
 * grade_require_noticed accepts) is also what a host finish that calls it
 * and ignores its verdict shows: here the call must stop. */
static void require_host_finish_stops(finish_call *c)
{
    grade_side *you = grade_student();
    grade_spoil(you, KIT_SPOIL_COPY_BACK, 0);
    grade_expect_error();
    call_host_finish(c);
    if (grade_caught_error())
        return;
    grade_fail("dot_host_finish went on although the partials that came back were wrong (the grader changed them, "
               "as a broken kernel would) and it printed:\n%.400s\n"
               "TODO 7: when dot_partials_hold returns 0, stop with kit_fail; printing is not stopping, and the "
               "total it returned was added from the wrong partials",
               grade_output(you, 2));
}

/* ---- device_finish_exact, device_finish_random ---------------------------------------- */

/* Step 8: the partials are added up where they are, on the device; one
 * float comes back, and it is the result. */
static void require_one_float_from_device(float got, const vectors *v)
{
    grade_side *you = grade_student();
    grade_require_bytes_back_at_most(you, "dot_device_finish", sizeof(float),
                                     "only one float comes back: the partials are added up on the device, by a "
                                     "second launch or by one atomicAdd per block");
    grade_require_no_upload_after_launch(you, "dot_device_finish", PARTIALS_STAY_ON_DEVICE);
    require_floats_from_device("dot_device_finish", "the dot product it returned", &got, 1, v);
}

GRADE_ITEM(device_finish_exact, 10, GRADE_CORRECTNESS, 60, "8", "step 8: exact totals finished on the device, any block count",
           "step 8, exact, every block size, block counts that are not powers of two and larger than a "
           "block, x all 0 (the dot exactly 0), every thread order")
{
    grade_hint_on_error(todo7_stop_hint());
    grade_side *you = grade_student();
    int c = 0;
    for (int k = 0; k < BLOCK_SIZE_COUNT; k++) {
        int b = block_sizes[k];
        /* Block counts that are not powers of two, some above the block size. */
        const shape shapes[] = {{1, b, 0}, {b - 1, b, 0}, {5 * b + 3, b, 5}, {1009, b, 0}, {100003, b, 0},
                                {100003, b, 3 * b / 2 + 7}, {1000, b, 3}};
        int zero_dot = (int)(sizeof shapes / sizeof shapes[0]) - 1; /* the last: x all 0 */
        for (int j = 0; j < (int)(sizeof shapes / sizeof shapes[0]); j++) {
            vectors v = j == zero_dot ? zero_dot_vectors(shapes[j].n, grade_seed_for(c++))
                                      : exact_vectors(shapes[j].n, grade_seed_for(c++));
            int blocks = blocks_for(&shapes[j]);
            char call[128];
            int orders = j == 2 || j == 5 ? grade_schedule_count() : 1;
            for (int o = 0; o < orders; o++) {
                const char *schedule = grade_schedule_name(o);
                snprintf(call, sizeof call, "dot_device_finish with %d block%s of %d threads%s", blocks,
                         blocks == 1 ? "" : "s", b, dot_schedule_text(schedule));
                grade_set_schedule(you, schedule);
                grade_reset_records(you);
                long long before = grade_device_bytes_in_use(you);
                float got = GRADE_FN(you, dot_device_finish)(v.x, v.y, v.n, b, blocks);
                finish_call again = {&v, b, blocks, 1};
                dot_check_exact(call, got, &v,
                                finish_hint(got, &again,
                                            blocks & (blocks - 1)
                                                ? "The block count is not a power of two: does the finishing pass add "
                                                  "every partial, whatever their number?"
                                                : NULL));
                require_one_float_from_device(got, &v);
                grade_require_memory_freed(you, call, before);
                require_device_finish_shape(call);
            }
            free_vectors(&v);
        }
    }
}

static void check_device_finish_random(const vectors *v, int b, int blocks, const char *call)
{
    grade_reset_records(grade_student());
    float got = GRADE_FN(grade_student(), dot_device_finish)(v->x, v->y, v->n, b, blocks);
    dot_check_tolerance(call, got, v, DOT_TOLERANCE_C, NULL);
    require_one_float_from_device(got, v);
}

GRADE_ITEM(device_finish_random, 6, GRADE_CORRECTNESS, 60, "8", "step 8: random data up to 2^24 within the tolerance",
           "step 8 on random data up to 2^24 (2^26 on a GPU), within the tolerance")
{ random_finish_cases("dot_device_finish", 2, check_device_finish_random); }

/* ---- performance ------------------------------------------------------------------------- */

static void call_device_finish(void *arg)
{
    dot_timed_call *t = arg;
    t->result = GRADE_FN(t->side, dot_device_finish)(t->v->x, t->v->y, t->v->n, t->block_size, t->blocks);
}

GRADE_ITEM(performance, 16, GRADE_PERFORMANCE, 120, "8", "dot_device_finish as fast as the reference (GPU only)",
           "GPU only: your `dot_device_finish` at n = 2^26 against the reference's, timed in the same run: "
           "full points up to 1.2 times its time, less beyond, none past 10 times, and only when correct")
{
    grade_side *you = grade_student(), *ref = grade_reference();
    vectors v = random_vectors(1 << 26, grade_seed_for(0), 0.0f, 1.0f);
    const int b = 256;
    dot_timed_call mine = {.side = you, .v = &v, .block_size = b, .blocks = GRADE_FN(you, dot_choose_blocks)(v.n, b)};
    dot_timed_call theirs = {.side = ref, .v = &v, .block_size = b, .blocks = GRADE_FN(ref, dot_choose_blocks)(v.n, b)};
    char my_blocks[32], their_blocks[32];
    snprintf(my_blocks, sizeof my_blocks, " with %d blocks", mine.blocks);
    snprintf(their_blocks, sizeof their_blocks, " with %d blocks", theirs.blocks);
    dot_time_if_correct("dot_device_finish", call_device_finish, &mine, &theirs, DOT_TOLERANCE_C, my_blocks,
                        their_blocks);
    free_vectors(&v);
    grade_explain_speed("partials_kernel", "16777216 1 256",
                        GRADE_LENS_BANDWIDTH | GRADE_LENS_LOADS | GRADE_LENS_OCCUPANCY | GRADE_LENS_BANK_CONFLICTS);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab6", "1000 1", "")

GRADE_LAB(6, "shared-dot", "lab6-shared-dot")
