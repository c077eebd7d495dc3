/* expect: runs
 * The same kernel name in several namespaces (and one defined outside its
 * namespace): each is registered, with its own shared memory, before any
 * launch; types named in a namespace size its kernels' shared arrays. */
#include <cuda_runtime.h>
#include "check.h"

namespace small {
struct cell { float v[4]; };
__global__ void k(int *o)
{
    __shared__ cell c[500]; /* 8000 bytes: (8000 + 1024 reserved) per block */
    c[threadIdx.x].v[0] = 1;
    o[0] = 1;
}
} // namespace small
namespace big {
__global__ void k(int *o)
{
    __shared__ float b[8000]; /* 32000 bytes */
    b[threadIdx.x] = 2;
    o[0] = (int)b[threadIdx.x];
}
namespace inner {
__global__ void k(int *o);
}
} // namespace big
__global__ void big::inner::k(int *o)
{
    __shared__ char c[20000];
    c[threadIdx.x] = 3;
    o[0] = c[threadIdx.x];
}
__global__ void k(int *o) { o[0] = 4; }

static int blocks_per_sm(const void *kernel)
{
    int blocks = -1;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 32, 0));
    return blocks;
}

int main(void)
{
    EXPECT(blocks_per_sm((const void *)small::k) == 11, "small::k: %d blocks per SM", blocks_per_sm((const void *)small::k));
    EXPECT(blocks_per_sm((const void *)big::k) == 3, "big::k: %d blocks per SM", blocks_per_sm((const void *)big::k));
    EXPECT(blocks_per_sm((const void *)big::inner::k) == 4, "big::inner::k (20000 bytes): %d blocks per SM",
           blocks_per_sm((const void *)big::inner::k));
    EXPECT(blocks_per_sm((const void *)k) == 32, "::k: %d blocks per SM", blocks_per_sm((const void *)k));
    int *d, h[4] = {0, 0, 0, 0};
    EXPECT_OK(cudaMalloc(&d, sizeof(int)));
    void *args[] = {&d};
    EXPECT_OK(cudaLaunchKernel((void *)small::k, dim3(1), dim3(1), args));
    EXPECT_OK(cudaMemcpy(&h[0], d, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaLaunchKernel((void *)big::k, dim3(1), dim3(1), args));
    EXPECT_OK(cudaMemcpy(&h[1], d, sizeof(int), cudaMemcpyDeviceToHost));
    k<<<1, 1>>>(d);
    EXPECT_OK(cudaMemcpy(&h[3], d, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 1 && h[1] == 2 && h[3] == 4, "results %d %d %d", h[0], h[1], h[3]);
    EXPECT_OK(cudaFree(d));
    return check_result();
}
