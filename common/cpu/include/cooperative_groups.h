/* cooperative_groups.h of the cpu backend: the groups the labs use.
 *
 *   thread_group                 the base of the block's groups, usable as a type (a __device__
 *                                function taking cg::thread_group): sync, thread_rank, size
 *   this_thread_block()          thread_block: sync, thread_rank, size, group_index, thread_index, ...
 *   tiled_partition<N>(parent)   thread_block_tile<N> (N a power of two up to 32): shfl, shfl_up,
 *                                shfl_down, shfl_xor, any, all, ballot, sync, thread_rank,
 *                                meta_group_rank, meta_group_size, size, num_threads;
 *                                N from 64 to 1024, in a block of whole tiles: sync, shfl, any,
 *                                all, thread_rank, meta_group_rank, meta_group_size, size, num_threads
 *   tiled_partition(parent, n)   a thread_group of n threads (n chosen at run time, a power of two up to 32)
 *   binary_partition(tile, p)    coalesced_group: the tile's threads with the same p; sync, thread_rank,
 *                                size, shfl, shfl_up, shfl_down, any, all, ballot
 *   this_grid()                  grid_group: sync (only under cudaLaunchCooperativeKernel), thread_rank, size, ...
 *
 * A tile of up to 32 threads is a set of lanes of one warp; its operations
 * are the warp operations of cuda_runtime.h with the tile's mask and width,
 * so the same diagnostics apply.  A larger tile's operations wait for every
 * thread of the tile (cudaemu::tile_op), as CUDA's do; they need no scratch
 * memory here, so block_tile_memory is accepted and unused.
 * coalesced_threads() is refused at compile time: which threads are
 * "active together" has no meaning when each runs alone. */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_H
#define CUDAEMU_COOPERATIVE_GROUPS_H

#include <type_traits>

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

/* The base of the block's groups: the whole block (tile_ 0) or an aligned
 * tile of tile_ threads of one warp.  thread_block and thread_block_tile<N>
 * derive from it, so either can be passed where a thread_group is taken
 * (by value, as CUDA allows, or by reference); tiled_partition(parent, n)
 * makes one with n known only at run time. */
class thread_group {
  public:
    void sync(CUDAEMU_HERE) const
    {
        if (!tile_)
            cudaemu::block_barrier(cudaemu::BARRIER_PLAIN, 0, "thread_group::sync()", file, line);
        else
            cudaemu::warp_op(cudaemu::WARP_SYNC, tile_mask(), 0, 0, 0, 0, 32, "thread_group::sync()", file, line);
    }
    unsigned thread_rank(void) const { return tile_ ? details::block_rank() % tile_ : details::block_rank(); }
    unsigned size(void) const { return tile_ ? tile_ : details::block_threads(); }
    unsigned num_threads(void) const { return size(); }
    bool is_valid(void) const { return true; }

  protected:
    explicit thread_group(unsigned tile) : tile_(tile) {}
    /* the lanes of this thread's tile, as a warp mask */
    unsigned tile_mask(void) const
    {
        unsigned lane = details::block_rank() % 32, base = lane / tile_ * tile_;
        unsigned lanes = tile_ >= 32 ? 0xffffffffu : ((1u << tile_) - 1) << base;
        return lanes & details::warp_lanes();
    }
    unsigned tile_; /* 0: the whole block */

    friend thread_group tiled_partition(const thread_group &parent, unsigned n, const char *file, int line);
};

class thread_block : public thread_group {
  public:
    thread_block(void) : thread_group(0) {}
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
/* The scratch memory a GPU's tiles of more than 32 threads talk through
 * (CUDA 12's block_tile_memory<MaxBlockSize>, and CUDA 11's
 * experimental::block_tile_memory<TileCommunicationSize, MaxBlockSize>):
 * here the runtime keeps what such a tile waits for, so it is unused. */
template <unsigned... Sizes> struct block_tile_memory {
    char unused;
};
template <unsigned... Sizes> static inline thread_block this_thread_block(block_tile_memory<Sizes...> &)
{
    return thread_block();
}
namespace experimental {
using cooperative_groups::block_tile_memory;
using cooperative_groups::this_thread_block;
} // namespace experimental

namespace details {
/* What a tile of more than one warp derives from: not thread_group, since
 * CUDA's cannot be passed as one either. */
class multi_warp_tile {
  protected:
    explicit multi_warp_tile(unsigned) {}
};
} // namespace details

template <unsigned N, class Parent = void>
class thread_block_tile : public std::conditional_t<(N > 32), details::multi_warp_tile, thread_group> {
    typedef std::conditional_t<(N > 32), details::multi_warp_tile, thread_group> group_base;

    static_assert(N >= 1 && N <= 1024 && (N & (N - 1)) == 0, "tiled_partition<N>: N must be a power of two from 1 to 1024");
    static constexpr bool multi_warp = N > 32;

