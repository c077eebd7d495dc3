/* lab7-coop-groups.c: the grading suite of lab 7 (the dot product with cooperative groups).
 *
 * What it checks, item by item:
 *   block_sync_exact      TODO 1: thread_block tree, exact data, every block size, odd n, every schedule
 *   block_sync_random     ... random data up to 2^24 (more on a GPU) under the tolerance
 *   tile_shuffle_exact    TODOs 2, 4: warps add with tile shuffles, then the warps' totals
 *   tile_shuffle_random   ... random data under the tolerance
 *   cg_reduce_exact       TODOs 3, 4: warps add with cg::reduce
 *   cg_reduce_random      ... random data under the tolerance
 *   vector_tail           TODO 5: float4 loads, exact data, n % 4 != 0, starts 0 to 3 floats past a boundary
 *   vector_random         ... random data up to 2^24 (more on a GPU) under the tolerance
 *   grid_sync             TODO 6, going further: one cooperative launch sized to fit (skipped when not attempted)
 *   performance           (GPU) dot_vectorized against the reference, same run, same GPU
 *
 * Exact data are whole numbers whose partial sums all stay below 2^24, so
 * every summation order, atomics included, gives the same exact float: any
 * difference is an element dropped or counted twice, never rounding.
 *
 * Once a result is right, the copy record (kit_internal.h) must show that the
 * device computed it: every function here brings back one value, the
 * result the blocks added their totals into, and returns it.
 *
 * The header's rules and the items that check them:
 *   each function returns the dot product of host arrays x, y (n >= 1) -> block_sync_exact,
 *       block_sync_random, tile_shuffle_exact, tile_shuffle_random, cg_reduce_exact, cg_reduce_random,
 *       vector_tail, vector_random, grid_sync
 *   the result is computed on the device and only it comes back -> block_sync_exact, block_sync_random,
 *       tile_shuffle_exact, tile_shuffle_random, cg_reduce_exact, cg_reduce_random, vector_tail,
 *       vector_random, grid_sync
 *   every block size, a power of two from 32 to 1024, works -> block_sync_exact, tile_shuffle_exact,
 *       cg_reduce_exact, vector_tail
 *   float results stay within the tolerance (c = DOT_TOLERANCE_C) -> block_sync_random, tile_shuffle_random,
 *       cg_reduce_random, vector_random, grid_sync
 *   the four atomic versions make a single launch -> block_sync_exact, tile_shuffle_exact, cg_reduce_exact,
 *       vector_tail
 *   every launch uses blocks of block_size threads -> block_sync_exact, tile_shuffle_exact, cg_reduce_exact,
 *       vector_tail
 *   the four atomic versions launch enough blocks to fill the device -> block_sync_exact, tile_shuffle_exact,
 *       cg_reduce_exact, vector_tail (at least one block per SM, or per block_size floats when n is small)
 *   each thread adds up its own elements in a double -> vector_tail (one thread's 2^24, 1, 1; the given
 *       thread_sum of the others already does)
 *   the block adds up its threads' double sums in double, each warp's too -> tile_shuffle_exact,
 *       cg_reduce_exact (one warp's lanes 2^24, 1, 1: a warp sum in float, cg::plus<float>, loses the 1s)
 *   each block adds its total into the result with exactly one atomicAdd -> block_sync_exact,
 *       tile_shuffle_exact, cg_reduce_exact, vector_tail (cpu backend: atomics counted)
 *   dot_block_sync: a shared-memory tree with cg::thread_block and block.sync() -> block_sync_exact (cpu
 *       backend: shared memory and a barrier per thread at least)
 *   dot_tile_shuffle: shuffles in each tiled_partition<32>, then warp 0 adds the warp totals ->
 *       tile_shuffle_exact (cpu backend: a shuffle per thread at least; GPU: SHFL in the machine code)
 *   dot_cg_reduce: the same, with cg::reduce for each warp's sum -> cg_reduce_exact (cpu backend: shuffles,
 *       which cg::reduce makes; not told apart from hand-written ones)
 *   dot_vectorized: each thread reads four floats at a time with float4 loads -> vector_tail (GPU: 16-byte
 *       loads, LDG.E.128, in the kernel's machine code; the cpu backend cannot see the width of a load)
 *   dot_vectorized: any n, vectors 0 to 3 floats past a 16-byte boundary -> vector_tail, vector_random
 *   dot_grid_sync: a single cooperative launch -> grid_sync
 *   dot_grid_sync: totals stored, this_grid().sync(), then block 0 adds them up -> grid_sync (result only)
 *   dot_grid_sync: no atomics -> grid_sync (cpu backend: atomics counted)
 *   dot_grid_sync: the grid fits on the device at once, sized by the occupancy API -> grid_sync
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "dot_inputs.h"
#include "lab7.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab7-coop-groups/lab-calls.h"

/* ---- inputs -------------------------------------------------------------------- */

