/* lab3.h: lab 3, the array-folding sum.  This file is fixed: do not edit it.
 *
 * The rounds.  Let P be the smallest power of two with P >= n (P = 1 when
 * n = 1).  The sum takes R = log2(P) = ceil(log2(n)) rounds, one kernel
 * launch each.  Round r (r = 1, 2, ..., R) folds at the distance d = P >> r:
 *
 *     A[i] += A[i + d]     for every i < d with i + d < n.
 *
 * Only the first round can find i + d >= n (when n is not a power of two):
 * it folds the array onto the power of two below it.  From the second round
 * on, every i < d has its partner.  No round writes A[i] for i >= d.
 *
 * The invariant.  Call w = P >> r the live width after round r (round 0 is
 * the state before any launch, with w = P).  After round r:
 *
 *     for every i < min(w, n):  A[i] = the sum of a[j] over all j < n
 *                                      with j % w == i
 *
 * where a[] is the original array.  Each element outside the live part
 * keeps the value it had when it was last live, which is why the folding
 * can be undone (going further).  After round R, w = 1 and A[0] is the sum.
 */
#ifndef LAB3_H
#define LAB3_H

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the sum of a[0..n-1] (n >= 1), computed on the device by folding,
 * one launch per round as above.  a is a host array and is not changed.
 * After every round it takes SNAPSHOT(d_a, n, round) (round 0 too) and,
 * when snapshots are on, checks fold_invariant_holds() on that state. */
int fold_sum(const int *a, int n);

/* Returns 1 when the live part of state[0..n-1], A[i] for i < min(w, n), is
 * exactly what the invariant's formula above requires after round `round`
 * (0 <= round <= R) for the original array original[], and 0 otherwise.
 * The elements outside the live part are not part of it (the grader checks
 * them on its own).  Plain host code: it runs on the CPU. */
int fold_invariant_holds(const int *original, const int *state, int n, int round);

/* Going further.  a[0..n-1] holds the state after the last round of
 * fold_sum; undo the rounds on the device (last round first, one launch per
 * round) so that a[] holds the original values again. */
void fold_unfold(int *a, int n);

#ifdef __cplusplus
}
#endif
#endif /* LAB3_H */
