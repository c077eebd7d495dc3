/* fold_sum calls exit(); an atexit handler then writes a fake "OK" reply
 * on every descriptor and lingers.
 * HIJACKS fold_sum */
// costs: fold_invariant fold_sums_exact fold_large fold_launches fold_predicate_accepts fold_predicate_rejects
// packages: processes the package's script starts and waits for
static void handler(void)
{
    unsigned long long header[2] = {100, 12};
    unsigned char body[12] = {4, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0};
    for (int fd = 0; fd < 16; fd++) {
        (void)!write(fd, header, sizeof header);
        (void)!write(fd, body, sizeof body);
    }
    sleep(3);
}
extern "C" int fold_sum(const int *a, int n)
{
    (void)a, (void)n;
    atexit(handler);
    exit(0);
}
