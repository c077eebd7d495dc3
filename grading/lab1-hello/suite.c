/* lab1-hello.c: the grading suite of lab 1 (hello).
 *
 * Items:
 *   device_query           describe_device() reports what the reference reports
 *   hello_printf           every thread of hello() prints its own line, once
 *   launch_error_reported  a launch CUDA refuses is reported (code and message)
 *   global_index_1d        every thread of 1D launches writes its global index
 *   global_index_2d_3d     the same for 2D and 3D grids and blocks, odd shapes too
 *   global_index_bounds    threads whose index is n or more write nothing
 * The global_index items also require that the device did the work: out is
 * what one cudaMemcpy brought back after the launch, unchanged
 * (common/grading/evidence.c).
 *
 * The header's rules and the items that check them:
 *   describe_device reports the current device's name, SMs, compute capability and limits -> device_query
 *   hello: each thread of the blocks x threads launch prints its own block/thread line once -> hello_printf
 *   the lines come from the kernel (printf in it), not from the host -> hello_printf (each line reached
 *       stdout while hello() waited for the device, when CUDA shows kernel printf: the copy record in kit_internal.h, KIT_PRINTED)
 *   hello waits until every line is printed, then returns 0 -> hello_printf
 *   hello returns CUDA's own nonzero error code when the launch is refused -> launch_error_reported
 *   hello prints a message on stderr that names the error -> launch_error_reported (its cudaGetErrorString or
 *       cudaGetErrorName, as the reference's message for the same call gives them)
 *   hello reports a kernel that fails after it launched in the same way -> launch_error_reported (the grader
 *       makes cudaDeviceSynchronize report a launch failure)
 *   fill_global_indices makes one launch with exactly the grid and block it is given -> global_index_1d,
 *       global_index_2d_3d, global_index_bounds
 *   each thread whose global index g is below n stores g at out[g] -> global_index_1d, global_index_2d_3d
 *   threads with g >= n store nothing, so out[n..] keeps its old values -> global_index_bounds
 *   out is written by the kernel and copied back from the device -> global_index_1d, global_index_2d_3d,
 *       global_index_bounds
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade.h"
#include "lab1.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab1-hello/lab-calls.h"

#define POISON (-1) /* every output element holds this before the call */

/* ---- capturing what the code under test prints --------------------------------- */

/* What the last call on `side` printed (stdout, stderr), as copies. */
static void printed_by(grade_side *side, char **out, char **err)
{
    *out = strdup(grade_output(side, 1));
    *err = strdup(grade_output(side, 2));
}

/* The first `lines` lines of text, indented, for feedback. */
static const char *first_lines(const char *text, int lines)
{
    static char shown[1024];
    size_t used = 0;
    shown[0] = '\0';
    for (const char *p = text; *p && lines > 0 && used + 8 < sizeof shown; lines--) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 100)
            len = 100;
        used += (size_t)snprintf(shown + used, sizeof shown - used, "    | %.*s\n", (int)len, p);
        p = end ? end + 1 : p + strlen(p);
    }
    if (!shown[0])
        snprintf(shown, sizeof shown, "    (nothing)\n");
    return shown;
}

/* ---- device_query -------------------------------------------------------------------- */

