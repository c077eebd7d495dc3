/* tournament.cu: lab 4, summing an array as a tournament, one launch per round.
 *
 * lab4.h fixes the rounds and the invariant; read it first.  The file goes
 * top to bottom: the two kernels (naive and compact thread mappings), the
 * invariant, then the two loops of rounds.
 *
 * Both mappings do the same additions in the same rounds.  They differ in
 * which threads do them: in the naive one, the working threads of a round
 * are 2D apart, so whole warps run with one thread busy (warp divergence)
 * and their reads are spread 2D elements apart (strided access).  The
 * compact one hands the work of round r to the first n / 2D threads.
 */
#include "kit.h"
#include "lab4.h"

#define BLOCK 256 /* threads per block */

static inline int blocks_for(long long threads) { return (int)((threads + BLOCK - 1) / BLOCK); }

/* Naive mapping: thread i looks after element i. */
static __global__ void naive_round(int *a, int n, int d)
{
    /* TODO 1: i is the global index; if i is a multiple of 2d and i + d < n, A[i] += A[i + d]. */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i % (2 * d) == 0 && i + d < n)
        a[i] += a[i + d];
    /* END TODO 1 */
}

/* Compact mapping: thread t looks after element 2 d t; `pairs` threads have work. */
static __global__ void compact_round(int *a, int n, int d, int pairs)
{
    /* TODO 2: t is the global index; if t < pairs, the element is i = 2 d t and A[i] += A[i + d]. */
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < pairs) {
        int i = 2 * d * t; /* < n, since t < pairs */
        a[i] += a[i + d];
    }
    /* END TODO 2 */
}

int tournament_invariant_holds(const int *original, const int *state, int n, int round)
{
    /* TODO 3: W = 2^round; every A[i] with i a multiple of W must be original[i] + ... + original[min(i + W, n) - 1]. */
    long long width = 1LL << round;
    for (long long i = 0; i < n; i += width) {
        long long needed = 0;
        for (long long j = i; j < i + width && j < n; j++)
            needed += original[j];
        if (state[i] != needed)
            return 0;
    }
    return 1;
    /* END TODO 3 */
}

/* Copies a[] to a new device array: the state of round 0. */
static int *copy_to_device(const int *a, int n)
{
    int *d_a = NULL;
    CHECK(cudaMalloc(&d_a, (size_t)n * sizeof(int)));
    CHECK(cudaMemcpy(d_a, a, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    SNAPSHOT(d_a, n, 0);
    ASSERT_INVARIANT(tournament_invariant_holds, a, n, 0); /* the assert of the loop (kit.h part 10) */
    return d_a;
}

/* The winner of the whole tournament, A[0]; frees the device array. */
static int winner_and_free(int *d_a)
{
    int sum = 0;
    CHECK(cudaMemcpy(&sum, d_a, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    return sum;
}

int tournament_sum_naive(const int *a, int n)
{
    int *d_a = copy_to_device(a, n);
    /* TODO 4: the rounds, d = 1, 2, 4, ... while d < n: one LAUNCH of naive_round over all n elements, then SNAPSHOT and ASSERT_INVARIANT. */
    int round = 0;
    for (int d = 1; d < n; d *= 2) {
        round++;
        LAUNCH(naive_round, blocks_for(n), BLOCK, 0, d_a, n, d);
        SNAPSHOT(d_a, n, round);
        ASSERT_INVARIANT(tournament_invariant_holds, a, n, round);
    }
    /* END TODO 4 */
    return winner_and_free(d_a);
}

int tournament_sum_compact(const int *a, int n)
{
    int *d_a = copy_to_device(a, n);
    /* TODO 5: the same rounds with compact_round, over just the threads the pairs need (rounded up to a whole block). */
    int round = 0;
    for (int d = 1; d < n; d *= 2) {
        int pairs = (n - d + 2 * d - 1) / (2 * d); /* multiples i of 2d with i + d < n */
        round++;
        LAUNCH(compact_round, blocks_for(pairs), BLOCK, 0, d_a, n, d, pairs);
        SNAPSHOT(d_a, n, round);
        ASSERT_INVARIANT(tournament_invariant_holds, a, n, round);
    }
    /* END TODO 5 */
    return winner_and_free(d_a);
}
