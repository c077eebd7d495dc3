/* lab4.h: lab 4, the tournament-tree sum.  This file is fixed: do not edit it.
 *
 * The rounds.  The sum of n elements takes R = ceil(log2(n)) rounds, one
 * kernel launch each.  Round r (r = 1, 2, ..., R) plays at the distance
 * D = 2^(r-1): every winner of the last round meets its neighbour D away,
 *
 *     A[i] += A[i + D]     for every i that is a multiple of 2D with i + D < n.
 *
 * The invariant.  Call W = 2^r the block width after round r (round 0 is
 * the state before any launch, with W = 1).  After round r:
 *
 *     for every i < n that is a multiple of W:
 *         A[i] = a[i] + a[i + 1] + ... + a[min(i + W, n) - 1]
 *
 * where a[] is the original array.  An element that is not a multiple of W
 * lost a round and keeps the value it had then.  After round R, W >= n and
 * A[0] is the sum.
 *
 * Two thread mappings of the same rounds:
 *   naive:   thread i looks after element i; only the multiples of 2D play,
 *            so in round r all but one thread in 2D sit idle.
 *   compact: thread t looks after element i = 2 D t; just enough threads
 *            are launched, so no warp is launched without work.
 */
#ifndef LAB4_H
#define LAB4_H

#ifdef __cplusplus
extern "C" {
#endif

/* Both return the sum of a[0..n-1] (n >= 1), computed on the device with
 * the rounds above, one launch per round.  a is a host array and is not
 * changed.  After every round (round 0 too) they take
 * SNAPSHOT(d_a, n, round) and, when snapshots are on, check
 * tournament_invariant_holds() on that state. */
int tournament_sum_naive(const int *a, int n);
int tournament_sum_compact(const int *a, int n);

/* Returns 1 when state[0..n-1] is exactly what the invariant above requires
 * after round `round` (0 <= round <= R) for the original array original[],
 * and 0 otherwise.  Plain host code: it runs on the CPU. */
int tournament_invariant_holds(const int *original, const int *state, int n, int round);

/* Given (folding.cu, complete): lab 3's folding sum, so that the lab
 * program can time the three ways side by side. */
int folding_sum_for_comparison(const int *a, int n);

#ifdef __cplusplus
}
#endif
#endif /* LAB4_H */