static const int block_sizes[] = {32, 64, 128, 256, 512, 1024};
#define BLOCK_SIZE_COUNT ((int)(sizeof block_sizes / sizeof block_sizes[0]))

/* ---- checks of one result ------------------------------------------------------------ */

/* ---- evidence that the device did the work ------------------------------------------ */

#define RESULT_STAYS_ON_DEVICE "the blocks add their totals into the result in device memory; nothing from the host " \
                               "enters device memory after the launch (upload() zeroes the result before it, with " \
                               "cudaMemset)"

/* Whether `fn` brought back a float, rather than the double of the given code. */
static int came_back_as_float(grade_side *side)
{
    for (int i = 0; i < grade_copy_count(side); i++) {
        const kit_copy *c = grade_copy_at(side, i);
        if ((c->direction == KIT_TO_HOST || c->direction == KIT_EITHER_WAY) && c->bytes == sizeof(float))
            return 1;
    }
    return 0;
}

/* One value comes back per dot product, and it is what `fn` returned.  The
 * given code adds up into a double and returns it rounded to a float, and
 * the copy record keeps only a checksum of the double: on exact data that
 * double is the exact dot, which the grader knows; on random data only
 * how much came back can be checked.  A result kept in a float is checked
 * as the float returned. */
static void require_dot_from_device(const char *fn, float got, const vectors *v, int exact)
{
    grade_side *you = grade_student();
    grade_require_bytes_back_at_most(you, fn, sizeof(double),
                                     "one value comes back per dot product: the blocks add up their totals on the "
                                     "device");
    grade_require_no_upload_after_launch(you, fn, RESULT_STAYS_ON_DEVICE);
    double dot = kit_dot(v->x, v->y, (size_t)v->n);
    if (came_back_as_float(you)) {
        if (!dot_all_zero(&got, sizeof got))
            grade_require_from_device(you, fn, "the dot product it returned", &got, sizeof got,
                                      !dot_same_as_input(&got, sizeof got, v));
    } else if (exact && !dot_all_zero(&dot, sizeof dot)) {
        grade_require_from_device(you, fn, "the dot product (the double it rounds to the float it returns)", &dot,
                                  sizeof dot, !dot_same_as_input(&dot, sizeof dot, v));
    }
}

/* How a block adds up, as lab7.h says each function does it. */
enum how { SHARED_TREE, SHUFFLES };

/* lab7.h: the four atomic versions make ONE launch, of blocks of block_size
 * threads, enough to fill the device; every block adds its total with ONE
 * atomicAdd, and adds up as the function's name says (the cpu backend counts
 * atomics, shuffles and barriers: kit.h part 4). */
static void require_launch_rules(const char *fn, int block_size, int n, int per_thread_floats, enum how how)
{
    grade_side *you = grade_student();
    int launches = grade_launch_count(you);
    if (launches != 1)
        grade_fail("%s with blocks of %d threads made %d launches: lab7.h asks for ONE launch, in which every "
                   "block adds its total into the result with one atomicAdd", fn, block_size, launches);
    const kit_launch *l = grade_launch_at(you, 0);
    if (l->block[0] != (unsigned)block_size || l->block[1] != 1 || l->block[2] != 1)
        grade_fail("%s was asked for blocks of %d threads but launched %s with blocks of %ux%ux%u (%s:%d): every "
                   "launch uses blocks of block_size threads", fn, block_size, l->kernel, l->block[0], l->block[1],
                   l->block[2], l->file, l->line);
    long long blocks = (long long)l->grid[0] * l->grid[1] * l->grid[2];
    long long chunks = ((long long)n + (long long)per_thread_floats * block_size - 1) / ((long long)per_thread_floats * block_size);
    long long fill = grade_device_multiprocessors() < chunks ? grade_device_multiprocessors() : chunks;
    grade_check(blocks >= fill,
                "%s(n = %d) with blocks of %d threads launched %lld block%s, but this device has %d SMs: lab7.h asks "
                "for enough blocks to fill the device (every SM busy; the occupancy API says how many blocks fit on "
                "one, as in lab 6), or one block for every %d floats when n is smaller", fn, n, block_size, blocks,
                blocks == 1 ? "" : "s", grade_device_multiprocessors(), per_thread_floats * block_size);
    if (l->atomics < 0) { /* a GPU does not count: its machine code shows how a block adds up */
        if (how == SHARED_TREE)
            grade_require_shared_tree(you, 0, fn, "lab7.h asks each block to add up in a tree in shared memory "
                                                  "whose levels are separated by block.sync() (TODO 1)");
        else
            grade_check(grade_kernel_code_has(you, l->kernel, "SHFL") != 0,
                        "%s: the machine code of %s (launched at %s:%d) has no warp shuffle: lab7.h asks each warp to "
                        "add up with shuffles inside its tiled_partition<32> (tile.shfl_down, or cg::reduce)", fn,
                        l->kernel, l->file, l->line);
        if (per_thread_floats == 4)
            grade_check(grade_kernel_code_has(you, l->kernel, "LDG.E.128") != 0,
                        "%s: the machine code of %s (launched at %s:%d) has no 16-byte load from global memory: "
                        "lab7.h asks each thread to read four floats at a time with float4 loads (TODO 5)", fn,
                        l->kernel, l->file, l->line);
        return;
    }
    long long threads = blocks * block_size;
    grade_check(l->atomics == blocks,
                "%s(n = %d) made %lld atomic operations in %lld blocks: lab7.h asks every block to add up its threads' "
                "sums first and then add its total to the result with ONE atomicAdd (thread 0 of the block)", fn, n,
                l->atomics, blocks);
    if (how == SHARED_TREE)
        grade_require_shared_tree(you, 0, fn, "lab7.h asks each block to add up in a tree in shared memory whose "
                                              "levels are separated by block.sync() (TODO 1)");
    else
        grade_check(l->shuffles >= threads,
                    "%s(n = %d) made %lld warp shuffles in %lld threads: lab7.h asks each warp to add up with "
                    "shuffles inside its tiled_partition<32> (tile.shfl_down, or cg::reduce, which shuffles too)",
                    fn, n, l->shuffles, threads);
}

