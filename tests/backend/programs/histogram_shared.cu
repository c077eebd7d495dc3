/* histogram_shared.cu: a byte histogram in the style of the textbooks: each
 * block counts into its own 256 bins in shared memory with atomicAdd, then
 * adds its bins to the global histogram, one atomicAdd per bin.  The host
 * counts the same bytes and compares every bin. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define BINS 256

__global__ void histogram(const unsigned char *data, long n, unsigned int *bins)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    long stride = (long)blockDim.x * gridDim.x;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b])
            atomicAdd(&bins[b], local[b]);
}

int main(void)
{
    const long n = 1 << 20;
    unsigned char *data = (unsigned char *)malloc(n);
    unsigned int expected[BINS] = {0}, got[BINS];
    unsigned int state = 12345; /* a small LCG: the same bytes everywhere */
    for (long i = 0; i < n; i++) {
        state = state * 1103515245u + 12345u;
        data[i] = (unsigned char)((state >> 16) % 200 + (i % 7 == 0 ? 56 : 0)); /* some bins fuller than others */
        expected[data[i]]++;
    }

    unsigned char *d_data;
    unsigned int *d_bins;
    CHECK(cudaMalloc(&d_data, n));
    CHECK(cudaMalloc(&d_bins, sizeof got));
    CHECK(cudaMemcpy(d_data, data, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_bins, 0, sizeof got));

    int blocks = 48, threads = 256;
    histogram<<<blocks, threads>>>(d_data, n, d_bins);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_bins, sizeof got, cudaMemcpyDeviceToHost));

    long total = 0;
    int wrong = 0;
    for (int b = 0; b < BINS; b++) {
        total += got[b];
        wrong += got[b] != expected[b];
    }
    printf("bins[0] = %u, bins[100] = %u, bins[255] = %u\n", got[0], got[100], got[255]);
    printf("%ld bytes counted of %ld, %d bins differ from the host's: %s\n", total, n, wrong,
           wrong == 0 && total == n ? "right" : "WRONG");
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_bins));
    free(data);
    return wrong == 0 && total == n ? 0 : 1;
}
