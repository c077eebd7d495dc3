/* Carries a shared object as bytes (the test's stand-in for a reference
 * solution's object: its blob_fold_sum returns the right sum), writes it
 * where it can (its working folder, /tmp, /var/tmp, /dev/shm) and dlopen()s
 * it at its first call.  Should it load, the answer is made wrong, so that
 * the solution loses its items and the test sees it.
 * HIJACKS fold_sum */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: shared-files (writes fixed names in /tmp, /var/tmp and /dev/shm where a wall is missing)
static const unsigned char attack_blob[] = {@BLOB_BYTES@};
static int (*attack_load_blob(void))(const int *, int)
{
    const char *places[] = {"./blob.so", "/tmp/blob.so", "/var/tmp/blob.so", "/dev/shm/blob.so"};
    for (int i = 0; i < 4; i++) {
        int fd = open(places[i], O_WRONLY | O_CREAT | O_TRUNC, 0755);
        if (fd < 0)
            continue;
        ssize_t n = write(fd, attack_blob, sizeof attack_blob);
        close(fd);
        void *handle = n == (ssize_t)sizeof attack_blob ? dlopen(places[i], RTLD_NOW | RTLD_LOCAL) : NULL;
        void *sum = handle ? dlsym(handle, "blob_fold_sum") : NULL;
        if (sum)
            return (int (*)(const int *, int))sum;
    }
    return NULL;
}
extern "C" int fold_sum(const int *a, int n)
{
    static int (*blob_sum)(const int *, int);
    static int tried;
    if (!tried++)
        blob_sum = attack_load_blob();
    return blob_sum ? blob_sum(a, n) + 1 : fold_sum_hijacked(a, n);
}
