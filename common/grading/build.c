/* build.c: see build.h.  make does the compiling; this file decides what to
 * build, runs make without a shell in between (any path is safe), and turns
 * what went wrong into a message that names whose fault it is. */
#include "build.h"
#include "build_cache.h"
#include "grader.h"
#include "contain.h"
#include "namespaces.h"
#include "sandbox.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STUDENT_BUILD_SECONDS 300 /* the default time limit of a submission's build */

static char *submission_build;  /* build/<backend>/submissions/<tag>: what a submission's build made */
static char *submission_cpu_build; /* build/cpu/submissions/<tag>, on a GPU: its lab program for the cpu backend */

static void kit_fault(const char *fmt, const char *arg, const char *log)
{
    fprintf(stderr, "grader: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    if (log) { /* the log's first lines that matter */
        FILE *f = fopen(log, "r");
        char line[512];
        int shown = 0, errors = 0;
        while (f && fgets(line, sizeof line, f))
            errors += strcasestr(line, "error") != NULL;
        if (f)
            rewind(f);
        while (f && fgets(line, sizeof line, f) && shown < 12)
            if (!errors || strcasestr(line, "error")) {
                str_clean(line);
                fprintf(stderr, "    %s%s", line, strchr(line, '\n') ? "" : "\n");
                shown++;
            }
        if (!shown)
            fprintf(stderr, "    (nothing: the build ended without error but made nothing)\n");
        if (f)
            fclose(f);
    }
    build_cleanup();
    exit(2);
}

static int on_path(const char *program)
{
    char *found = path_find(program, NULL);
    free(found);
    return found != NULL;
}

void build_check_tools(const char *backend)
{
    if (!on_path("make"))
        kit_fault("make is missing%s", ": sudo apt-get install -y make", NULL);
    if (!on_path("gcc"))
        kit_fault("gcc is missing%s", ": sudo apt-get install -y gcc", NULL);
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
    if (strcmp(backend, "gpu") == 0 && !(strchr(nvcc, '/') ? access(nvcc, X_OK) == 0 : on_path(nvcc)))
        kit_fault("the gpu backend needs nvcc, from NVIDIA's CUDA toolkit (https://developer.nvidia.com/cuda-downloads);"
                  " with no GPU, use --backend=cpu%s", "", NULL);
    if (strcmp(backend, "cpu") == 0 && !on_path("g++"))
        kit_fault("the cpu backend needs g++%s", ": sudo apt-get install -y g++", NULL);
}

/* ---- running make ------------------------------------------------------------------ */

/* The kit's own builds and the student's code in labs/<lab> (a
 * submission's build is student_make's, below). */
typedef struct {
    const char *log;               /* stdout and stderr go here */
    double seconds;                /* 0: no limit */
    int locked;                    /* a kit build: take the build lock */
} make_run;

/* make's arguments before its variables: make -s --no-print-directory
 * BACKEND=... (the last one allocated); returns their count. */
static int make_arguments(char **argv, const char *backend)
{
    int argc = 0;
    argv[argc++] = "make";
    argv[argc++] = "-s";
    argv[argc++] = "--no-print-directory";
    argv[argc++] = str_printf("BACKEND=%s", backend);
    return argc;
}

/* ... and after them: the first `count` targets but the NULL ones, and
 * the NULL that ends the list. */
static void make_targets(char **argv, int argc, const char *const targets[], int count)
{
    for (int i = 0; i < count; i++)
        if (targets[i])
            argv[argc++] = (char *)targets[i];
    argv[argc] = NULL;
}

/* make -s BACKEND=... TARGETS (up to 4, NULL ones left out); returns its
 * exit status (124 when stopped by the time limit). */
