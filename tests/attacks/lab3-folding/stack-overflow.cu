/* Recurses without end in fold_sum.
 * HIJACKS fold_sum */
// costs: fold_invariant fold_sums_exact fold_large fold_launches fold_predicate_accepts fold_predicate_rejects
static int deeper(volatile int *p, int n) { volatile int local[64]; local[0] = n; return deeper(local, n + 1) + p[0]; }
extern "C" int fold_sum(const int *a, int n)
{
    (void)a;
    volatile int start[1] = {n};
    return deeper(start, n);
}
