/* coop_dot.cu: lab 7, the dot product with cooperative groups.
 *
 * Read lab7.h first.  Every kernel here has the same three stages:
 *   1. each thread adds up its own elements, in a double (given for
 *      scalar loads; TODO 5 with float4 loads);
 *   2. the block adds up its threads' sums (TODO 1: a shared-memory tree;
 *      TODOs 2-4: warps first, with tile shuffles or cg::reduce);
 *   3. thread 0 of the block adds the block's total to the result with one
 *      atomicAdd (given).
 * TODO 6 (going further) replaces the atomics by a grid-wide barrier.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

#include "kit.h"
#include "lab7.h"

namespace cg = cooperative_groups;

/* ---- Stage 1, given: each thread's own sum (lab 6's grid-stride loop) ----------- */

static __device__ double thread_sum(const float *x, const float *y, int n)
{
    double sum = 0.0;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        sum += x[i] * y[i];
    return sum;
}

/* ---- Stage 2 with a shared-memory tree ------------------------------------------- */

/* Adds v over all the threads of the block; thread 0 gets the total.  cache
 * holds one double per thread, and block.size() is a power of two. */
static __device__ double block_sum_tree(cg::thread_block block, double *cache, double v)
{
    /* TODO 1: lab 6's tree, said with cooperative groups: the thread's
     * place is block.thread_rank(), the number of threads block.size(), and
     * block.sync() is the barrier.  Return cache[0] at the end. */
    unsigned int me = block.thread_rank();
    cache[me] = v;
    block.sync();
    for (unsigned int half = block.size() / 2; half > 0; half /= 2) {
        if (me < half)
            cache[me] += cache[me + half];
        block.sync();
    }
    return cache[0];
    /* END TODO 1 */
}

/* ---- Stage 2 with warps ----------------------------------------------------------- */

/* Adds v over the 32 threads of a tile; lane 0 gets the total (the other
 * lanes may get anything).  No shared memory: the values move from
 * register to register. */
static __device__ double warp_sum_shuffles(cg::thread_block_tile<32> tile, double v)
{
    /* TODO 2: a tree inside the tile, with no shared memory: at each step
     * every lane adds the value a lane further down the tile holds, the
     * distance halving from half the tile's width down to 1, until lane 0
     * holds the tile's sum. */
    for (unsigned int delta = tile.size() / 2; delta > 0; delta /= 2)
        v += tile.shfl_down(v, delta);
    return v;
    /* END TODO 2 */
}

/* The same, done by the library; every lane gets the total. */
static __device__ double warp_sum_reduce(cg::thread_block_tile<32> tile, double v)
{
    /* TODO 3: the same sum, from the cooperative groups library's own
     * reduction over the tile (the handout names it). */
    return cg::reduce(tile, v, cg::plus<double>());
    /* END TODO 3 */
}

static __device__ double warp_sum(cg::thread_block_tile<32> tile, double v, int use_cg_reduce)
{
    return use_cg_reduce ? warp_sum_reduce(tile, v) : warp_sum_shuffles(tile, v);
}

/* Adds v over all the threads of the block in two levels of warps; thread 0
 * gets the total.  warp_sums holds one double per warp. */
static __device__ double block_sum_warps(cg::thread_block block, double *warp_sums, double v, int use_cg_reduce)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    /* TODO 4: each warp adds up its 32 values (warp_sum); its lane 0 stores
     * the warp's total in warp_sums[tile.meta_group_rank()].  Once every
     * warp has stored its total, the first warp adds the totals up with
     * warp_sum again: lane k takes warp_sums[k], or 0 when the block has
     * fewer than k + 1 warps (tile.meta_group_size() of them). */
    v = warp_sum(tile, v, use_cg_reduce);
    if (tile.thread_rank() == 0)
        warp_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? warp_sums[tile.thread_rank()] : 0.0;
        v = warp_sum(tile, v, use_cg_reduce);
    }
    return v;
    /* END TODO 4 */
}

/* ---- Stage 1 with float4 loads ---------------------------------------------------------- */