/* ---- the three block reductions -------------------------------------------------------- */

enum variant { BLOCK_SYNC, TILE_SHUFFLE, CG_REDUCE };

static const char *const variant_names[] = {"dot_block_sync", "dot_tile_shuffle", "dot_cg_reduce"};

static const char *const variant_hints[] = {
    "Does every thread write its slot of cache before block.sync(), and does every level of the tree end with "
    "block.sync() before the next one reads? (TODO 1)",
    "Does warp_sum_shuffles add 16, 8, 4, 2 and 1 lanes down (TODO 2), and does block_sum_warps wait with "
    "block.sync() until every warp has stored its total before the first warp reads them, taking 0 for the "
    "slots past the block's last warp (TODO 4)?",
    "Does warp_sum_reduce return cg::reduce(tile, v, cg::plus<double>()) (TODO 3), and does block_sum_warps wait "
    "with block.sync() until every warp has stored its total before the first warp reads them, taking 0 for the "
    "slots past the block's last warp (TODO 4)?",
};

static float call_variant(grade_side *side, enum variant which, const vectors *v, int block_size)
{
    switch (which) {
    case BLOCK_SYNC:
        return GRADE_FN(side, dot_block_sync)(v->x, v->y, v->n, block_size);
    case TILE_SHUFFLE:
        return GRADE_FN(side, dot_tile_shuffle)(v->x, v->y, v->n, block_size);
    default:
        return GRADE_FN(side, dot_cg_reduce)(v->x, v->y, v->n, block_size);
    }
}

/* lab7.h: the threads' double sums are added up in double, the warps' too.
 * One warp's lanes 0, 1 and 2 hold 2^24, 1 and 1 (the rest 0): no tree of
 * pairs adds lanes 1 and 2 together first, so a warp sum in float adds a
 * lone 1 to 2^24, which rounds back to it, twice; in double the warp gets
 * 2^24 + 2, which the float result holds exactly.  Each lane holds one
 * product, so a thread's own accumulator does not matter here. */
static void check_warp_precision(enum variant which, int block_size)
{
    vectors v = exact_vectors(32, grade_seed_for(96));
    memset(v.x, 0, 32 * sizeof(float));
    for (int i = 0; i < 32; i++)
        v.y[i] = 1.0f;
    v.x[0] = 16777216.0f, v.x[1] = v.x[2] = 1.0f;
    snprintf(v.kind, sizeof v.kind, "x = 2^24, 1, 1, then 0 (all y = 1)");
    grade_reset_records(grade_student());
    float got = call_variant(grade_student(), which, &v, block_size);
    grade_check(got == 16777218.0f,
                "%s with blocks of %d threads, n = 32, %s: returned %.0f but the dot product is 16777218.%s",
                variant_names[which], block_size, v.kind, got,
                got == 16777216.0f ? " The warp's lanes hold 2^24, 1 and 1: a warp sum in float adds each 1 to "
                                     "2^24 alone, and 2^24 + 1 rounds back to 2^24. The lanes' values are doubles "
                                     "(warp_sum takes and returns a double): keep the warp's sum in double "
                                     "(cg::plus<double>, a double shuffled)" : "");
    free_vectors(&v);
}

/* The report's figure where `got` is wrong: the one partial the kernel
 * leaves, its total, against the exact dot (the blocks' own partials never
 * leave the device in this lab). */
static void attach_total_figure(const char *call, float got, const vectors *v)
{
    double exact = kit_dot(v->x, v->y, (size_t)v->n), yours = got;
    if (got == (float)exact)
        return;
    char caption[240];
    snprintf(caption, sizeof caption, "%s, n = %d: the total its blocks added up, against the exact dot", call, v->n);
    grade_figure_partials(caption, &yours, &exact, 1, 0);
}

