/* Included by the cpu backend's cuda/barrier, cuda/pipeline, ... (and
 * cuda_awbarrier.h): CUDA's C++ library, libcu++, is not provided, and the
 * build stops at the program's #include with the reason. */
#error "libcu++ (<cuda/barrier>, <cuda/pipeline>, <cuda/atomic>, <cuda/std/...>) is not provided by the cpu backend: use __syncthreads(), cuda_pipeline.h's __pipeline_memcpy_async and CUDA's atomic functions instead, or run this program on a GPU"
