/* cuda_pipeline.h of the cpu backend: CUDA's asynchronous copies from
 * global to shared memory, as a GPU of compute capability 8.0 makes them
 * with cp.async.  A copy is not made when it is asked for: it waits, as on
 * a GPU, until __pipeline_wait_prior lets its group complete (or the thread
 * ends), so a kernel that reads its destination too early reads what was
 * there before, here too.  Sizes 4, 8 and 16 bytes, each address aligned to
 * the size; zfill bytes at the end are zeros instead. */
#ifndef _CUDA_PIPELINE_H_
#define _CUDA_PIPELINE_H_
#include "cuda_runtime.h"

namespace cudaemu {
void pipeline_copy(void *dst, const void *src, size_t size, size_t zfill, const char *file, int line) CUDAEMU_HIDDEN;
void pipeline_commit(void) CUDAEMU_HIDDEN;
void pipeline_wait_prior(size_t prior) CUDAEMU_HIDDEN;
} // namespace cudaemu

/* Starts a copy of size_and_align bytes from global memory to shared memory. */
static inline void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align,
                                           size_t zfill = 0, CUDAEMU_HERE)
{
    cudaemu::pipeline_copy(dst_shared, src_global, size_and_align, zfill, file, line);
}
/* Closes the group of this thread's copies started since the last commit. */
static inline void __pipeline_commit(void) { cudaemu::pipeline_commit(); }
/* Waits until at most `prior` of this thread's committed groups are still pending. */
static inline void __pipeline_wait_prior(size_t prior) { cudaemu::pipeline_wait_prior(prior); }

#endif /* _CUDA_PIPELINE_H_ */