static int run_make(const make_run *how, const char *backend, const char *const targets[4])
{
    char *argv[16];
    int argc = make_arguments(argv, backend);
    make_targets(argv, argc, targets, 4);

    int lock = -1;
    if (how->locked) {
        lock = open("build/.build-lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (lock >= 0)
            while (flock(lock, LOCK_EX) != 0 && errno == EINTR) {}
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0); /* the time limit stops make and every compiler it started */
        int out = open(how->log, O_WRONLY | O_CREAT | O_TRUNC, 0644), in = open("/dev/null", O_RDONLY);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execvp("make", argv);
        _exit(127);
    }
    int status = 0, stopped = 0;
    if (pid > 0 && contain_wait(pid, &status, how->seconds > 0 ? wire_now() + how->seconds : 0) != 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        stopped = 1;
    }
    if (lock >= 0)
        close(lock);
    free(argv[3]);
    if (pid < 0)
        return 127;
    if (stopped) {
        FILE *f = fopen(how->log, "a");
        if (f) {
            fprintf(f, "error: the build took longer than %.0f s and was stopped\n", how->seconds);
            fclose(f);
        }
        return 124;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* One make for two targets where it can: each start of make costs tens of
 * milliseconds, a good part of grading a small lab. */
static int kit_make(const char *backend, const char *target, const char *also, const char *log)
{
    make_run how = {log, 0, 1};
    const char *targets[4] = {target, also, NULL, NULL};
    return run_make(&how, backend, targets);
}

/* The same for up to four targets (NULL ones left out). */
static int kit_make_all(const char *backend, const char *const targets[4], const char *log)
{
    make_run how = {log, 0, 1};
    return run_make(&how, backend, targets);
}

/* ---- a submission -------------------------------------------------------------------
 *
 * A submission is data from someone else.  Its lab files are looked up
 * anywhere inside its folder, taken only where they are regular files (a
 * link is refused: it could name the solution), read as the runner user
 * when the grader is root, and refused when a name is found twice (which of
 * the two would be graded?).  Its build works in a scratch folder outside
 * the kit, which holds the submission's files and the kit's public parts
 * only, as the runner user, with limits on time, memory and what it says.  */

#define BUILD_LOG_KEPT (256 << 10)         /* of a submission's build log, what is kept */
#define BUILD_OUTPUT_MAX (4LL << 20)       /* a build that says more is stopped (256 KiB are kept) */
#define BUILD_FILE_MAX (512LL << 20)       /* one file the build writes (objects, .ii) */
#define BUILD_MEMORY_CPU (4LL << 30)       /* g++ on a lab's file needs well under 1 GiB */
#define BUILD_MEMORY_GPU (16LL << 30)      /* nvcc maps more than it uses */
#define BUILD_PROCESSES 512
#define SUBMISSION_FILE_MAX (32LL << 20)   /* one file of a submission */
#define WALK_DEPTH_MAX 32
#define WALK_ENTRIES_MAX 100000

static char *build_scratch;     /* <tmp>/cudalabs-build-XXXXXX, the student's build's own folder */
static char *submission_name;   /* "submission.<tag>": the submission's files in it */
static char *submission_tag;

/* The runner user's ids (as root), from the name contain.c chose. */
static int runner_ids(uid_t *uid, gid_t *gid)
{
    const char *name = contain_user_name();
    struct passwd *pw = contain_drops_privilege() && name ? getpwnam(name) : NULL;
    if (!pw || pw->pw_uid == 0)
        return -1;
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
    return 0;
}

/* In a child: becomes the runner user where the grader is root. */
static void child_drop_privilege(void)
{
    uid_t uid;
    gid_t gid;
    if (!contain_drops_privilege())
        return;
    if (runner_ids(&uid, &gid) != 0 || setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
        _exit(125);
}

/* Copies the open file `in` to a new file `to`; -1 past `most` bytes. */
static int copy_fd_to(int in, const char *to, mode_t mode, long long most)
{
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    char buffer[1 << 16];
    ssize_t n;
    long long total = 0;
    int ok = out >= 0;
    while (ok && (n = read(in, buffer, sizeof buffer)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        total += n;
        ok = n > 0 && total <= most && wire_write_all(out, buffer, (size_t)n) == 0;
    }
    if (out >= 0 && (close(out) != 0 || !ok))
        ok = 0, unlink(to);
    return ok ? 0 : -1;
}

/* What the walk of a submission found: the first path of each lab file. */
typedef struct {
    const grade_lab *lab;
    char **names;          /* the lab's .cu files */
    char **first;          /* where each was found (relative to the submission) */
    int count;
    int entries;
    int as_root;           /* the runner user could not read the folder: see take_file */
    int denied;            /* the runner user was refused a file or folder: root reads (stricter) */
    int problems;
    FILE *say;             /* the messages, to the grader */
} walk_state;

static void walk_problem(walk_state *w, const char *fmt, const char *a, const char *b)
{
    char *message = str_printf(fmt, a, b ? b : "");
    str_clean(message); /* a file's name may hold any byte */
    fprintf(w->say, "%s\n", message);
    free(message);
    w->problems++;
}

/* Takes one lab file: opened without following a link, and checked again
 * on the open file (it could have been swapped since the listing). */
static void take_file(walk_state *w, int dir, const char *name, const char *path, const char *to)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno == EACCES && !w->as_root && contain_drops_privilege()) {
        w->denied = 1; /* a file of mode 600 (patch -o, some unzip tools): root takes it, one link only */
        return;
    }
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        walk_problem(w, "cannot read %s%s", path, fd < 0 ? str_printf(": %s", strerror(errno)) : ": not a regular file");
    } else if (w->as_root && st.st_nlink != 1) {
        /* read as root: a hard link could be a file of the system's */
        walk_problem(w, "%s is a hard link (it has other names); upload a copy of the file itself%s", path, "");
    } else if (st.st_size > SUBMISSION_FILE_MAX) {
        walk_problem(w, "%s is larger than 32 MiB%s", path, "");
    } else if (copy_fd_to(fd, to, 0644, SUBMISSION_FILE_MAX) != 0) {
        walk_problem(w, "cannot copy %s: %s", path, strerror(errno));
    }
    if (fd >= 0)
        close(fd);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Walks the folder `dir` (its path inside the submission: `rel`, "" at the
 * top), never through a link. */
static void walk_folder(walk_state *w, int dir, const char *rel, int depth, const char *copy_dir)
{
    DIR *d = fdopendir(dir);
    if (!d) {
        close(dir);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (++w->entries > WALK_ENTRIES_MAX) {
            walk_problem(w, "the submission holds more than %s files and folders%s", "100000", "");
            break;
        }
        if (n == cap)
            names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        names[n++] = str_dup(e->d_name);
    }
    qsort(names, n, sizeof *names, by_name); /* the same messages on every file system */
    for (size_t i = 0; i < n && w->entries <= WALK_ENTRIES_MAX; i++) {
        char *path = str_printf("%s%s%s", rel, *rel ? "/" : "", names[i]);
        struct stat st;
        int k = -1;
        for (int j = 0; j < w->count; j++)
            if (strcmp(names[i], w->names[j]) == 0)
                k = j;
        if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
            walk_problem(w, "cannot read %s: %s", path, strerror(errno));
        } else if (k >= 0 && !S_ISREG(st.st_mode)) {
            walk_problem(w, S_ISLNK(st.st_mode) ? "%s is a symbolic link: only regular files are graded (upload the file "
                                                  "itself)%s" : "%s is not a regular file%s", path, "");
        } else if (k >= 0 && w->first[k]) {
            walk_problem(w, "the submission holds two copies of %s: %s", names[i],
                         str_printf("%s and %s; keep only the one to grade", w->first[k], path));
        } else if (k >= 0) {
            w->first[k] = str_dup(path);
            char *to = str_printf("%s/%s", copy_dir, names[i]);
            take_file(w, dirfd(d), names[i], path, to);
            free(to);
        } else if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH_MAX) {
            int sub = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                walk_folder(w, sub, path, depth + 1, copy_dir);
            else if (errno == EACCES && !w->as_root && contain_drops_privilege())
                w->denied = 1;
            else
                walk_problem(w, "cannot read the folder %s: %s", path, strerror(errno));
        }
        free(path);
        free(names[i]);
    }
    for (size_t i = 0; i < n; i++)
        if (w->entries > WALK_ENTRIES_MAX)
            free(names[i]);
    free(names);
    closedir(d);
}

/* The child that reads the submission: 0 when every lab file found was
 * taken, 1 with a problem, 4 when the runner user cannot open the folder
 * or one of its files. */
static int intake_child(walk_state *w, const char *from, const char *copy_dir, int as_root)
{
    if (!as_root)
        child_drop_privilege();
    w->as_root = as_root && contain_drops_privilege();
    int top = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0 && errno == EACCES && !as_root && contain_drops_privilege())
        return 4;
    if (top < 0) {
        walk_problem(w, "cannot read %s: %s", from, strerror(errno));
        return 1;
    }
    walk_folder(w, top, "", 0, copy_dir);
    if (w->denied && !w->problems)
        return 4;
    return w->problems ? 1 : 0;
}

