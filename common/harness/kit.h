/* kit.h: what your lab code uses from the CUDA Labs harness.
 *
 * In the order the labs first use it:
 *   1. checking calls and launches   CHECK, LAUNCH, LAUNCH_COOPERATIVE, kit_fail
 *   2. steps not written yet         kit_not_implemented, kit_todo_pending
 *   3. timing                        kit_set_timing, kit_timed_ms, kit_wall_ms, kit_median
 *   4. the launch record             kit_launch_count, kit_launch_at
 *   5. the device                    kit_device_name, kit_on_gpu
 *   6. pictures of small arrays      kit_draw_ints, kit_draw_floats
 *   7. seeded data                   kit_fill_*, kit_rng_*
 *   8. exact answers                 kit_dot, kit_abs_dot, kit_sum_ints, kit_max_floats
 *   9. the tolerance policy          kit_error_units, kit_within_tolerance
 *  10. round snapshots               SNAPSHOT, ASSERT_INVARIANT, kit_snapshot_at, ...
 *
 * The macros (CHECK, LAUNCH, LAUNCH_COOPERATIVE, SNAPSHOT, ASSERT_INVARIANT)
 * exist in .cu files only; everything else is plain C, usable from any
 * file.  In a .cu file the kit also records your cudaMemcpy, cudaMalloc,
 * event and stream calls as they happen, so that the grader can see what
 * the device did; each is still CUDA's own call (kit_hooks.h).  The grader's side of the
 * harness is in kit_internal.h: you never need it. */
#ifndef KIT_H
#define KIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__CUDACC__) || defined(__CUDAEMU__)
#define KIT_HAS_CUDA 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. Checking calls and launches ---------------------------------------
 * CHECK(cudaMalloc(&p, bytes));
 *     stops with "file:line: cudaMalloc(&p, bytes) failed: <reason>".
 * LAUNCH(k, grid, block, shmem, a, b, c);
 *     is k<<<grid, block, shmem>>>(a, b, c), recorded (part 4), checked for
 *     errors at your line and timed when timing is on (part 3).
 * LAUNCH_ON_STREAM(s, k, grid, block, shmem, a, b, c);
 *     the same, on stream s.
 * LAUNCH_COOPERATIVE(k, grid, block, shmem, args);
 *     is cudaLaunchCooperativeKernel(k, grid, block, args, shmem, 0), where
 *     args is an array of pointers to the kernel's arguments; recorded,
 *     checked and timed like LAUNCH.
 * kit_fail(__FILE__, __LINE__, "printf format", ...) stops the same way
 * with your own message (under the grader, the item fails with it).
 * To see that your code checks, the grader may make a call fail (a
 * cudaDeviceSynchronize, as if the kernel had crashed) or a copy back
 * arrive changed. */
void kit_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 3, 4)))
#endif
    ;

/* ---- 2. Steps not written yet ------------------------------------------------
 * A skeleton's unfinished step calls kit_not_implemented("TODO 3") once: it
 * prints a reminder and lets the program go on (with wrong answers, never a
 * crash).  kit_todo_pending() is the first such TODO seen, or NULL. */
void kit_not_implemented(const char *todo);
const char *kit_todo_pending(void);

/* ---- 3. Timing -----------------------------------------------------------------
 * With timing on, every LAUNCH is timed with CUDA events on the device, and
 * kit_timed_ms() is the total of all launches since kit_reset_records(). */
void kit_set_timing(int on);
double kit_timed_ms(void);
double kit_wall_ms(void);                       /* the host's clock, in ms (for copies and phases) */
double kit_median(double *values, int count);   /* sorts the values in place */
void kit_reset_records(void);                   /* forgets the records and the timed total */

/* ---- 4. The launch record ---------------------------------------------------------
 * Every LAUNCH, as it was made: kit_launch_at(0) is the first since
 * kit_reset_records(), or NULL when there is none. */
typedef struct {
    char kernel[64];
    unsigned grid[3], block[3];
    size_t shmem;
    int cooperative;   /* made with LAUNCH_COOPERATIVE */
    int device;        /* the device it ran on: the one current (cudaSetDevice) at the LAUNCH */
    const char *file;
    int line;
    /* how the kernel worked, counted over all its threads by the cpu backend
     * (-1 on a GPU): atomic operations, warp shuffles (cg::reduce's too),
     * block barriers, and the bytes of its __shared__ arrays */
    long long atomics, shuffles, barriers, static_shared;
} kit_launch;
int kit_launch_count(void);
const kit_launch *kit_launch_at(int i);