/* The report's second figure, where the data lie in one block (n at most
 * the block size: the grid-stride loop gives thread t element t, and the
 * other blocks nothing), so that the total is that block's: the tree the
 * block should build from its threads' own sums, by shared memory
 * (dot_block_sync) or by each warp's shuffles and then warp 0's, against
 * what came back.  The runners cannot report the block's slots: the
 * steps are the grader's, from the inputs; the root is the student's. */
static void attach_tree_figure(enum variant which, const char *call, float got, const vectors *v, int block_size)
{
    if (v->n > block_size || got == (float)kit_dot(v->x, v->y, (size_t)v->n))
        return;
    double *sums = calloc((size_t)block_size, sizeof *sums);
    if (!sums)
        return;
    for (int t = 0; t < v->n; t++)
        sums[t] = (double)v->x[t] * v->y[t];
    char caption[400];
    snprintf(caption, sizeof caption, "%s, n = %d: block 0 holds every element; the %s it should build from its "
             "threads' sums (the grader's steps, from the inputs; the root is what came back)", call, v->n,
             which == BLOCK_SYNC ? "shared-memory tree" : "warps' shuffles, then warp 0's,");
    grade_figure_tree(caption, sums, block_size, which == BLOCK_SYNC ? 0 : 32, got);
    free(sums);
}

static void exact_item(enum variant which)
{
    grade_side *you = grade_student();
    int c = 0;
    for (int k = 0; k < BLOCK_SIZE_COUNT; k++) {
        int b = block_sizes[k];
        const int sizes[] = {1, b - 1, b + 1, 1009, 65537};
        for (int j = 0; j < 5; j++) {
            vectors v = exact_vectors(sizes[j], grade_seed_for(c++));
            /* every schedule order where a block is full enough to race */
            int orders = j == 2 || j == 3 ? grade_schedule_count() : 1;
            for (int o = 0; o < orders; o++) {
                const char *schedule = grade_schedule_name(o);
                char call[128];
                snprintf(call, sizeof call, "%s with blocks of %d threads%s", variant_names[which], b,
                         dot_schedule_text(schedule));
                grade_set_schedule(you, schedule);
                grade_reset_records(you);
                float got = call_variant(you, which, &v, b);
                attach_total_figure(call, got, &v);
                attach_tree_figure(which, call, got, &v, b);
                dot_check_exact(call, got, &v, variant_hints[which]);
                require_dot_from_device(variant_names[which], got, &v, 1);
                require_launch_rules(variant_names[which], b, v.n, 1, which == BLOCK_SYNC ? SHARED_TREE : SHUFFLES);
            }
            free_vectors(&v);
        }
    }
    if (which != BLOCK_SYNC) {
        check_warp_precision(which, 32);
        check_warp_precision(which, 256);
    }
    /* Large: 2^22 on the cpu backend, 2^24 on a GPU (whole numbers in [0, 1]). */
    vectors v = exact_vectors(grade_on_gpu() ? 1 << 24 : 1 << 22, grade_seed_for(c++));
    char call[128];
    snprintf(call, sizeof call, "%s with blocks of 256 threads", variant_names[which]);
    grade_reset_records(you);
    float got = call_variant(you, which, &v, 256);
    dot_check_exact(call, got, &v, "Does every block add its total with one atomicAdd?");
    require_dot_from_device(variant_names[which], got, &v, 1);
    free_vectors(&v);
}

static void random_item(enum variant which)
{
    static const int cpu_sizes[] = {1000, 65537, 1 << 24};
    static const int gpu_sizes[] = {1000, 1 << 24, (1 << 26) + 3};
    const int *sizes = grade_on_gpu() ? gpu_sizes : cpu_sizes;
    for (int k = 0; k < 3; k++) {
        int b = block_sizes[(2 * k + which) % BLOCK_SIZE_COUNT];
        vectors v = k == 0 ? mixed_sign_vectors(sizes[k], grade_seed_for(k))
                           : random_vectors(sizes[k], grade_seed_for(k), 0.0f, 1.0f);
        char call[128];
        snprintf(call, sizeof call, "%s with blocks of %d threads", variant_names[which], b);
        grade_reset_records(grade_student());
        float got = call_variant(grade_student(), which, &v, b);
        dot_check_tolerance(call, got, &v, DOT_TOLERANCE_C, variant_hints[which]);
        require_dot_from_device(variant_names[which], got, &v, 0);
        free_vectors(&v);
    }
}