GRADE_ITEM(device_query, 10, GRADE_CORRECTNESS, 20, "1", "the device query reports the device's name, SMs, compute capability and limits",
           "`describe_device` reports the same name, SM count, compute capability, warp size, largest block "
           "and memory size as the reference on the same device")
{
    lab1_device_info mine, theirs;
    memset(&mine, 0x55, sizeof mine);
    GRADE_FN(grade_student(), describe_device)(&mine);
    GRADE_FN(grade_reference(), describe_device)(&theirs);
    mine.name[sizeof mine.name - 1] = '\0';

    grade_check(strcmp(mine.name, theirs.name) == 0, "the device name is \"%s\" but the device is \"%s\" (prop.name)",
                mine.name, theirs.name);
#define SAME(field, what)                                                                               \
    grade_check(mine.field == theirs.field, "%s is %lld but the device says %lld (cudaDeviceProp.%s)", what, \
                (long long)mine.field, (long long)theirs.field, #field)
    SAME(multiprocessor_count, "the multiprocessor count");
    SAME(major, "the compute capability's major number");
    SAME(minor, "the compute capability's minor number");
    SAME(warp_size, "the warp size");
    SAME(max_threads_per_block, "the largest block");
    SAME(global_memory_bytes, "the global memory size in bytes");
#undef SAME
    grade_note("%s: %d SMs, compute capability %d.%d", theirs.name, theirs.multiprocessor_count, theirs.major,
               theirs.minor);
}

/* ---- hello_printf ---------------------------------------------------------------------- */

/* Checks that `text` holds exactly one "hello from block B, thread T" line for
 * every thread of a launch of `blocks` x `threads`. */
static void expect_hello_lines(const char *text, int blocks, int threads)
{
    int total = blocks * threads, matched = 0;
    int *seen = calloc((size_t)total, sizeof *seen);
    for (const char *p = text; *p;) {
        int b, t;
        if (sscanf(p, "hello from block %d, thread %d", &b, &t) == 2) {
            matched++;
            grade_check(b >= 0 && b < blocks && t >= 0 && t < threads,
                        "hello(%d, %d) printed \"hello from block %d, thread %d\", but the launch has blocks 0..%d "
                        "and threads 0..%d in each",
                        blocks, threads, b, t, blocks - 1, threads - 1);
            seen[b * threads + t]++;
        }
        const char *end = strchr(p, '\n');
        p = end ? end + 1 : p + strlen(p);
    }
    grade_check(matched > 0,
                "hello(%d, %d) printed no line of the form \"hello from block B, thread T\" (%d expected, one per "
                "thread); what it printed starts with:\n%s"
                "Did the kernel call printf, and did hello() wait for it (cudaDeviceSynchronize) before returning?",
                blocks, threads, total, first_lines(text, 5));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            int count = seen[b * threads + t];
            grade_check(count == 1,
                        "hello(%d, %d): block %d, thread %d printed its line %d times (once expected); %d lines "
                        "matched for %d threads",
                        blocks, threads, b, t, count, matched, total);
        }
    free(seen);
}

/* Whether bytes [from, to) of what the last call on `side` printed on
 * stdout came out while the host waited for the device (the copy record in kit_internal.h,
 * KIT_PRINTED): that is when, and only when, CUDA shows kernel printf, on
 * a GPU (its printf buffer, emptied at synchronization) and on the cpu
 * backend alike. */
static int printed_while_waiting(grade_side *side, long long from, long long to)
{
    for (int i = 0; i < grade_copy_count(side); i++) {
        const kit_copy *c = grade_copy_at(side, i);
        long long start = (long long)c->device_address, end = start + (long long)c->bytes;
        if (c->direction == KIT_PRINTED && start <= from && to <= end)
            return 1;
    }
    return 0;
}

/* lab1.h: the kernel's threads print the lines.  A line the host printed
 * (a loop in hello() around a kernel that prints nothing, or no kernel at
 * all) reaches stdout outside every wait for the device. */
static void require_lines_from_kernel(grade_side *side, const char *text, int blocks, int threads)
{
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int b, t;
        if (sscanf(p, "hello from block %d, thread %d", &b, &t) == 2)
            grade_check(printed_while_waiting(side, p - text, (long long)(p - text + len)),
                        "hello(%d, %d) printed the right lines, but the host printed them: \"%.*s\" reached the "
                        "output outside every wait for the device (cudaDeviceSynchronize), which is where a "
                        "kernel's printf appears. Each thread of hello_kernel must print its own line with printf, "
                        "in the kernel; the host only launches it and waits", blocks, threads,
                        (int)(len < 60 ? len : 60), p);
        p = end ? end + 1 : p + len;
    }
}

