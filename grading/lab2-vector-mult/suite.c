/* lab2-vector-mult.c: the grading suite of lab 2 (vector-mult).
 *
 * Items:
 *   products_exact          vector_mult: every product bit-exact, for many sizes (0 and 1 too)
 *   products_many_blocks    vector_mult: a grid of more than 65,535 blocks (n = 65,535 x 256 + 100)
 *   grid_stride_few_blocks  vector_mult_in_place: right with a grid far smaller than n
 *   memory_released         every entry point frees the device memory it allocated, and destroys the
 *                           events (and streams) it created
 *   dot_exact               dot_product exact on small-integer data (any order is exact)
 *   dot_random              dot_product on random data within the tolerance policy
 *   phase_times             dot_product times each of its four phases
 * The items on results also require that the device did the work: each
 * result (for dot_product, the products it adds up) is what one cudaMemcpy
 * brought back after a kernel ran, unchanged (common/grading/evidence.c).
 *
 * The header's rules and the items that check them:
 *   arrays are host memory: allocate on the device, copy in, launch, copy back -> products_exact,
 *       grid_stride_few_blocks, dot_exact, dot_random
 *   every entry point frees all the device memory it allocated -> memory_released
 *   every entry point destroys the events and streams it creates (dot_product's timing events) ->
 *       memory_released (each cudaEventCreate/cudaStreamCreate of a call matched by a Destroy of the same
 *       handle later in that call: the copy record in kit_internal.h)
 *   vector_mult_in_place launches blocks of LAB2_THREADS_PER_BLOCK (256) threads -> grid_stride_few_blocks
 *   vector_mult and dot_product launch blocks of 256 threads too -> products_exact, dot_exact
 *   vector_mult: c[i] = a[i] * b[i] for every i < n, nothing written past c[n-1] -> products_exact
 *   vector_mult: one thread per element -> products_exact (one launch of ceil(n / 256) blocks),
 *       products_many_blocks (more than 65,535 blocks where n needs them)
 *   vector_mult handles n = 0, n = 1 and n that is not a multiple of the block -> products_exact
 *   vector_mult_in_place: a[i] becomes a[i] * b[i] for every i < n -> grid_stride_few_blocks
 *   vector_mult_in_place: one launch of exactly `blocks` blocks, whatever n -> grid_stride_few_blocks
 *   vector_mult_in_place: a grid-stride loop, each element done once -> grid_stride_few_blocks
 *   dot_product returns the sum of a[i] * b[i] -> dot_exact, dot_random
 *   dot_product: products made on the device and copied back, summed on the host -> dot_exact, dot_random
 *   dot_product: one thread per product -> dot_exact (one launch of ceil(n / 256) blocks)
 *   dot_product fills every field of *times -> phase_times (each above 0, together within the call)
 *   kernel_ms is the kernel's time alone (events around the launch) -> phase_times
 *   each phase time covers its own work (copy_in_ms includes cudaMalloc, etc.) -> phase_times (with every
 *       cudaMemcpy made 100 ms slower, copy_in_ms grows by two copies, copy_out_ms by one, the others not)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "lab2.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab2-vector-mult/lab-calls.h"

#define DOT_TOLERANCE 2000 /* c of the tolerance policy, as for every sum (kit.h part 9) */

static float *new_floats(int n) { return malloc((size_t)(n > 0 ? n : 1) * sizeof(float)); }

static void poison(float *a, int n) { memset(a, 0xff, (size_t)n * sizeof(float)); /* a NaN */ }

static int same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

/* A picture of up to 16 elements around index `at` (marked), for feedback. */
static void picture_around(const char *label, const float *a, int n, int at)
{
    int from = at > 6 ? at - 6 : 0, count = n - from < 16 ? n - from : 16;
    char title[96];
    snprintf(title, sizeof title, "%s[%d..%d] (the first wrong one marked)", label, from, from + count - 1);
    grade_picture_floats(title, a + from, count, at - from, at - from + 1);
}

/* The report's figure of a wrong result: up to 32 elements around `at`,
 * `label`'s values above the right ones, x[i] * b[i]; the wrong ones red,
 * `at` marked (a NaN: never written, the poison the grader put there). */
