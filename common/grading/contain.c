/* contain.c: see contain.h. */
#include "contain.h"
#include "filter.h"
#include "namespaces.h"
#include "sandbox.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture */
#endif

#define PROCESSES_MAX 256              /* threads count too: CUDA starts a few */
#define FILE_BYTES_MAX (64LL << 20)    /* what one contained program may write to one file */
#define OPEN_FILES_MAX 256

static int as_root;
static uid_t runner_uid;
static gid_t runner_gid;
static char runner_name[64];
static char kit_folder[4096]; /* the grader's working folder: the kit */

void contain_init(const char *runner_user)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_DUMPABLE, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    as_root = geteuid() == 0;
    if (!getcwd(kit_folder, sizeof kit_folder))
        kit_folder[0] = 0;
    if (!as_root)
        return;
    /* the runner user: named, else "cudalabs" where the platform made it, else nobody */
    const char *names[] = {runner_user, "cudalabs", "nobody"};
    for (int i = 0; i < 3; i++) {
        struct passwd *pw = names[i] && *names[i] ? getpwnam(names[i]) : NULL;
        if (pw && pw->pw_uid != 0) {
            runner_uid = pw->pw_uid;
            runner_gid = pw->pw_gid;
            snprintf(runner_name, sizeof runner_name, "%s", names[i]);
            return;
        }
        if (i == 0 && runner_user && *runner_user) {
            fprintf(stderr, "grader: the runner user %s does not exist (or is root)\n", runner_user);
            exit(2);
        }
    }
    fprintf(stderr, "grader: running as root, but there is no unprivileged user to run student code as "
            "(create one: useradd --system cudalabs)\n");
    exit(2);
}

int contain_drops_privilege(void) { return as_root; }

void contain_protect_kit(void)
{
    static const char *const secrets[] = {"solutions", "prebuilt", "grading", "tests", "build", NULL};
    struct stat st;
    for (int i = 0; as_root && secrets[i]; i++)
        if (stat(secrets[i], &st) == 0 && (st.st_mode & 0077))
            chmod(secrets[i], st.st_mode & ~0077u);
}

long long contain_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    long long half = pages > 0 && page > 0 ? (long long)pages * page / 2 : 8LL << 30;
    long long most = 16LL << 30;
    return half < most ? half : most;
}
const char *contain_user_name(void) { return as_root ? runner_name : NULL; }

int contain_give_folder(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    if (as_root && chown(dir, runner_uid, runner_gid) != 0)
        return -1;
    return 0;
}

/* Whether a /proc entry names a process or thread. */
static int is_number(const char *name) { return name[0] >= '1' && name[0] <= '9'; }

/* Processes and threads this user has now, from /proc. */
static int user_tasks(uid_t uid)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(proc))) {
        char path[300];
        struct stat st;
        if (!is_number(e->d_name))
            continue;
        snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
        if (stat(path, &st) != 0 || st.st_uid != uid)
            continue;
        count += st.st_nlink > 2 ? (int)st.st_nlink - 2 : 1;
    }
    closedir(proc);
    return count;
}

static void limit(int resource, rlim_t value)
{
    struct rlimit r = {value, value};
    setrlimit(resource, &r);
}

/* The environment a contained program gets: a fixed few, and the grader's
 * variables that a GPU's driver, the cpu backend and the kit's own settings
 * need.  Nothing else of the grader's (tokens, keys, paths of the kit)
 * reaches student code or its feedback.  Built in the child: no malloc. */
