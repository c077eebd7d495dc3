/* scan_shuffle.cu: an inclusive prefix sum over many blocks, in the style of
 * the vendor's shuffle-scan sample.  Within a warp, __shfl_up_sync adds the
 * value d lanes below for d = 1, 2, 4, 8, 16; each warp's total goes to
 * shared memory, the first warp scans those totals the same way, and every
 * thread adds the totals of the warps before its own.  The blocks' totals
 * are scanned by a second launch and added back by a third.  The host
 * checks every element. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define FULL_MASK 0xffffffffu

__device__ int warp_scan(int value)
{
    int lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
        int below = __shfl_up_sync(FULL_MASK, value, d);
        if (lane >= d)
            value += below;
    }
    return value;
}

/* the inclusive scan of one block's values; returns the block's total to every thread */
__device__ int block_scan(int &value)
{
    __shared__ int warp_totals[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_scan(value);
    if (lane == 31)
        warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) {
        int total = lane < WARPS ? warp_totals[lane] : 0;
        total = warp_scan(total);
        if (lane < WARPS)
            warp_totals[lane] = total; /* now the total of warps 0..lane */
    }
    __syncthreads();
    if (warp > 0)
        value += warp_totals[warp - 1];
    int block_total = warp_totals[WARPS - 1];
    __syncthreads(); /* warp_totals is used again by the next call */
    return block_total;
}

__global__ void scan_blocks(const int *in, int *out, int n, int *block_sums)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    int value = i < n ? in[i] : 0;
    int total = block_scan(value);
    if (i < n)
        out[i] = value;
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = total;
}

/* one block scans up to THREADS block totals in place */
__global__ void scan_sums(int *sums, int count)
{
    int value = threadIdx.x < count ? sums[threadIdx.x] : 0;
    block_scan(value);
    if (threadIdx.x < count)
        sums[threadIdx.x] = value;
}

__global__ void add_offsets(int *out, int n, const int *scanned_sums)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += scanned_sums[blockIdx.x - 1];
}

int main(void)
{
    const int n = 200 * THREADS - 37; /* the last block is not full */
    const int blocks = (n + THREADS - 1) / THREADS;
    int *in = (int *)malloc(n * sizeof(int)), *out = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        in[i] = (i * 13) % 23 - 11;

    int *d_in, *d_out, *d_sums;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    scan_blocks<<<blocks, THREADS>>>(d_in, d_out, n, d_sums);
    scan_sums<<<1, THREADS>>>(d_sums, blocks);
    add_offsets<<<blocks, THREADS>>>(d_out, n, d_sums);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

    long running = 0;
    int wrong = 0, first_wrong = -1;
    for (int i = 0; i < n; i++) {
        running += in[i];
        if (out[i] != running) {
            if (first_wrong < 0)
                first_wrong = i;
            wrong++;
        }
    }
    printf("%d elements in %d blocks: out[0] = %d, out[255] = %d, out[256] = %d, out[%d] = %d (expected %ld)\n", n,
           blocks, out[0], out[255], out[256], n - 1, out[n - 1], running);
    if (wrong)
        printf("first wrong element: %d\n", first_wrong);
    printf("%d wrong: %s\n", wrong, wrong ? "WRONG" : "right");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_sums));
    free(in), free(out);
    return wrong ? 1 : 0;
}
