/* max.cu: lab 5, the maximum of an array: a tournament of pairs over many
 * launches, then a block reduction in shared memory in a single launch.
 *
 * lab5.h fixes the rounds, the invariant and the identity; read it first.
 */
#include <math.h>
#include <string.h>

#include "kit.h"
#include "lab5.h"

#define BLOCK 256       /* threads per block; a power of two for the tree */
#define MAX_BLOCKS 1024 /* enough blocks to fill a large GPU; more only add atomics */

static inline int blocks_for(int threads) { return (threads + BLOCK - 1) / BLOCK; }

/* ---- Part 1: the tournament of pairs --------------------------------------- */

/* One round: thread t plays the pair (in[2t], in[2t + 1]) of the m values
 * in `in` and writes the winner to out[t]. */
static __global__ void pair_round(const float *in, int m, float *out)
{
    /* TODO 1: t is the global index; if 2t < m, out[t] = the larger of in[2t] and in[2t + 1] (-INFINITY when 2t + 1 = m). */
    /* (nothing yet: no winner is written) */
    /* END TODO 1 */
}

int max_invariant_holds(const float *original, const float *state, int n, int round)
{
    /* TODO 2: W = 2^round; for every t < ceil(n / W), state[t] must be the largest of original[tW .. min((t + 1)W, n)). */
    kit_not_implemented("TODO 2");
    (void)original, (void)state, (void)n, (void)round;
    return 1; /* accepts everything: far too weak */
    /* END TODO 2 */
}

float tournament_max(const float *a, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *d_in = NULL, *d_out = NULL;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, a, bytes, cudaMemcpyHostToDevice));
    SNAPSHOT(d_in, n, 0);
    ASSERT_INVARIANT(max_invariant_holds, a, n, 0); /* the assert of the loop (kit.h part 10) */

    /* TODO 3: the rounds: while more than one value is left, LAUNCH pair_round from d_in to d_out, SNAPSHOT d_out, ASSERT_INVARIANT, then swap d_in and d_out. */
    kit_not_implemented("TODO 3");
    /* END TODO 3 */

    float best = 0;
    CHECK(cudaMemcpy(&best, d_in, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return best;
}

/* ---- Part 2: one launch, a tree in shared memory per block ------------------------
 * The blocks' results meet in one int with atomicMax.  There is no atomicMax
 * for floats, so each float is turned into an int key whose order is the
 * order of the floats: non-negative floats already compare like their bits;
 * for negative ones the bits must be flipped (all but the sign) to reverse
 * their order. */
static __device__ int float_to_key(float x)
{
    int bits = __float_as_int(x);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

static int host_float_to_key(float x)
{
    int bits;
    memcpy(&bits, &x, sizeof bits);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

static float host_key_to_float(int key)
{
    int bits = key >= 0 ? key : key ^ 0x7fffffff;
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static __global__ void block_max_kernel(const float *a, int n, int *result_key)
{
    __shared__ float best[BLOCK];
    int tid = threadIdx.x;

    /* TODO 4: each thread takes the largest of its elements (a grid-stride loop from its global index), starting from the identity; best[tid] = that. */
    best[tid] = -INFINITY; /* (nothing read yet) */
    /* END TODO 4 */
    __syncthreads();

    /* TODO 5: the tree, sequential addressing: for s = blockDim.x / 2 down to 1, threads tid < s keep the larger of best[tid] and best[tid + s]; a barrier after each level. */
    /* (nothing yet) */
    /* END TODO 5 */

    /* TODO 6: one thread per block brings the block's winner into the single
     * result that every block shares, so that no block's update can be
     * lost to another's (atomics compare integers: float_to_key orders
     * floats as integers). */
    /* (nothing yet: the result stays at the identity) */
    /* END TODO 6 */
}

float block_max(const float *a, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *d_a = NULL;
    int *d_key = NULL;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_key, sizeof(int)));
    CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    int key = host_float_to_key(-INFINITY); /* the identity: any value beats it */
    CHECK(cudaMemcpy(d_key, &key, sizeof key, cudaMemcpyHostToDevice));

    /* TODO 7: one LAUNCH of block_max_kernel with BLOCK threads per block and enough blocks for n (at most MAX_BLOCKS). */
    kit_not_implemented("TODO 7");
    /* END TODO 7 */

    CHECK(cudaMemcpy(&key, d_key, sizeof key, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_key));
    return host_key_to_float(key);
}