GRADE_ITEM(hello_printf, 15, GRADE_CORRECTNESS, 30, "2,3", "every thread of hello() prints its own line, exactly once",
           "`hello(b, t)` returns 0 and prints exactly one `hello from block B, thread T` line for each of "
           "its b x t threads, for several shapes (1 x 1 up to 4 x 33); the kernel prints them: each line "
           "must appear while `hello` waits for the device, where kernel `printf` comes out (a line the host "
           "prints does not count)")
{
    static const int shapes[][2] = {{1, 1}, {1, 5}, {2, 3}, {3, 32}, {4, 33}};
    grade_side *student = grade_student();
    int (*student_hello)(int, int) = GRADE_FN(student, hello);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int blocks = shapes[s][0], threads = shapes[s][1];
        char *out, *err;
        grade_reset_records(student);
        int result = student_hello(blocks, threads);
        printed_by(student, &out, &err);
        grade_check(result == 0, "hello(%d, %d) returned %d, but a launch of this shape is valid and should return 0; "
                    "it printed on stderr:\n%s", blocks, threads, result, first_lines(err, 3));
        expect_hello_lines(out, blocks, threads);
        require_lines_from_kernel(student, out, blocks, threads); /* right lines: now, whose */
        free(out);
        free(err);
    }
}

/* ---- launch_error_reported ----------------------------------------------------------------- */

/* lab1.h: the message on stderr names the error.  The grader makes no CUDA
 * call, so it takes the names from the reference's own message for the same
 * call, "hello: B blocks of T threads: <cudaGetErrorString> (<cudaGetErrorName>)",
 * and accepts either in the student's stderr: the string's head (the cpu
 * backend adds " (details)" to it, which may differ) or the name.  "error"
 * alone, or the bare code, names nothing. */
static void expect_error_named(const char *call, int code, const char *err)
{
    char *ref = strdup(grade_output(grade_reference(), 2));
    char *from = strstr(ref, " threads: "), *open = strrchr(ref, '(');
    char *close = open ? strchr(open, ')') : NULL;
    if (!from || !open || !close || open < from + 10) {
        free(ref);
        return; /* (a reference that says it otherwise: nothing to compare with) */
    }
    *close = '\0';
    const char *name = open + 1;
    char *string = from + 10, *detail = strstr(string, " (");
    if (detail)
        *detail = '\0'; /* the head: "invalid argument", "unspecified launch failure" */
    int named = strstr(err, name) != NULL || (*string && strstr(err, string) != NULL);
    grade_check(named,
                "%s returned the right code (%d) but its message on stderr does not name the error: it printed\n%s"
                "lab1.h asks for a message that names it, \"%s\" (cudaGetErrorString) or %s (cudaGetErrorName)",
                call, code, first_lines(err, 3), string, name);
    free(ref);
}

