/* evidence.c: that the device did the work, from the harness's copy record.
 *
 * A lab function's result counts only if it is what one cudaMemcpy brought
 * back from the device, unchanged, and (where kernels are needed) a kernel
 * ran on that device memory after the host last wrote it.  The record comes
 * from the student's own process, so this is evidence a determined cheater
 * could fake with effort; a host computation written as a student would
 * write it is caught, and the feedback says what the kernels must do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"

static int comes_back(const kit_copy *c) { return c->direction == KIT_TO_HOST || c->direction == KIT_EITHER_WAY; }

/* The last copy to the host of exactly these bytes, or -1. */
static int matching_download(grade_side *side, size_t size, uint64_t sum)
{
    for (int i = grade_copy_count(side) - 1; i >= 0; i--) {
        const kit_copy *c = grade_copy_at(side, i);
        if (comes_back(c) && c->bytes == size && c->checksum == sum)
            return i;
    }
    return -1;
}

void grade_require_from_device(grade_side *side, const char *fn, const char *what, const void *bytes, size_t size,
                               int kernels_needed)
{
    if (size == 0)
        return;
    uint64_t sum = kit_checksum(bytes, size);
    int found = matching_download(side, size, sum);
    if (found < 0) {
        int back = -1;
        for (int i = grade_copy_count(side) - 1; i >= 0 && back < 0; i--)
            if (comes_back(grade_copy_at(side, i)))
                back = i;
        if (back < 0)
            grade_fail("%s: %s never came back from the device: no cudaMemcpy to the host was made, so the host "
                       "computed it; the kernels compute it in device memory and one cudaMemcpy brings it back",
                       fn, what);
        const kit_copy *c = grade_copy_at(side, back);
        if (c->bytes != size)
            grade_fail("%s: %s (%zu bytes) did not come back from the device in one cudaMemcpy (the last copy to "
                       "the host, at %s:%d, brought back %zu bytes): copy the result back whole, as the kernels left "
                       "it, and return or store exactly that", fn, what, size, c->file, c->line, c->bytes);
        grade_fail("%s: %s is not what your code copied back from the device (the last cudaMemcpy to the host, at "
                   "%s:%d, brought back other values): the kernels compute the result; after the copy back the host "
                   "must not change it or compute it again", fn, what, c->file, c->line);
    }
    if (!kernels_needed)
        return;
    const kit_copy *down = grade_copy_at(side, found);
    /* the last time the host wrote that device memory, before the copy back */
    int launches_since = down->launches_before;
    for (int i = 0; i < found; i++) {
        const kit_copy *up = grade_copy_at(side, i);
        if (up->direction != KIT_TO_DEVICE || up->device_address != down->device_address)
            continue;
        launches_since = down->launches_before - up->launches_before;
        if (up->bytes == size && up->checksum == sum) /* (a caller passes kernels_needed = 0 where the right
                                                          result may equal what went up) */
            grade_fail("%s: %s went from the host to the device (cudaMemcpy at %s:%d) and came back unchanged "
                       "(%s:%d): the host computed it; the kernels must", fn, what, up->file, up->line, down->file,
                       down->line);
    }
    grade_check(launches_since > 0,
                "%s: %s was copied back (%s:%d) with no kernel launched since the host last wrote that device "
                "memory: the kernels must compute it", fn, what, down->file, down->line);
}

/* Whether a copy carried only zero bytes: clearing memory computes nothing. */
static int all_zeros(const kit_copy *c)
{
    void *zeros = calloc(c->bytes ? c->bytes : 1, 1);
    int same = zeros && c->checksum == kit_checksum(zeros, c->bytes);
    free(zeros);
    return same;
}

void grade_require_no_upload_after_launch(grade_side *side, const char *fn, const char *why)
{
    for (int i = 0; i < grade_copy_count(side); i++) {
        const kit_copy *c = grade_copy_at(side, i);
        grade_check(c->direction != KIT_TO_DEVICE || c->launches_before == 0 || all_zeros(c),
                    "%s copied %zu bytes from the host to the device after its first launch (cudaMemcpy at %s:%d): %s",
                    fn, c->bytes, c->file, c->line, why);
    }
}