GRADE_ITEM(block_sync_exact, 12, GRADE_CORRECTNESS, 60, "1", "TODO 1: thread_block tree, exact for every block size, odd n, every schedule",
           "TODO 1 through `dot_block_sync`: exact data, every block size from 32 to 1024, n = 1, n = B ± "
           "1, 1009, 65537 and a large n, every thread order on the cpu backend; one launch filling the "
           "device, one `atomicAdd` per block, and a shared-memory tree (counted on the cpu backend, seen in "
           "the machine code on a GPU)")
{ exact_item(BLOCK_SYNC); }
GRADE_ITEM(block_sync_random, 5, GRADE_CORRECTNESS, 60, "1", "TODO 1: random data up to 2^24 within the tolerance",
           "... random data up to 2^24 (2^26 on a GPU) within the tolerance")
{ random_item(BLOCK_SYNC); }
GRADE_ITEM(tile_shuffle_exact, 12, GRADE_CORRECTNESS, 60, "2,4", "TODOs 2, 4: warps with tile shuffles, exact for every block size and schedule",
           "TODOs 2 and 4 through `dot_tile_shuffle`, as above, the warps adding up with shuffles")
{ exact_item(TILE_SHUFFLE); }
GRADE_ITEM(tile_shuffle_random, 5, GRADE_CORRECTNESS, 60, "2,4", "TODOs 2, 4: random data up to 2^24 within the tolerance",
           "... random data")
{ random_item(TILE_SHUFFLE); }
GRADE_ITEM(cg_reduce_exact, 9, GRADE_CORRECTNESS, 60, "3,4", "TODOs 3, 4: warps with cg::reduce, exact for every block size and schedule",
           "TODOs 3 and 4 through `dot_cg_reduce`, as above")
{ exact_item(CG_REDUCE); }
GRADE_ITEM(cg_reduce_random, 5, GRADE_CORRECTNESS, 60, "3,4", "TODOs 3, 4: random data up to 2^24 within the tolerance",
           "... random data")
{ random_item(CG_REDUCE); }

/* ---- vector_tail, vector_random ---------------------------------------------------------- */

/* Which of the head, body and tail a wrong result seems to miss or count twice. */
static void explain_vector(char *out, size_t size, const vectors *v, int offset, float got)
{
    int head = offset ? 4 - offset : 0;
    if (head > v->n)
        head = v->n;
    int quads = (v->n - head) / 4;
    int tail_start = head + 4 * quads;
    double part[3] = {kit_dot(v->x, v->y, (size_t)head), kit_dot(v->x + head, v->y + head, (size_t)(4 * quads)),
                      kit_dot(v->x + tail_start, v->y + tail_start, (size_t)(v->n - tail_start))};
    static const char *const part_names[] = {"the head", "the body", "the tail"};
    int used = snprintf(out, size,
                        " The vectors start %d float%s past a 16-byte boundary: the head x[0..%d) (%d float%s one by "
                        "one) adds %.0f, the body x[%d..%d) (%d float4 loads) %.0f, the tail x[%d..%d) (%d float%s "
                        "one by one) %.0f.",
                        offset, offset == 1 ? "" : "s", head, head, head == 1 ? "" : "s", part[0], head, tail_start,
                        quads, part[1], tail_start, v->n, v->n - tail_start, v->n - tail_start == 1 ? "" : "s",
                        part[2]);
    /* Each part counted 0, 1 or 2 times: name the first combination that fits. */
    for (int mask = 0; mask < 27; mask++) {
        int times[3] = {mask % 3, mask / 3 % 3, mask / 9};
        if (times[0] == 1 && times[1] == 1 && times[2] == 1)
            continue;
        double s = times[0] * part[0] + times[1] * part[1] + times[2] * part[2];
        if ((float)s != got)
            continue;
        used += snprintf(out + used, size - used, " Your result is");
        int first = 1;
        for (int p = 0; p < 3; p++)
            if (times[p] != 1 && part[p] != 0) {
                used += snprintf(out + used, size - used, "%s %s %s", first ? "" : " and", part_names[p],
                                 times[p] == 0 ? "left out" : "counted twice");
                first = 0;
            }
        if (first)
            used += snprintf(out + used, size - used, " wrong");
        snprintf(out + used, size - used, ".");
        return;
    }
}

enum { TAIL_SHOWN = 12, TAIL_PROBED_UP_TO = 1 << 17 };

/* The report's second figure for a wrong dot_vectorized: its last elements
 * (up to TAIL_SHOWN), each counted how many times by the student's own code.
 * The grader asks it, with the same n, block size and offset: x is 1 at
 * that one element and 0 elsewhere, y all 1, so the dot it returns is the
 * times it counted the element; with x all 0, anything but 0 came from
 * past the end (the cpu backend's guard bytes).  Only for n up to
 * TAIL_PROBED_UP_TO (a call per element drawn). */