GRADE_ITEM(launch_error_reported, 15, GRADE_CORRECTNESS, 30, "3", "a launch CUDA refuses is reported with its error code and a message",
           "`hello(1, 2048)` and `hello(1, 1025)` return the CUDA error code of the refused launch, print a "
           "message on stderr and no hello line; a good launch afterwards works again; and when the kernel "
           "fails while it runs (the grader makes `cudaDeviceSynchronize()` report a launch failure), "
           "`hello` returns that code too, with a message")
{
    int (*student_hello)(int, int) = GRADE_FN(grade_student(), hello);
    int (*reference_hello)(int, int) = GRADE_FN(grade_reference(), hello);
    lab1_device_info device;
    GRADE_FN(grade_reference(), describe_device)(&device);
    const int refused[] = {2 * device.max_threads_per_block, device.max_threads_per_block + 1};

    for (int k = 0; k < 2; k++) {
        int threads = refused[k];
        char *out, *err;
        int expected = reference_hello(1, threads);
        int result = student_hello(1, threads);
        printed_by(grade_student(), &out, &err);

        grade_check(result != 0,
                    "hello(1, %d) returned 0, but CUDA refuses a block of %d threads (the device allows at most %d): "
                    "the launch failed and nothing was printed, silently.  Ask cudaGetLastError() right after the "
                    "launch and return its code (%d here).",
                    threads, threads, device.max_threads_per_block, expected);
        grade_check(result == expected,
                    "hello(1, %d) returned %d, but the error CUDA reports for this launch is %d; return the "
                    "cudaError_t itself", threads, result, expected);
        grade_check(err[strspn(err, " \t\r\n")] != '\0',
                    "hello(1, %d) returned the right code (%d) but printed nothing on stderr; print a message that "
                    "names the error (cudaGetErrorString)", threads, result);
        char call[48];
        snprintf(call, sizeof call, "hello(1, %d)", threads);
        expect_error_named(call, result, err);
        grade_check(strstr(out, "hello from block") == NULL,
                    "hello(1, %d) should print no hello line, since the kernel never ran; it printed:\n%s", threads,
                    first_lines(out, 3));
        free(out), free(err);
    }

    /* The error must not linger: a good launch afterwards works normally. */
    char *out, *err;
    int result = student_hello(2, 2);
    printed_by(grade_student(), &out, &err);
    grade_check(result == 0,
                "after the refused launch, hello(2, 2) returned %d: the old error was still pending.  "
                "cudaGetLastError() reads and clears it; cudaPeekAtLastError() leaves it for the next call",
                result);
    /* (its lines are hello_printf's to judge: one mistake, one item) */
    free(out), free(err);

    /* A kernel that fails while it runs: the launch is accepted, and the
     * error comes from cudaDeviceSynchronize (kit_internal.h, the grader's tests, makes it so). */
    grade_spoil(grade_reference(), KIT_SPOIL_SYNC, 0);
    int expected = reference_hello(1, 1);
    grade_spoil(grade_student(), KIT_SPOIL_SYNC, 0);
    result = student_hello(1, 1);
    printed_by(grade_student(), &out, &err);
    grade_check(result != 0,
                "hello(1, 1) returned 0 although the kernel failed while it ran (the grader made "
                "cudaDeviceSynchronize() report %d, a launch failure, as a crashing kernel would): an error that "
                "cudaDeviceSynchronize returns is reported like a refused launch, with its code", expected);
    grade_check(result == expected,
                "hello(1, 1) returned %d, but cudaDeviceSynchronize() reported %d (the kernel failed while it ran; "
                "the grader made it so): return that cudaError_t itself", result, expected);
    grade_check(err[strspn(err, " \t\r\n")] != '\0',
                "hello(1, 1) returned the right code (%d) for a kernel that failed while it ran, but printed nothing "
                "on stderr; print a message that names the error (cudaGetErrorString)", result);
    expect_error_named("hello(1, 1), whose kernel failed while it ran,", result, err);
    free(out), free(err);
}

/* ---- global indices --------------------------------------------------------------------------- */

static int shape_size(lab1_shape s) { return s.x * s.y * s.z; }

/* The bytes of out that one copy back must account for.  Only out[0..n-1]
 * is written and the rest keeps its value, so copying back the whole array
 * and copying back only its first n elements are both right: the whole
 * array when a copy to the host brought back exactly that, else the first n. */
static size_t bytes_back(grade_side *side, const int *out, int total, int n)
{
    size_t whole = (size_t)total * sizeof *out;
    uint64_t sum = kit_checksum(out, whole);
    for (int i = 0; i < grade_copy_count(side); i++) {
        const kit_copy *c = grade_copy_at(side, i);
        int back = c->direction == KIT_TO_HOST || c->direction == KIT_EITHER_WAY;
        if (back && c->bytes == whole && c->checksum == sum)
            return whole;
    }
    return (size_t)n * sizeof *out;
}

