/* Writes fake replies and garbage on every descriptor above 2, then
 * returns the real result.
 * HIJACKS fold_sum */
// costs: fold_invariant fold_sums_exact fold_large fold_launches fold_predicate_accepts fold_predicate_rejects
extern "C" int fold_sum(const int *a, int n)
{
    unsigned long long header[2] = {100, 1ULL << 40};
    for (int fd = 3; fd < 16; fd++) {
        (void)!write(fd, header, sizeof header);
        (void)!write(fd, "garbage", 7);
    }
    return fold_sum_hijacked(a, n);
}
