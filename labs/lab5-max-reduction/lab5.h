/* lab5.h: lab 5, the maximum of an array, two ways.  Fixed: do not edit.
 *
 * Part 1, a tournament of pairs ("winners move to the front").  The maximum
 * of n values takes R = ceil(log2(n)) rounds, one kernel launch each.  Round
 * r (r = 1, 2, ..., R) reads the m values left by the last round (m = n for
 * round 1) and writes ceil(m / 2) values into a second device array:
 *
 *     B[t] = max(A[2t], A[2t + 1])     (A[2t] alone when 2t + 1 = m)
 *
 * then the two arrays swap roles.  After round r, SNAPSHOT the array just
 * written with its ceil(n / 2^r) values (round 0: the n values copied in).
 *
 * The invariant.  Call W = 2^r.  After round r, the array holds
 * ceil(n / W) values and
 *
 *     for every t < ceil(n / W):  B[t] = max(a[tW], a[tW + 1], ..., a[min((t + 1)W, n) - 1])
 *
 * where a[] is the original array.  After round R one value is left: the
 * maximum.
 *
 * Part 2, one launch: each block reduces its share of the array in shared
 * memory (a tree with sequential addressing and __syncthreads between the
 * levels) and the blocks' results are combined on the device.
 *
 * For both: the identity of max, the value that changes nothing, is
 * -INFINITY, not 0 (all the values may be negative).  The inputs hold no NaN.
 */
#ifndef LAB5_H
#define LAB5_H

#ifdef __cplusplus
extern "C" {
#endif

/* Part 1.  Returns the largest of a[0..n-1] (n >= 1, a host array, not
 * changed), with the rounds above.  When snapshots are on it checks
 * max_invariant_holds() after every round. */
float tournament_max(const float *a, int n);

/* Returns 1 when state[] (ceil(n / 2^round) values) is exactly what the
 * invariant above requires after round `round` (0 <= round <= R) for the
 * original array original[0..n-1], and 0 otherwise.  Host code. */
int max_invariant_holds(const float *original, const float *state, int n, int round);

/* Part 2.  Returns the largest of a[0..n-1] (n >= 1, a host array), with a
 * single kernel launch (or two, if the blocks' results are combined by a
 * second pass); the result is copied back as one value. */
float block_max(const float *a, int n);

#ifdef __cplusplus
}
#endif
#endif /* LAB5_H */
