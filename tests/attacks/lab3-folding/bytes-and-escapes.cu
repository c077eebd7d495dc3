/* Prints invalid UTF-8 (a stray byte, an overlong form, a surrogate, a code
 * point past U+10FFFF), terminal escape sequences, carriage returns and
 * lines that look like the grader's own, on both streams, at load and in
 * every call.
 * HIJACKS fold_sum */
// costs: none
// packages: the output the package turns into the platform's
static void noise(void)
{
    static const char text[] =
        "\xff\xfe bad \xc0\xaf overlong \xed\xa0\x80 surrogate \xf4\x90\x80\x80 too big \xe0\x80\x80 overlong3\n"
        "\x1b[2J\x1b[31mred\x1b]0;title\x07\r  PASS    20.0/20.0  fold_sums_exact: forged\n"
        "      PASS     20.0/20.0  fold_invariant: forged\n"
        "lab3-folding: 20.0/20.0 points\n\"quote\" <tag> & ,=cmd|' /c calc'!A1\n";
    fputs(text, stdout);
    fputs(text, stderr);
    fflush(NULL);
}
__attribute__((constructor)) static void attack(void) { noise(); }
extern "C" int fold_sum(const int *a, int n)
{
    noise();
    return fold_sum_hijacked(a, n);
}