static void figure_around(const char *label, const float *got, const float *x, const float *b, int n, int at)
{
    enum { WINDOW = 32 };
    int from = at > WINDOW / 2 ? at - WINDOW / 2 : 0;
    if (from + WINDOW > n)
        from = n > WINDOW ? n - WINDOW : 0;
    int count = n - from < WINDOW ? n - from : WINDOW;
    double yours[WINDOW], right[WINDOW];
    unsigned char wrong[WINDOW] = {0}, none[WINDOW] = {0};
    for (int k = 0; k < count; k++) {
        float want = x[from + k] * b[from + k];
        yours[k] = got[from + k];
        right[k] = want;
        wrong[k] = same_bits(got[from + k], want) ? 0 : GRADE_CELL_WRONG;
    }
    char caption[160], row[48];
    snprintf(caption, sizeof caption, "%s[%d..%d] after the call, above the products it should hold (red: wrong; "
             "nan: never written)", label, from, from + count - 1);
    grade_figure_rounds(caption);
    snprintf(row, sizeof row, "yours, %s[%d..]", label, from);
    grade_figure_round(row, yours, wrong, count, -1);
    grade_figure_round("the products", right, none, count, -1);
    grade_figure_mark(0, at - from, got[at], x[at] * b[at]);
}

/* A wrong element `at` of `got` (named `name`), which should hold x[at] *
 * b[at], shown both ways: the text picture (titled `title`) in the feedback
 * and the figure in the report. */
static void show_around(const char *title, const char *name, const float *got, const float *x, const float *b, int n,
                        int at)
{
    picture_around(title, got, n, at);
    figure_around(name, got, x, b, n, at);
}

/* Checks got[i] == a[i] * b[i] bit for bit; `what` names the call for feedback. */
static void expect_products(const char *what, const float *got, const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++) {
        float want = a[i] * b[i];
        if (same_bits(got[i], want))
            continue;
        show_around("result", "c", got, a, b, n, i);
        if (isnan(got[i]))
            grade_fail("%s: element %d was never written (it still holds the NaN it had before the call); "
                       "expected a[%d] * b[%d] = %.9g * %.9g = %.9g. Do the threads cover every element?",
                       what, i, i, i, a[i], b[i], want);
        grade_fail("%s: element %d is %.9g, expected a[%d] * b[%d] = %.9g * %.9g = %.9g", what, i, got[i], i, i,
                   a[i], b[i], want);
    }
}

/* Requires that `result`, right already, is what one cudaMemcpy brought
 * back after a kernel ran (`what` names the call, `name` the array).
 * evidence.c takes bytes that went to the device and came back unchanged
 * for the host's work; a right result can be one of the inputs (b[i] = 1
 * everywhere, as small whole numbers give often enough for small n), and
 * then that would blame correct code, so only the copy back is required. */
static void require_from_device(const char *what, const char *name, const float *result, const float *a,
                                const float *b, int n)
{
    size_t size = (size_t)n * sizeof(float);
    int an_input = n > 0 && (memcmp(result, a, size) == 0 || memcmp(result, b, size) == 0);
    grade_require_from_device(grade_student(), what, name, result, size, !an_input);
}

/* lab2.h: one thread per element, in blocks of LAB2_THREADS_PER_BLOCK: one
 * launch of ceil(n / 256) blocks of 256 threads (none for n = 0). */
static void expect_one_thread_per_element(const char *what, int n)
{
    grade_side *student = grade_student();
    int launches = grade_launch_count(student);
    if (n == 0) {
        grade_check(launches == 0, "%s: made %d kernel launches; with n = 0 there is nothing to launch (a launch of "
                    "0 blocks is an error)", what, launches);
        return;
    }
    grade_check(launches == 1, "%s: made %d kernel launches; the products need one", what, launches);
    const kit_launch *l = grade_launch_at(student, 0);
    long long blocks = (long long)l->grid[0] * l->grid[1] * l->grid[2];
    long long expected = ((long long)n + LAB2_THREADS_PER_BLOCK - 1) / LAB2_THREADS_PER_BLOCK;
    grade_check(l->block[0] == LAB2_THREADS_PER_BLOCK && l->block[1] == 1 && l->block[2] == 1,
                "%s: the blocks had (%u, %u, %u) threads; lab2.h asks for LAB2_THREADS_PER_BLOCK (%d)", what,
                l->block[0], l->block[1], l->block[2], LAB2_THREADS_PER_BLOCK);
    grade_check(blocks == expected,
                "%s: %lld blocks of %d threads were launched, but one thread per element takes ceil(n / %d) = %lld "
                "blocks%s", what, blocks, LAB2_THREADS_PER_BLOCK, LAB2_THREADS_PER_BLOCK, expected,
                blocks < expected ? " (fewer threads than elements: is a loop in the kernel doing the rest?)"
                                  : " (a whole block past the last element)");
}

/* ---- products_exact ---------------------------------------------------------------------- */

/* Calls the student's vector_mult on n random products with c poisoned
 * (one element past the end too); returns a, b and c to be freed. */