/* Reads the submission into `copy_dir` in a child process (as the runner
 * user when root); returns how many of the lab's files it took, or ends
 * the run (exit 2) naming each problem. */
static int intake(const char *from, const grade_lab *lab, const char *copy_dir, char *looked_for, size_t size)
{
    walk_state w = {lab, NULL, NULL, 0, 0, 0, 0, 0, NULL};
    char *lab_dir = str_printf("labs/%s", lab->dir);
    DIR *d = opendir(lab_dir);
    struct dirent *e;
    looked_for[0] = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0)
            continue;
        w.names = realloc(w.names, (size_t)(w.count + 1) * sizeof *w.names);
        w.names[w.count++] = str_dup(e->d_name);
        snprintf(looked_for + strlen(looked_for), size - strlen(looked_for), "%s%s", looked_for[0] ? ", " : "",
                 e->d_name);
    }
    if (d)
        closedir(d);
    free(lab_dir);
    w.first = calloc((size_t)w.count + 1, sizeof *w.first);

    for (int as_root = 0; as_root < 2; as_root++) {
        int pipe_fds[2];
        if (pipe(pipe_fds) != 0)
            kit_fault("cannot make a pipe: %s", strerror(errno), NULL);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(pipe_fds[0]);
            w.say = fdopen(pipe_fds[1], "w");
            int rc = intake_child(&w, from, copy_dir, as_root);
            fclose(w.say);
            _exit(rc);
        }
        close(pipe_fds[1]);
        FILE *said = fdopen(pipe_fds[0], "r");
        char line[4096];
        int problems = 0;
        while (said && fgets(line, sizeof line, said)) {
            fprintf(stderr, "grader: %s", line);
            problems++;
        }
        if (said)
            fclose(said);
        int status = 0;
        while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        int rc = pid < 0 ? 125 : WIFEXITED(status) ? WEXITSTATUS(status) : 125;
        if (rc == 4)
            continue; /* the runner user cannot read it all: as root, stricter */
        if (rc != 0 || problems) {
            if (rc == 125 && !problems)
                fprintf(stderr, "grader: could not read the submission %s\n", from);
            fprintf(stderr, "grader: the submission %s is refused; nothing was graded\n", from);
            build_cleanup();
            exit(2);
        }
        break;
    }
    int found = 0; /* (the child's record of them stayed in the child) */
    for (int k = 0; k < w.count; k++) {
        char *copy = str_printf("%s/%s", copy_dir, w.names[k]);
        found += access(copy, F_OK) == 0;
        free(copy);
    }
    return found;
}

/* ---- the scratch folder of a submission's build -------------------------------------------- */

/* Copies the kit's file or folder `rel` to the same place in the scratch
 * folder, keeping its time (so that make rebuilds nothing of the kit's). */
static void scratch_copy(const char *rel, int (*wanted)(const char *name))
{
    struct stat st;
    if (stat(rel, &st) != 0)
        return;
    char *to = str_printf("%s/%s", build_scratch, rel);
    for (char *slash = strchr(to + strlen(build_scratch) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        mkdir(to, 0755);
        *slash = '/';
    }
    if (S_ISDIR(st.st_mode)) {
        mkdir(to, 0755);
        DIR *d = opendir(rel);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.' && (!wanted || wanted(e->d_name))) {
                char *child = str_printf("%s/%s", rel, e->d_name);
                scratch_copy(child, wanted);
                free(child);
            }
        if (d)
            closedir(d);
    } else if (S_ISREG(st.st_mode)) {
        int in = open(rel, O_RDONLY | O_CLOEXEC);
        if (in < 0 || copy_fd_to(in, to, (st.st_mode & 0111) ? 0755 : 0644, 1LL << 40) != 0)
            kit_fault("cannot copy %s into the build's scratch folder", rel, NULL);
        close(in);
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        utimensat(AT_FDCWD, to, times, 0);
    }
    free(to);
}

static int ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && strcmp(s + a - b, end) == 0;
}
static int lab_public(const char *name) { return ends_with(name, ".h") || ends_with(name, ".cu") || strcmp(name, "lab.mk") == 0; }
static int object(const char *name) { return ends_with(name, ".o"); }

/* What a submission's build links but does not build: the kit's objects
 * (passed to make as old files, so that their sources need not be there). */
static char **kit_objects(const char *backend, const grade_lab *lab)
{
    static char *list[12];
    int n = 0;
    list[n++] = str_printf("build/%s/harness/kit.o", backend);
    list[n++] = str_printf("build/%s/harness/kit_cuda.o", backend);
    if (strcmp(backend, "cpu") == 0) {
        list[n++] = str_printf("build/%s/harness/nvcc-check", backend);
        list[n++] = str_printf("build/%s/emu/libcudaemu.a", backend);
        /* cuda_runtime.h precompiled (common/cpu/cpu.mk) */
        list[n++] = str_printf("build/%s/pch/cuda_runtime.h", backend);
        list[n++] = str_printf("build/%s/pch/cuda_runtime.h.gch", backend);
        list[n++] = str_printf("build/%s/pch/undef-macros.h", backend);
    }
    char *main_o = str_printf("build/%s/%s/main.o", backend, lab->dir);
    if (access(main_o, R_OK) == 0)
        list[n++] = main_o;
    list[n] = NULL;
    return list;
}

/* Makes the scratch folder: outside the kit, the runner user's, holding the
 * kit's public build files, the lab's given files and headers, the objects
 * the link needs and the submission's files (in submission.<tag>/). */
