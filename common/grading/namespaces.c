/* namespaces.c: see namespaces.h.  Everything in namespaces_enter() runs in
 * a freshly cloned child of a threaded process: system calls and stack
 * buffers only, no malloc. */
#include "namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEPT_MAX 24
#define TMPFS_OPTIONS "mode=1777,size=1g"

static int available = -1; /* -1: not tried yet */
static uid_t outer_uid;     /* the grader's ids, mapped to themselves */
static gid_t outer_gid;

static int switched_off(void)
{
    const char *off = getenv("CUDALABS_NO_NAMESPACES");
    return off && *off && strcmp(off, "0") != 0;
}

/* Root makes namespaces by itself; an ordinary user needs a user namespace
 * first, in the same clone. */
static int needs_user_namespace(void) { return geteuid() != 0; }

pid_t namespaces_clone(void)
{
    outer_uid = geteuid();
    outer_gid = getegid();
    long flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS | SIGCHLD;
    if (needs_user_namespace())
        flags |= CLONE_NEWUSER;
    /* the raw call: fork()'s wrapper takes no flags, and the child must be
     * the grader's own child (pid 1 of its namespace) for contain_wait */
    return (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The user namespace maps the grader's user and group to themselves: files
 * keep their owners, and the user gains nothing outside. */
static int map_user_to_itself(void)
{
    char line[64];
    /* the grader is not dumpable (contain_init), which makes its /proc
     * files root's: this child could not write its own maps.  Dumpable
     * until its exec, which makes it so anyway (the runner turns it off). */
    prctl(PR_SET_DUMPABLE, 1);
    if (write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
        return -1;
    snprintf(line, sizeof line, "%u %u 1\n", (unsigned)outer_uid, (unsigned)outer_uid);
    if (write_file("/proc/self/uid_map", line) != 0)
        return -1;
    snprintf(line, sizeof line, "%u %u 1\n", (unsigned)outer_gid, (unsigned)outer_gid);
    return write_file("/proc/self/gid_map", line);
}

static int is_under(const char *path, const char *folder)
{
    size_t n = strlen(folder);
    return path && strncmp(path, folder, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* Makes `path`'s parent folders inside a fresh tmpfs, and `path` itself as
 * an empty folder or file (what a bind mount needs to land on). */
static int make_mount_point(const char *path, int is_folder)
{
    char part[4096];
    size_t n = strlen(path);
    if (n >= sizeof part)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (path[i] == '/') {
            memcpy(part, path, i);
            part[i] = 0;
            if (mkdir(part, 0755) != 0 && errno != EEXIST)
                return -1;
        }
    if (is_folder)
        return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* A fresh tmpfs on `folder`; the paths in `kept` that lie under it are bound
 * back where they were (held open by path-only descriptors meanwhile). */
static int fresh_tmpfs(const char *folder, const char *const *kept, int count)
{
    struct stat st;
    if (lstat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0; /* absent or a link (to /run/shm, say): nothing to cover */
    int fds[KEPT_MAX];
    for (int i = 0; i < count; i++)
        fds[i] = is_under(kept[i], folder) ? open(kept[i], O_PATH | O_CLOEXEC) : -1;
    int ok = mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, TMPFS_OPTIONS) == 0;
    for (int i = 0; i < count; i++) {
        if (fds[i] < 0)
            continue;
        char source[64];
        snprintf(source, sizeof source, "/proc/self/fd/%d", fds[i]);
        ok = ok && fstat(fds[i], &st) == 0 && make_mount_point(kept[i], S_ISDIR(st.st_mode)) == 0
             && mount(source, kept[i], NULL, MS_BIND | MS_REC, NULL) == 0;
        close(fds[i]);
    }
    return ok ? 0 : -1;
}

/* The kit's own folder (`kit`), covered by an empty read-only tmpfs: the
 * solutions, the suites, the references, other submissions and batch
 * output are not there for the program to read, whatever its user may read
 * outside.  What it must reach inside (its object, the programs it runs) is
 * bound back as in fresh_tmpfs.  Not where the kit's folder holds the
 * system's own. */
static int hide_kit(const char *kit, const char *const *kept, int count)
{
    static const char *const system_folders[] = {"/usr", "/lib", "/lib64", "/etc", "/proc", "/dev", "/bin", NULL};
    struct stat st;
    if (!kit || kit[0] != '/' || strcmp(kit, "/") == 0)
        return 0;
    if (lstat(kit, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0; /* under a folder covered already (the kit in /tmp): hidden with it */
    for (int i = 0; system_folders[i]; i++)
        if (is_under(system_folders[i], kit))
            return 0;
    if (fresh_tmpfs(kit, kept, count) != 0)
        return -1;
    return mount(NULL, kit, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/* The mount flags a remount must keep: those inherited from another
 * namespace are locked, and a remount that drops one fails. */
static unsigned long kept_flags(const char *path)
{
    struct statvfs fs;
    if (statvfs(path, &fs) != 0)
        return 0;
    unsigned long flags = 0;
    flags |= fs.f_flag & ST_RDONLY ? MS_RDONLY : 0;
    flags |= fs.f_flag & ST_NOATIME ? MS_NOATIME : 0;
    flags |= fs.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0;
    flags |= fs.f_flag & ST_RELATIME ? MS_RELATIME : 0;
    return flags;
}

/* The scratch folder, bound onto itself and remounted noexec: a file the
 * program writes there can be read and written, never mapped as code.
 * Files it must load from inside it (none today) get mounts of their own
 * first, which keep their rights. */
static int scratch_not_executable(const char *scratch, const char *const *kept, int count)
{
    for (int i = 0; i < count; i++)
        if (kept[i] != scratch && is_under(kept[i], scratch) && mount(kept[i], kept[i], NULL, MS_BIND, NULL) != 0)
            return -1;
    if (mount(scratch, scratch, NULL, MS_BIND | MS_REC, NULL) != 0)
        return -1;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOEXEC | MS_NOSUID | MS_NODEV | kept_flags(scratch);
    return mount(NULL, scratch, NULL, flags, NULL);
}

/* The network namespace's loopback, which starts down, brought up: the
 * only interface there is, so what listens on it is reachable from this
 * namespace alone (NCCL bootstraps through it). */
static int loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strcpy(request.ifr_name, "lo");
    int ok = ioctl(fd, SIOCGIFFLAGS, &request) == 0;
    request.ifr_flags |= IFF_UP | IFF_RUNNING;
    ok = ok && ioctl(fd, SIOCSIFFLAGS, &request) == 0;
    close(fd);
    return ok ? 0 : -1;
}

int namespaces_loopback_asked(void)
{
    const char *asked = getenv("CUDALABS_LOOPBACK");
    return asked && strcmp(asked, "1") == 0;
}

int namespaces_enter(const char *kit, const char *scratch, char *const *argv, const char *const *readable)
{
    if (needs_user_namespace() && map_user_to_itself() != 0)
        return -1;
    /* nothing mounted here propagates back to the host */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -1;
    const char *kept[KEPT_MAX];
    int count = 0;
    if (scratch && scratch[0] == '/')
        kept[count++] = scratch; /* first: files inside it are bound after it */
    struct stat st;
    for (int i = 0; argv && argv[i] && count < KEPT_MAX; i++) /* the program, and files it is given */
        if (argv[i][0] == '/' && stat(argv[i], &st) == 0)
            kept[count++] = argv[i];
    for (int i = 0; readable && readable[i] && count < KEPT_MAX; i++)
        if (readable[i][0] == '/')
            kept[count++] = readable[i];
    static const char *const covered[] = {"/tmp", "/var/tmp", "/dev/shm", NULL};
    for (int i = 0; covered[i]; i++)
        if (fresh_tmpfs(covered[i], kept, count) != 0)
            return -1;
    /* a runner that may connect sockets (filter.h) finds no host service's
     * socket to connect to: those are named under /run */
    if (namespaces_loopback_asked() && (loopback_up() != 0 || fresh_tmpfs("/run", kept, count) != 0))
        return -1;
    if (hide_kit(kit, kept, count) != 0)
        return -1;
    if (scratch && scratch[0] == '/' && scratch_not_executable(scratch, kept, count) != 0)
        return -1;
    /* a /proc that shows this PID namespace only; where the host's /proc is
     * partly hidden (some containers) the kernel refuses, and the old one
     * stays: its processes still cannot be signalled from here */
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    return 0;
}

int namespaces_available(const char *kit, const char *scratch)
{
    if (available >= 0)
        return available;
    available = 0;
    if (switched_off())
        return 0;
    pid_t child = namespaces_clone();
    if (child < 0)
        return 0; /* EPERM, EINVAL, ENOSPC: not on this host */
    if (child == 0)
        _exit(namespaces_enter(kit, scratch, NULL, NULL) == 0 ? 0 : 1);
    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    available = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return available;
}

const char *namespaces_text(void)
{
    if (available < 0)
        return NULL; /* not tried: no contained program has run yet */
    if (!available)
        return NULL;
    return needs_user_namespace() ? "user, pid, net, ipc, mount" : "pid, net, ipc, mount";
}