/* The report's figure: the blocks and their threads, each index with the
 * number of slots of out[] that hold it (a thread stores g at out[g]:
 * 0, never written; 2, written twice), index i marked. */
static void attach_grid_figure(const int *out, int total, int n, int per_block, int i, const char *shape)
{
    int *writes = calloc((size_t)total, sizeof *writes);
    if (!writes)
        return;
    for (int j = 0; j < total; j++)
        if (out[j] != POISON && out[j] >= 0 && out[j] < total)
            writes[out[j]]++;
    char caption[240];
    snprintf(caption, sizeof caption, "%s: the indices the threads wrote (one row a block, in launch order)", shape);
    grade_figure_grid(caption, writes, total, n, per_block, i);
    free(writes);
}

/* Runs fill_global_indices on a poisoned array and checks every element and the launch. */
static void check_indices(lab1_shape grid, lab1_shape block, int n, const char *why)
{
    int total = shape_size(grid) * shape_size(block);
    int *out = malloc((size_t)total * sizeof *out);
    for (int i = 0; i < total; i++)
        out[i] = POISON;

    grade_side *student = grade_student();
    grade_reset_records(student);
    GRADE_FN(student, fill_global_indices)(out, n, grid, block);

    char shape[160];
    snprintf(shape, sizeof shape, "grid (%d, %d, %d) of blocks (%d, %d, %d), %d threads, n = %d%s", grid.x, grid.y,
             grid.z, block.x, block.y, block.z, total, n, why);

    int launches = grade_launch_count(student);
    grade_check(launches == 1, "%s: fill_global_indices made %d launches through LAUNCH, expected exactly one",
                shape, launches);
    const kit_launch *l = grade_launch_at(student, 0);
    grade_check((int)l->grid[0] == grid.x && (int)l->grid[1] == grid.y && (int)l->grid[2] == grid.z
                    && (int)l->block[0] == block.x && (int)l->block[1] == block.y && (int)l->block[2] == block.z,
                "%s: the kernel was launched with grid (%u, %u, %u) and block (%u, %u, %u); it must use exactly the "
                "shapes it was given",
                shape, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);

    for (int i = 0; i < total; i++) {
        int expected = i < n ? i : POISON;
        if (out[i] == expected)
            continue;
        attach_grid_figure(out, total, n, shape_size(block), i, shape);
        int from = i > 8 ? i - 8 : 0, count = total - from < 24 ? total - from : 24;
        grade_picture_ints("out[] from the first wrong element (marked) on", out + from, count, i - from, i - from + 1);
        if (i >= n)
            grade_fail("%s: out[%d] = %d, but %d is past n, so no thread may write there (it should still be %d). "
                       "Does the kernel check g < n before writing?", shape, i, out[i], i, POISON);
        if (out[i] == POISON)
            grade_fail("%s: out[%d] was never written: no thread stored g = %d. When the kernel does store g, "
                       "this means some threads compute the same index and others are left out: check the block "
                       "number (blockIdx and gridDim) and the thread number (threadIdx and blockDim) in every "
                       "dimension", shape, i, i);
        grade_fail("%s: out[%d] = %d, expected %d (each thread writes g at out[g])", shape, i, out[i], expected);
    }
    /* Right; and the kernel must have written it, not the host. */
    grade_require_from_device(student, shape, "out", out, bytes_back(student, out, total, n), 1);
    free(out);
}

/* A shape of `dims` dimensions with sides in [1, side_max], drawn from `seed`. */
static lab1_shape random_shape(kit_rng *rng, int dims, int side_max)
{
    lab1_shape s = {1, 1, 1};
    s.x = 1 + (int)(kit_rng_next(rng) % (uint64_t)side_max);
    if (dims > 1)
        s.y = 1 + (int)(kit_rng_next(rng) % (uint64_t)side_max);
    if (dims > 2)
        s.z = 1 + (int)(kit_rng_next(rng) % (uint64_t)side_max);
    return s;
}

