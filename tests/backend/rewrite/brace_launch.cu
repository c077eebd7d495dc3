/* expect: runs
 * Launch configurations written with braces. */
#include <cuda_runtime.h>
#include "check.h"

__global__ void sizes(int *o)
{
    extern __shared__ int dyn[];
    dyn[threadIdx.x] = 1;
    if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 1) {
        o[0] = (int)(gridDim.x * 100 + gridDim.y * 10 + gridDim.z);
        o[1] = (int)(blockDim.x * 100 + blockDim.y * 10 + blockDim.z);
    }
}

int main(void)
{
    int *d, h[2];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    sizes<<<dim3{1, 2, 1}, dim3{32, 1, 1}>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 121 && h[1] == 3211, "dim3{...}: %d %d", h[0], h[1]);
    sizes<<<{2, 2, 1}, {4, 2, 1}, 8 * sizeof(int), s>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 221 && h[1] == 421, "{...}: %d %d", h[0], h[1]);
    sizes<<<dim3{3, 2}, {2, 2, 2}, size_t{64}, cudaStream_t{s}>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 321 && h[1] == 222, "dim3{x, y}: %d %d", h[0], h[1]);
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d));
    return check_result();
}