static void call_vector_mult(int n, uint64_t seed, float **a, float **b, float **c)
{
    *a = new_floats(n), *b = new_floats(n), *c = new_floats(n + 1);
    kit_fill_uniform(*a, (size_t)n, -1.0f, 1.0f, seed);
    kit_fill_uniform(*b, (size_t)n, -1.0f, 1.0f, seed + 1);
    poison(*c, n + 1);
    grade_side *student = grade_student();
    grade_reset_records(student);
    GRADE_FN(student, vector_mult)(*a, *b, *c, n);
}

GRADE_ITEM(products_exact, 15, GRADE_CORRECTNESS, 60, "1,2,3,4", "vector_mult: every product bit-exact for n = 0, 1, odd sizes and large n",
           "`vector_mult` gives every product bit for bit, for n = 0, 1, 2, 3, 31, 255, 256, 257, 1000, "
           "4099, 65537 and a large n (2^20 + 3 on the cpu backend, 2^24 + 1 on a GPU); nothing past n is "
           "written; one launch with a thread per element (ceil(n / 256) blocks of 256)")
{
    int large = grade_on_gpu() ? (1 << 24) + 1 : (1 << 20) + 3;
    const int sizes[] = {0, 1, 2, 3, 31, 255, 256, 257, 1000, 4099, 65537, large};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for((int)k);
        float *a, *b, *c;
        call_vector_mult(n, seed, &a, &b, &c);

        char what[96];
        snprintf(what, sizeof what, "vector_mult with n = %d (seed %llu)", n, (unsigned long long)seed);
        expect_products(what, c, a, b, n);
        grade_check(isnan(c[n]), "%s: c[%d], one past the end, was written; only c[0..n-1] belong to the result",
                    what, n);
        require_from_device(what, "c", c, a, b, n); /* right, and the kernel's work */
        expect_one_thread_per_element(what, n);
        free(a), free(b), free(c);
    }
}

/* ---- products_many_blocks ---------------------------------------------------------------------- */

/* gridDim.x goes up to 2^31 - 1 (compute capability 3.0 and later); 65,535
 * is the limit of gridDim.y and z, and of x only on older GPUs.  A kernel
 * whose grid is capped at 65,535 blocks, with no grid-stride loop, leaves
 * every element from 65,535 x 256 on unwritten, a size the other items
 * reach only on a GPU (the cpu backend's stop at about 2^20).  So one call
 * with n just above it, on either backend, checked where it can fail: the
 * launch's shape, the end of the array (in full) and a sample of the rest.
 * Its 2^24 threads take about half a second on the cpu backend. */
#define CAPPED_GRID 65535
#define MANY_BLOCKS_SAMPLE_STRIDE 4099

GRADE_ITEM(products_many_blocks, 5, GRADE_CORRECTNESS, 60, "1,4", "vector_mult: more than 65,535 blocks, n = 65,535 x 256 + 100",
           "`vector_mult` with n = 65,535 x 256 + 100, which needs more than 65,535 blocks: one launch of "
           "ceil(n / 256) blocks, and the products right at the end of the array and on a sample of the rest "
           "(gridDim.x goes up to 2^31 - 1; a grid capped at 65,535 blocks with no grid-stride loop leaves "
           "the last elements unwritten)")
{
    int capped_end = CAPPED_GRID * LAB2_THREADS_PER_BLOCK, n = capped_end + 100;
    uint64_t seed = grade_seed_for(600);
    float *a, *b, *c;
    call_vector_mult(n, seed, &a, &b, &c);

    char what[128];
    snprintf(what, sizeof what, "vector_mult with n = %d = 65,535 x 256 + 100 (seed %llu)", n,
             (unsigned long long)seed);
    /* the whole end (the last block that 65,535 reach, and all past them), then every 4099th before it */
    int tail_from = capped_end - LAB2_THREADS_PER_BLOCK, sample_count = tail_from / MANY_BLOCKS_SAMPLE_STRIDE;
    for (int j = 0; j < n - tail_from + sample_count; j++) {
        int i = j < n - tail_from ? tail_from + j : (j - (n - tail_from)) * MANY_BLOCKS_SAMPLE_STRIDE;
        float want = a[i] * b[i];
        if (same_bits(c[i], want))
            continue;
        show_around("result", "c", c, a, b, n, i);
        if (i == capped_end)
            grade_fail("%s: element %d is %.9g, expected a[%d] * b[%d] = %.9g, where those checked before it are right: "
                       "no thread computed it (a device array starts out as it is, often 0). 65,535 blocks of 256 "
                       "threads reach only the first %d elements, and gridDim.x may be up to 2^31 - 1 (65,535 is the "
                       "limit of gridDim.y and gridDim.z, and of gridDim.x only before compute capability 3.0): "
                       "launch ceil(n / 256) blocks, one thread per element",
                       what, i, c[i], i, i, want, capped_end);
        if (isnan(c[i]))
            grade_fail("%s: element %d was never written (it still holds the NaN it had before the call); expected "
                       "a[%d] * b[%d] = %.9g. Do the threads cover every element?", what, i, i, i, want);
        grade_fail("%s: element %d is %.9g, expected a[%d] * b[%d] = %.9g * %.9g = %.9g", what, i, c[i], i, i, a[i],
                   b[i], want);
    }
    grade_check(isnan(c[n]), "%s: c[%d], one past the end, was written; only c[0..n-1] belong to the result", what,
                n);
    expect_one_thread_per_element(what, n);
    free(a), free(b), free(c);
}

