/* groups.cu: cooperative groups as types.  A __device__ function takes a
 * cg::thread_group (by value or by reference) and is given the block, a
 * tile, or a tile whose size is chosen at run time; tiles of tiles have
 * meta groups relative to their parent tile; binary_partition splits a tile
 * into the threads that agree on a predicate (a coalesced_group), which
 * cg::reduce adds up; tiles of more than one warp.  The
 * expected values are those a GPU gives, by the CUDA Programming Guide. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

enum { THREADS = 64 };

/* the sum of the group's thread ranks, through shared memory and the group's sync */
static __device__ int rank_sum(cg::thread_group g, int *scratch)
{
    unsigned base = cg::this_thread_block().thread_rank() - g.thread_rank();
    scratch[base + g.thread_rank()] = (int)g.thread_rank();
    g.sync();
    int s = 0;
    for (unsigned i = 0; i < g.size(); i++)
        s += scratch[base + i];
    g.sync();
    return s;
}
static __device__ unsigned size_by_reference(const cg::thread_group &g)
{
    g.sync();
    return g.size() * 100 + g.thread_rank();
}

static __global__ void as_thread_group(int *out, unsigned n)
{
    __shared__ int scratch[THREADS];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);
    cg::thread_group runtime = cg::tiled_partition(block, n);
    cg::thread_group of_tile = cg::tiled_partition(eight, 2);
    cg::thread_group whole = block;
    int *o = out + 8 * threadIdx.x;
    o[0] = rank_sum(block, scratch);
    o[1] = rank_sum(eight, scratch);
    o[2] = rank_sum(runtime, scratch);
    o[3] = (int)size_by_reference(block);
    o[4] = (int)size_by_reference(eight);
    o[5] = (int)size_by_reference(runtime);
    o[6] = (int)(of_tile.size() * 100 + of_tile.thread_rank());
    o[7] = (int)(whole.size() * 100 + whole.thread_rank());
}

/* thread 20 of tiled_partition<4>(tiled_partition<16>(block)) is in the
 * second tile of four of its tile of 16: meta_group_rank 1, meta_group_size 4 */
static __global__ void meta(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<4> four = cg::tiled_partition<4>(cg::tiled_partition<16>(block));
    out[2 * threadIdx.x] = (int)four.meta_group_rank();
    out[2 * threadIdx.x + 1] = (int)four.meta_group_size();
}

/* binary_partition: the odd and the even threads of each tile of 16 */
static __global__ void partition(int *out)
{
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    bool odd = threadIdx.x % 2;
    cg::coalesced_group half = cg::binary_partition(tile, odd);
    int *o = out + 7 * threadIdx.x;
    o[0] = (int)half.size();
    o[1] = (int)half.thread_rank();
    o[2] = half.shfl((int)threadIdx.x, 0);                 /* the group's first thread */
    o[3] = half.shfl_down((int)threadIdx.x, 1);            /* the next one, or itself at the end */
    o[4] = (int)half.ballot(half.thread_rank() < 3);       /* ranks 0-2: 0x7 */
    half.sync();
    o[5] = half.any(threadIdx.x == 5) * 10 + half.all(threadIdx.x < 64);
    o[6] = cg::reduce(half, (int)threadIdx.x, cg::plus<int>()); /* the sum of its 8 threads' indices */
}

/* Tiles of more than one warp: 64, 128 and 256 threads of a block of 256.
 * Through sync (a thread reads what another warp of its tile wrote), shfl,
 * any, all, the meta group and cg::reduce; the block made from
 * block_tile_memory, as CUDA 12 writes it.  (Such a tile is not a
 * cg::thread_group, in CUDA either.) */
enum { BIG = 256 };
static __global__ void big_tiles(int *out)
{
    __shared__ int scratch[BIG];
    __shared__ cg::block_tile_memory<BIG> memory;
    cg::thread_block block = cg::this_thread_block(memory);
    cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
    cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
    int t = (int)threadIdx.x, *o = out + 8 * (blockIdx.x * BIG + t);
    scratch[t] = t;
    t128.sync();
    o[0] = scratch[t / 128 * 128 + 127 - (int)t128.thread_rank()];
    t128.sync();
    o[1] = t64.shfl(t * 10, 3);
    o[2] = t128.any(t == 200) * 10 + t128.all(t < 250);
    o[3] = (int)(t64.meta_group_rank() * 100 + t64.meta_group_size());
    o[4] = cg::reduce(t128, t, cg::plus<int>());
    scratch[t] = (int)t64.thread_rank();
    t64.sync();
    o[5] = scratch[t / 64 * 64 + 63 - (int)t64.thread_rank()];
    o[6] = (int)(t64.size() * 1000 + t64.thread_rank());
    o[7] = cg::reduce(cg::tiled_partition<256>(block), t % 100, cg::greater<int>());
}

