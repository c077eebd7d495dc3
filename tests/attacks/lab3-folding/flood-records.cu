/* Floods the harness's records: after the real sum, switches snapshots on
 * and takes 100 snapshots of a 1 MB device array, so that the records the
 * runner sends after the call hold 100 MB (the grader reads at most 64 MB
 * of records per call and must neither hold the rest nor crash).
 * HIJACKS fold_sum */
// costs: fold_invariant fold_sums_exact fold_large fold_launches fold_predicate_rejects
extern "C" int fold_sum(const int *a, int n)
{
    int sum = fold_sum_hijacked(a, n);
    const size_t count = 1 << 18; /* 1 MB of ints */
    int *d = NULL;
    if (cudaMalloc(&d, count * sizeof *d) != cudaSuccess)
        return sum;
    cudaMemset(d, 0, count * sizeof *d);
    int was = kit_snapshots_on();
    kit_set_snapshots(1);
    for (int i = 0; i < 100; i++)
        kit_take_snapshot(d, count, sizeof *d, i, "flood-records.cu", i);
    kit_set_snapshots(was);
    cudaFree(d);
    return sum;
}