/* ---- grid_stride_few_blocks --------------------------------------------------------------------- */

/* One in-place call on `side` under schedule `order`; checks the result and the launch. */
static void check_in_place(int n, int blocks, uint64_t seed, const char *order)
{
    float *a = new_floats(n), *b = new_floats(n), *original = new_floats(n);
    kit_fill_uniform(original, (size_t)n, -2.0f, 2.0f, seed);
    kit_fill_uniform(b, (size_t)n, 1.25f, 3.0f, seed + 1); /* never 1: a repeated product shows */
    memcpy(a, original, (size_t)n * sizeof(float));

    grade_side *student = grade_student();
    grade_set_schedule(student, order);
    grade_reset_records(student);
    GRADE_FN(student, vector_mult_in_place)(a, b, n, blocks);

    char what[160];
    snprintf(what, sizeof what, "vector_mult_in_place with n = %d and %d block(s) (seed %llu%s%s)", n, blocks,
             (unsigned long long)seed, strcmp(order, "gpu") ? ", schedule " : "", strcmp(order, "gpu") ? order : "");
    int launches = grade_launch_count(student);
    grade_check(launches == 1, "%s: %d launches went through LAUNCH, expected exactly one", what, launches);
    const kit_launch *l = grade_launch_at(student, 0);
    grade_check(l->grid[0] == (unsigned)blocks && l->grid[1] == 1 && l->grid[2] == 1,
                "%s: the launch had a grid of (%u, %u, %u) blocks, but it must use exactly the %d it is given",
                what, l->grid[0], l->grid[1], l->grid[2], blocks);
    grade_check(l->block[0] == LAB2_THREADS_PER_BLOCK && l->block[1] == 1 && l->block[2] == 1,
                "%s: the blocks had (%u, %u, %u) threads, expected %d (LAB2_THREADS_PER_BLOCK)", what, l->block[0],
                l->block[1], l->block[2], LAB2_THREADS_PER_BLOCK);

    for (int i = 0; i < n; i++) {
        float want = original[i] * b[i];
        if (same_bits(a[i], want))
            continue;
        show_around("a", "a", a, original, b, n, i);
        if (same_bits(a[i], original[i]))
            grade_fail("%s: a[%d] is unchanged (%.9g): no thread reached element %d. With %d threads in the grid, "
                       "each thread must step on by the whole grid, gridDim.x * blockDim.x, until it passes n",
                       what, i, a[i], i, blocks * LAB2_THREADS_PER_BLOCK);
        float repeated = want;
        for (int times = 2; times <= 64; times++) {
            repeated *= b[i];
            if (same_bits(a[i], repeated))
                grade_fail("%s: a[%d] = %.9g, which is a[%d] * b[%d]^%d: %d threads reached element %d and each "
                           "multiplied it by b[%d]. Is the stride the number of threads in the whole grid "
                           "(gridDim.x * blockDim.x)?", what, i, a[i], i, i, times, times, i, i);
        }
        grade_fail("%s: a[%d] = %.9g, expected a[%d] * b[%d] = %.9g * %.9g = %.9g", what, i, a[i], i, i,
                   original[i], b[i], want);
    }
    require_from_device(what, "a", a, original, b, n); /* right, and the kernel's work */
    free(a), free(b), free(original);
}

