/* expect: runs
 * A comment or an #if block of more than 8 lines between a kernel's ')' and
 * its '{': g++ -E leaves a line marker there.  The kernel must still be
 * registered (occupancy before its first launch, cudaLaunchKernel through a
 * void pointer) and its __shared__ memory counted. */
#include <cuda_runtime.h>
#include "check.h"

__global__ void reverse(int *out)
/* A long comment, as some programs put between the parameters and the body:
 *   line 2
 *   line 3
 *   line 4
 *   line 5
 *   line 6
 *   line 7
 *   line 8
 *   line 9
 *   line 10 */
{
    __shared__ int s[4000];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void fill(int *out, int value)
#if 0
    an old body, kept for reference
    1
    2
    3
    4
    5
    6
    7
    8
#endif
{
    __shared__ double d[3000];
    d[threadIdx.x] = value;
    out[threadIdx.x] = (int)d[threadIdx.x] + __LINE__;
}

int main(void)
{
    int blocks = -1;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse, 32, 0));
    EXPECT(blocks == 6, "reverse (16000 bytes of shared memory): %d blocks per SM before its launch", blocks);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 32, 0));
    EXPECT(blocks == 4, "fill (24000 bytes of shared memory): %d blocks per SM before its launch", blocks);
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, reverse));
    EXPECT(attr.sharedSizeBytes == 16000, "reverse: sharedSizeBytes %zu", attr.sharedSizeBytes);

    int *d, h[4];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    void *args[] = {&d};
    EXPECT_OK(cudaLaunchKernel((void *)reverse, dim3(1), dim3(4), args));
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 3 && h[3] == 0, "reverse: %d %d %d %d", h[0], h[1], h[2], h[3]);
    int value = 5;
    void *fill_args[] = {&d, &value};
    EXPECT_OK(cudaLaunchKernel((const void *)fill, dim3(1), dim3(4), fill_args));
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 5 + 42 && h[3] == 5 + 42, "fill: %d %d (its __LINE__ is 42)", h[0], h[3]);
    EXPECT_OK(cudaFree(d));
    return check_result();
}
