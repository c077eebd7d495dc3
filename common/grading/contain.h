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

#include <dirent.h>
#include <sys/types.h>

/* Once, in the grader's first process: subreaper, not dumpable (no process
 * of the same user can read or write its memory), the runner user chosen. */
void contain_init(const char *runner_user);

/* As root: makes the kit's secrets (solutions/, prebuilt/, grading/,
 * tests/, build/) unreadable to other users, the runner user among them,
 * where they are not already.  A no-op for an ordinary user. */
void contain_protect_kit(void);

/* Whether contained programs run as another user (the grader is root). */
int contain_drops_privilege(void);
const char *contain_user_name(void);

/* The address space a runner on the cpu backend gets: half the machine's
 * memory, at most 16 GiB. */
long long contain_memory_limit(void);

/* Makes `dir` (created if needed) the contained programs' own folder. */
int contain_give_folder(const char *dir);

/* What to start, and with what. */
typedef struct {
    char *const *argv;      /* argv[0] is a full path, unless `program` is given */
    int stdin_fd;           /* its fd 0 (-1: /dev/null) */
    int fd3, fd4;           /* its fds 3 and 4 (-1: /dev/null) */
    int out_fd, err_fd;     /* its stdout and stderr (-1: /dev/null) */
    const char *cwd;        /* its folder, the only one it may write where the kernel enforces it */
    double cpu_seconds;     /* its CPU time */
    long long memory_bytes; /* its address space (0: no limit; a GPU's driver maps far more than it uses) */
    int untrusted;          /* student code: the runner user when root */
    int sandboxed;          /* and the sandbox (sandbox.h) */
    const char *const *readable; /* NULL-terminated files an untrusted program may read besides the system's */
    const char *program;    /* the program's full path, where argv[0] is another name (NULL: argv[0]) */
} contain_spec;

/* Starts a contained program; returns its pid, or -1.  In the child, a
 * failure to set up exits with status 125 before anything runs. */
pid_t contain_spawn(const contain_spec *spec);

/* Whether untrusted programs start in namespaces of their own here (a
 * network of their own among them): 1 or 0. */
int contain_apart(void);

/* Waits for child `pid` until `deadline` (wire_now()'s clock; 0: no limit):
 * 0 with its wait status in *status once it has ended, -1 at the deadline
 * (the child is left running).  Wakes the moment the child ends. */
int contain_wait(pid_t pid, int *status, double deadline);

/* In the grader's own process as an item begins (its kept runners
 * started): where contained programs run as the grader's own user without
 * IPC and mount namespaces of their own, what that user has in /dev/shm and
 * as SysV IPC objects now, so that contain_reap_all() removes only what the
 * item added. */
void contain_item_begins(void);

/* Kills (SIGKILL) and reaps every child and every orphan that came back to
 * this process, until none is left but `keep` (0: none kept; the grader
 * keeps the reference's runner from item to item).  Where contained
 * programs run without IPC and mount namespaces of their own, what they
 * left in /dev/shm and as SysV IPC objects goes too, so nothing an item left
 * reaches the next item or another process: all of the runner user's (as
 * root), or what the grader's own user gained since contain_item_begins()
 * (as an ordinary user).  Returns 1 when `keep` had ended and was reaped
 * too. */
int contain_reap_all(pid_t keep);

/* The walls this host gives contained programs, for the report: "seccomp,
 * namespaces (pid, net, ipc, mount), Landlock 6, runner user cudalabs", and
 * "; missing: ..." naming those it lacks. */
const char *contain_walls_text(void);

/* The folder `name` (relative to the folder `at`, or AT_FDCWD) opened for
 * reading, with `open_flags` added (O_NOFOLLOW), or NULL. */
DIR *contain_open_folder(int at, const char *name, int open_flags);

/* NULL where this host's walls meet the minimum a grade may rest on (a
 * seccomp filter, and namespaces or a runner user: docs/instructors.md,
 * "The walls a grade needs"), else what is missing, in words.  The
 * platform packages refuse to grade below it (./grader --require-walls). */
const char *contain_walls_below_minimum(void);

#endif /* CONTAIN_H */