GRADE_ITEM(grid_stride_few_blocks, 20, GRADE_CORRECTNESS, 60, "5,6", "vector_mult_in_place: a grid-stride loop, right with far fewer threads than n",
           "`vector_mult_in_place` with 1 to 40 blocks, n from 1 to millions: exactly one launch with the "
           "given grid, every element multiplied exactly once; on the cpu backend also under several thread "
           "schedules")
{
    int large = grade_on_gpu() ? (1 << 22) + 5 : 100003;
    const struct { int n, blocks; } cases[] = {
        {1, 1}, {5, 3}, {256, 1}, {257, 1}, {3 * 256 + 1, 2}, {10000, 3}, {large, 1}, {large, 5}, {large, 40},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        check_in_place(cases[k].n, cases[k].blocks, grade_seed_for(100 + (int)k), grade_schedule_name(0));
    /* Threads that reach the same element race; every schedule must give the same answer. */
    for (int s = 1; s < grade_schedule_count(); s++)
        check_in_place(5000, 3, grade_seed_for(120 + s), grade_schedule_name(s));
}

/* ---- memory_released ------------------------------------------------------------------------------ */

/* The device memory in use on the student's side, which kit.h counts on
 * both backends.  A count it could not keep (on a GPU, no host memory left
 * for its table of allocations) fails the item rather than skipping it: the
 * lab's maximum is the same for everyone, whatever their code does. */
static long long bytes_in_use(const char *call)
{
    long long bytes = grade_device_bytes_in_use(grade_student());
    grade_check(bytes >= 0, "%s: the kit lost count of your device allocations (so many cudaMalloc calls without "
                "cudaFree that no host memory was left to follow them); every cudaMalloc needs its cudaFree", call);
    return bytes;
}

/* lab2.h: an entry point releases what it takes before it returns.  Each
 * event and stream that the call created (the copy record, kit_internal.h, notes every
 * cudaEventCreate, cudaStreamCreate and their Destroy, with the handle)
 * must be destroyed later in the same call. */
static void expect_handles_destroyed(const char *call)
{
    grade_side *you = grade_student();
    int count = grade_copy_count(you);
    for (int i = 0; i < count; i++) {
        const kit_copy *made = grade_copy_at(you, i);
        int event = made->direction == KIT_EVENT_CREATED;
        if (!event && made->direction != KIT_STREAM_CREATED)
            continue;
        kit_copy_direction gone = event ? KIT_EVENT_DESTROYED : KIT_STREAM_DESTROYED;
        int destroyed = 0;
        for (int j = i + 1; j < count && !destroyed; j++) {
            const kit_copy *c = grade_copy_at(you, j);
            destroyed = c->direction == gone && c->device_address == made->device_address;
        }
        grade_check(destroyed,
                    "%s created %s (at %s:%d) and returned without destroying it: each one holds resources on the "
                    "device until %s, and a call made in a loop would pile them up. Destroy it before returning, "
                    "as the device memory is freed", call, event ? "an event" : "a stream", made->file, made->line,
                    event ? "cudaEventDestroy" : "cudaStreamDestroy");
    }
}

/* One call of `fn` (run by `call`) on n elements: its device memory freed,
 * its events and streams destroyed. */
static void expect_released(const char *fn, int n, long long before)
{
    char call[96];
    snprintf(call, sizeof call, "%s with n = %d", fn, n);
    long long after = bytes_in_use(call);
    grade_check(after == before,
                "%s left %lld bytes of device memory allocated (%lld before the call, %lld after): every cudaMalloc "
                "needs its cudaFree", call, after - before, before, after);
    expect_handles_destroyed(call);
}

GRADE_ITEM(memory_released, 10, GRADE_CORRECTNESS, 30, "2,3,4,7", "every entry point frees the device memory it allocates and destroys the events it creates",
           "the device memory your code holds is the same before and after every entry point (the cpu "
           "backend counts every allocation; on a GPU, `kit.h` counts your `cudaMalloc` and `cudaFree` "
           "calls), and every event (or stream) a call creates is destroyed before it returns (`kit.h` notes "
           "each `cudaEventCreate` and `cudaEventDestroy`)")
{
    grade_side *student = grade_student();
    const int sizes[] = {1, 1000, 65537};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        float *a = new_floats(n), *b = new_floats(n), *c = new_floats(n);
        kit_fill_small_floats(a, (size_t)n, 1, 3, grade_seed_for(200 + (int)k));
        kit_fill_small_floats(b, (size_t)n, 1, 3, grade_seed_for(210 + (int)k));
        lab2_phase_times t;
        /* Memory is judged apart from the results (a wrong product costs
         * the items on results, not this one too), but only once the code
         * is written: the skeleton allocates nothing, so frees everything. */
        grade_reset_records(student);
        long long before = bytes_in_use("before vector_mult");
        poison(c, n);
        GRADE_FN(student, vector_mult)(a, b, c, n);
        grade_require_written(student, "vector_mult", "its memory is not judged yet");
        expect_released("vector_mult", n, before);

        grade_reset_records(student);
        before = bytes_in_use("before vector_mult_in_place");
        GRADE_FN(student, vector_mult_in_place)(c, b, n, 2);
        grade_require_written(student, "vector_mult_in_place", "its memory is not judged yet");
        expect_released("vector_mult_in_place", n, before);

        grade_reset_records(student);
        before = bytes_in_use("before dot_product");
        GRADE_FN(student, dot_product)(a, b, n, &t);
        grade_require_written(student, "dot_product", "its memory is not judged yet");
        expect_released("dot_product", n, before);
        free(a), free(b), free(c);
    }
}

