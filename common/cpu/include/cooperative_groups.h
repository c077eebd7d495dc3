/* cooperative_groups.h of the cpu backend: the groups the labs use.
 *
 *   this_thread_block()          thread_block: sync, thread_rank, size, group_index, thread_index, ...
 *   tiled_partition<N>(parent)   thread_block_tile<N> (N a power of two up to 32): shfl, shfl_up,
 *                                shfl_down, shfl_xor, any, all, ballot, sync, thread_rank,
 *                                meta_group_rank, meta_group_size, size, num_threads
 *   this_grid()                  grid_group: sync (only under cudaLaunchCooperativeKernel), thread_rank, size, ...
 *
 * A tile is a set of lanes of one warp; its operations are the warp
 * operations of cuda_runtime.h with the tile's mask and width, so the same
 * diagnostics apply.  coalesced_threads() is not provided: which threads
 * are "active together" has no meaning when each runs alone. */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_H
#define CUDAEMU_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups {

namespace details {
static inline unsigned block_threads(void) { return blockDim.x * blockDim.y * blockDim.z; }
static inline unsigned block_rank(void) { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
/* The lanes of this thread's warp that exist (the last warp may be partial). */
static inline unsigned warp_lanes(void)
{
    unsigned first = block_rank() / 32 * 32, n = block_threads() - first;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}
} // namespace details

class thread_block {
  public:
    void sync(CUDAEMU_HERE) const
    {
        cudaemu::block_barrier(cudaemu::BARRIER_PLAIN, 0, "thread_block::sync()", file, line);
    }
    unsigned thread_rank(void) const { return details::block_rank(); }
    unsigned size(void) const { return details::block_threads(); }
    unsigned num_threads(void) const { return details::block_threads(); }
    dim3 group_index(void) const { return dim3(blockIdx); }
    dim3 thread_index(void) const { return dim3(threadIdx); }
    dim3 group_dim(void) const { return blockDim; }
    dim3 dim_threads(void) const { return blockDim; }
    bool is_valid(void) const { return true; }
};

static inline thread_block this_thread_block(void) { return thread_block(); }

template <unsigned N, class Parent = void> class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "tiled_partition<N>: N must be a power of two from 1 to 32 on the cpu backend");

  public:
    /* A tile of the block unless told otherwise: its rank among the block's
     * tiles of N threads, and how many there are. */
    thread_block_tile(void)
        : meta_rank_(details::block_rank() / N), meta_size_((details::block_threads() + N - 1) / N)
    {
    }
    /* A tile of a tile of M threads: its rank within that parent tile. */
    explicit thread_block_tile(unsigned parent_size)
        : meta_rank_(details::block_rank() % parent_size / N), meta_size_(parent_size / N)
    {
    }
    /* thread_block_tile<N> t = tiled_partition<N>(...) keeps where the tile lies. */
    template <class Q>
    thread_block_tile(const thread_block_tile<N, Q> &other)
        : meta_rank_(other.meta_group_rank()), meta_size_(other.meta_group_size())
    {
    }

    /* the lanes of this tile, as a warp mask */
    unsigned mask(void) const
    {
        unsigned lane = details::block_rank() % 32, base = lane & ~(N - 1);
        unsigned lanes = N == 32 ? 0xffffffffu : ((1u << N) - 1) << base;
        return lanes & details::warp_lanes();
    }
    void sync(CUDAEMU_HERE) const
    {
        cudaemu::warp_op(cudaemu::WARP_SYNC, mask(), 0, 0, 0, 0, 32, "thread_block_tile::sync()", file, line);
    }
    unsigned thread_rank(void) const { return details::block_rank() & (N - 1); }
    unsigned size(void) const { return N; }
    unsigned num_threads(void) const { return N; }
    unsigned meta_group_rank(void) const { return meta_rank_; }
    unsigned meta_group_size(void) const { return meta_size_; }
    bool is_valid(void) const { return true; }

    template <class T> T shfl(T var, int src_rank, CUDAEMU_HERE) const
    {
        return cudaemu_shuffle(cudaemu::WARP_SHFL, mask(), var, src_rank, (int)N, "thread_block_tile::shfl()", file,
                               line);
    }
    template <class T> T shfl_up(T var, unsigned delta, CUDAEMU_HERE) const
    {
        return cudaemu_shuffle(cudaemu::WARP_SHFL_UP, mask(), var, (int)delta, (int)N, "thread_block_tile::shfl_up()",
                               file, line);
    }
    template <class T> T shfl_down(T var, unsigned delta, CUDAEMU_HERE) const
    {
        return cudaemu_shuffle(cudaemu::WARP_SHFL_DOWN, mask(), var, (int)delta, (int)N,
                               "thread_block_tile::shfl_down()", file, line);
    }
    template <class T> T shfl_xor(T var, unsigned lane_mask, CUDAEMU_HERE) const
    {
        return cudaemu_shuffle(cudaemu::WARP_SHFL_XOR, mask(), var, (int)lane_mask, (int)N,
                               "thread_block_tile::shfl_xor()", file, line);
    }
    CUDAEMU_NO_TSAN unsigned ballot(int predicate, CUDAEMU_HERE) const
    {
        unsigned out;
        int p = predicate != 0;
        cudaemu::warp_op(cudaemu::WARP_BALLOT, mask(), &p, &out, sizeof p, 0, 32, "thread_block_tile::ballot()", file,
                         line);
        unsigned base = details::block_rank() % 32 & ~(N - 1);
        return N == 32 ? out : (out >> base) & ((1u << N) - 1);
    }
    CUDAEMU_NO_TSAN int any(int predicate, CUDAEMU_HERE) const
    {
        unsigned out;
        int p = predicate != 0;
        cudaemu::warp_op(cudaemu::WARP_ANY, mask(), &p, &out, sizeof p, 0, 32, "thread_block_tile::any()", file, line);
        return (int)out;
    }
    CUDAEMU_NO_TSAN int all(int predicate, CUDAEMU_HERE) const
    {
        unsigned out;
        int p = predicate != 0;
        cudaemu::warp_op(cudaemu::WARP_ALL, mask(), &p, &out, sizeof p, 0, 32, "thread_block_tile::all()", file, line);
        return (int)out;
    }

  private:
    unsigned meta_rank_, meta_size_;
};

