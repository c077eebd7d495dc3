/* Prints the runner's whole environment, at load and at every call of
 * fold_sum, where the feedback may show it.  The test puts a fake secret
 * (GRADER_TOKEN=s3cret) in the grader's environment and checks that the
 * report and the results never contain it.
 * HIJACKS fold_sum */
// costs: none
// packages: the package's environment
extern char **environ;
static void attack_print_environment(FILE *to)
{
    for (char **e = environ; e && *e; e++)
        fprintf(to, "env: %s\n", *e);
    fflush(to);
}
__attribute__((constructor)) static void attack_at_load(void) { attack_print_environment(stderr); }
extern "C" int fold_sum(const int *a, int n)
{
    attack_print_environment(stdout);
    attack_print_environment(stderr);
    return fold_sum_hijacked(a, n);
}