static void scratch_make(const char *backend, const grade_lab *lab)
{
    char here[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    if (!getcwd(here, sizeof here))
        kit_fault("cannot name the kit's folder: %s", strerror(errno), NULL);
    if (!tmp || !*tmp || access(tmp, W_OK) != 0 || sandbox_overlaps(tmp, here))
        tmp = "/tmp";
    build_scratch = str_printf("%s/cudalabs-build-XXXXXX", tmp);
    if (!mkdtemp(build_scratch))
        kit_fault("cannot make a scratch folder in %s", tmp, NULL);
    /* Landlock takes files by their real path */
    char real[PATH_MAX];
    if (realpath(build_scratch, real)) {
        free(build_scratch);
        build_scratch = str_dup(real);
    }
    scratch_copy("Makefile", NULL);
    scratch_copy(strcmp(backend, "gpu") == 0 ? "tools/cuda-arch.sh" : "common/cpu/cpu.mk", NULL);
    if (strcmp(backend, "cpu") == 0) {
        scratch_copy("common/cpu/rewrite.pl", NULL);
        scratch_copy("common/cpu/include", NULL);
    }
    /* the harness's public headers (the Makefile's KIT_PUBLIC_HEADERS): its
     * sources and kit_internal.h stay out, the objects come built */
    scratch_copy("common/harness/kit.h", NULL);
    scratch_copy("common/harness/kit_hooks.h", NULL);
    char *lab_dir = str_printf("labs/%s", lab->dir), *given = str_printf("prebuilt/%s/%s", backend, lab->dir);
    scratch_copy(lab_dir, lab_public);
    scratch_copy(given, object); /* a student copy's given files that hold another lab's answer */
    for (char **o = kit_objects(backend, lab); *o; o++)
        scratch_copy(*o, NULL);
    free(lab_dir);
    free(given);
    /* the build writes its objects under build/<backend>/submissions, its
     * temporary files in the scratch folder itself */
    char *out = str_printf("%s/build/%s/submissions", build_scratch, backend);
    char *copy_dir = str_printf("%s/%s", build_scratch, submission_name);
    mkdir(str_printf("%s/build", build_scratch), 0755);
    mkdir(str_printf("%s/build/%s", build_scratch, backend), 0755);
    if (contain_give_folder(out) != 0 || contain_give_folder(copy_dir) != 0 || contain_give_folder(build_scratch) != 0)
        kit_fault("cannot give the build's scratch folder to the runner user: %s", strerror(errno), NULL);
    chmod(build_scratch, 0700);
    free(out);
    free(copy_dir);
}

/* Copies one output of the build back into the kit: a regular file the
 * build made (as root: the runner user's), reached without following any
 * link, so that the build cannot pass off a file of the kit as its own. */
static int scratch_take_back(const char *rel, const char *to)
{
    int fd = open(build_scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *path = str_dup(rel), *save = NULL;
    for (char *part = strtok_r(path, "/", &save), *next; fd >= 0 && part; part = next) {
        next = strtok_r(NULL, "/", &save);
        int child = openat(fd, part, (next ? O_DIRECTORY : O_NONBLOCK) | O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = child;
    }
    free(path);
    struct stat st;
    uid_t uid = geteuid();
    gid_t gid;
    runner_ids(&uid, &gid);
    int ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == uid;
    unlink(to);
    ok = ok && copy_fd_to(fd, to, 0755, 1LL << 34) == 0;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

/* ---- what the student sees of the build's log ------------------------------------------ */

/* Whether compiler messages may quote file `path` (length `len`): the
 * submission's files and the kit's public files (relative names, all in
 * the scratch folder), the scratch folder, the system's headers. */
static int quotable(const char *path, size_t len)
{
    char *p = strndup(path, len);
    char here[PATH_MAX];
    int ok = !strstr(p, "..") && strncmp(p, "/proc", 5) != 0;
    if (ok && p[0] == '/') {
        size_t s = strlen(build_scratch);
        int in_scratch = strncmp(p, build_scratch, s) == 0 && p[s] == '/';
        int system = strncmp(p, "/usr/", 5) == 0 || strncmp(p, "/opt/", 5) == 0;
        ok = in_scratch || (system && !(getcwd(here, sizeof here) && strstr(p, here)));
    }
    free(p);
    return ok;
}

/* Finds a message's location at the start of `line`: gcc's "FILE:LINE:" (after
 * "In file included from" or "from") or nvcc's "FILE(LINE): ".  Sets the
 * file's start and length and returns where the location ends, or NULL. */
static const char *location(const char *line, const char **file, size_t *len)
{
    const char *p = line;
    if (strncmp(p, "In file included from ", 22) == 0)
        p += 22;
    else if (strncmp(p, "                 from ", 22) == 0)
        p += 22;
    for (const char *c = p; *c && *c != '\n'; c++) {
        if ((*c == ':' && c[1] >= '0' && c[1] <= '9') || (*c == '(' && c[1] >= '0' && c[1] <= '9')) {
            const char *d = c + 1;
            while (*d >= '0' && *d <= '9')
                d++;
            if (*c == '(' ? (d[0] == ')' && d[1] == ':') : (*d == ':' || *d == ',')) {
                if (c == p)
                    return NULL;
                *file = p;
                *len = (size_t)(c - p);
                if (*c == '(')
                    return d + 1;
                if (d[0] == ':' && d[1] >= '0' && d[1] <= '9') { /* the column */
                    const char *e = d + 1;
                    while (*e >= '0' && *e <= '9')
                        e++;
                    if (*e == ':')
                        d = e;
                }
                return d;
            }
        }
    }
    return NULL;
}

/* The log as the student sees it: the scratch folder's name taken out, and
 * no text of a file outside the submission (an #include "/etc/passwd"
 * would otherwise show its first line). */
static char *log_for_student(const char *text)
{
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    char *prefix = str_printf("%s/", submission_name), *scratch = str_printf("%s/", build_scratch);
    int hiding = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        char *copy = strndup(line, n);
        for (const char *cut[] = {scratch, prefix}, **c = cut; c < cut + 2; c++)
            for (char *hit; (hit = strstr(copy, *c));)
                memmove(hit, hit + strlen(*c), strlen(hit + strlen(*c)) + 1);
        const char *file, *after;
        size_t len;
        if ((after = location(copy, &file, &len)) && *after == ':' && after[1] == ' ' && !quotable(file, len)) {
            const char *kind = strstr(after, "fatal error:") == after + 2 ? "fatal error"
                             : strstr(after, "warning:") == after + 2 ? "warning"
                             : strstr(after, "note:") == after + 2 ? "note" : "error";
            fprintf(f, "%.*s: %s: (a file outside your submission: its text is not shown)\n", (int)(after - copy), copy,
                    kind);
            hiding = 1;
        } else if (hiding && (copy[0] == ' ' || copy[0] == '\t' || (copy[0] >= '0' && copy[0] <= '9' && !after))) {
            /* the quoted source line and its caret */
        } else {
            hiding = 0;
            fputs(copy, f);
        }
        free(copy);
        line += n;
    }
    fclose(f);
    free(prefix);
    free(scratch);
    return out;
}

/* ---- running the submission's build ------------------------------------------------------ */

static void limit_to(int resource, long long value)
{
    struct rlimit r = {(rlim_t)value, (rlim_t)value};
    setrlimit(resource, &r);
}

/* The build's environment: what the compilers need, nothing of the grader's
 * (a platform's tokens, its paths). */
static char **build_environment(void)
{
    static const char *const kept[] = {"PATH", "NVCC", "NVCC_CHECK", "NVCC_EXTRA", "ARCH", "CUDA_HOME", "CUDA_PATH",
                                       "LD_LIBRARY_PATH", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "EMU_CXX", NULL};
    static char *env[24];
    int n = 0;
    for (int i = 0; kept[i]; i++)
        if (getenv(kept[i]))
            env[n++] = str_printf("%s=%s", kept[i], getenv(kept[i]));
    if (!getenv("PATH"))
        env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    env[n++] = str_printf("HOME=%s", build_scratch);
    env[n++] = str_printf("TMPDIR=%s", build_scratch);
    env[n++] = "LANG=C";
    env[n++] = "LC_ALL=C";
    env[n] = NULL;
    return env;
}

/* What the build may read where Landlock is there: the compilers and the
 * system's headers, and its own scratch folder (the kit is not in it). */
static void build_sandbox(void)
{
    static const char *list[80];
    static const char *const tools[] = {"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/include", "/usr/local/bin",
                                        "/usr/local/include", "/usr/local/cuda", "/usr/local/nvidia", NULL};
    int n = 0;
    char here[PATH_MAX];
    for (int i = 0; tools[i]; i++)
        list[n++] = tools[i];
    char *path = str_dup(getenv("PATH") ? getenv("PATH") : "");
    if (getcwd(here, sizeof here))
        for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir && n < 70; dir = strtok_r(NULL, ":", &save))
            if (!sandbox_overlaps(dir, here))
                list[n++] = dir;
    list[n++] = build_scratch;
    list[n] = NULL;
    const char *writable[] = {build_scratch, NULL}, *listable[] = {build_scratch, NULL};
    sandbox_enter(list, writable, listable, 0);
}

/* Reads the build's output until it ends or `deadline`: the first
 * BUILD_LOG_KEPT bytes kept; past BUILD_OUTPUT_MAX the build is stopped.
 * Returns 1 when the deadline came or the output was too long. */
static int read_build_output(int fd, FILE *log, double deadline, long long *said, int *too_long)
{
    char buffer[1 << 16];
    for (;;) {
        double left = deadline - wire_now();
        if (left <= 0)
            return 1;
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR)
            return 0;
        if (ready <= 0)
            continue;
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0; /* every writer has closed it */
        if (*said < BUILD_LOG_KEPT)
            fwrite(buffer, 1, (size_t)(n < BUILD_LOG_KEPT - *said ? n : BUILD_LOG_KEPT - *said), log);
        *said += n;
        if (*said > BUILD_OUTPUT_MAX) {
            *too_long = 1;
            return 1;
        }
    }
}

/* The folders of the PATH stay where they are, even under /tmp, where the
 * namespaces put a fresh tmpfs (a toolchain unpacked there): the absolute
 * ones outside the kit, NULL-terminated, in `dirs` (of 64); `path` holds
 * their text (to be freed). */
static void tool_folders(const char *kit, const char **dirs, char **path)
{
    int tools = 0;
    *path = str_dup(getenv("PATH") ? getenv("PATH") : "");
    for (char *save = NULL, *dir = strtok_r(*path, ":", &save); dir && tools < 63; dir = strtok_r(NULL, ":", &save))
        if (dir[0] == '/' && !sandbox_overlaps(dir, kit))
            dirs[tools++] = dir;
    dirs[tools] = NULL;
}

/* In the forked child: make, its output into `output`, with the limits
 * above, inside the namespaces where `isolated`. */
static void exec_student_make(char **argv, char **env, int output, long long memory, int isolated, const char *kit,
                              const char **tool_dirs) __attribute__((noreturn));
static void exec_student_make(char **argv, char **env, int output, long long memory, int isolated, const char *kit,
                              const char **tool_dirs)
{
    if (isolated && namespaces_enter(kit, build_scratch, NULL, tool_dirs) != 0)
        _exit(125);
    setpgid(0, 0); /* the limits stop make and every compiler it started */
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(output, 1) < 0 || dup2(output, 2) < 0)
        _exit(125);
    limit_to(RLIMIT_AS, memory);
    limit_to(RLIMIT_FSIZE, BUILD_FILE_MAX);
    limit_to(RLIMIT_CORE, 0);
    child_drop_privilege();
    if (contain_drops_privilege())
        limit_to(RLIMIT_NPROC, BUILD_PROCESSES);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    build_sandbox();
    if (chdir(build_scratch) != 0)
        _exit(125);
    execvpe("make", argv, env);
    _exit(127);
}