static char *const *minimal_environment(const char *home)
{
    static const char *const kept_prefixes[] = {"CUDA_", "CUDAEMU_", "NVIDIA_", "EMU_", "LD_LIBRARY_PATH=",
                                                "UBSAN_OPTIONS=", "ASAN_OPTIONS=", "TSAN_OPTIONS=",
                                                "CUDALABS_NO_SECCOMP=", "CUDALABS_LOOPBACK=", "NCCL_", NULL};
    static char home_line[4200];
    static char *env[64];
    extern char **environ;
    int n = 0;
    env[n++] = "PATH=/usr/bin:/bin";
    env[n++] = "LANG=C";
    snprintf(home_line, sizeof home_line, "HOME=%s", home ? home : "/");
    env[n++] = home_line;
    for (char **e = environ; e && *e && n < 63; e++)
        for (int i = 0; kept_prefixes[i]; i++)
            if (strncmp(*e, kept_prefixes[i], strlen(kept_prefixes[i])) == 0) {
                env[n++] = *e;
                break;
            }
    env[n] = NULL;
    return env;
}

int contain_apart(void) { return namespaces_available(kit_folder, NULL); }

pid_t contain_spawn(const contain_spec *spec)
{
    int drop = as_root && spec->untrusted;
    /* the process limit counts every task of the user: for the grader's own
     * user, what it has now and a margin */
    int processes = drop ? PROCESSES_MAX : user_tasks(geteuid()) + PROCESSES_MAX;
    /* untrusted programs in namespaces of their own where the host allows
     * them: namespaces.h */
    int isolated = spec->untrusted && namespaces_available(kit_folder, spec->cwd);
    fflush(NULL); /* a child inherits unflushed buffers */
    pid_t pid = isolated ? namespaces_clone() : fork();
    if (pid != 0)
        return pid;

    /* ---- the child: from here on, only calls that are safe after fork ---- */
    /* the program and the files it reads, which the walls keep in reach */
    const char *program = spec->program ? spec->program : spec->argv[0];
    static const char *files[16];
    int n_files = 0;
    files[n_files++] = program;
    for (int i = 0; spec->readable && spec->readable[i] && n_files < 15; i++)
        files[n_files++] = spec->readable[i];
    files[n_files] = NULL;
    if (isolated && namespaces_enter(kit_folder, spec->cwd, spec->argv, files) != 0)
        _exit(125);
    setsid();
    int devnull = open("/dev/null", O_RDWR);
    int wanted[5] = {spec->stdin_fd, spec->out_fd, spec->err_fd, spec->fd3, spec->fd4};
    int moved[5];
    for (int i = 0; i < 5; i++) /* out of the way of 0..4 first, so no dup2 clobbers another */
        moved[i] = fcntl(wanted[i] >= 0 ? wanted[i] : devnull, F_DUPFD, 10);
    for (int i = 0; i < 5; i++)
        if (moved[i] < 0 || dup2(moved[i], i) < 0)
            _exit(125);
    /* nothing else of the grader's: its results file, Check's pipe, ...
     * (one call since Linux 5.9; else one by one, which costs milliseconds) */
    if (syscall(SYS_close_range, 5U, ~0U, 0U) != 0)
        for (int fd = 5; fd < 65536; fd++)
            if (fcntl(fd, F_GETFD) != -1)
                close(fd);

    limit(RLIMIT_CORE, 0);
    limit(RLIMIT_FSIZE, (rlim_t)FILE_BYTES_MAX);
    limit(RLIMIT_NOFILE, OPEN_FILES_MAX);
    limit(RLIMIT_CPU, (rlim_t)(spec->cpu_seconds > 1 ? spec->cpu_seconds : 1));
    if (spec->memory_bytes > 0)
        limit(RLIMIT_AS, (rlim_t)spec->memory_bytes);
    if (drop) {
        if (setgroups(0, NULL) != 0 || setgid(runner_gid) != 0 || setuid(runner_uid) != 0)
            _exit(125);
    }
    limit(RLIMIT_NPROC, (rlim_t)processes);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* after setuid, which clears it */
    if (getppid() == 1)
        _exit(125);
    if (spec->sandboxed) {
        const char *folders[] = {spec->cwd, NULL};
        sandbox_enter(files, folders, NULL, isolated && namespaces_loopback_asked());
    }
    if (spec->cwd && chdir(spec->cwd) != 0)
        _exit(125);
    signal(SIGPIPE, SIG_DFL);
    if (spec->untrusted)
        execve(program, spec->argv, minimal_environment(spec->cwd));
    else
        execv(program, spec->argv);
    _exit(127);
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int contain_wait(pid_t pid, int *status, double deadline)
{
    /* a pidfd becomes readable when the child ends (Linux 5.3); elsewhere, a
     * short poll */
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR))
            break;
        double left = deadline > 0 ? deadline - wire_now() : 1.0;
        if (left <= 0) {
            if (fd >= 0)
                close(fd);
            return -1;
        }
        int ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
        if (fd >= 0) {
            struct pollfd p = {fd, POLLIN, 0};
            poll(&p, 1, ms);
        } else {
            usleep(ms < 2 ? 1000 : 2000);
        }
    }
    if (fd >= 0)
        close(fd);
    return 0;
}

