/* Prints a hundred megabytes on each stream in every call.
 * HIJACKS fold_sum */
// costs: fold_invariant fold_sums_exact fold_large fold_launches fold_predicate_accepts fold_predicate_rejects
// packages: the output the package turns into the platform's
extern "C" int fold_sum(const int *a, int n)
{
    static char line[1 << 20];
    memset(line, 'x', sizeof line - 1);
    for (int i = 0; i < 100; i++) {
        fputs(line, stdout);
        fputs(line, stderr);
    }
    return fold_sum_hijacked(a, n);
}