void grade_require_memory_freed(grade_side *side, const char *call, long long before)
{
    long long after = grade_device_bytes_in_use(side);
    if (before < 0 || after < 0)
        return;
    grade_check(after == before,
                "%s left %lld bytes of device memory allocated (%lld before the call, %lld after): every cudaMalloc "
                "needs its cudaFree", call, after - before, before, after);
}

void grade_require_bytes_back_at_most(grade_side *side, const char *fn, size_t most, const char *why)
{
    size_t total = 0;
    const kit_copy *last = NULL;
    for (int i = 0; i < grade_copy_count(side); i++) {
        const kit_copy *c = grade_copy_at(side, i);
        if (comes_back(c))
            total += c->bytes, last = c;
    }
    grade_check(total <= most, "%s copied %zu bytes back to the host (the last at %s:%d) where %zu are needed: %s",
                fn, total, last ? last->file : "?", last ? last->line : 0, most, why);
}

/* ---- the code's own checks (kit_internal.h, the grader's tests) ------------------ */

void grade_require_host_only(grade_side *side, const char *fn)
{
    grade_check(grade_launch_count(side) == 0,
                "%s launched a kernel (%s, at %s:%d): it is plain host code, run on the CPU, on the host array it is "
                "given", fn, grade_launch_at(side, 0)->kernel, grade_launch_at(side, 0)->file,
                grade_launch_at(side, 0)->line);
    grade_check(grade_copy_count(side) == 0,
                "%s called cudaMemcpy (at %s:%d): it is plain host code, run on the CPU, on the host array it is "
                "given", fn, grade_copy_at(side, 0)->file, grade_copy_at(side, 0)->line);
}

void grade_require_noticed(void (*call)(void *arg), void *arg, int kind, int at, const char *fn,
                           const char *predicate)
{
    grade_side *you = grade_student();
    grade_set_snapshots(you, kind == KIT_SPOIL_SNAPSHOT);
    call(arg); /* unspoiled, it returns (an error here fails the item as usual) */
    char *quiet = strdup(grade_output(you, 2));
    grade_spoil(you, kind, at);
    grade_expect_error();
    call(arg);
    /* noticed: the call stopped (kit_fail), or it said so on stderr */
    int noticed = grade_caught_error() != NULL || strcmp(grade_output(you, 2), quiet ? quiet : "") != 0;
    free(quiet);
    grade_set_snapshots(grade_student(), 0); /* (a new runner, where the call stopped) */
    if (noticed)
        return;
    if (kind == KIT_SPOIL_SNAPSHOT)
        grade_fail("%s went on silently after the snapshot of round %d although that state was wrong (the grader "
                   "changed it in device memory, as a broken kernel would): with snapshots on, %s must check %s on "
                   "every state it snapshots, round 0 too, and report a state that breaks the invariant", fn, at, fn,
                   predicate);
    grade_fail("%s went on silently although what its copy back to the host brought was wrong (the grader changed "
               "it, as a broken kernel would): %s must check it with %s and report values that break the invariant",
               fn, fn, predicate);
}

void grade_require_checks_every_state(void (*call)(void *arg), void *arg, int rounds, const char *fn,
                                      const char *predicate)
{
    const int spoiled[] = {0, 1, rounds / 2 + 1, rounds}; /* the first, a middle and the last state */
    for (int k = 0; k < 4; k++)
        if (spoiled[k] <= rounds && (k == 0 || spoiled[k] > spoiled[k - 1]))
            grade_require_noticed(call, arg, KIT_SPOIL_SNAPSHOT, spoiled[k], fn, predicate);
}

/* ---- how a kernel works (the cpu backend's counts, kit.h part 4) ------------------ */

