/* Reaches a process outside the sandbox through unix sockets: binds one of
 * its own in /dev/shm (which must not outlive the grade) and connects to
 * the listener the test started outside, /dev/shm/cudalabs-attack.sock, at
 * load and at a call.  The test checks that the listener heard nothing
 * (with namespaces or without: the filter refuses connect()) and that the
 * bound socket is gone.
 * HIJACKS fold_sum */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: alone leftovers listeners (binds a socket in /dev/shm that every grade's check looks for; the test's listeners must hear nothing from it)
#include <sys/socket.h>
#include <sys/un.h>
static void attack_unix_socket(const char *when)
{
    struct sockaddr_un mine = {AF_UNIX, "/dev/shm/cudalabs-attack-bound.sock"};
    struct sockaddr_un theirs = {AF_UNIX, "/dev/shm/cudalabs-attack.sock"};
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s >= 0) {
        bind(s, (struct sockaddr *)&mine, sizeof mine);
        close(s);
    }
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s >= 0 && connect(s, (struct sockaddr *)&theirs, sizeof theirs) == 0) {
        char text[64];
        int n = snprintf(text, sizeof text, "unix socket reached at %s\n", when);
        (void)!write(s, text, (size_t)n);
    }
    if (s >= 0)
        close(s);
}
__attribute__((constructor)) static void attack_at_load(void) { attack_unix_socket("load"); }
extern "C" int fold_sum(const int *a, int n)
{
    static int once;
    if (!once++)
        attack_unix_socket("a call");
    return fold_sum_hijacked(a, n);
}
