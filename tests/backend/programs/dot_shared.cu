/* dot_shared.cu: a dot product in the style of a first CUDA course: each
 * block reduces its products in a shared-memory tree, the host adds the
 * block partials.  Whole-number data, so every order gives the same sum. */
#include <stdio.h>
#include <stdlib.h>

#define THREADS 256
#define BLOCKS 64

__global__ void dot_blocks(const float *x, const float *y, int n, float *partials)
{
    __shared__ float cache[THREADS];
    float sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += x[i] * y[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = cache[0];
}

int main(void)
{
    const int n = 100003;
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    double expected = 0;
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 7);
        y[i] = (float)(i % 5 - 2);
        expected += (double)x[i] * y[i];
    }
    float *dx, *dy, *dp, partials[BLOCKS];
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMalloc(&dp, BLOCKS * sizeof(float));
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
    dot_blocks<<<BLOCKS, THREADS>>>(dx, dy, n, dp);
    cudaMemcpy(partials, dp, sizeof partials, cudaMemcpyDeviceToHost);
    double total = 0;
    for (int b = 0; b < BLOCKS; b++)
        total += partials[b];
    printf("partials[0..3] = %.0f %.0f %.0f %.0f\n", partials[0], partials[1], partials[2], partials[3]);
    printf("dot = %.0f, expected %.0f, %s\n", total, expected, total == expected ? "right" : "WRONG");
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(dx), cudaFree(dy), cudaFree(dp), free(x), free(y);
    return total == expected ? 0 : 1;
}
