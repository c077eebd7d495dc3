/* kit.h: the CUDA Labs harness.
 *
 * Every lab, every solution and the grader use this one small API.
 * Read it top to bottom; each part is a handful of functions:
 *
 *   1. checking CUDA calls and launches      CHECK(call), LAUNCH(kernel, grid, block, shmem, args...)
 *   2. timing with events                    kit_time_ms(...)
 *   3. seeded data                           kit_fill_*()
 *   4. references in double precision        kit_sum_*(), kit_dot_*()
 *   5. the tolerance policy                  kit_error_units(), kit_within_tolerance()
 *   6. round snapshots                       SNAPSHOT(d_array, count, round)
 *   7. the launch record                     kit_launch_count(), kit_launch_at()
 *   8. pictures of small arrays              kit_draw_ints(), kit_draw_floats()
 *   9. the copy record                       kit_copy_count(), kit_copy_at()
 *  10. the grader's tests of your checks     kit_spoil()
 *
 * Parts 3, 4, 5 and 8 are plain C and usable from any .c file.  Parts 1, 2,
 * 6 and 9 need CUDA and exist only in .cu files (on either backend).
 */
#ifndef KIT_H
#define KIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__CUDACC__) || defined(__CUDAEMU__)
#define KIT_HAS_CUDA 1
#include <cuda_runtime.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. Checking CUDA calls and launches ------------------------------
 * CHECK(cudaMalloc(&p, bytes));   stops with "file:line: cudaMalloc(...) failed: <reason>"
 * LAUNCH(k, grid, block, shmem, a, b, c);
 *     is k<<<grid, block, shmem>>>(a, b, c) plus three things the kit needs:
 *     the launch is recorded (part 7), checked for errors at your line,
 *     and timed when timing is on (part 2).  Nothing else changes.
 * When a check fails the kit calls its error handler: by default it prints
 * the message and exits; the grader turns it into the item's feedback.    */
void kit_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 3, 4)))
#endif
    ;
typedef void (*kit_error_handler)(const char *message);
void kit_set_error_handler(kit_error_handler handler); /* NULL: print and exit(1) */

/* A skeleton's unfinished step calls this once; it prints a reminder and
 * lets the program go on (with wrong answers, never a crash). */
void kit_not_implemented(const char *todo);
const char *kit_todo_pending(void); /* the first unfinished TODO seen, or NULL */

#ifdef KIT_HAS_CUDA
void kit_check(cudaError_t err, const char *what, const char *file, int line);
void kit_launch_begin(const char *kernel, dim3 grid, dim3 block, size_t shmem, const char *file, int line);
void kit_launch_end(const char *file, int line);
void kit_cooperative_launch_begin(const char *kernel, dim3 grid, dim3 block, size_t shmem, const char *file, int line);