/* ---- dot_exact and dot_random ------------------------------------------------------------------------ */

/* lab2.h splits the work: the products on the device, their sum on the
 * host.  So the sum itself never comes from the device; what must is the n
 * products, each a[i] * b[i] rounded to float (one rounding, the same on
 * the device and here), in the one copy back that the host then adds up. */
static void expect_products_from_device(const char *what, const float *a, const float *b, int n)
{
    float *products = new_floats(n);
    for (int i = 0; i < n; i++)
        products[i] = a[i] * b[i];
    require_from_device(what, "the array of products a[i] * b[i] that it adds up", products, a, b, n);
    free(products);
}

/* exact_lo > 0 or < 0: whole numbers in [exact_lo, 3], where any order is exact; 0: random data. */
static void expect_dot(int n, uint64_t seed, const float *a, const float *b, int exact_lo)
{
    lab2_phase_times t;
    grade_side *student = grade_student();
    grade_reset_records(student);
    float got = GRADE_FN(student, dot_product)(a, b, n, &t);
    double exact = kit_dot(a, b, (size_t)n), abs_sum = kit_abs_dot(a, b, (size_t)n);
    char what[96];
    snprintf(what, sizeof what, "dot_product with n = %d (seed %llu)", n, (unsigned long long)seed);
    if (exact_lo != 0) {
        if ((double)got == exact) {
            expect_products_from_device(what, a, b, n);
            expect_one_thread_per_element(what, n);
            return;
        }
        double missing = exact - (double)got;
        const char *hint = "";
        if (n > 1 && missing == (double)a[n - 1] * b[n - 1])
            hint = " The difference is exactly the last product: does the sum stop one element early?";
        else if (n > 3 && fabs(missing) > 0 && fabs(missing) <= 3 * 9.0)
            hint = " The difference is as small as one to three products: are the last elements left out?";
        grade_fail("dot_product with n = %d (seed %llu, whole numbers in [%d, 3], so every order of summation is "
                   "exact): got %.9g, expected exactly %.0f (off by %.9g).%s",
                   n, (unsigned long long)seed, exact_lo, got, exact, missing, hint);
    }
    grade_check(kit_within_tolerance(got, exact, abs_sum, DOT_TOLERANCE),
                "dot_product with n = %d (seed %llu, uniform in [-0.5, 1)): got %.9g, exact %.9g: the error is %.1f "
                "units of u * sum|a[i] * b[i]| (u = 2^-24), more than the %d any correct order of summation stays "
                "within", n, (unsigned long long)seed, got, exact, kit_error_units(got, exact, abs_sum),
                DOT_TOLERANCE);
    expect_products_from_device(what, a, b, n);
}

GRADE_ITEM(dot_exact, 15, GRADE_CORRECTNESS, 60, "7,8", "dot_product exact on small whole numbers, n = 1 to 2^20 + 3",
           "`dot_product` exact on whole numbers in [1, 3] or [-3, 3], n = 1 to 2^20 + 3 (every partial sum "
           "is a whole number below 2^24, so any order is exact); its products kernel launched with a thread "
           "per element")
{
    const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 255, 257, 1000, 65539, (1 << 20) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(300 + (int)k);
        float *a = new_floats(n), *b = new_floats(n);
        /* Positive products on most cases, so any dropped one shows; mixed signs on the others. */
        int lo = k % 3 == 2 ? -3 : 1;
        kit_fill_small_floats(a, (size_t)n, lo, 3, seed);
        kit_fill_small_floats(b, (size_t)n, lo, 3, seed + 1);
        expect_dot(n, seed, a, b, lo);
        free(a), free(b);
    }
}