  public:
    /* A tile of the block unless told otherwise: its rank among the block's
     * tiles of N threads, and how many there are. */
    thread_block_tile(CUDAEMU_HERE)
        : group_base(N), meta_rank_(details::block_rank() / N), meta_size_((details::block_threads() + N - 1) / N)
    {
        if (multi_warp && details::block_threads() % N)
            cudaemu::kernel_fail(cudaErrorLaunchFailure, file, line,
                                 "tiled_partition<%u>: a block of %u threads does not split into tiles of %u; a tile "
                                 "of more than 32 threads needs a block of a whole number of them",
                                 N, details::block_threads(), N);
    }
    /* A tile of a tile of M threads: its rank within that parent tile. */
    explicit thread_block_tile(unsigned parent_size)
        : group_base(N), meta_rank_(details::block_rank() % parent_size / N), meta_size_(parent_size / N)
    {
    }
    /* thread_block_tile<N> t = tiled_partition<N>(...) keeps where the tile lies. */
    template <class Q>
    thread_block_tile(const thread_block_tile<N, Q> &other)
        : group_base(N), meta_rank_(other.meta_group_rank()), meta_size_(other.meta_group_size())
    {
    }

    /* the lanes of this tile, as a warp mask */
    unsigned mask(void) const
    {
        static_assert(!multi_warp, "a thread_block_tile of more than 32 threads has sync, shfl, any and all; "
                                   "shfl_up, shfl_down, shfl_xor, ballot and binary_partition are a warp's");
        unsigned lane = details::block_rank() % 32, base = lane & ~(N - 1);
        unsigned lanes = N == 32 ? 0xffffffffu : ((1u << N) - 1) << base;
        return lanes & details::warp_lanes();
    }
    void sync(CUDAEMU_HERE) const
    {
        if constexpr (multi_warp)
            cudaemu::tile_op(cudaemu::WARP_SYNC, N, 0, 0, 0, 0, "thread_block_tile::sync()", file, line);
        else
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
        if constexpr (multi_warp) {
            static_assert(sizeof(T) <= cudaemu::WARP_VALUE_MAX, "shuffled values must be at most 32 bytes");
            T out;
            cudaemu::tile_op(cudaemu::WARP_SHFL, N, &var, &out, sizeof(T), (unsigned)src_rank,
                             "thread_block_tile::shfl()", file, line);
            return out;
        } else {
            return cudaemu_shuffle(cudaemu::WARP_SHFL, mask(), var, src_rank, (int)N, "thread_block_tile::shfl()",
                                   file, line);
        }
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
    int any(int predicate, CUDAEMU_HERE) const
    {
        return vote(cudaemu::WARP_ANY, predicate, "thread_block_tile::any()", file, line);
    }
    int all(int predicate, CUDAEMU_HERE) const
    {
        return vote(cudaemu::WARP_ALL, predicate, "thread_block_tile::all()", file, line);
    }

  private:
    unsigned meta_rank_, meta_size_;
    CUDAEMU_NO_TSAN int vote(int kind, int predicate, const char *what, const char *file, int line) const
    {
        unsigned out;
        int p = predicate != 0;
        if constexpr (multi_warp)
            cudaemu::tile_op(kind, N, &p, &out, sizeof p, 0, what, file, line);
        else
            cudaemu::warp_op(kind, mask(), &p, &out, sizeof p, 0, 32, what, file, line);
        return (int)out;
    }
};

template <unsigned N>
static inline thread_block_tile<N, thread_block> tiled_partition(const thread_block &, CUDAEMU_HERE)
{
    return thread_block_tile<N, thread_block>(file, line);
}
template <unsigned N, unsigned M, class P>
static inline thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P> &)
{
    static_assert(N <= M, "a tile can only be split into smaller tiles");
    return thread_block_tile<N, thread_block_tile<M, P>>(M);
}

/* tiled_partition(parent, n) with n known only at run time: a tile of the
 * block, or of the tile passed (a power of two, so its tiles are the
 * block's tiles of n threads). */
inline thread_group tiled_partition(const thread_group &parent, unsigned n, CUDAEMU_HERE)
{
    if (n == 0 || n > 32 || (n & (n - 1)))
        cudaemu::kernel_fail(cudaErrorInvalidValue, file, line,
                             "tiled_partition(group, %u): the size must be a power of two from 1 to 32", n);
    if (n > parent.size())
        cudaemu::kernel_fail(cudaErrorInvalidValue, file, line,
                             "tiled_partition(group, %u): the group has only %u threads", n, parent.size());
    return thread_group(n);
}

/* The threads of a tile that passed the same predicate to binary_partition,
 * in the order of their lanes: any set of lanes of one warp.  Ranks count
 * the group's lanes only. */
class coalesced_group {
  public:
    CUDAEMU_NO_TSAN explicit coalesced_group(unsigned lanes) : mask_(lanes) {}
    void sync(CUDAEMU_HERE) const
    {
        cudaemu::warp_op(cudaemu::WARP_SYNC, mask_, 0, 0, 0, 0, 32, "coalesced_group::sync()", file, line);
    }
    unsigned size(void) const { return (unsigned)__builtin_popcount(mask_); }
    unsigned num_threads(void) const { return size(); }
    unsigned thread_rank(void) const { return rank_of(details::block_rank() % 32); }
    unsigned meta_group_rank(void) const { return 0; }
    unsigned meta_group_size(void) const { return 1; }
    bool is_valid(void) const { return true; }