static void attach_tail_figure(const vectors *v, int block_size, int offset, const char *schedule)
{
    int n = v->n, first = n > TAIL_SHOWN ? n - TAIL_SHOWN : 0, count = n - first;
    if (n > TAIL_PROBED_UP_TO)
        return;
    vectors probe = exact_vectors(n, v->seed);
    int times[TAIL_SHOWN];
    grade_side *you = grade_student();
    grade_set_schedule(you, schedule);
    memset(probe.x, 0, (size_t)n * sizeof(float));
    for (int i = 0; i < n; i++)
        probe.y[i] = 1.0f;
    grade_reset_records(you);
    float alone = GRADE_FN(you, dot_vectorized)(probe.x, probe.y, n, block_size, offset);
    for (int i = 0; i < count; i++) {
        probe.x[first + i] = 1.0f;
        grade_reset_records(you);
        float got = GRADE_FN(you, dot_vectorized)(probe.x, probe.y, n, block_size, offset);
        times[i] = isfinite(got) ? (int)lroundf(got) : -1;
        probe.x[first + i] = 0.0f;
    }
    free_vectors(&probe);
    int head = offset ? 4 - offset : 0;
    char caption[400];
    snprintf(caption, sizeof caption, "dot_vectorized with blocks of %d threads, n = %d, offset %d: the last %d "
             "element%s, how many times your code counted each (asked with x = 1 there, 0 elsewhere, y = 1)",
             block_size, n, offset, count, count == 1 ? "" : "s");
    grade_figure_tail(caption, times, first, count, n, head < n ? head : n, alone != 0.0f);
}

static void check_vector_exact(const vectors *v, int block_size, int offset, const char *schedule)
{
    grade_side *you = grade_student();
    grade_set_schedule(you, schedule);
    grade_reset_records(you);
    float got = GRADE_FN(you, dot_vectorized)(v->x, v->y, v->n, block_size, offset);
    double exact = kit_dot(v->x, v->y, (size_t)v->n);
    if (got == (float)exact) {
        require_dot_from_device("dot_vectorized", got, v, 1);
        require_launch_rules("dot_vectorized", block_size, v->n, 4, SHUFFLES);
        return;
    }
    attach_total_figure("dot_vectorized", got, v);
    attach_tail_figure(v, block_size, offset, schedule);
    if (isnan(got) || fabsf(got) > 1e37f) /* no load of TODO 5 makes that from these data: a slot nobody wrote did */
        grade_fail("dot_vectorized with blocks of %d threads, offset %d%s, %s: returned %g but the dot product is "
                   "%.0f. The data hold no such value, so a value no thread wrote was added up%s: does "
                   "block_sum_warps take 0 for the slots past the block's last warp, and wait until every warp has "
                   "stored its total (TODO 4)?",
                   block_size, offset, dot_schedule_text(schedule), case_text(v), got, exact,
                   grade_on_gpu() ? "" : " (on the cpu backend shared memory starts out filled with NaN or about "
                                         "3.4e38, depending on the thread order)");
    const char *guard = grade_guard_hint_float(got, exact, "x and y", v->n);
    if (*guard)
        grade_fail("dot_vectorized with blocks of %d threads, offset %d%s, %s: returned %.9g but the dot product is "
                   "%.0f%s (TODO 5: the tail)", block_size, offset, dot_schedule_text(schedule), case_text(v), got,
                   exact, guard);
    char why[600] = "";
    explain_vector(why, sizeof why, v, offset, got);
    grade_fail("dot_vectorized with blocks of %d threads, offset %d%s, %s: returned %.9g but the dot product is "
               "%.0f.%s (TODO 5)",
               block_size, offset, dot_schedule_text(schedule), case_text(v), got, exact, why);
}

/* lab7.h: every thread adds up its own elements in a double.  One thread's
 * float4s hold 2^24, then 1, then 1 (the rest are 0): a float accumulator
 * keeps 2^24 (2^24 + 1 rounds back to it), a double gets 2^24 + 2, which the
 * float result holds exactly.  The thread's stride comes from a first call's
 * launch; whatever the grid, a right answer is exactly 2^24 + 2. */
static void check_vector_precision(int block_size)
{
    grade_side *you = grade_student();
    int n = grade_on_gpu() ? 1 << 23 : 1 << 20; /* room for three float4s a thread on a full device */
    vectors v = exact_vectors(n, grade_seed_for(95));
    memset(v.x, 0, (size_t)n * sizeof(float));
    grade_reset_records(you);
    GRADE_FN(you, dot_vectorized)(v.x, v.y, n, block_size, 0);
    const kit_launch *l = grade_launch_at(you, 0);
    long long stride = (long long)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
    if (8 * stride + 4 > n) {
        free_vectors(&v);
        return; /* one float4 a thread at most: nothing to lose */
    }
    for (int i = 0; i < n; i++)
        v.y[i] = 1.0f;
    v.x[0] = 16777216.0f;
    v.x[4 * stride] = 1.0f;
    v.x[8 * stride] = 1.0f;
    snprintf(v.kind, sizeof v.kind, "x = 2^24, then 1 at x[%lld] and x[%lld], the rest 0", 4 * stride, 8 * stride);
    grade_reset_records(you);
    float got = GRADE_FN(you, dot_vectorized)(v.x, v.y, n, block_size, 0);
    grade_check(got == 16777218.0f,
                "dot_vectorized with blocks of %d threads, n = %d, %s (all y = 1): returned %.0f but the dot product "
                "is 16777218.%s", block_size, n, v.kind, got,
                got == 16777216.0f ? " One thread's float4 loads bring 2^24, 1 and 1: added up in a float, each 1 is "
                                     "lost (2^24 + 1 rounds back to 2^24). lab7.h asks every thread to add up its "
                                     "own elements in a double (TODO 5)" : "");
    free_vectors(&v);
}

