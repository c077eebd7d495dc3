/* cuda_profiler_api.h of the cpu backend: there is no profiler to start or
 * stop, so these only succeed (programs call them around the part that a
 * GPU profiler should record). */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__
#include "cuda_runtime.h"

extern "C" {
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
}

#endif /* __CUDA_PROFILER_API_H__ */
