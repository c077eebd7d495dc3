/* contain.h: starting untrusted programs so that nothing they do outlives
 * their item or reaches the grader.
 *
 * A contained program runs in a session and process group of its own, with
 * limits on processes, file size, open files and CPU time, no core dumps,
 * and, when the grader runs as root, as an unprivileged user (the runner
 * user) in a scratch folder.  The grader is a child subreaper: whatever a
 * contained program starts, setsid or double fork included, becomes the
 * grader's child when its parent dies, and contain_reap_all() kills and
 * reaps every one of them. */
#ifndef CONTAIN_H
#define CONTAIN_H

#include <sys/types.h>

/* Once, in the grader's first process: subreaper, not dumpable (no process
 * of the same user can read or write its memory), the runner user chosen. */
void contain_init(const char *runner_user);

/* Whether contained programs run as another user (the grader is root). */
int contain_drops_privilege(void);
const char *contain_user_name(void);

/* Makes `dir` (created if needed) the contained programs' own folder. */
int contain_give_folder(const char *dir);

/* Starts argv[0] contained, with `stdin_fd` as its fd 0, `fd3` and `fd4` as
 * its fds 3 and 4 (-1: none), stdout to `out_fd` and stderr to `err_fd` (-1: /dev/null), in folder
 * `cwd`; `as_runner`: drop to the runner user when root (the reference runs
 * as the grader's own user, out of the student's reach).  Returns the pid, or
 * -1.  `cpu_seconds` limits its CPU time. */
pid_t contain_spawn(char *const argv[], int stdin_fd, int fd3, int fd4, int out_fd, int err_fd, const char *cwd,
                    double cpu_seconds, int as_runner);

/* Kills (SIGKILL) and reaps every child and every orphan that came back to
 * this process, until none is left. */
void contain_reap_all(void);

#endif /* CONTAIN_H */