GRADE_ITEM(vector_tail, 12, GRADE_CORRECTNESS, 60, "5", "TODO 5: float4 loads exact for n % 4 != 0 and starts 0-3 floats past a boundary",
           "TODO 5 through `dot_vectorized`: exact data, n = 1 to 9, 31, 33, 1001, 4099, 65539, 10007 and a "
           "large n, each starting 0, 1, 2 and 3 floats past a 16-byte boundary, and n = 1001 with x all 0 "
           "(the dot exactly 0, so a float read past the end of x and y shows); 16-byte loads in the "
           "kernel's machine code (GPU); and a thread's 2^24, 1 and 1 add up to 2^24 + 2, as in a double")
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 33, 1001, 4099, 65539};
    static const int blocks[] = {32, 256};
    int c = 0;
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        vectors v = exact_vectors(sizes[k], grade_seed_for(c++));
        for (int j = 0; j < 2; j++)
            for (int offset = 0; offset < 4; offset++)
                check_vector_exact(&v, blocks[j], offset, grade_schedule_name(0));
        free_vectors(&v);
    }
    /* x all 0: a float read past the end of x and y shows in the dot (it
     * rounds away beside whole numbers) */
    vectors zero = zero_dot_vectors(1001, grade_seed_for(c++));
    for (int offset = 0; offset < 4; offset++)
        check_vector_exact(&zero, 256, offset, grade_schedule_name(0));
    free_vectors(&zero);
    /* Every block size and schedule on an odd size. */
    vectors v = exact_vectors(10007, grade_seed_for(c++));
    for (int k = 0; k < BLOCK_SIZE_COUNT; k++)
        for (int o = 0; o < grade_schedule_count(); o++)
            check_vector_exact(&v, block_sizes[k], (k + o) % 4, grade_schedule_name(o));
    free_vectors(&v);
    /* Large: 2^22 + 3 on the cpu backend, 2^24 - 1 on a GPU (whole numbers in [0, 1]). */
    v = exact_vectors(grade_on_gpu() ? (1 << 24) - 1 : (1 << 22) + 3, grade_seed_for(c++));
    check_vector_exact(&v, 256, 1, grade_schedule_name(0));
    free_vectors(&v);
    check_vector_precision(256);
}

GRADE_ITEM(vector_random, 8, GRADE_CORRECTNESS, 60, "5", "TODO 5: random data up to 2^24 within the tolerance",
           "... random data up to 2^24 (2^26 on a GPU) within the tolerance")
{
    static const int cpu_sizes[] = {1001, 65539, (1 << 24) - 1};
    static const int gpu_sizes[] = {1001, (1 << 24) - 1, (1 << 26) + 3};
    const int *sizes = grade_on_gpu() ? gpu_sizes : cpu_sizes;
    for (int k = 0; k < 3; k++) {
        int b = block_sizes[(2 * k + 1) % BLOCK_SIZE_COUNT], offset = (k + 1) % 4;
        vectors v = k == 0 ? mixed_sign_vectors(sizes[k], grade_seed_for(k))
                           : random_vectors(sizes[k], grade_seed_for(k), 0.0f, 1.0f);
        char call[128];
        snprintf(call, sizeof call, "dot_vectorized with blocks of %d threads, offset %d", b, offset);
        grade_reset_records(grade_student());
        float got = GRADE_FN(grade_student(), dot_vectorized)(v.x, v.y, v.n, b, offset);
        dot_check_tolerance(call, got, &v, DOT_TOLERANCE_C,
                            "Do the head, the body and the tail of TODO 5 together cover every element once?");
        require_dot_from_device("dot_vectorized", got, &v, 0);
        free_vectors(&v);
    }
}

/* ---- grid_sync (going further) ------------------------------------------------------------ */

/* The one cooperative launch a dot_grid_sync call made, or a failure. */
static const kit_launch *grid_launch(grade_side *side, const char *who, int n, int block_size)
{
    int count = grade_launch_count(side);
    grade_check(count == 1,
                "dot_grid_sync(n = %d, block_size = %d): %s recorded %d launches, but the grid-wide version is one "
                "cooperative launch, made with LAUNCH_COOPERATIVE",
                n, block_size, who, count);
    const kit_launch *l = grade_launch_at(side, 0);
    grade_check(l->cooperative,
                "dot_grid_sync(n = %d, block_size = %d): %s launched %s as a plain launch; this_grid().sync() needs "
                "a cooperative launch: LAUNCH_COOPERATIVE (kit.h), which calls cudaLaunchCooperativeKernel",
                n, block_size, who, l->kernel);
    return l;
}