    template <class T> T shfl(T var, int src_rank, CUDAEMU_HERE) const
    {
        return cudaemu_shuffle(cudaemu::WARP_SHFL, mask_, var, (int)lane_of((unsigned)src_rank % size()), 32,
                               "coalesced_group::shfl()", file, line);
    }
    /* a rank outside the group reads the caller's own value, as shfl_up and shfl_down do */
    template <class T> T shfl_up(T var, unsigned delta, CUDAEMU_HERE) const
    {
        unsigned r = thread_rank(), from = r >= delta ? lane_of(r - delta) : details::block_rank() % 32;
        return cudaemu_shuffle(cudaemu::WARP_SHFL, mask_, var, (int)from, 32, "coalesced_group::shfl_up()", file, line);
    }
    template <class T> T shfl_down(T var, unsigned delta, CUDAEMU_HERE) const
    {
        unsigned r = thread_rank(), from = r + delta < size() ? lane_of(r + delta) : details::block_rank() % 32;
        return cudaemu_shuffle(cudaemu::WARP_SHFL, mask_, var, (int)from, 32, "coalesced_group::shfl_down()", file,
                               line);
    }
    /* bit r of the result: the predicate of the thread of rank r */
    CUDAEMU_NO_TSAN unsigned ballot(int predicate, CUDAEMU_HERE) const
    {
        unsigned lanes = vote(cudaemu::WARP_BALLOT, predicate, "coalesced_group::ballot()", file, line), out = 0;
        for (unsigned l = 0; l < 32; l++)
            if (lanes >> l & 1)
                out |= 1u << rank_of(l);
        return out;
    }
    int any(int predicate, CUDAEMU_HERE) const
    {
        return (int)vote(cudaemu::WARP_ANY, predicate, "coalesced_group::any()", file, line);
    }
    int all(int predicate, CUDAEMU_HERE) const
    {
        return (int)vote(cudaemu::WARP_ALL, predicate, "coalesced_group::all()", file, line);
    }
    unsigned lanes(void) const { return mask_; }

  private:
    unsigned rank_of(unsigned lane) const { return (unsigned)__builtin_popcount(mask_ & ((1u << lane) - 1)); }
    unsigned lane_of(unsigned rank) const
    {
        unsigned m = mask_;
        for (unsigned i = 0; i < rank; i++)
            m &= m - 1; /* drop the lowest lane */
        return (unsigned)__builtin_ctz(m);
    }
    CUDAEMU_NO_TSAN unsigned vote(int kind, int predicate, const char *what, const char *file, int line) const
    {
        unsigned out;
        int p = predicate != 0;
        cudaemu::warp_op(kind, mask_, &p, &out, sizeof p, 0, 32, what, file, line);
        return out;
    }
    unsigned mask_;
};

/* The tile's (or group's) threads whose predicate is the caller's: a ballot
 * over the parent, so every thread of the parent must call it, as on a GPU. */
template <unsigned N, class P>
static inline CUDAEMU_NO_TSAN coalesced_group binary_partition(const thread_block_tile<N, P> &tile, bool predicate, CUDAEMU_HERE)
{
    unsigned mask = tile.mask(), yes;
    int p = predicate;
    cudaemu::warp_op(cudaemu::WARP_BALLOT, mask, &p, &yes, sizeof p, 0, 32, "binary_partition()", file, line);
    return coalesced_group(predicate ? yes : mask & ~yes);
}
static inline CUDAEMU_NO_TSAN coalesced_group binary_partition(const coalesced_group &group, bool predicate, CUDAEMU_HERE)
{
    unsigned mask = group.lanes(), yes;
    int p = predicate;
    cudaemu::warp_op(cudaemu::WARP_BALLOT, mask, &p, &yes, sizeof p, 0, 32, "binary_partition()", file, line);
    return coalesced_group(predicate ? yes : mask & ~yes);
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

/* Refused where it is called, with this message (declared, never defined). */
coalesced_group coalesced_threads(void) __attribute__((error(
    "coalesced_threads() is not supported by the cpu backend: each thread runs alone between synchronisation "
    "points, so which threads of a warp are active together has no meaning; use tiled_partition, or "
    "binary_partition(tile, predicate) for the threads of a tile that take the same branch")));

} // namespace cooperative_groups

#endif /* CUDAEMU_COOPERATIVE_GROUPS_H */
