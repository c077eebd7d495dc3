/* Sends UDP to 127.0.0.1:47999, where the test listens outside the
 * sandbox, at load and when the object is unloaded.  The test checks the
 * listener heard nothing. */
// walls: yes (the runner's walls: plain runs, as root and as an ordinary user, with each switch)
// costs: none
// lane: listeners (the test's listeners must hear nothing from it)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
static void attack_udp(const char *when)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0)
        return;
    struct sockaddr_in to = {};
    to.sin_family = AF_INET;
    to.sin_port = htons(47999);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char text[64];
    int n = snprintf(text, sizeof text, "udp reached at %s\n", when);
    sendto(s, text, (size_t)n, 0, (struct sockaddr *)&to, sizeof to);
    close(s);
}
__attribute__((constructor)) static void attack_at_load(void) { attack_udp("load"); }
__attribute__((destructor)) static void attack_at_end(void) { attack_udp("end"); }