/* Reads the small file `path` into `text` (a string); the bytes read, or -1. */
static ssize_t read_small(const char *path, char *text, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, size - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return n;
}

/* Sends SIGKILL to every process whose parent is this one, but `keep`;
 * returns how many, or -1 where the kernel does not list a thread's
 * children (CONFIG_PROC_CHILDREN).  The lists cost microseconds; a scan of
 * all /proc costs a millisecond at every item. */
static int kill_listed_children(pid_t keep)
{
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks)
        return -1;
    int killed = 0, listed = 0;
    struct dirent *e;
    while ((e = readdir(tasks))) {
        char path[300], list[8192];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        ssize_t n = is_number(e->d_name) ? read_small(path, list, sizeof list) : -1;
        if (n < 0)
            continue;
        listed = 1;
        if (n == (ssize_t)sizeof list - 1)
            listed = 0; /* too many to trust one read: the scan below */
        for (char *p = list, *end; *p; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0 && pid != keep) {
                kill((pid_t)pid, SIGKILL);
                killed++;
            }
        }
    }
    closedir(tasks);
    return listed ? killed : -1;
}

static int kill_children(pid_t keep)
{
    int listed = kill_listed_children(keep);
    if (listed >= 0)
        return listed;
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    pid_t me = getpid();
    int killed = 0;
    struct dirent *e;
    while ((e = readdir(proc))) {
        char path[300], stat_line[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        if (!is_number(e->d_name) || read_small(path, stat_line, sizeof stat_line) <= 0)
            continue;
        const char *after_name = strrchr(stat_line, ')'); /* the name may hold anything */
        char state;
        int ppid;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (after_name && sscanf(after_name + 1, " %c %d", &state, &ppid) == 2 && ppid == me && pid != keep) {
            kill(pid, SIGKILL);
            killed++;
        }
    }
    closedir(proc);
    return killed;
}

/* ---- what an item leaves outside its processes ------------------------------------- */

/* Where contained programs have no IPC and mount namespaces of their own,
 * what they leave in /dev/shm and as SysV objects outlives them and reaches
 * every process of their user.  As root they run as the runner user, all of
 * whose objects go after each item.  As an ordinary user they run as the
 * grader's own user, whose other programs (a desktop's, another grader's)
 * own such things too: then only what appeared since the item began goes
 * (contain_item_begins). */

typedef struct {
    long long *keys;
    size_t count, room;
    int incomplete; /* memory ran out: not every key is in */
} key_list;

static void key_add(key_list *list, long long key)
{
    if (list->count == list->room) {
        size_t room = list->room ? 2 * list->room : 64;
        long long *keys = realloc(list->keys, room * sizeof *keys);
        if (!keys) {
            list->incomplete = 1;
            return;
        }
        list->keys = keys, list->room = room;
    }
    list->keys[list->count++] = key;
}

static int key_has(const key_list *list, long long key)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->keys[i] == key)
            return 1;
    return 0;
}

/* The kinds of SysV object, as /proc/sysvipc names them. */
static const char *const ipc_kinds[] = {"shm", "msg", "sem"};
#define IPC_KINDS 3

/* The ids of the SysV objects of `kind` that `uid` created or owns, from
 * /proc/sysvipc/KIND (whose columns its header names: the id second, then
 * "uid" and "cuid" where each kind puts them). */
