/* The same object as dlopen-blob.cu, written out and loaded by a
 * constructor, while the runner still loads the submission; then every
 * call answers with it.  Where the scratch folder is noexec (namespaces)
 * it does not load; elsewhere the runner refuses an object that brought in
 * code from outside the system's libraries.  Either way the skeleton gains
 * nothing; the solution may be refused whole.
 * HIJACKS fold_sum */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: all
// lane: shared-files (writes fixed names in /tmp, /var/tmp and /dev/shm where a wall is missing)
static const unsigned char attack_blob[] = {@BLOB_BYTES@};
static int (*attack_blob_sum)(const int *, int);
__attribute__((constructor)) static void attack_load_blob(void)
{
    const char *places[] = {"./blob.so", "/tmp/blob.so", "/var/tmp/blob.so", "/dev/shm/blob.so"};
    for (int i = 0; i < 4 && !attack_blob_sum; i++) {
        int fd = open(places[i], O_WRONLY | O_CREAT | O_TRUNC, 0755);
        if (fd < 0)
            continue;
        ssize_t n = write(fd, attack_blob, sizeof attack_blob);
        close(fd);
        void *handle = n == (ssize_t)sizeof attack_blob ? dlopen(places[i], RTLD_NOW | RTLD_LOCAL) : NULL;
        attack_blob_sum = handle ? (int (*)(const int *, int))dlsym(handle, "blob_fold_sum") : NULL;
    }
}
extern "C" int fold_sum(const int *a, int n) { return attack_blob_sum ? attack_blob_sum(a, n) : fold_sum_hijacked(a, n); }
