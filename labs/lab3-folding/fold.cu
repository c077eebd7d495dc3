/* fold.cu: lab 3, summing an array by folding it in half, one launch per round.
 *
 * lab3.h fixes the rounds and the invariant; read it first.  The file goes
 * top to bottom: the kernel of one round, the invariant, the loop of rounds,
 * and (going further) undoing the folds.
 *
 * Why one launch per round: a round must finish everywhere before the next
 * one reads its results, and threads of different blocks cannot wait for
 * each other inside a kernel.  Launches on the same stream run one after
 * the other, so the end of a launch is the barrier between rounds.
 */
#include "kit.h"
#include "lab3.h"

#define BLOCK 256 /* threads per block */

static inline int blocks_for(int threads) { return (threads + BLOCK - 1) / BLOCK; }

/* The smallest power of two that is >= n. */
static inline int power_of_two_above(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* One round: the first `pairs` elements each add the element d further on.
 * pairs is d, except in a first round that folds a size which is not a
 * power of two, where only n - d elements have a partner. */
static __global__ void fold_round(int *a, int d, int pairs)
{
    /* TODO 1: this round folds the elements from d on onto the first ones:
     * one thread per pair (its global index says which), each adding its
     * partner d places further on into its own element; a thread with no
     * pair this round must not touch the array. */
    /* (nothing yet: this round adds nothing) */
    /* END TODO 1 */
}

int fold_invariant_holds(const int *original, const int *state, int n, int round)
{
    /* TODO 2: the live width w = P >> round; every A[i] with i < min(w, n) must be the sum of original[j], j % w == i. */
    kit_not_implemented("TODO 2");
    (void)original, (void)state, (void)n, (void)round;
    return 1; /* accepts everything: far too weak */
    /* END TODO 2 */
}

int fold_sum(const int *a, int n)
{
    size_t bytes = (size_t)n * sizeof(int);
    int *d_a = NULL;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    SNAPSHOT(d_a, n, 0);
    ASSERT_INVARIANT(fold_invariant_holds, a, n, 0); /* the assert of the loop (kit.h part 10) */

    /* TODO 3: the rounds: d from P / 2 down to 1, one LAUNCH of fold_round each, then SNAPSHOT and ASSERT_INVARIANT. */
    kit_not_implemented("TODO 3");
    /* END TODO 3 */

    int sum = 0;
    CHECK(cudaMemcpy(&sum, d_a, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    return sum;
}

/* ---- Going further: unfolding ------------------------------------------------
 * A round wrote A[i] = A[i] + A[i + d] and never touched A[i + d], so
 * A[i] - A[i + d] gives back the value A[i] had before it. */
static __global__ void unfold_round(int *a, int d, int pairs)
{
    /* TODO 4: undo one round: if i < pairs, A[i] -= A[i + d]. */
    /* (nothing yet) */
    /* END TODO 4 */
}

void fold_unfold(int *a, int n)
{
    size_t bytes = (size_t)n * sizeof(int);
    int *d_a = NULL;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));

    /* TODO 5: undo the rounds, last one first: d = 1, 2, 4, ... while d < n, one LAUNCH of unfold_round each. */
    kit_not_implemented("TODO 5");
    /* END TODO 5 */

    CHECK(cudaMemcpy(a, d_a, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
}