static void list_ipc_objects(const char *kind, uid_t uid, key_list *ids)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/sysvipc/%s", kind);
    FILE *list = fopen(path, "r");
    if (!list)
        return;
    int uid_column = -1, cuid_column = -1, n = 0;
    if (fgets(line, sizeof line, list))
        for (char *save = NULL, *name = strtok_r(line, " \t\n", &save); name; name = strtok_r(NULL, " \t\n", &save), n++) {
            if (strcmp(name, "uid") == 0)
                uid_column = n;
            else if (strcmp(name, "cuid") == 0)
                cuid_column = n;
        }
    while (uid_column > 1 && cuid_column > 1 && fgets(line, sizeof line, list)) {
        long long column[24];
        char *p = line, *end;
        for (n = 0; n < 24; n++, p = end) {
            column[n] = strtoll(p, &end, 10);
            if (end == p)
                break;
        }
        if (n > uid_column && n > cuid_column && ((uid_t)column[uid_column] == uid || (uid_t)column[cuid_column] == uid))
            key_add(ids, column[1]);
    }
    fclose(list);
}

static void remove_ipc_object(int kind, int id)
{
    if (kind == 0)
        shmctl(id, IPC_RMID, NULL);
    else if (kind == 1)
        msgctl(id, IPC_RMID, NULL);
    else
        semctl(id, 0, IPC_RMID);
}

/* The SysV objects of `uid`, but those in `kept` (NULL: none kept). */
static void remove_ipc_objects(uid_t uid, const key_list *kept)
{
    for (int kind = 0; kind < IPC_KINDS; kind++) {
        key_list ids = {0};
        list_ipc_objects(ipc_kinds[kind], uid, &ids);
        for (size_t i = 0; i < ids.count; i++)
            if (!kept || !key_has(&kept[kind], ids.keys[i]))
                remove_ipc_object(kind, (int)ids.keys[i]);
        free(ids.keys);
    }
}

/* Each entry of /dev/shm of `uid` that is not a folder (files, sockets,
 * pipes, links: a private tmpfs leaves none here): `visit` with its name
 * and inode, /dev/shm's descriptor at hand. */
DIR *contain_open_folder(int at, const char *name, int open_flags)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | open_flags);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0)
        close(fd);
    return d;
}

static void each_shm_entry(uid_t uid, void (*visit)(int dir, const char *name, long long inode, void *data), void *data)
{
    DIR *d = contain_open_folder(AT_FDCWD, "/dev/shm", 0);
    if (!d)
        return;
    int dir = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == uid && !S_ISDIR(st.st_mode))
            visit(dir, e->d_name, (long long)st.st_ino, data);
    }
    closedir(d);
}

static void remember_entry(int dir, const char *name, long long inode, void *data)
{
    (void)dir, (void)name;
    key_add(data, inode);
}

static void remove_entry_unless_kept(int dir, const char *name, long long inode, void *data)
{
    const key_list *kept = data;
    if (!kept || !key_has(kept, inode)) /* (a file removed and made again is a new inode) */
        unlinkat(dir, name, 0);
}

/* What the grader's own user had before the item (see above). */
static struct {
    int taken;
    key_list files;
    key_list ipc[IPC_KINDS];
} before_item;

/* Whether contained programs share the grader's user and the host's IPC
 * and /dev/shm: only then is a snapshot needed. */
static int shares_grader_user(void)
{
    return !as_root && !namespaces_available(kit_folder, NULL);
}

void contain_item_begins(void)
{
    before_item.taken = 0;
    if (!shares_grader_user())
        return;
    uid_t me = geteuid();
    int complete = 1;
    before_item.files.count = 0, before_item.files.incomplete = 0;
    each_shm_entry(me, remember_entry, &before_item.files);
    complete &= !before_item.files.incomplete;
    for (int kind = 0; kind < IPC_KINDS; kind++) {
        before_item.ipc[kind].count = 0, before_item.ipc[kind].incomplete = 0;
        list_ipc_objects(ipc_kinds[kind], me, &before_item.ipc[kind]);
        complete &= !before_item.ipc[kind].incomplete;
    }
    /* (a partial list would take the user's own things for the item's) */
    before_item.taken = complete;
}