/* The log the student sees: the build's output as log_for_student shows
 * it, and why it was stopped, if it was. */
static void write_student_log(const char *log_path, const char *text, long long said, int too_long, int stopped,
                              int status, double seconds, long long memory)
{
    FILE *log = fopen(log_path, "w");
    char *shown = log_for_student(text);
    if (log) {
        fputs(shown, log);
        if (said > BUILD_LOG_KEPT)
            fprintf(log, "\n(the build's log was cut here: %lld more bytes not kept)\n", said - BUILD_LOG_KEPT);
        if (too_long)
            fprintf(log, "error: the build said more than %lld MiB and was stopped\n", BUILD_OUTPUT_MAX >> 20);
        else if (stopped)
            fprintf(log, "error: the build took longer than %.0f s and was stopped\n", seconds);
        else if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(shown, "memory")))
            fprintf(log, "error: the build stopped (it may have used more than its %lld GiB of memory)\n", memory >> 30);
        fclose(log);
    }
    free(shown);
}

/* Set where nvcc's front check passed on this submission's files before
 * (front_check_key): its builds skip it. */
static int front_check_passed;

/* make in the scratch folder, as the runner user where the grader is root,
 * with the limits above; the log the student sees goes to `log_path`.
 * Returns make's exit status, 124 when stopped. */
