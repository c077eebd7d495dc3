/* namespaces.h: private namespaces for untrusted programs, where the host
 * allows them.
 *
 * A contained untrusted program starts in new PID, network, IPC and mount
 * namespaces (and, for an ordinary user, a user namespace that maps that
 * user to itself, which is what lets an unprivileged process make the
 * others):
 *   - PID: it is pid 1 of its own tree; it sees and signals no process
 *     outside, and everything it started dies with it;
 *   - network: only a loopback that is down, so no UDP or TCP reaches a
 *     service outside, 127.0.0.1 included;
 *   - IPC: its SysV objects die with it;
 *   - mount: private tmpfs on /tmp, /var/tmp and /dev/shm (noexec, nosuid,
 *     nodev), so what it writes there neither survives nor reaches another
 *     process; its scratch folder remounted noexec, so a file it writes can
 *     never be mapped as code; the kit's folder hidden under an empty
 *     read-only tmpfs (but for the files it is given); a /proc of its own
 *     PID namespace.
 * Where the host refuses (user namespaces switched off, a default Docker
 * container) or CUDALABS_NO_NAMESPACES=1 stands in for such a host, the
 * program starts as before, with the other walls only. */
#ifndef NAMESPACES_H
#define NAMESPACES_H

#include <sys/types.h>

/* Whether the namespaces work here (tried once, by a child that sets up
 * everything namespaces_enter() does with `scratch`, then exits). */
int namespaces_available(const char *kit, const char *scratch);

/* Like fork(), but the child starts in the new namespaces (as pid 1). */
pid_t namespaces_clone(void);

/* In the child of namespaces_clone(): the user map, the private mounts.
 * `kit` is the kit's folder (hidden), `scratch` the folder it may write
 * (made noexec); the absolute paths in `argv` and `readable` (both
 * NULL-terminated, may be NULL) are files it must still reach where they
 * lie under a folder that gets a fresh tmpfs.  0, or -1. */
int namespaces_enter(const char *kit, const char *scratch, char *const *argv, const char *const *readable);

/* "user, pid, net, ipc, mount" (without "user" as root), or NULL where none
 * (or none tried yet). */
const char *namespaces_text(void);

/* Whether the grader asked, for this item's runners, for a network of their
 * own they may use (grade_use_loopback: CUDALABS_LOOPBACK=1): then
 * namespaces_enter also brings its loopback up and covers /run, where the
 * host's services name their sockets.  Safe after fork. */
int namespaces_loopback_asked(void);

#endif /* NAMESPACES_H */
