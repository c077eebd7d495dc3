/* threadfence_sum.cu: a sum in one launch, in the style of the vendor's
 * threadFenceReduction sample: each block writes its partial sum, makes it
 * visible with __threadfence(), and takes a ticket; the block that takes
 * the last ticket adds every block's partial.  Also built with -Wall
 * -Wextra -Werror in each build (tests/check-backend.sh): __threadfence in
 * a TSan build once drew a g++ warning from the backend's own header. */
#include <stdio.h>
#include <stdlib.h>

#define THREADS 128
#define BLOCKS 48

__device__ unsigned int tickets;

__global__ void sum_in_one_pass(const int *in, int n, volatile int *partials, int *total)
{
    __shared__ int cache[THREADS];
    __shared__ bool last_block;
    int sum = 0;
    for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += (int)(blockDim.x * gridDim.x))
        sum += in[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = cache[0];
        __threadfence(); /* the partial is visible before the ticket is taken */
        last_block = atomicInc(&tickets, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last_block && threadIdx.x == 0) {
        __threadfence_block();
        int all = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            all += partials[b];
        *total = all;
        __threadfence_system();
    }
}

int main(void)
{
    const int n = 50001;
    int *in = (int *)malloc(n * sizeof(int)), *d_in, *d_partials, *d_total, total = 0;
    long long expected = 0;
    for (int i = 0; i < n; i++)
        expected += in[i] = i % 7 - 2;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_partials, BLOCKS * sizeof(int));
    cudaMalloc(&d_total, sizeof(int));
    cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice);
    for (int round = 0; round < 2; round++) { /* atomicInc wraps the tickets back to 0 */
        sum_in_one_pass<<<BLOCKS, THREADS>>>(d_in, n, d_partials, d_total);
        cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost);
        printf("round %d: sum = %d, expected %lld, %s\n", round, total, expected, total == expected ? "right" : "WRONG");
        if (total != expected)
            return 1;
    }
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_in), cudaFree(d_partials), cudaFree(d_total);
    free(in);
    return 0;
}