static int student_make(const char *backend, const grade_lab *lab, double seconds, const char *target,
                        const char *also, const char *log_path)
{
    char *argv[40];
    int argc = make_arguments(argv, backend);
    argv[argc++] = str_printf("STUDENT_DIR=%s", submission_name);
    argv[argc++] = str_printf("STUDENT_TAG=%s", submission_tag);
    if (front_check_passed)
        argv[argc++] = "NVCC_CHECK=no"; /* (nvcc passed these very files before: front_check_key) */
    for (char **o = kit_objects(backend, lab); *o && argc < 34; o++) {
        argv[argc++] = "-o";
        argv[argc++] = *o;
    }
    const char *targets[2] = {target, also};
    make_targets(argv, argc, targets, 2);
    char **env = build_environment();
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        return 127;
    long long memory = strcmp(backend, "gpu") == 0 ? BUILD_MEMORY_GPU : BUILD_MEMORY_CPU;
    /* in namespaces of its own where the host allows them (namespaces.h):
     * the kit hidden, no network, /tmp and /dev/shm private; so a build run
     * by the grader's own user (no root, no Landlock) still reads no
     * solution by its absolute path */
    char kit[PATH_MAX];
    int isolated = getcwd(kit, sizeof kit) && namespaces_available(kit, build_scratch);
    const char *tool_dirs[64];
    char *path;
    tool_folders(kit, tool_dirs, &path);
    fflush(NULL);
    pid_t pid = isolated ? namespaces_clone() : fork();
    if (pid == 0)
        exec_student_make(argv, env, pipe_fds[1], memory, isolated, kit, tool_dirs);
    close(pipe_fds[1]);
    long long said = 0;
    int too_long = 0, stopped = 0, status = 0;
    double deadline = wire_now() + seconds;
    char *text = NULL;
    size_t size = 0;
    FILE *kept = open_memstream(&text, &size);
    if (pid > 0 && (read_build_output(pipe_fds[0], kept, deadline, &said, &too_long) != 0
                    || contain_wait(pid, &status, deadline) != 0)) {
        kill(-pid, SIGKILL);
        stopped = 1;
    }
    close(pipe_fds[0]);
    if (stopped)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    fclose(kept);
    write_student_log(log_path, text ? text : "", said, too_long, stopped, status, seconds, memory);
    free(text);
    for (int i = 3; i < 6; i++)
        free(argv[i]);
    if (pid < 0)
        return 127;
    if (stopped)
        return 124;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* On a GPU, the sanitizer item also runs the student's lab program built
 * with the cpu backend (run.c), which stops at a mistake that the GPU and
 * its sanitizer let pass (a __syncthreads() only some threads reach).  For
 * a submission: the kit's cpu objects (a kit build), the cpu backend's files
 * in the same scratch folder, then the same make with BACKEND=cpu, as the
 * runner user.  NULL where any of it fails: the item then says so. */
static char *submission_cpu_program(const grade_lab *lab, double seconds, const char *log)
{
    char **objects = kit_objects("cpu", lab);
    for (char **o = objects; *o; o++)
        if (access(*o, R_OK) != 0 && kit_make("cpu", *o, NULL, log) != 0)
            return NULL;
    char *main_o = str_printf("build/cpu/%s/main.o", lab->dir);
    if (access(str_printf("labs/%s/main.c", lab->dir), R_OK) == 0 && access(main_o, R_OK) != 0
        && kit_make("cpu", main_o, NULL, log) != 0)
        return NULL;
    scratch_copy("common/cpu/cpu.mk", NULL);
    scratch_copy("common/cpu/rewrite.pl", NULL);
    scratch_copy("common/cpu/include", NULL);
    for (char **o = objects; *o; o++)
        scratch_copy(*o, NULL);
    char *out = str_printf("%s/build/cpu/submissions", build_scratch);
    mkdir(str_printf("%s/build/cpu", build_scratch), 0755);
    if (contain_give_folder(out) != 0)
        return NULL;
    mkdir("build/cpu", 0755);
    mkdir("build/cpu/submissions", 0755);
    submission_cpu_build = str_printf("build/cpu/submissions/%s", submission_tag);
    mkdir(submission_cpu_build, 0755);
    char *base = str_printf("%s/%s", submission_cpu_build, lab->dir), *program = str_printf("%s/lab", base);
    mkdir(base, 0755);
    if (student_make("cpu", lab, seconds, program, NULL, log) != 0 || scratch_take_back(program, program) != 0)
        return NULL;
    return program;
}

/* What decides a build's outputs besides the scratch folder's files: make's
 * arguments with this grade's tag taken out, the kit's objects, the lab,
 * the environment less the scratch folder's name and the PATH, for which
 * the tools it finds stand, and less the variables named in `unread` (a
 * space-separated list).  Added to `facts` from `n`; returns the count. */
static int build_facts(const build_plan *plan, const grade_lab *lab, const char **facts, int n, const char *unread)
{
    char *argv[40];
    int argc = make_arguments(argv, plan->backend);
    for (int i = 0; i < argc && n < 40; i++)
        facts[n++] = argv[i];
    for (char **o = kit_objects(plan->backend, lab); *o && n < 52; o++)
        facts[n++] = *o;
    facts[n++] = lab->dir;
    char **env = build_environment();
    const char *path = "";
    for (int i = 0; env[i] && n < 56; i++)
        if (strncmp(env[i], "PATH=", 5) == 0)
            path = env[i] + 5;
        else if (strncmp(env[i], "HOME=", 5) != 0 && strncmp(env[i], "TMPDIR=", 7) != 0
                 && !strstr(unread, str_printf(" %.*s ", (int)strcspn(env[i], "="), env[i])))
            facts[n++] = env[i];
    static const char *const tools[] = {"make", "g++", "gcc", "c++", "cc", "perl", "as", "ld", "nvcc", NULL};
    for (int i = 0; tools[i] && n < 66; i++)
        facts[n++] = build_cache_tool(tools[i], path);
    return n;
}

/* CUDALABS_NVCC_CHECK=no: the caller compiles these very files with nvcc
 * elsewhere (check-mutants' versions are compiled in check-nvcc), so nvcc's
 * front check is left out of their builds. */
static int nvcc_check_off(void)
{
    const char *v = getenv("CUDALABS_NVCC_CHECK");
    return v && strcmp(v, "no") == 0;
}

/* The key under which a submission's build is kept (build_cache.h), or NULL:
 * on the cpu backend only (a GPU build makes more outputs, in two builds),
 * and only where the build is walled in by both namespaces and Landlock.
 * What else decides the outputs: build_facts, the time limit, the grader's
 * user id, the Landlock ABI. */
static char *cache_key(const build_plan *plan, const grade_lab *lab, double seconds)
{
    char kit[PATH_MAX];
    if (strcmp(plan->backend, "cpu") != 0 || !getcwd(kit, sizeof kit) || sandbox_abi() == 0
        || !namespaces_available(kit, build_scratch))
        return NULL;
    const char *facts[72];
    int n = build_facts(plan, lab, facts, 0, "");
    facts[n++] = plan->lab_programs ? "lab programs" : "no lab programs";
    facts[n++] = str_printf("%.3f s", seconds);
    facts[n++] = str_printf("uid %ld", (long)geteuid()); /* (the runner user's name does not change what is built) */
    facts[n++] = str_printf("Landlock %d", sandbox_abi());
    if (nvcc_check_off())
        facts[n++] = "no nvcc front check"; /* (a build without the check is not one with it) */
    facts[n] = NULL;
    return build_cache_key(build_scratch, submission_name, facts);
}

/* nvcc's front check (common/cpu/cpu.mk front_check) passed on these files:
 * the key under which that is kept, or NULL where there is no cache (the cpu
 * backend only).  The verdict follows from what nvcc reads (the
 * submission's files, the kit's headers and build files: the scratch
 * folder's files) and the tools, whatever the walls, the time limit or the
 * lab programs; it is kept only from a build walled in (build_submission),
 * where nvcc read nothing else, and then spares nvcc to every later build of
 * the same files by this user (in other walls: the same submission graded
 * again without Landlock or namespaces).  The build itself still runs. */
static char *front_check_key(const build_plan *plan, const grade_lab *lab)
{
    if (strcmp(plan->backend, "cpu") != 0)
        return NULL;
    const char *facts[72];
    facts[0] = "nvcc front check passed";
    /* (the GPU's toolkit folder: the cpu backend's build does not read it, and
     * nvcc runs the same commands with or without it; a grade as another
     * user, whose environment was reset, may lack it) */
    int n = build_facts(plan, lab, facts, 1, " CUDA_HOME CUDA_PATH ");
    facts[n] = NULL;
    return build_cache_key(build_scratch, submission_name, facts);
}

/* A submission's build: its files read in, built in the scratch folder,
 * what the grader needs copied back to build/<backend>/submissions/<tag>. */
static void build_submission(const build_plan *plan, const grade_lab *lab, lab_build *out)
{
    const char *backend = plan->backend;
    char *parent = str_printf("build/%s/submissions", backend);
    mkdir(str_printf("build/%s", backend), 0755);
    mkdir(parent, 0755);
    submission_build = str_printf("%s/XXXXXXXX", parent);
    if (!mkdtemp(submission_build))
        kit_fault("cannot make a folder in %s", parent, NULL);
    submission_tag = str_dup(strrchr(submission_build, '/') + 1);
    submission_name = str_printf("submission.%s", submission_tag);
    scratch_make(backend, lab);
    char looked_for[1024], *copy_dir = str_printf("%s/%s", build_scratch, submission_name);
    if (intake(plan->student_dir, lab, copy_dir, looked_for, sizeof looked_for) == 0) {
        char *what = str_printf("%s holds no file of %s (looked for: %s); nothing to grade", plan->student_dir,
                                lab->dir, looked_for);
        kit_fault("%s", what, NULL);
    }
    char *base = str_printf("%s/%s", submission_build, lab->dir);
    mkdir(base, 0755);
    const char *limit = getenv("STUDENT_BUILD_SECONDS");
    double seconds = limit && atof(limit) > 0 ? atof(limit) : STUDENT_BUILD_SECONDS;
    char *log = str_printf("build/logs/%s-%s-student.log", submission_tag, lab->dir);
    if (!plan->quiet)
        fprintf(stderr, "building %s for %s (%s backend)...\n", plan->student_dir, lab->dir, backend);
    /* the same paths in the scratch folder as in the kit */
    out->student_so = str_printf("%s/student.so", base);
    char *sass = strcmp(backend, "gpu") == 0 ? str_printf("%s/student.sass", base) : NULL;
    char *key = cache_key(plan, lab, seconds), *front_key = front_check_key(plan, lab);
    int front_check_off = nvcc_check_off();
    front_check_passed = front_check_off || (front_key && build_cache_fetch(front_key, NULL, 0));
    const char *kept[2] = {out->student_so, str_printf("%s/lab", base)};
    if (key && build_cache_fetch(key, kept, plan->lab_programs ? 2 : 1)) {
        if (plan->lab_programs && access(kept[1], X_OK) == 0)
            out->student_program = (char *)kept[1];
        if (!plan->quiet)
            fprintf(stderr, "(the same files were built before, in the same walls: that build is used)\n");
        return;
    }
    if (front_check_passed && !front_check_off && !plan->quiet)
        fprintf(stderr, "(nvcc's check passed on the same files before: it is not run again)\n");
    int status = student_make(backend, lab, seconds, out->student_so, sass, log);
    if (status != 0 || scratch_take_back(out->student_so, out->student_so) != 0) {
        out->failed_log = log;
        return;
    }
    if (sass)
        scratch_take_back(sass, sass); /* none where cuobjdump is missing */
    if (plan->lab_programs) {
        char *program = str_printf("%s/lab", base), *program_log = str_printf("%s.program", log);
        if (student_make(backend, lab, seconds, program, NULL, program_log) == 0 && scratch_take_back(program, program) == 0)
            out->student_program = program;
        if (strcmp(backend, "gpu") == 0)
            out->student_cpu_program = submission_cpu_program(lab, seconds, str_printf("%s.cpu-program", log));
    }
    if (key)
        build_cache_store(key, kept, plan->lab_programs ? 2 : 1);
    if (key && front_key && !front_check_passed)
        build_cache_store(front_key, NULL, 0); /* (walled in: nvcc read nothing but the key's files) */
}

/* ---- one lab ----------------------------------------------------------------------------- */

/* The reference runner: built here in the full kit, prebuilt (make dist)
 * in a student copy, with the lab program's main.o a submission's build
 * reads.  With --solution the same make (one start of make, not three)
 * builds the reference's shared object too, and on a GPU its machine code
 * (the %.sass rule never fails: none where cuobjdump is missing).  Returns
 * whether this is the full kit (it has the solutions). */
static int build_reference(const build_plan *plan, const grade_lab *lab, lab_build *out, const char *reference_log)
{
    const char *backend = plan->backend;
    char *solutions = str_printf("solutions/%s", lab->dir);
    /* what a submission's build reads from the kit's own build (a lab
     * without a program, such as the tests' fixture, has none) */
    char *main_c = str_printf("labs/%s/main.c", lab->dir);
    char *main_o = access(main_c, R_OK) == 0 ? str_printf("build/%s/%s/main.o", backend, lab->dir) : NULL;
    struct stat st;
    int full_kit = stat(solutions, &st) == 0;
    if (full_kit) {
        if (!plan->quiet)
            fprintf(stderr, "building the reference of %s (%s backend)...\n", lab->dir, backend);
        out->reference_runner = str_printf("build/%s/%s/reference-runner", backend, lab->dir);
        const char *targets[4] = {out->reference_runner, main_o, NULL, NULL};
        if (plan->solution) {
            out->student_so = str_printf("build/%s/%s/reference.so", backend, lab->dir);
            targets[2] = out->student_so;
            targets[3] = strcmp(backend, "gpu") == 0 ? str_printf("build/gpu/%s/reference.sass", lab->dir) : NULL;
        } else if (plan->reference_program && main_o) {
            targets[2] = out->reference_program = str_printf("build/%s/%s/lab-solution", backend, lab->dir);
        }
        if (kit_make_all(backend, targets, reference_log) != 0 || access(out->reference_runner, X_OK) != 0) {
            char *what = str_printf("the reference solution of %s does not build on the %s backend (a problem of the "
                                    "kit, not of your code); %s says:", lab->dir, backend, reference_log);
            kit_fault("%s", what, reference_log);
        }
    } else {
        /* a student copy: the reference runner built by make dist */
        out->reference_runner = str_printf("prebuilt/%s/%s/reference-runner", backend, lab->dir);
        if (access(out->reference_runner, X_OK) != 0) {
            char *what = str_printf("no reference for %s: there is neither solutions/%s nor %s", lab->dir, lab->dir,
                                    out->reference_runner);
            kit_fault("%s", what, NULL);
        }
        if (main_o)
            kit_make(backend, main_o, NULL, reference_log);
    }
    return full_kit;
}

/* --solution: the reference graded as a student's code: its shared object,
 * which only the full kit builds (a student copy's reference exports nothing). */
static void build_solution_as_student(const build_plan *plan, const grade_lab *lab, lab_build *out, int full_kit,
                                      const char *reference_log)
{
    const char *backend = plan->backend;
    if (!full_kit) {
        char *what = str_printf("--solution grades the reference solution, and this student copy has none "
                                "(no solutions/%s): grade your own code with ./grader %s", lab->dir, lab->dir);
        kit_fault("%s", what, NULL);
    }
    /* built with the reference runner (build_reference) */
    if (access(out->student_so, R_OK) != 0) {
        char *what = str_printf("the reference solution of %s does not build on the %s backend (a problem of the "
                                "kit, not of your code); %s says:", lab->dir, backend, reference_log);
        kit_fault("%s", what, reference_log);
    }
    char *program = str_printf("build/%s/%s/lab-solution", backend, lab->dir);
    if (plan->lab_programs && kit_make(backend, program, NULL, reference_log) == 0)
        out->student_program = program;
    if (plan->reference_program)
        out->reference_program = out->student_program;
    char *cpu_program = str_printf("build/cpu/%s/lab-solution", lab->dir); /* (see submission_cpu_program) */
    if (plan->lab_programs && strcmp(backend, "gpu") == 0 && kit_make("cpu", cpu_program, NULL, reference_log) == 0)
        out->student_cpu_program = cpu_program;
}

/* The student's code in labs/<lab>, built by the kit's make with a time limit. */
static void build_labs_folder(const build_plan *plan, const grade_lab *lab, lab_build *out)
{
    const char *backend = plan->backend;
    char *student_base = str_printf("build/%s/%s", backend, lab->dir);
    char *log = str_printf("build/logs/%s-student.log", lab->dir);
    make_run how = {NULL, STUDENT_BUILD_SECONDS, 0};
    if (!plan->quiet)
        fprintf(stderr, "building your code for %s (%s backend)...\n", lab->dir, backend);
    out->student_so = str_printf("%s/student.so", student_base);
    how.log = log;
    /* on a GPU, with the machine code of its kernels, which the grader reads */
    char *sass = strcmp(backend, "gpu") == 0 ? str_printf("%s/student.sass", student_base) : NULL;
    const char *so_targets[4] = {out->student_so, sass, NULL, NULL};
    int status = run_make(&how, backend, so_targets);
    if (status != 0 || access(out->student_so, R_OK) != 0) {
        out->failed_log = log;
        return;
    }
    if (plan->lab_programs) {
        char *program = str_printf("%s/lab", student_base);
        how.log = str_printf("%s.program", log);
        const char *program_targets[4] = {program, NULL, NULL, NULL};
        if (run_make(&how, backend, program_targets) == 0)
            out->student_program = program;
        char *cpu_program = str_printf("build/cpu/%s/lab", lab->dir); /* (see submission_cpu_program) */
        how.log = str_printf("%s.cpu-program", log);
        const char *cpu_targets[4] = {cpu_program, NULL, NULL, NULL};
        if (strcmp(backend, "gpu") == 0 && run_make(&how, "cpu", cpu_targets) == 0)
            out->student_cpu_program = cpu_program;
    }
}

void build_lab(const build_plan *plan, const grade_lab *lab, lab_build *out)
{
    memset(out, 0, sizeof *out);
    mkdir("build", 0755);
    mkdir("build/logs", 0755);
    char *reference_log = str_printf("build/logs/%s-reference.log", lab->dir);
    int full_kit = build_reference(plan, lab, out, reference_log);
    if (plan->solution)
        build_solution_as_student(plan, lab, out, full_kit, reference_log);
    else if (plan->student_dir)
        build_submission(plan, lab, out);
    else
        build_labs_folder(plan, lab, out);
}

/* Removes `name` in folder `dir` and, for a folder, everything in it,
 * never through a link: a build's scratch folder is the runner user's, and
 * a link it left there must not lead the removal into the kit. */
static void remove_at(int dir, const char *name)
{
    if (unlinkat(dir, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
        return;
    DIR *d = contain_open_folder(dir, name, O_NOFOLLOW);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_at(dirfd(d), e->d_name);
    closedir(d);
    unlinkat(dir, name, AT_REMOVEDIR);
}

static void remove_tree(const char *path) { remove_at(AT_FDCWD, path); }

void build_cleanup(void)
{
    if (build_scratch)
        remove_tree(build_scratch);
    if (submission_build)
        remove_tree(submission_build);
    if (submission_cpu_build)
        remove_tree(submission_cpu_build);
    build_scratch = submission_build = submission_cpu_build = NULL;
}

void build_remove_tree(const char *path) { remove_tree(path); }