int grade_kernel_code_has(grade_side *side, const char *kernel, const char *instruction)
{
    char *code = grade_kernel_code(side, kernel);
    if (!code)
        return -1;
    int has = strstr(code, instruction) != NULL;
    free(code);
    return has;
}

void grade_require_shared_tree(grade_side *side, int launch, const char *fn, const char *rule)
{
    const kit_launch *l = grade_launch_at(side, launch);
    if (l->barriers < 0) { /* a GPU does not count: its machine code has shared memory and barriers, or not */
        char *code = grade_kernel_code(side, l->kernel);
        const char *missing = !code ? NULL : !strstr(code, "STS") ? "store to shared memory"
                                    : !strstr(code, "BAR.SYNC") ? "barrier" : NULL;
        free(code);
        grade_check(!missing, "%s: the machine code of %s (launched at %s:%d) has no %s: %s", fn, l->kernel, l->file,
                    l->line, missing, rule);
        return;
    }
    long long per_block = (long long)l->block[0] * l->block[1] * l->block[2];
    long long threads = (long long)l->grid[0] * l->grid[1] * l->grid[2] * per_block;
    int levels = 1; /* a tree over the block's threads has log2 of them */
    while ((2LL << levels) <= per_block)
        levels++;
    grade_check(l->static_shared + (long long)l->shmem > 0,
                "%s: its launch of %s (%s:%d) used no shared memory: %s", fn, l->kernel, l->file, l->line, rule);
    grade_check(l->barriers >= levels * threads,
                "%s: its launch of %s (%s:%d) made %lld barrier calls in %lld threads, fewer than the %d levels of a "
                "tree over %lld threads need (one barrier each): %s", fn, l->kernel, l->file, l->line, l->barriers,
                threads, levels, per_block, rule);
}

/* ---- speed evidence ------------------------------------------------------------------ */

#define CACHE_SAFE_BYTES (256.0 * (1 << 20)) /* more than any GPU's cache holds */
#define EVENT_RESOLUTION_MS 0.002             /* CUDA's events measure to about half a microsecond */

const char *grade_timing_impossible(double recorded_ms, double outside_ms, double bytes, double peak_gbs, char *why,
                                    size_t size)
{
    if (!(recorded_ms >= 0) || !(recorded_ms < 1e12)) {
        snprintf(why, size, "the recorded kernel time, %g ms, is not a time", recorded_ms);
        return why;
    }
    /* the kernels ran inside the call: their time fits in the call's, with
     * a little for the two clocks (CUDA's events, the host's) */
    if (outside_ms >= 0 && recorded_ms > 1.01 * outside_ms + 0.05) {
        snprintf(why, size, "the recorded kernel time, %.3f ms, is longer than the whole call took by the grader's "
                 "clock, %.3f ms: the timing records do not come from the kernels", recorded_ms, outside_ms);
        return why;
    }
    if (peak_gbs > 0 && bytes > 0) {
        double floor_ms = bytes / (peak_gbs * 1e6);
        int cacheable = bytes < CACHE_SAFE_BYTES;
        double least = (cacheable ? 0.25 : 0.9) * floor_ms - EVENT_RESOLUTION_MS;
        if (recorded_ms < least) {
            snprintf(why, size, "the recorded kernel time, %.4f ms, is shorter than reading the call's %.1f MB of input "
                     "once at the device's peak bandwidth (%.0f GB/s) takes, %.4f ms%s: no kernel can do that, so the "
                     "timing records do not come from the kernels", recorded_ms, bytes / 1e6, peak_gbs, floor_ms,
                     cacheable ? " (a quarter of that is allowed for what a cache holds)" : "");
            return why;
        }
    }
    return NULL;
}

double grade_speed_floor_ms(double student_outside_ms, double reference_outside_ms, double reference_recorded_ms)
{
    double host_ms = reference_outside_ms - reference_recorded_ms;
    if (!(host_ms > 0))
        host_ms = 0;
    double floor_ms = student_outside_ms - 1.5 * host_ms - 1.0;
    return floor_ms > 0 ? floor_ms : 0;
}