/* ---- 5. The device -------------------------------------------------------------- */
const char *kit_device_name(void);   /* "NVIDIA H100 80GB HBM3", or the cpu backend's device */
int kit_on_gpu(void);                /* 1 on the gpu backend, 0 on the cpu backend */

/* ---- 6. Pictures of small arrays ------------------------------------------------
 * A row of boxes, the cells from mark_from up to (not including) mark_to
 * marked with '*' (-1, -1: none):
 *      +---+---+---+---+
 *      | 4   6   8  10 |
 *      +---+---+---+---+                                                       */
void kit_draw_ints(FILE *out, const char *prefix, const int *a, int n, int mark_from, int mark_to);
void kit_draw_floats(FILE *out, const char *prefix, const float *a, int n, int mark_from, int mark_to);

/* ---- 7. Seeded data -------------------------------------------------------------
 * The same seed gives the same data on every machine, so that a failing
 * input can be replayed with ./grader --seed=S. */
void kit_fill_uniform(float *a, size_t n, float lo, float hi, uint64_t seed);  /* in [lo, hi) */
void kit_fill_ints(int *a, size_t n, int lo, int hi, uint64_t seed);           /* in [lo, hi] */
void kit_fill_small_floats(float *a, size_t n, int lo, int hi, uint64_t seed); /* whole numbers in [lo, hi] */
typedef struct { uint64_t state; } kit_rng;
kit_rng kit_rng_new(uint64_t seed);
uint64_t kit_rng_next(kit_rng *rng);   /* the next of a seeded sequence of 64-bit numbers */

/* ---- 8. Exact answers, computed in double precision on the host --------------- */
double kit_dot(const float *x, const float *y, size_t n);
double kit_abs_dot(const float *x, const float *y, size_t n);   /* the sum of |x_i y_i| */
long long kit_sum_ints(const int *a, size_t n);
float kit_max_floats(const float *a, size_t n);                 /* -INFINITY for n == 0 */

/* ---- 9. The tolerance policy ---------------------------------------------------------
 * A float result s of terms whose exact sum is S passes when
 *     |s - S| <= c * u * sum|terms|,   u = 2^-24 (float's unit roundoff),
 * with c set by each lab (2000 for sums: any order of adding up to 2^24
 * terms passes; a dropped or doubled term does not).  The feedback prints
 * the error in units of u * sum|terms|.  NaN never passes. */
double kit_error_units(double got, double exact, double abs_sum);
int kit_within_tolerance(double got, double exact, double abs_sum, double c);

/* ---- 10. Round snapshots -----------------------------------------------------------
 * SNAPSHOT(d_a, n, round), after a round's launch, copies the first n
 * elements of device array d_a back and keeps them, labelled with the
 * round, when snapshots are on (the grader and small lab runs turn them
 * on); when they are off it costs nothing.
 * ASSERT_INVARIANT(holds, original, n, round), right after a SNAPSHOT, is
 * the assert of a loop of rounds, with your predicate
 *     int holds(const T *original, const T *state, int n, int round):
 * when snapshots are on, it calls holds with that snapshot's copy as state
 * and, if it returns 0, says on stderr "file:line: holds says the invariant
 * does not hold after round R", and goes on.  (To see whether your check
 * notices a wrong state, the grader may change a round's device array just
 * before its SNAPSHOT copies it.)  Every snapshot taken so far:
 * kit_snapshot_at(i) for i < kit_snapshot_count(). */
typedef struct {
    int round;
    size_t count;              /* elements */
    size_t element_size;       /* bytes per element */
    const void *data;          /* count * element_size bytes, host memory */
    uint64_t device_address;   /* the device array it was taken of */
    const char *file;
    int line;
} kit_snapshot;
void kit_set_snapshots(int on);
int kit_snapshot_count(void);
const kit_snapshot *kit_snapshot_at(int i);

#ifdef __cplusplus
}
#endif

/* What the macros above expand to, and the recording of CUDA calls: the
 * declarations a .cu file needs to compile them, nothing to read. */
#ifdef KIT_HAS_CUDA
#include "kit_hooks.h"
#endif

#endif /* KIT_H */
