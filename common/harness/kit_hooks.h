/* kit_hooks.h: what kit.h's macros expand to, and the CUDA calls that a .cu
 * file including kit.h has recorded.  kit.h includes it in .cu files only;
 * a lab never calls these names itself.  It is here, not in
 * kit_internal.h, because a student's .cu file must compile with it: every
 * name below appears in the expansion of a macro the lab's code uses.
 *
 * The recorded calls are CUDA's own call, then a note in the harness's
 * records (kit_internal.h, the copy record): cudaMemcpy (and ...Async,
 * ...ToSymbol), cudaEventRecord/Create/Destroy, cudaStreamCreate/Destroy,
 * the synchronizations and cudaDeviceReset; on a GPU, cudaMalloc and
 * cudaFree are counted (the cpu backend counts every allocation itself). */
#ifndef KIT_HOOKS_H
#define KIT_HOOKS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CHECK, LAUNCH, LAUNCH_COOPERATIVE, SNAPSHOT (ASSERT_INVARIANT: below) ----- */
void kit_check(cudaError_t err, const char *what, const char *file, int line);
void kit_launch_begin(const char *kernel, dim3 grid, dim3 block, size_t shmem, const char *file, int line);
void kit_launch_end(const char *file, int line);
void kit_cooperative_launch_begin(const char *kernel, dim3 grid, dim3 block, size_t shmem, const char *file, int line);
void kit_take_snapshot(const void *device_array, size_t count, size_t element_size, int round,
                       const char *file, int line);
int kit_snapshots_on(void); /* (ASSERT_INVARIANT's) */

#define CHECK(call) kit_check((call), #call, __FILE__, __LINE__)
#define LAUNCH(kernel, grid, block, shmem, ...)                                   \
    do {                                                                          \
        kit_launch_begin(#kernel, dim3(grid), dim3(block), (shmem), __FILE__, __LINE__); \
        kernel<<<(grid), (block), (shmem)>>>(__VA_ARGS__);                       \
        kit_launch_end(__FILE__, __LINE__);                                       \
    } while (0)
/* the same on a stream of the caller's (lab 9: one stream per device) */
#define LAUNCH_ON_STREAM(stream, kernel, grid, block, shmem, ...)                 \
    do {                                                                          \
        kit_launch_begin(#kernel, dim3(grid), dim3(block), (shmem), __FILE__, __LINE__); \
        kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__);             \
        kit_launch_end(__FILE__, __LINE__);                                       \
    } while (0)
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
#define SNAPSHOT(d_array, count, round) \
    kit_take_snapshot((d_array), (count), sizeof(*(d_array)), (round), __FILE__, __LINE__)

/* ---- The recorded CUDA calls: each takes the caller's file and line ------------ */
cudaError_t kit_memcpy(const char *file, int line, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
/* a copy to the host waits for its stream, so that it can be read */
cudaError_t kit_memcpy_async(const char *file, int line, void *dst, const void *src, size_t bytes,
                             cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t kit_event_record(const char *file, int line, cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t kit_event_create(const char *file, int line, cudaEvent_t *event, unsigned flags = 0);
cudaError_t kit_event_destroy(const char *file, int line, cudaEvent_t event);
cudaError_t kit_stream_create(const char *file, int line, cudaStream_t *stream, unsigned flags = 0);
cudaError_t kit_stream_destroy(const char *file, int line, cudaStream_t stream);
cudaError_t kit_stream_synchronize(const char *file, int line, cudaStream_t stream);
cudaError_t kit_event_synchronize(const char *file, int line, cudaEvent_t event);
cudaError_t kit_device_synchronize_at(const char *file, int line);
cudaError_t kit_device_reset(const char *file, int line);
/* a copy into a __constant__ (or __device__) variable: noted as an upload
 * to that variable's address */
void kit_note_copy_to_symbol(const char *file, int line, const void *symbol, const void *src, size_t bytes);
/* gpu: what cudaMalloc and cudaFree did */
void kit_note_malloc(const void *device, size_t bytes);
void kit_note_free(const void *device);

/* The harness's own source (kit_cuda.cu) calls CUDA's functions themselves. */
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
#define cudaDeviceSynchronize() kit_device_synchronize_at(__FILE__, __LINE__)
#define cudaDeviceReset() kit_device_reset(__FILE__, __LINE__)
#endif

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* ASSERT_INVARIANT: the lab's predicate on the last snapshot's copy, read
 * as elements of the original's type (a template, for int and float
 * predicates alike). */
template <class T>
static inline void kit_assert_invariant(int (*holds)(const T *, const T *, int, int), const char *predicate,
                                        const T *original, int n, int round, const char *file, int line)
{
    const kit_snapshot *last = kit_snapshots_on() ? kit_snapshot_at(kit_snapshot_count() - 1) : NULL;
    if (last && !holds(original, (const T *)last->data, n, round))
        fprintf(stderr, "%s:%d: %s says the invariant does not hold after round %d\n", file, line, predicate, round);
}
#define ASSERT_INVARIANT(holds, original, n, round) \
    kit_assert_invariant((holds), #holds, (original), (n), (round), __FILE__, __LINE__)
#endif

#if defined(__cplusplus) && !defined(KIT_HARNESS_SOURCE)
/* cudaMemcpyToSymbol is a template in CUDA's C++ API (so outside the
 * extern "C" part): CUDA's own call, then the note.  Defined before the
 * macro, so that the call inside is CUDA's. */
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
/* On a GPU, cudaMalloc and cudaFree are counted (the harness's
 * kit_device_bytes_in_use), so that the grader can tell whether an entry
 * point frees what it allocates.  CUDA's own calls, then the count. */
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
#endif /* KIT_HOOKS_H */