GRADE_ITEM(dot_random, 15, GRADE_CORRECTNESS, 60, "7,8", "dot_product on random data within the tolerance (c = " GRADE_STR(DOT_TOLERANCE) ")",
           "`dot_product` on uniform data in [-1, 1) within the tolerance, c = " GRADE_STR(DOT_TOLERANCE))
{
    int large = grade_on_gpu() ? (1 << 22) + 7 : (1 << 20) + 7;
    const int sizes[] = {1, 1000, 65537, large};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(400 + (int)k);
        float *a = new_floats(n), *b = new_floats(n);
        /* Mixed signs with a mean of 1/4: the dot stays far from 0 (a zero
         * mean lets a sum that returns 0 pass at large n). */
        kit_fill_uniform(a, (size_t)n, -0.5f, 1.0f, seed);
        kit_fill_uniform(b, (size_t)n, -0.5f, 1.0f, seed + 1);
        expect_dot(n, seed, a, b, 0);
        free(a), free(b);
    }
}

/* ---- phase_times ------------------------------------------------------------------------------------- */

/* lab2.h times the kernel alone, which only CUDA events can do (a launch
 * returns before the kernel ends): two cudaEventRecord calls with the
 * launch between them. */
static void require_kernel_timed_with_events(int n)
{
    grade_side *you = grade_student();
    int first = -1, around = 0;
    for (int i = 0; i < grade_copy_count(you) && !around; i++) {
        const kit_copy *c = grade_copy_at(you, i);
        if (c->direction != KIT_EVENT)
            continue;
        if (first < 0)
            first = c->launches_before;
        around = c->launches_before > first;
    }
    grade_check(around,
                "dot_product with n = %d: the kernel was not timed with CUDA events (%s). A launch returns before "
                "the kernel ends, so the host's clock measures the launch, not the kernel: record one event before "
                "the launch and one after it, then cudaEventSynchronize and cudaEventElapsedTime",
                n, first < 0 ? "no cudaEventRecord at all" : "no two cudaEventRecord calls have the launch between them");
}

/* lab2.h: each phase time covers its own work.  With every cudaMemcpy made
 * SLOW_MS slower (kit_internal.h, the grader's tests), copy_in_ms must grow by two copies (a and
 * b), copy_out_ms by one (the products), and the kernel and the host sum by
 * nothing. */
#define SLOW_MS 100
static void require_phases_cover_their_copies(const float *a, const float *b)
{
    grade_side *you = grade_student();
    int n = 1 << 16;
    lab2_phase_times quick, slow;
    GRADE_FN(you, dot_product)(a, b, n, &quick);
    grade_spoil(you, KIT_SLOW_COPIES, SLOW_MS);
    GRADE_FN(you, dot_product)(a, b, n, &slow);
    grade_spoil(you, KIT_SPOIL_NONE, 0);
    const struct { const char *name, *covers; double grew, least, most; } phases[] = {
        {"copy_in_ms", "the copies of a and b to the device (and the cudaMalloc before them)",
         slow.copy_in_ms - quick.copy_in_ms, 1.8 * SLOW_MS, 1e9},
        {"kernel_ms", "the kernel alone, between two events around its launch", slow.kernel_ms - quick.kernel_ms, -1e9,
         0.5 * SLOW_MS},
        {"copy_out_ms", "the copy of the products back to the host", slow.copy_out_ms - quick.copy_out_ms,
         0.9 * SLOW_MS, 1e9},
        {"host_sum_ms", "the host's loop over the products alone", slow.host_sum_ms - quick.host_sum_ms, -1e9,
         0.5 * SLOW_MS},
    };
    for (int p = 0; p < 4; p++)
        grade_check(phases[p].grew >= phases[p].least && phases[p].grew <= phases[p].most,
                    "dot_product with n = %d: when the grader made every cudaMemcpy %d ms slower, times->%s went from "
                    "%.3f to %.3f ms (%+.0f ms): it must time %s, so it should grow by %s. Does each phase start its "
                    "clock right before its own work and read it right after?", n, SLOW_MS, phases[p].name,
                    p == 0 ? quick.copy_in_ms : p == 1 ? quick.kernel_ms : p == 2 ? quick.copy_out_ms : quick.host_sum_ms,
                    p == 0 ? slow.copy_in_ms : p == 1 ? slow.kernel_ms : p == 2 ? slow.copy_out_ms : slow.host_sum_ms,
                    phases[p].grew, phases[p].covers,
                    p == 0 ? "two copies' worth (about 200 ms)" : p == 2 ? "one copy's worth (about 100 ms)"
                                                                  : "nothing");
}

