/* Reaches a process outside the sandbox through unix sockets that no file
 * names: connects to the test's listener in the abstract namespace
 * ("\0cudalabs-attack-abstract", a stream) and sends a datagram to another
 * ("\0cudalabs-attack-datagram"), at load and at a call.  Where there are
 * no namespaces (and no Landlock 6, which scopes the abstract namespace)
 * only the seccomp filter stands between: no connection, no datagram to an
 * address.  The test checks the listeners heard nothing.
 * HIJACKS fold_sum */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: listeners (the test's listeners must hear nothing from it)
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
static socklen_t attack_abstract(struct sockaddr_un *to, const char *name)
{
    memset(to, 0, sizeof *to);
    to->sun_family = AF_UNIX;
    memcpy(to->sun_path + 1, name, strlen(name)); /* sun_path[0] = 0: abstract */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}
static void attack_abstract_sockets(const char *when)
{
    char text[64];
    int n = snprintf(text, sizeof text, "abstract socket reached at %s\n", when);
    struct sockaddr_un to;
    socklen_t size = attack_abstract(&to, "cudalabs-attack-abstract");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s >= 0 && connect(s, (struct sockaddr *)&to, size) == 0)
        (void)!write(s, text, (size_t)n);
    if (s >= 0)
        close(s);
    size = attack_abstract(&to, "cudalabs-attack-datagram");
    s = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (s >= 0) {
        sendto(s, text, (size_t)n, 0, (struct sockaddr *)&to, size);
        close(s);
    }
}
__attribute__((constructor)) static void attack_at_load(void) { attack_abstract_sockets("load"); }
extern "C" int fold_sum(const int *a, int n)
{
    static int once;
    if (!once++)
        attack_abstract_sockets("a call");
    return fold_sum_hijacked(a, n);
}