/* Each thread's own sum, reading x and y four floats at a time. */
static __device__ double thread_sum_vector(const float *x, const float *y, int n)
{
    /* TODO 5: float4 loads need addresses that are multiples of 16 bytes.
     * When x and y are not aligned alike, no float4 load serves both: fall
     * back to thread_sum.  Otherwise split the n floats in three:
     *   the head: the floats before x's first 16-byte boundary (0 to 3 of
     *             them, fewer when n is smaller), one by one;
     *   the body: whole float4s from there on, with a grid-stride loop;
     *   the tail: the 0 to 3 floats left after the last whole float4.
     * The head and the tail go to the first threads of the grid. */
    unsigned int misalignment = (uintptr_t)x % 16;
    if (misalignment != (uintptr_t)y % 16)
        return thread_sum(x, y, n);
    int me = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    int head = misalignment ? (16 - misalignment) / sizeof(float) : 0;
    if (head > n)
        head = n;
    int quads = (n - head) / 4;
    int tail_start = head + 4 * quads;

    double sum = 0.0;
    if (me < head)
        sum += x[me] * y[me];
    const float4 *x4 = (const float4 *)(x + head);
    const float4 *y4 = (const float4 *)(y + head);
    for (int q = me; q < quads; q += stride) {
        float4 a = x4[q], b = y4[q];
        sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    if (me < n - tail_start)
        sum += x[tail_start + me] * y[tail_start + me];
    return sum;
    /* END TODO 5 */
}

/* ---- The kernels: one atomicAdd per block (given) ------------------------------------- */

/* Dynamic shared memory: one double per thread. */
static __global__ void dot_tree_kernel(const float *x, const float *y, int n, double *result)
{
    extern __shared__ double cache[];
    cg::thread_block block = cg::this_thread_block();
    double total = block_sum_tree(block, cache, thread_sum(x, y, n));
    if (block.thread_rank() == 0)
        atomicAdd(result, total);
}

/* Dynamic shared memory, for this kernel and the next two: one double per warp. */
static __global__ void dot_shuffle_kernel(const float *x, const float *y, int n, double *result)
{
    extern __shared__ double warp_sums[];
    cg::thread_block block = cg::this_thread_block();
    double total = block_sum_warps(block, warp_sums, thread_sum(x, y, n), 0);
    if (block.thread_rank() == 0)
        atomicAdd(result, total);
}

static __global__ void dot_reduce_kernel(const float *x, const float *y, int n, double *result)
{
    extern __shared__ double warp_sums[];
    cg::thread_block block = cg::this_thread_block();
    double total = block_sum_warps(block, warp_sums, thread_sum(x, y, n), 1);
    if (block.thread_rank() == 0)
        atomicAdd(result, total);
}

static __global__ void dot_vector_kernel(const float *x, const float *y, int n, double *result)
{
    extern __shared__ double warp_sums[];
    cg::thread_block block = cg::this_thread_block();
    double total = block_sum_warps(block, warp_sums, thread_sum_vector(x, y, n), 1);
    if (block.thread_rank() == 0)
        atomicAdd(result, total);
}

/* ---- The host side (given) -------------------------------------------------------------- */

/* x and y on the device, `offset` floats past the 16-byte aligned start of
 * their allocations (which end right after the vectors, so a read past the
 * end is a real overflow), and the result set to 0. */
typedef struct {
    float *x_memory, *y_memory; /* what cudaMalloc gave */
    float *x, *y;               /* where the vectors start */
    double *result;
} device_vectors;

static device_vectors upload(const float *x, const float *y, int n, int offset)
{
    device_vectors d;
    size_t bytes = ((size_t)offset + n) * sizeof(float);
    CHECK(cudaMalloc(&d.x_memory, bytes));
    CHECK(cudaMalloc(&d.y_memory, bytes));
    CHECK(cudaMalloc(&d.result, sizeof(double)));
    d.x = d.x_memory + offset;
    d.y = d.y_memory + offset;
    CHECK(cudaMemcpy(d.x, x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d.y, y, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d.result, 0, sizeof(double)));
    return d;
}

static float download_and_free(device_vectors *d)
{
    double result = 0.0;
    CHECK(cudaMemcpy(&result, d->result, sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d->x_memory));
    CHECK(cudaFree(d->y_memory));
    CHECK(cudaFree(d->result));
    return (float)result;
}

static size_t warp_sums_bytes(int block_size) { return (size_t)(block_size / 32) * sizeof(double); }

float dot_block_sync(const float *x, const float *y, int n, int block_size)
{
    size_t shared = block_size * sizeof(double);
    int blocks = blocks_to_fill(dot_tree_kernel, block_size, shared, n);
    device_vectors d = upload(x, y, n, 0);
    LAUNCH(dot_tree_kernel, blocks, block_size, shared, d.x, d.y, n, d.result);
    return download_and_free(&d);
}

float dot_tile_shuffle(const float *x, const float *y, int n, int block_size)
{
    size_t shared = warp_sums_bytes(block_size);
    int blocks = blocks_to_fill(dot_shuffle_kernel, block_size, shared, n);
    device_vectors d = upload(x, y, n, 0);
    LAUNCH(dot_shuffle_kernel, blocks, block_size, shared, d.x, d.y, n, d.result);
    return download_and_free(&d);
}

float dot_cg_reduce(const float *x, const float *y, int n, int block_size)
{
    size_t shared = warp_sums_bytes(block_size);
    int blocks = blocks_to_fill(dot_reduce_kernel, block_size, shared, n);
    device_vectors d = upload(x, y, n, 0);
    LAUNCH(dot_reduce_kernel, blocks, block_size, shared, d.x, d.y, n, d.result);
    return download_and_free(&d);
}

float dot_vectorized(const float *x, const float *y, int n, int block_size, int offset)
{
    size_t shared = warp_sums_bytes(block_size);
    /* Each turn of a thread's loop takes four floats. */
    int blocks = blocks_to_fill(dot_vector_kernel, block_size, shared, n / 4 + 1);
    device_vectors d = upload(x, y, n, offset);
    LAUNCH(dot_vector_kernel, blocks, block_size, shared, d.x, d.y, n, d.result);
    return download_and_free(&d);
}

/* ---- Going further: one launch, a grid-wide barrier, no atomics ----------------------------- */

/* TODO 6: dot_grid_kernel stores each block's total (block_sum_warps of
 * thread_sum_vector) in partials[blockIdx.x], waits for the whole grid with
 * cg::this_grid().sync(), and then block 0 adds the partials up and writes
 * *result.  dot_grid_sync launches it with LAUNCH_COOPERATIVE (kit.h) on
 * as many blocks as fit on the device at once (the occupancy API, as in
 * blocks_to_fill), and returns the result. */
static __global__ void dot_grid_kernel(const float *x, const float *y, int n, double *partials, double *result)
{
    extern __shared__ double warp_sums[];
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    double total = block_sum_warps(block, warp_sums, thread_sum_vector(x, y, n), 1);
    if (block.thread_rank() == 0)
        partials[blockIdx.x] = total;
    grid.sync();
    if (blockIdx.x == 0) {
        double v = 0.0;
        for (unsigned int b = block.thread_rank(); b < gridDim.x; b += block.size())
            v += partials[b];
        v = block_sum_warps(block, warp_sums, v, 1);
        if (block.thread_rank() == 0)
            *result = v;
    }
}

float dot_grid_sync(const float *x, const float *y, int n, int block_size)
{
    int device, cooperative, sms, per_sm;
    size_t shared = warp_sums_bytes(block_size);
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative)
        kit_fail(__FILE__, __LINE__, "this device cannot make cooperative launches");
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dot_grid_kernel, block_size, shared));
    int chunks = (n / 4 + block_size) / block_size;
    int blocks = sms * per_sm < chunks ? sms * per_sm : chunks;

    device_vectors d = upload(x, y, n, 0);
    double *partials;
    CHECK(cudaMalloc(&partials, (size_t)blocks * sizeof(double)));
    void *args[] = {&d.x, &d.y, &n, &partials, &d.result};
    LAUNCH_COOPERATIVE(dot_grid_kernel, blocks, block_size, shared, args);
    CHECK(cudaFree(partials));
    return download_and_free(&d);
}
/* END TODO 6 */
