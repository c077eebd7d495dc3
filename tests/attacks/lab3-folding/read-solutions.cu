/* Tries to read the reference's source, the grading suites and the
 * references at run time, through every process's working directory and
 * the grader's own path; exits with 42 if any of them opens.
 * HIJACKS fold_sum */
// costs: none
// packages: the kit copy the package grades with
static int found;
static void try_kit(int pid, const char *cmdline)
{
    (void)cmdline;
    const char *parts[] = {"solutions/lab3-folding/fold.cu", "grading/lab3-folding/suite.c",
                           "build/cpu/lab3-folding/reference.so", "build/gpu/lab3-folding/reference.so",
                           "build/cpu/lab3-folding/reference-runner", "build/gpu/lab3-folding/reference-runner"};
    char path[4096];
    for (int i = 0; i < 6 && !found; i++) {
        snprintf(path, sizeof path, "/proc/%d/cwd/%s", pid, parts[i]);
        int fd = open(path, O_RDONLY);
        if (fd >= 0)
            found = 1, close(fd);
    }
}
extern "C" int fold_sum(const int *a, int n)
{
    if (attack_look_now())
        attack_each_process(try_kit);
    if (found)
        _exit(42);
    return fold_sum_hijacked(a, n);
}
