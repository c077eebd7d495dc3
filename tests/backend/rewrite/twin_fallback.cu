/* expect: runs
 * A kernel whose twin (cudaemu/coroutine.h) cannot compile: it takes the
 * address of __syncthreads, which the twin's rewrite makes a co_await.  The
 * file is built again without twins, and the kernel runs on fibers, with
 * the right results. */
#include <cuda_runtime.h>
#include "check.h"

__global__ void mirror(int *out)
{
    __shared__ int s[32];
    s[threadIdx.x] = (int)threadIdx.x;
    (void)&__syncthreads;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
}

int main(void)
{
    int *out;
    EXPECT_OK(cudaMallocManaged(&out, 32 * sizeof(int)));
    mirror<<<1, 32>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    cudaemuLaunchCounts counts;
    cudaemuLastLaunchCounts(&counts);
    EXPECT(counts.coroutine_blocks == 0, "it ran as coroutines");
    for (int t = 0; t < 32; t++)
        EXPECT(out[t] == 31 - t, "out[%d] = %d", t, out[t]);
    cudaFree(out);
    return check_result();
}