static void check_random_shape(int case_number, int dims, int grid_side, int block_side, int below_total)
{
    uint64_t seed = grade_seed_for(case_number);
    kit_rng rng = kit_rng_new(seed);
    lab1_shape grid = random_shape(&rng, dims, grid_side), block = random_shape(&rng, dims, block_side);
    int total = shape_size(grid) * shape_size(block);
    int n = below_total ? 1 + (int)(kit_rng_next(&rng) % (uint64_t)total) : total;
    char why[64];
    snprintf(why, sizeof why, " (random shape, seed %llu)", (unsigned long long)seed);
    check_indices(grid, block, n, why);
}

GRADE_ITEM(global_index_1d, 15, GRADE_CORRECTNESS, 30, "4,5", "every thread of 1D launches writes its global index",
           "every thread of one-dimensional launches (1 x 1 up to 300 x 7 and 2 x 1024, plus a random shape) "
           "writes its index; exactly one launch, with the shape given")
{
    static const int shapes[][2] = {{1, 1}, {1, 32}, {4, 32}, {3, 100}, {7, 33}, {2, 1024}, {300, 7}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        lab1_shape grid = {shapes[s][0], 1, 1}, block = {shapes[s][1], 1, 1};
        check_indices(grid, block, shape_size(grid) * shape_size(block), "");
    }
    check_random_shape(1, 1, 50, 300, 0);
}

GRADE_ITEM(global_index_2d_3d, 20, GRADE_CORRECTNESS, 30, "4,5", "every thread of 2D and 3D launches, odd shapes too, writes its global index",
           "the same for two- and three-dimensional grids and blocks, odd sizes included, plus random shapes")
{
    static const lab1_shape shapes[][2] = {
        {{3, 2, 1}, {16, 4, 1}}, {{5, 3, 1}, {7, 3, 1}},  {{1, 4, 1}, {1, 8, 1}}, {{2, 3, 4}, {4, 2, 3}},
        {{1, 1, 5}, {1, 1, 64}}, {{3, 1, 2}, {5, 7, 2}},  {{2, 2, 2}, {8, 8, 8}},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        lab1_shape grid = shapes[s][0], block = shapes[s][1];
        check_indices(grid, block, shape_size(grid) * shape_size(block), "");
    }
    check_random_shape(2, 2, 9, 20, 0);
    check_random_shape(3, 3, 5, 8, 0);
}

GRADE_ITEM(global_index_bounds, 15, GRADE_CORRECTNESS, 30, "4", "threads whose global index is n or more write nothing",
           "with n below the number of threads, every element from n on keeps its value")
{
    static const struct { lab1_shape grid, block; int below; } cases[] = {
        {{4, 1, 1}, {32, 1, 1}, 1},  {{3, 1, 1}, {100, 1, 1}, 37}, {{1, 1, 1}, {64, 1, 1}, 63},
        {{5, 3, 1}, {7, 3, 1}, 10},  {{2, 3, 4}, {4, 2, 3}, 100},  {{2, 2, 1}, {16, 16, 1}, 1023},
    };
    for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
        int total = shape_size(cases[s].grid) * shape_size(cases[s].block);
        check_indices(cases[s].grid, cases[s].block, total - cases[s].below, "");
    }
    check_indices((lab1_shape){1, 1, 1}, (lab1_shape){32, 1, 1}, 1, "");
    check_random_shape(4, 3, 5, 8, 1);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab1", "2 40",
                     ", and the same program built with the cpu backend "
                     "runs without an error (it stops at a `__syncthreads()` that only some threads of a block reach, "
                     "which a GPU runs past)")

GRADE_LAB(1, "hello", "lab1-hello")
