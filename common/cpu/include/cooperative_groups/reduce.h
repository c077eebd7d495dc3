/* cooperative_groups/reduce.h of the cpu backend: cg::reduce over a tile or
 * a coalesced group, and the operators it takes. */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_REDUCE_H
#define CUDAEMU_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus {
    T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
    T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    T operator()(const T &a, const T &b) const { return a ^ b; }
};

/* Every thread of the tile gets op applied over all its threads' values.
 * A tile of one warp: a butterfly of xor shuffles, log2(N) steps.  A
 * larger tile: each of its warps so, then the warps' results in turn,
 * through the tile (N / 32 steps). */
template <unsigned N, class P, class T, class Op>
static inline T reduce(const thread_block_tile<N, P> &tile, T value, Op op, CUDAEMU_HERE)
{
    if constexpr (N <= 32) {
        for (unsigned offset = N / 2; offset > 0; offset /= 2)
            value = op(value, tile.shfl_xor(value, offset, file, line));
        return value;
    } else {
        value = reduce(tiled_partition<32>(this_thread_block(), file, line), value, op, file, line);
        T result = tile.shfl(value, 0, file, line);
        for (unsigned warp = 1; warp < N / 32; warp++)
            result = op(result, tile.shfl(value, (int)(warp * 32), file, line));
        return result;
    }
}

/* A coalesced group, of any size: every member gets op over the members'
 * values in rank order, one shuffle per member. */
template <class T, class Op> static inline T reduce(const coalesced_group &group, T value, Op op, CUDAEMU_HERE)
{
    T result = group.shfl(value, 0, file, line);
    for (unsigned r = 1; r < group.size(); r++)
        result = op(result, group.shfl(value, (int)r, file, line));
    return result;
}

} // namespace cooperative_groups

#endif /* CUDAEMU_COOPERATIVE_GROUPS_REDUCE_H */
