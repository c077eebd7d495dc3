/* occupancy.cu: the occupancy API against the device's limits.  The numbers
 * depend on the device (a real GPU or the cpu backend's emulated one); what
 * must hold everywhere is that the API agrees with the limits it is
 * computed from, which is what the last line says. */
#include <stdio.h>

__global__ void uses_shared(float *out)
{
    extern __shared__ float buffer[];
    buffer[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}

static size_t shared_for(int block_size) { return (size_t)block_size * sizeof(float); }

int main(void)
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int consistent = 1;
    for (int threads = 64; threads <= 1024; threads *= 2) {
        int blocks = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, uses_shared, threads, shared_for(threads));
        int within = blocks >= 1 && blocks * threads <= p.maxThreadsPerMultiProcessor &&
                     blocks * shared_for(threads) <= p.sharedMemPerMultiprocessor;
        consistent &= within;
        printf("block %4d: %2d blocks per SM, occupancy %3.0f%%\n", threads, blocks,
               100.0 * blocks * threads / p.maxThreadsPerMultiProcessor);
    }
    int min_grid = 0, best_block = 0;
    cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &best_block, uses_shared, shared_for, 0);
    consistent &= best_block >= 32 && best_block <= p.maxThreadsPerBlock && min_grid >= p.multiProcessorCount;
    printf("suggested block %d, grid %d on %d SMs\n", best_block, min_grid, p.multiProcessorCount);
    printf("the API agrees with the device's limits: %s\n", consistent ? "yes" : "NO");
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    return !consistent;
}