#define CHECK(call) kit_check((call), #call, __FILE__, __LINE__)
#define LAUNCH(kernel, grid, block, shmem, ...)                                   \
    do {                                                                          \
        kit_launch_begin(#kernel, dim3(grid), dim3(block), (shmem), __FILE__, __LINE__); \
        kernel<<<(grid), (block), (shmem)>>>(__VA_ARGS__);                       \
        kit_launch_end(__FILE__, __LINE__);                                       \
    } while (0)
/* LAUNCH_COOPERATIVE(k, grid, block, shmem, args) is
 * cudaLaunchCooperativeKernel(k, grid, block, args, shmem, 0), where args is
 * an array of pointers to the kernel's arguments, recorded, checked and timed
 * like LAUNCH. */
#ifdef __CUDAEMU__
#define KIT_COOPERATIVE_KERNEL(kernel) kernel /* the cpu backend reads the parameter types from it */
#else
/* the runtime's C function, which every CUDA version has (before CUDA 13
 * the template overload takes `const T *`, which a kernel is not) */
#define KIT_COOPERATIVE_KERNEL(kernel) ((const void *)(kernel))
#endif
#define LAUNCH_COOPERATIVE(kernel, grid, block, shmem, args)                                  \
    do {                                                                                      \
        kit_cooperative_launch_begin(#kernel, dim3(grid), dim3(block), (shmem), __FILE__, __LINE__); \
        kit_check(cudaLaunchCooperativeKernel(KIT_COOPERATIVE_KERNEL(kernel), dim3(grid), dim3(block), (args), (shmem), 0), \
                  "cudaLaunchCooperativeKernel(" #kernel ")", __FILE__, __LINE__);            \
        kit_launch_end(__FILE__, __LINE__);                                                   \
    } while (0)
#endif

/* ---- 2. Timing -------------------------------------------------------------
 * With timing on, every LAUNCH is bracketed by CUDA events and its time is
 * added to a running total: kit_timed_ms() is the device time of all
 * launches since the last kit_reset_records().  The grader and `make bench`
 * turn it on; a lab program turns it on to print its kernel time. */
void kit_set_timing(int on);
double kit_timed_ms(void);
/* Host-side wall clock in milliseconds (for phases such as copies). */
double kit_wall_ms(void);
/* Median of a sample (sorts it in place). */
double kit_median(double *values, int count);

/* ---- 3. Seeded data -------------------------------------------------------
 * The same seed gives the same data on every machine, so any failing input
 * can be replayed with ./grader --seed=S. */
typedef struct { uint64_t state; } kit_rng;
kit_rng kit_rng_new(uint64_t seed);
uint64_t kit_rng_next(kit_rng *rng);
double kit_rng_uniform(kit_rng *rng); /* in [0, 1) */
void kit_fill_ints(int *a, size_t n, int lo, int hi, uint64_t seed);           /* in [lo, hi] */
void kit_fill_small_floats(float *a, size_t n, int lo, int hi, uint64_t seed); /* whole numbers in [lo, hi] */
void kit_fill_uniform(float *a, size_t n, float lo, float hi, uint64_t seed);  /* in [lo, hi) */

/* ---- 4. References in double precision ---------------------------------- */
double kit_sum_floats(const float *a, size_t n);
double kit_abs_sum_floats(const float *a, size_t n);
long long kit_sum_ints(const int *a, size_t n);
double kit_dot(const float *x, const float *y, size_t n);
double kit_abs_dot(const float *x, const float *y, size_t n); /* sum |x_i y_i| */
float kit_max_floats(const float *a, size_t n);              /* -INFINITY for n == 0 */

/* ---- 5. The tolerance policy ------------------------------------------------
 * A float reduction s of terms whose exact double sum is S passes when
 *     |s - S| <= c * u * sum|terms|,   u = 2^-24,
 * with c declared by each lab (2000 for sums: it accepts any summation order
 * of up to 2^24 terms and rejects dropped or doubled terms).  The error in
 * units of u * sum|terms| is what the feedback prints.  NaN never passes. */
#define KIT_UNIT_ROUNDOFF (1.0 / 16777216.0)
double kit_error_units(double got, double exact, double abs_sum);
int kit_within_tolerance(double got, double exact, double abs_sum, double c);

/* ---- 6. Round snapshots ------------------------------------------------------
 * SNAPSHOT(d_a, n, round) copies the first n elements of device array d_a
 * back to the host and keeps them, labelled with the round, when snapshots
 * are on (the grader and small lab runs turn them on).  When they are off it
 * costs nothing.  Call it after every round's launch. */
typedef struct {
    int round;
    size_t count;          /* elements */
    size_t element_size;   /* bytes per element */
    const void *data;      /* count * element_size bytes, host memory */
    uint64_t device_address; /* the device array it was taken of */
    const char *file;
    int line;
} kit_snapshot;
void kit_set_snapshots(int on);
int kit_snapshots_on(void);
int kit_snapshot_count(void);
const kit_snapshot *kit_snapshot_at(int i);
#ifdef KIT_HAS_CUDA
void kit_take_snapshot(const void *device_array, size_t count, size_t element_size, int round,
                       const char *file, int line);
#define SNAPSHOT(d_array, count, round) \
    kit_take_snapshot((d_array), (count), sizeof(*(d_array)), (round), __FILE__, __LINE__)
#endif

/* ---- 7. The launch record ----------------------------------------------- */
typedef struct {
    char kernel[64];
    unsigned grid[3], block[3];
    size_t shmem;
    int cooperative;
    const char *file;
    int line;
    /* How the kernel worked, counted over all its threads by the cpu backend
     * (-1 on a GPU, which does not count): atomic operations, warp shuffles
     * (cg::reduce's too), block barriers, and the bytes of its __shared__
     * arrays (besides the shmem of the launch). */
    long long atomics, shuffles, barriers, static_shared;
} kit_launch;
int kit_launch_count(void);
const kit_launch *kit_launch_at(int i);
void kit_reset_records(void); /* forget launches, snapshots, copies and timed time */

/* ---- 9. The copy record ------------------------------------------------------
 * In a .cu file that includes kit.h, every cudaMemcpy is recorded: which
 * way it went, how many bytes, the device address, how many launches came
 * before it, and a checksum of the bytes.  The grader uses the record to
 * tell results the kernels computed from results the host computed: what a
 * lab function returns must be what came back from the device.  The copy
 * itself is CUDA's own; nothing else changes.  Some other calls are noted
 * in the same record (no bytes copied), each CUDA's own call, then the note:
 *   - every cudaEventRecord (KIT_EVENT), so that a lab that says "time the
 *     kernel with events" can be checked: two events around its launch;
 *   - every cudaEventCreate (or ...WithFlags) and cudaEventDestroy, and the
 *     same for streams (KIT_EVENT_CREATED ... KIT_STREAM_DESTROYED, the
 *     handle in device_address), so that the grader can see whether a call
 *     destroys every event and stream it creates;
 *   - what a call that waits for the device (cudaDeviceSynchronize,
 *     cudaStreamSynchronize, cudaEventSynchronize, cudaMemcpy,
 *     cudaDeviceReset) wrote on stdout while it waited (KIT_PRINTED: from
 *     offset device_address, `bytes` long).  CUDA shows kernel printf then,
 *     and only then, so lines the host printed never fall inside one.  Noted
 *     only where stdout is a file (as the grader's is), not a terminal. */
typedef enum {
    KIT_TO_DEVICE, KIT_TO_HOST, KIT_ON_DEVICE, KIT_ON_HOST, KIT_EITHER_WAY, KIT_EVENT,
    KIT_EVENT_CREATED, KIT_EVENT_DESTROYED, KIT_STREAM_CREATED, KIT_STREAM_DESTROYED, KIT_PRINTED
} kit_copy_direction;
typedef struct {
    kit_copy_direction direction;  /* KIT_EITHER_WAY: cudaMemcpyDefault */
    size_t bytes;                  /* KIT_PRINTED: the bytes written on stdout */
    uint64_t device_address;       /* the device side (the destination of a copy on the device); KIT_EVENT_*
                                      and KIT_STREAM_*: the handle; KIT_PRINTED: the offset in stdout */
    int launches_before;
    uint64_t checksum;             /* kit_checksum() of the bytes copied */
    const char *file;
    int line;
} kit_copy;
int kit_copy_count(void);
const kit_copy *kit_copy_at(int i);
uint64_t kit_checksum(const void *bytes, size_t size); /* plain C, for the grader too */
#ifdef KIT_HAS_CUDA
cudaError_t kit_memcpy(const char *file, int line, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
/* cudaMemcpyAsync too; a copy to the host waits for its stream, to be read */
cudaError_t kit_memcpy_async(const char *file, int line, void *dst, const void *src, size_t bytes,
                             cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t kit_event_record(const char *file, int line, cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t kit_event_create(const char *file, int line, cudaEvent_t *event, unsigned flags = 0);
cudaError_t kit_event_destroy(const char *file, int line, cudaEvent_t event);
cudaError_t kit_stream_create(const char *file, int line, cudaStream_t *stream, unsigned flags = 0);
cudaError_t kit_stream_destroy(const char *file, int line, cudaStream_t stream);
cudaError_t kit_stream_synchronize(const char *file, int line, cudaStream_t stream);
cudaError_t kit_event_synchronize(const char *file, int line, cudaEvent_t event);
cudaError_t kit_device_reset(const char *file, int line);
/* a copy into a __constant__ (or __device__) variable: recorded as an upload
 * to that variable's address */
void kit_note_copy_to_symbol(const char *file, int line, const void *symbol, const void *src, size_t bytes);
#ifndef KIT_HARNESS_SOURCE
#define cudaMemcpy(...) kit_memcpy(__FILE__, __LINE__, __VA_ARGS__)
#define cudaMemcpyAsync(...) kit_memcpy_async(__FILE__, __LINE__, __VA_ARGS__)
#define cudaEventRecord(...) kit_event_record(__FILE__, __LINE__, __VA_ARGS__)
#define cudaEventCreate(...) kit_event_create(__FILE__, __LINE__, __VA_ARGS__)
#define cudaEventCreateWithFlags(...) kit_event_create(__FILE__, __LINE__, __VA_ARGS__)
#define cudaEventDestroy(...) kit_event_destroy(__FILE__, __LINE__, __VA_ARGS__)
#define cudaStreamCreate(...) kit_stream_create(__FILE__, __LINE__, __VA_ARGS__)
#define cudaStreamCreateWithFlags(...) kit_stream_create(__FILE__, __LINE__, __VA_ARGS__)
#define cudaStreamDestroy(...) kit_stream_destroy(__FILE__, __LINE__, __VA_ARGS__)
#define cudaStreamSynchronize(...) kit_stream_synchronize(__FILE__, __LINE__, __VA_ARGS__)
#define cudaEventSynchronize(...) kit_event_synchronize(__FILE__, __LINE__, __VA_ARGS__)
#define cudaDeviceReset() kit_device_reset(__FILE__, __LINE__)
#endif
#endif

/* ---- 8. Pictures of small arrays ---------------------------------------------
 * Draws a row of boxes such as
 *      +---+---+---+---+
 *      | 4   6   8  10 |
 *      +---+---+---+---+
 * `mark_from`/`mark_to` (a half-open range, or -1/-1) are drawn with '*'. */
void kit_draw_ints(FILE *out, const char *prefix, const int *a, int n, int mark_from, int mark_to);
void kit_draw_floats(FILE *out, const char *prefix, const float *a, int n, int mark_from, int mark_to);

/* ---- 10. The grader's tests of your checks ------------------------------------
 * Does your code notice when something goes wrong?  The grader asks the
 * harness to spoil one thing, once, and watches what your code does:
 *   KIT_SPOIL_SNAPSHOT, at = r: SNAPSHOT(d_a, n, r) first changes d_a's n
 *       elements in device memory (every 4-byte word XOR 0x40000000), so the
 *       state your check reads is wrong: your code must report it;
 *   KIT_SPOIL_COPY_BACK, at = k: the k-th cudaMemcpy to the host after the
 *       first launch (from 0) arrives changed in the same way;
 *   KIT_SPOIL_SYNC: the next cudaDeviceSynchronize() returns
 *       cudaErrorLaunchFailure, as if the kernel had failed while it ran: the
 *       code must report it;
 *   KIT_SLOW_COPIES, at = ms: from now on every cudaMemcpy takes `at` ms
 *       longer, so the phase times that cover copies must grow by as much.
 * Lab programs never call it; kit_reset_records() does not undo it, and
 * kit_spoil(KIT_SPOIL_NONE, 0) undoes it. */
typedef enum { KIT_SPOIL_NONE, KIT_SPOIL_SNAPSHOT, KIT_SPOIL_COPY_BACK, KIT_SPOIL_SYNC, KIT_SLOW_COPIES } kit_spoil_kind;
void kit_spoil(int kind, int at);
#ifdef KIT_HAS_CUDA
cudaError_t kit_device_synchronize(void);
cudaError_t kit_device_synchronize_at(const char *file, int line); /* the same, noted where it was called */
#ifndef KIT_HARNESS_SOURCE
#define cudaDeviceSynchronize() kit_device_synchronize_at(__FILE__, __LINE__)
#endif
#endif

/* ---- The device, as the lab programs print it ------------------------------ */
const char *kit_device_name(void);          /* "NVIDIA H100 80GB HBM3", or the emulated device */
int kit_on_gpu(void);                       /* 1 on the gpu backend, 0 on the cpu backend */
double kit_device_peak_gbs(void);           /* the device memory's peak bandwidth in GB/s (0: unknown) */
int kit_device_multiprocessors(void);       /* its streaming multiprocessors (SMs) */
void kit_set_schedule(const char *order);   /* cpu backend: "fwd", "rev", "rand:SEED"; gpu: no-op */
long long kit_device_bytes_in_use(void);    /* the bytes of device memory this code's cudaMalloc calls hold now */
/* gpu: what cudaMalloc and cudaFree in a .cu file that includes kit.h did
 * (the cpu backend counts every allocation itself) */
void kit_note_malloc(const void *device, size_t bytes);
void kit_note_free(const void *device);

#ifdef __cplusplus
}
#endif

#if defined(KIT_HAS_CUDA) && defined(__cplusplus) && !defined(KIT_HARNESS_SOURCE)
/* Part 9 for cudaMemcpyToSymbol, a template in CUDA's C++ API (so outside
 * the extern "C" part): CUDA's own call, then the record.  Defined before
 * the macro, so the call inside is CUDA's. */
template <class T>
static inline cudaError_t kit_memcpy_to_symbol(const char *file, int line, const T &symbol, const void *src,
                                               size_t bytes, size_t offset = 0,
                                               cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    cudaError_t err = cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
    if (err == cudaSuccess)
        kit_note_copy_to_symbol(file, line, (const char *)&symbol + offset, src, bytes);
    return err;
}
#define cudaMemcpyToSymbol(...) kit_memcpy_to_symbol(__FILE__, __LINE__, __VA_ARGS__)

#ifndef __CUDAEMU__
/* On a GPU, cudaMalloc and cudaFree are counted (kit_device_bytes_in_use),
 * so that the grader can tell whether an entry point frees what it
 * allocates.  CUDA's own calls, then the count. */
template <class T> static inline cudaError_t kit_malloc(T **device, size_t bytes)
{
    cudaError_t err = cudaMalloc(device, bytes);
    if (err == cudaSuccess)
        kit_note_malloc(*device, bytes);
    return err;
}
static inline cudaError_t kit_free(void *device)
{
    cudaError_t err = cudaFree(device);
    if (err == cudaSuccess && device)
        kit_note_free(device);
    return err;
}
#define cudaMalloc kit_malloc
#define cudaFree kit_free
#endif
#endif
#endif /* KIT_H */
