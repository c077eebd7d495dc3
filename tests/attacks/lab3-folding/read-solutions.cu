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
/* Every process is looked through at the first call and at each 64th after
 * it: what it looks for (the grader and its runners) lives through the
 * whole item, and a look at every call (an item makes 1,050) costs seconds
 * of CPU where the whole machine's processes are in view. */
extern "C" int fold_sum(const int *a, int n)
{
    static unsigned calls;
    if (calls++ % 64 == 0)
        attack_each_process(try_kit);
    if (found)
        _exit(42);
    return fold_sum_hijacked(a, n);
}