int main(void)
{
    int *out;
    EXPECT_OK(cudaMallocManaged(&out, 8 * THREADS * sizeof(int)));
    for (unsigned n = 1; n <= 32; n *= 2) {
        as_thread_group<<<1, THREADS>>>(out, n);
        EXPECT_OK(cudaDeviceSynchronize());
        for (int t = 0; t < THREADS; t++) {
            int *o = out + 8 * t;
            int rn = t % (int)n;
            EXPECT(o[0] == THREADS * (THREADS - 1) / 2, "n %u thread %d: block rank sum %d", n, t, o[0]);
            EXPECT(o[1] == 28, "n %u thread %d: tile<8> rank sum %d", n, t, o[1]);
            EXPECT(o[2] == (int)(n * (n - 1) / 2), "n %u thread %d: run-time tile rank sum %d", n, t, o[2]);
            EXPECT(o[3] == THREADS * 100 + t, "n %u thread %d: block by reference %d", n, t, o[3]);
            EXPECT(o[4] == 800 + t % 8, "n %u thread %d: tile<8> by reference %d", n, t, o[4]);
            EXPECT(o[5] == (int)n * 100 + rn, "n %u thread %d: run-time tile by reference %d", n, t, o[5]);
            EXPECT(o[6] == 200 + t % 2, "n %u thread %d: tiled_partition(tile, 2) %d", n, t, o[6]);
            EXPECT(o[7] == THREADS * 100 + t, "n %u thread %d: block as a thread_group %d", n, t, o[7]);
        }
    }

    meta<<<1, THREADS>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(out[40] == 1 && out[41] == 4, "thread 20: meta_group_rank %d, meta_group_size %d, not 1 and 4", out[40],
           out[41]);
    for (int t = 0; t < THREADS; t++)
        EXPECT(out[2 * t] == t % 16 / 4 && out[2 * t + 1] == 4, "thread %d: meta_group_rank %d size %d", t, out[2 * t],
               out[2 * t + 1]);

    partition<<<1, THREADS>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    for (int t = 0; t < THREADS; t++) {
        int *o = out + 7 * t, first = t / 16 * 16 + t % 2, rank = t % 16 / 2;
        EXPECT(o[0] == 8 && o[1] == rank, "thread %d: size %d rank %d", t, o[0], o[1]);
        EXPECT(o[2] == first, "thread %d: shfl from rank 0 gave %d, not %d", t, o[2], first);
        EXPECT(o[3] == (rank == 7 ? t : t + 2), "thread %d: shfl_down 1 gave %d", t, o[3]);
        EXPECT(o[4] == 0x7, "thread %d: ballot 0x%x", t, (unsigned)o[4]);
        EXPECT(o[5] == (t / 16 == 0 && t % 2 == 1 ? 11 : 1), "thread %d: any/all %d", t, o[5]);
        EXPECT(o[6] == 8 * first + 56, "thread %d: reduce gave %d, not %d", t, o[6], 8 * first + 56);
    }

    int *big;
    EXPECT_OK(cudaMallocManaged(&big, 2 * 8 * BIG * sizeof(int)));
    big_tiles<<<2, BIG>>>(big);
    EXPECT_OK(cudaDeviceSynchronize());
    for (int i = 0; i < 2 * BIG; i++) {
        int t = i % BIG, *o = big + 8 * i, base128 = t / 128 * 128, base64 = t / 64 * 64;
        EXPECT(o[0] == base128 + 127 - t % 128, "big tiles, thread %d: read %d after the tile's sync", t, o[0]);
        EXPECT(o[1] == (base64 + 3) * 10, "big tiles, thread %d: shfl from rank 3 gave %d", t, o[1]);
        EXPECT(o[2] == (t < 128 ? 1 : 10), "big tiles, thread %d: any/all %d", t, o[2]);
        EXPECT(o[3] == t / 64 * 100 + 4, "big tiles, thread %d: meta group %d", t, o[3]);
        EXPECT(o[4] == 128 * base128 + 127 * 64, "big tiles, thread %d: reduce gave %d", t, o[4]);
        EXPECT(o[5] == 63 - t % 64, "big tiles, thread %d: read %d after the tile of 64's sync", t, o[5]);
        EXPECT(o[6] == 64000 + t % 64, "big tiles, thread %d: size and rank %d", t, o[6]);
        EXPECT(o[7] == 99, "big tiles, thread %d: the whole block's maximum %d", t, o[7]);
    }
    EXPECT_OK(cudaFree(big));
    EXPECT_OK(cudaFree(out));
    return check_result();
}
