/* dot_cg.cu: the dot product with cooperative groups: tiles of 32 sum with
 * shuffles, one atomicAdd per warp.  Whole-number data: any order is exact. */
#include <stdio.h>
#include <stdlib.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void dot_tiles(const float *x, const float *y, int n, float *result)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += x[i] * y[i];
    for (int d = tile.size() / 2; d > 0; d /= 2)
        sum += tile.shfl_down(sum, d);
    float again = cg::reduce(tile, sum, cg::plus<float>()); /* lane 0 holds the warp's sum; others partial */
    (void)again;
    if (tile.thread_rank() == 0)
        atomicAdd(result, sum);
}

int main(void)
{
    const int n = 77777;
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    double expected = 0;
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 3);
        y[i] = (float)(i % 4);
        expected += (double)x[i] * y[i];
    }
    float *dx, *dy, *dr, result = 0;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMalloc(&dr, sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dr, &result, sizeof result, cudaMemcpyHostToDevice);
    dot_tiles<<<40, 128>>>(dx, dy, n, dr);
    cudaMemcpy(&result, dr, sizeof result, cudaMemcpyDeviceToHost);
    printf("dot = %.0f, expected %.0f, %s\n", result, expected, result == expected ? "right" : "WRONG");
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(dx), cudaFree(dy), cudaFree(dr), free(x), free(y);
    return result == expected ? 0 : 1;
}