GRADE_ITEM(grid_sync, 6, GRADE_CORRECTNESS, 60, "6", "TODO 6 (going further): one cooperative launch with this_grid().sync()",
           "going further, TODO 6: exact and random results, one launch recorded as cooperative, a grid at "
           "least half of what the device holds at once. Skipped (no points either way) while TODO 6 still "
           "says \"not implemented\"")
{
    grade_side *you = grade_student(), *ref = grade_reference();
    vectors first = exact_vectors(1009, grade_seed_for(0));
    grade_reset_records(you);
    float got = GRADE_FN(you, dot_grid_sync)(first.x, first.y, first.n, 256);
    const char *todo = grade_todo_pending(you);
    if (todo && strstr(todo, "TODO 6")) {
        free_vectors(&first);
        grade_skip("going further (TODO 6) not attempted: it neither adds nor costs points");
    }
    dot_check_exact("dot_grid_sync with blocks of 256 threads", got, &first, NULL);
    grid_launch(you, "your code", first.n, 256);
    require_dot_from_device("dot_grid_sync", got, &first, 1);
    free_vectors(&first);

    int c = 1;
    for (int k = 0; k < BLOCK_SIZE_COUNT; k += 2) {
        int b = block_sizes[k];
        const int sizes[] = {1, 4 * b + 3, 100003};
        for (int j = 0; j < 3; j++) {
            vectors v = exact_vectors(sizes[j], grade_seed_for(c++));
            char call[96];
            snprintf(call, sizeof call, "dot_grid_sync with blocks of %d threads", b);
            grade_reset_records(you);
            float got = GRADE_FN(you, dot_grid_sync)(v.x, v.y, v.n, b);
            dot_check_exact(call, got, &v,
                            "Do the partials of all blocks get written before this_grid().sync(), and does block 0 add "
                            "every one of them after it?");
            require_dot_from_device("dot_grid_sync", got, &v, 1);
            free_vectors(&v);
        }
    }

    /* Large and random; the grid must fill the device, as the reference's does. */
    vectors v = random_vectors(grade_on_gpu() ? 1 << 24 : 1 << 20, grade_seed_for(c++), 0.0f, 1.0f);
    grade_reset_records(you);
    got = GRADE_FN(you, dot_grid_sync)(v.x, v.y, v.n, 256);
    dot_check_tolerance("dot_grid_sync with blocks of 256 threads", got, &v, DOT_TOLERANCE_C, NULL);
    require_dot_from_device("dot_grid_sync", got, &v, 0);
    const kit_launch *mine = grid_launch(you, "your code", v.n, 256);
    grade_check(mine->atomics <= 0,
                "dot_grid_sync(n = %d, block_size = 256) made %lld atomic operations: lab7.h asks the blocks to store "
                "their totals and block 0 to add them up after this_grid().sync(), with no atomics", v.n,
                mine->atomics);
    grade_reset_records(ref);
    GRADE_FN(ref, dot_grid_sync)(v.x, v.y, v.n, 256);
    const kit_launch *theirs = grid_launch(ref, "the reference", v.n, 256);
    unsigned my_blocks = mine->grid[0] * mine->grid[1] * mine->grid[2];
    unsigned device_blocks = theirs->grid[0] * theirs->grid[1] * theirs->grid[2];
    grade_check(2 * my_blocks >= device_blocks,
                "dot_grid_sync(n = %d, block_size = 256) launched %u blocks, but this device (%s) holds %u such blocks "
                "at once: size the grid with cudaOccupancyMaxActiveBlocksPerMultiprocessor times the number of SMs",
                v.n, my_blocks, grade_device_name(), device_blocks);
    free_vectors(&v);
}

/* ---- performance ----------------------------------------------------------------------- */

static void call_vectorized(void *arg)
{
    dot_timed_call *t = arg;
    t->result = GRADE_FN(t->side, dot_vectorized)(t->v->x, t->v->y, t->v->n, t->block_size, t->offset);
}

GRADE_ITEM(performance, 16, GRADE_PERFORMANCE, 120, "5", "dot_vectorized as fast as the reference (GPU only)",
           "GPU only: `dot_vectorized` at n = 2^26 against the reference, timed in the same run: full points "
           "up to 1.2 times its time, less beyond, none past 10 times, only when correct")
{
    vectors v = random_vectors(1 << 26, grade_seed_for(0), 0.0f, 1.0f);
    dot_timed_call mine = {.side = grade_student(), .v = &v, .block_size = 256, .offset = 0};
    dot_timed_call theirs = {.side = grade_reference(), .v = &v, .block_size = 256, .offset = 0};
    dot_time_if_correct("dot_vectorized", call_vectorized, &mine, &theirs, DOT_TOLERANCE_C, "", "");
    free_vectors(&v);
    grade_explain_speed("dot_vector_kernel", "16777216 1 256 0", GRADE_LENS_LOADS | GRADE_LENS_BANDWIDTH | GRADE_LENS_OCCUPANCY);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab7", "1000 1", "")

GRADE_LAB(7, "coop-groups", "lab7-coop-groups")