GRADE_ITEM(phase_times, 10, GRADE_CORRECTNESS, 60, "7,8", "dot_product times its copy in, kernel, copy out and host sum",
           "each of the four times is measured (above 0) and together they fit within the time of the whole "
           "call; each covers its own work: when the grader makes every `cudaMemcpy` 100 ms slower, "
           "`copy_in_ms` grows by two copies, `copy_out_ms` by one, the kernel and the host sum not at all")
{
    int n = grade_on_gpu() ? 1 << 24 : 1 << 20;
    uint64_t seed = grade_seed_for(500);
    float *a = new_floats(n), *b = new_floats(n);
    kit_fill_small_floats(a, (size_t)n, 0, 3, seed);
    kit_fill_small_floats(b, (size_t)n, 0, 3, seed + 1);
    lab2_phase_times t;
    memset(&t, 0, sizeof t);

    grade_reset_records(grade_student());
    double started = kit_wall_ms();
    GRADE_FN(grade_student(), dot_product)(a, b, n, &t);
    double wall = kit_wall_ms() - started;
    require_kernel_timed_with_events(n);

    const struct { const char *name; double ms; } phases[] = {
        {"copy_in_ms", t.copy_in_ms}, {"kernel_ms", t.kernel_ms},
        {"copy_out_ms", t.copy_out_ms}, {"host_sum_ms", t.host_sum_ms},
    };
    double total = 0;
    for (int p = 0; p < 4; p++) {
        grade_check(phases[p].ms == phases[p].ms && phases[p].ms > 0,
                    "dot_product with n = %d: times->%s is %.6f; every phase takes some time, so each must be "
                    "measured and be above 0 (-1 means it was never set)", n, phases[p].name, phases[p].ms);
        total += phases[p].ms;
    }
    grade_check(total <= wall * 1.05 + 0.5,
                "dot_product with n = %d: the four phases add up to %.3f ms, but the whole call took %.3f ms; "
                "each phase should be timed from its own start (copy in %.3f, kernel %.3f, copy out %.3f, host "
                "sum %.3f)", n, total, wall, t.copy_in_ms, t.kernel_ms, t.copy_out_ms, t.host_sum_ms);
    grade_note("n = %d: copy in %.3f ms, kernel %.3f ms, copy out %.3f ms, host sum %.3f ms, whole call %.3f ms",
               n, t.copy_in_ms, t.kernel_ms, t.copy_out_ms, t.host_sum_ms, wall);
    require_phases_cover_their_copies(a, b);
    free(a), free(b);
}

/* ---- going further: speed ---------------------------------------------------------------- */

/* One thread per element is required; what is left to the student is how
 * the threads of a warp map onto the array.  Neighbouring threads on
 * neighbouring elements read whole sectors that every lane uses; any other
 * mapping is right, and slower by the bytes fetched and not used. */
struct timed_mult {
    void (*fn)(const float *, const float *, float *, int);
    const float *a, *b;
    float *c;
    int n;
};

static void call_mult(void *arg)
{
    struct timed_mult *t = arg;
    t->fn(t->a, t->b, t->c, t->n);
}

GRADE_ITEM(products_speed, 5, GRADE_PERFORMANCE, 120, "1,4",
           "going further: vector_mult's kernel as fast as the reference's (GPU)",
           "GPU only, going further (not counted in the total): the kernel time of your `vector_mult` at n = 2^25 "
           "against the reference's, timed in the same run: full points up to 1.2 times its time, less beyond, and "
           "only when every product is right")
{
    int n = 1 << 25;
    float *a, *b, *c;
    call_vector_mult(n, grade_seed_for(0), &a, &b, &c);
    expect_products("vector_mult with n = 2^25 (the timed size)", c, a, b, n);
    struct timed_mult yours = {GRADE_FN(grade_student(), vector_mult), a, b, c, n};
    struct timed_mult reference = {GRADE_FN(grade_reference(), vector_mult), a, b, c, n};
    double your_ms = grade_time_ms(grade_student(), call_mult, &yours, 2, 10);
    double reference_ms = grade_time_ms(grade_reference(), call_mult, &reference, 2, 10);
    grade_note("n = 2^25 on %s: your kernel %.3f ms, the reference's %.3f ms (median of 10)", grade_device_name(),
               your_ms, reference_ms);
    grade_score(grade_perf_fraction(your_ms, reference_ms));
    free(a), free(b), free(c);
    grade_explain_speed("multiply_kernel", "33554432 1", GRADE_LENS_BANDWIDTH | GRADE_LENS_LOADS | GRADE_LENS_OCCUPANCY);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab2", "1000 1",
                     ", and the same program built with the cpu backend "
                     "runs without an error (it stops at a `__syncthreads()` that only some threads of a block reach, "
                     "which a GPU runs past)")

GRADE_LAB(2, "vector-mult", "lab2-vector-mult")