static void remove_leftovers(void)
{
    if (as_root && runner_uid != 0 && runner_uid != geteuid() && !namespaces_available(kit_folder, NULL)) {
        /* the runner user's own: all of them */
        each_shm_entry(runner_uid, remove_entry_unless_kept, NULL);
        remove_ipc_objects(runner_uid, NULL);
    } else if (before_item.taken && shares_grader_user()) {
        /* the grader's own user's: what the item added */
        each_shm_entry(geteuid(), remove_entry_unless_kept, &before_item.files);
        remove_ipc_objects(geteuid(), before_item.ipc);
    }
    before_item.taken = 0; /* the next item's contain_item_begins() takes it anew */
}

/* ---- the walls, for the report ------------------------------------------------------ */

/* Appends `name` to the comma-separated `list`. */
static void add_wall(char *list, size_t size, const char *name)
{
    size_t used = strlen(list);
    snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
}

const char *contain_walls_text(void)
{
    static char text[512];
    char have[256] = "", missing[256] = "", part[128];
    namespaces_available(kit_folder, NULL); /* tried here where no program has run yet */
    const char *spaces = namespaces_text();
    int abi = sandbox_abi();
    if (filter_supported())
        add_wall(have, sizeof have, "seccomp");
    else
        add_wall(missing, sizeof missing, "seccomp");
    snprintf(part, sizeof part, "namespaces (%s)", spaces ? spaces : "");
    if (spaces)
        add_wall(have, sizeof have, part);
    else
        add_wall(missing, sizeof missing, "namespaces");
    snprintf(part, sizeof part, "Landlock %d", abi);
    if (abi > 0)
        add_wall(have, sizeof have, part);
    else
        add_wall(missing, sizeof missing, "Landlock");
    snprintf(part, sizeof part, "runner user %s", runner_name);
    if (as_root)
        add_wall(have, sizeof have, part);
    else
        add_wall(missing, sizeof missing, "runner user (student code runs as the grader's user)");
    snprintf(text, sizeof text, "%s%s%s", *have ? have : "none", *missing ? "; missing: " : "", missing);
    return text;
}

const char *contain_walls_below_minimum(void)
{
    static char why[512];
    namespaces_available(kit_folder, NULL);
    int seccomp = filter_supported(), apart = namespaces_text() != NULL || as_root;
    if (seccomp && apart)
        return NULL;
    snprintf(why, sizeof why, "%s%s%s", seccomp ? "" : "no seccomp filter (student code could run other programs, "
             "open network sockets, use SysV IPC and trace or signal other processes)", !seccomp && !apart ? "; " : "",
             apart ? "" : "neither namespaces nor a runner user (student code would run as the grader's own user, "
             "with the host's processes, network, /dev/shm and IPC)");
    return why;
}

static int reap_children(pid_t keep)
{
    int keep_gone = 0;
    for (int quiet_rounds = 0;;) {
        int killed = kill_children(keep);
        int reaped = 0, status;
        pid_t p;
        while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
            reaped++;
            keep_gone |= keep > 0 && p == keep;
        }
        if (p < 0 && errno == ECHILD)
            return keep_gone; /* no child left: every descendant is gone */
        if (!killed && !reaped) {
            if (keep > 0 && !keep_gone)
                return 0; /* none in /proc but the one kept, which lives on */
            if (++quiet_rounds > 5000)  /* 5 s of a child that neither dies nor shows: give up waiting */
                return keep_gone;
            usleep(1000);
        } else {
            quiet_rounds = 0;
        }
    }
}

int contain_reap_all(pid_t keep)
{
    int keep_gone = reap_children(keep);
    remove_leftovers();
    return keep_gone;
}
