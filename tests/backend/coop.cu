/* coop.cu: cooperative groups, grid-wide sync under a cooperative launch,
 * and the occupancy API on the emulated device. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

static __global__ void tiles(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);
    int t = block.thread_rank(), *o = out + 8 * t;
    o[0] = cg::reduce(warp, t, cg::plus<int>());
    o[1] = cg::reduce(eight, t, cg::greater<int>());
    o[2] = cg::reduce(eight, t, cg::less<int>());
    o[3] = warp.shfl_down(t, 1) + warp.shfl_up(t, 1) + eight.shfl(t, 0) * 1000;
    o[4] = warp.meta_group_rank() * 100 + eight.meta_group_rank();
    o[5] = (int)eight.ballot(eight.thread_rank() < 3) + 10 * eight.any(t == 5) + 100 * eight.all(t >= 0);
    o[6] = eight.thread_rank() + 10 * (int)eight.size() + 1000 * (int)warp.meta_group_size();
    block.sync();
    warp.sync();
    o[7] = eight.shfl_xor(t, 4);
}

static __global__ void grid_sum(const int *in, int *partials, int *total)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int cache[256];
    cache[block.thread_rank()] = in[grid.thread_rank()];
    block.sync();
    if (block.thread_rank() == 0) {
        int s = 0;
        for (unsigned i = 0; i < block.size(); i++)
            s += cache[i];
        partials[blockIdx.x] = s;
    }
    grid.sync();
    if (grid.thread_rank() == 0) {
        int s = 0;
        for (unsigned long long b = 0; b < grid.num_blocks(); b++)
            s += partials[b];
        *total = s + 1000000 * grid.is_valid();
    }
}

static __global__ void uses_shared(float *out)
{
    __shared__ float tile[32][33];
    tile[threadIdx.y][threadIdx.x] = 1.0f;
    __syncthreads();
    out[0] = tile[0][0];
}

static size_t smem_for(int block_size) { return (size_t)block_size * 40; }

int main(void)
{
    int *d, h[8 * 64];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    tiles<<<1, 64>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++) {
        int *o = h + 8 * t, w = t / 32 * 32, e = t / 8 * 8;
        EXPECT(o[0] == 32 * w + 496, "reduce plus at %d: %d", t, o[0]);
        EXPECT(o[1] == e + 7 && o[2] == e, "reduce greater/less at %d: %d %d", t, o[1], o[2]);
        int down = t % 32 < 31 ? t + 1 : t, up = t % 32 > 0 ? t - 1 : t;
        EXPECT(o[3] == down + up + e * 1000, "tile shuffles at %d: %d", t, o[3]);
        EXPECT(o[4] == (t / 32) * 100 + t / 8, "meta group rank at %d: %d", t, o[4]);
        EXPECT(o[5] == 7 + 10 * (e == 0) + 100, "tile votes at %d: %d", t, o[5]);
        EXPECT(o[6] == t % 8 + 80 + 2000, "tile rank/size at %d: %d", t, o[6]);
        EXPECT(o[7] == (t ^ 4), "tile shfl_xor at %d: %d", t, o[7]);
    }

    /* a grid-wide sum with one cooperative launch, sized by the occupancy API */
    int per_sm = 0, sms = 0;
    EXPECT_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 256, 0));
    EXPECT(per_sm == 8, "grid_sum with 256 threads: %d blocks per SM, want 8 (2048 threads per SM)", per_sm);
    int blocks = per_sm * sms, n = blocks * 256, *in = (int *)malloc(n * sizeof(int)), *d_in, *d_part, *d_total,
        total = 0;
    long long want = 0;
    for (int i = 0; i < n; i++)
        want += in[i] = i % 11;
    EXPECT_OK(cudaMalloc(&d_in, n * sizeof(int)));
    EXPECT_OK(cudaMalloc(&d_part, blocks * sizeof(int)));
    EXPECT_OK(cudaMalloc(&d_total, sizeof(int)));
    EXPECT_OK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    void *args[] = {&d_in, &d_part, &d_total};
    EXPECT_OK(cudaLaunchCooperativeKernel((void *)grid_sum, dim3(blocks), dim3(256), args, 0, 0));
    EXPECT_OK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    EXPECT(total == want + 1000000, "grid sum %d, want %lld", total, want + 1000000);
    EXPECT(cudaLaunchCooperativeKernel(grid_sum, dim3(blocks + 1), dim3(256), args, 0, 0) ==
           cudaErrorCooperativeLaunchTooLarge, "a cooperative grid larger than the device accepted");
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge, "the error is also the last error");

    /* occupancy: CUDA's rules on this device */
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, uses_shared));
    EXPECT(attr.sharedSizeBytes == 32 * 33 * sizeof(float), "static shared memory %zu", attr.sharedSizeBytes);
    EXPECT(attr.numRegs == 32 && attr.maxThreadsPerBlock == 1024, "registers %d, max threads %d", attr.numRegs,
           attr.maxThreadsPerBlock);
    int b = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, uses_shared, 1024, 0));
    EXPECT(b == 2, "1024 threads: %d blocks per SM", b);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, uses_shared, 32, 0));
    /* 4224 bytes static + 1024 reserved = 5248 per block; 102400 / 5248 = 19 */
    EXPECT(b == 19, "32 threads: %d blocks per SM, want 19 (shared memory bound)", b);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, uses_shared, 64, 40 * 1024));
    EXPECT(b == 2, "64 threads with 40 KB dynamic: %d blocks per SM", b);
    int min_grid = 0, block_size = 0;
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, grid_sum, 0, 0));
    EXPECT(block_size == 1024 && min_grid == 16, "potential block size %d, min grid %d", block_size, min_grid);
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block_size, uses_shared, smem_for, 0));
    int check = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&check, uses_shared, block_size, smem_for(block_size)));
    EXPECT(block_size > 0 && block_size % 32 == 0 && min_grid == check * 8, "variable smem: block %d, min grid %d",
           block_size, min_grid);
    for (int s = 32; s <= 1024; s += 32) {
        int other = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&other, uses_shared, s, smem_for(s));
        EXPECT(other * s <= check * block_size, "block size %d beats the suggested %d", s, block_size);
    }
    cudaFree(d), cudaFree(d_in), cudaFree(d_part), cudaFree(d_total);
    free(in);
    return check_result();
}