template <unsigned N> static inline thread_block_tile<N, thread_block> tiled_partition(const thread_block &)
{
    return thread_block_tile<N, thread_block>();
}
template <unsigned N, unsigned M, class P>
static inline thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P> &)
{
    static_assert(N <= M, "a tile can only be split into smaller tiles");
    return thread_block_tile<N, thread_block_tile<M, P>>(M);
}

/* tiled_partition(parent, n) with n known only at run time. */
class thread_group {
  public:
    explicit thread_group(unsigned n) : n_(n) {}
    unsigned mask(void) const
    {
        unsigned lane = details::block_rank() % 32, base = lane / n_ * n_;
        unsigned lanes = n_ >= 32 ? 0xffffffffu : ((1u << n_) - 1) << base;
        return lanes & details::warp_lanes();
    }
    void sync(CUDAEMU_HERE) const
    {
        if (n_ > 32)
            cudaemu::block_barrier(cudaemu::BARRIER_PLAIN, 0, "thread_group::sync()", file, line);
        else
            cudaemu::warp_op(cudaemu::WARP_SYNC, mask(), 0, 0, 0, 0, 32, "thread_group::sync()", file, line);
    }
    unsigned thread_rank(void) const { return details::block_rank() % n_; }
    unsigned size(void) const { return n_; }
    unsigned num_threads(void) const { return n_; }

  private:
    unsigned n_;
};
static inline thread_group tiled_partition(const thread_block &, unsigned n, CUDAEMU_HERE)
{
    if (n == 0 || n > 32 || (n & (n - 1)))
        cudaemu::kernel_fail(cudaErrorInvalidValue, file, line,
                             "tiled_partition(block, %u): the size must be a power of two from 1 to 32", n);
    return thread_group(n);
}

class grid_group {
  public:
    void sync(CUDAEMU_HERE) const { cudaemu::grid_barrier(file, line); }
    unsigned long long thread_rank(void) const
    {
        unsigned long long block = (blockIdx.z * (unsigned long long)gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        return block * details::block_threads() + details::block_rank();
    }
    unsigned long long size(void) const { return num_blocks() * details::block_threads(); }
    unsigned long long num_threads(void) const { return size(); }
    unsigned long long num_blocks(void) const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    unsigned long long block_rank(void) const
    {
        return (blockIdx.z * (unsigned long long)gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    }
    dim3 block_index(void) const { return dim3(blockIdx); }
    dim3 group_dim(void) const { return gridDim; }
    dim3 dim_blocks(void) const { return gridDim; }
    bool is_valid(void) const { return cudaemu::grid_is_cooperative() != 0; }
};
static inline grid_group this_grid(void) { return grid_group(); }

template <class Group> static inline void sync(const Group &group, CUDAEMU_HERE) { group.sync(file, line); }

void coalesced_threads(void) __attribute__((error(
    "coalesced_threads() is not supported by the cpu backend: each thread runs alone between synchronisation "
    "points, so which threads are active together has no meaning; use tiled_partition")));

} // namespace cooperative_groups

#endif /* CUDAEMU_COOPERATIVE_GROUPS_H */
