/* build.c: see build.h.  make does the compiling; this file decides what to
 * build, runs make without a shell in between (any path is safe), and turns
 * what went wrong into a message that names whose fault it is. */
#include "build.h"
#include "grader.h"
#include "contain.h"
#include "sandbox.h"
#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STUDENT_BUILD_SECONDS 300 /* the default time limit of a submission's build */

static char *submission_copy;   /* build/submissions/<tag> */
static char *submission_build;  /* build/<backend>/submissions/<tag> */

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
    const char *path = getenv("PATH");
    char *copy = str_dup(path ? path : ""), *save = NULL;
    int found = 0;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *full = str_printf("%s/%s", dir, program);
        found = access(full, X_OK) == 0;
        free(full);
    }
    free(copy);
    return found;
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

typedef struct {
    const char *log;               /* stdout and stderr go here */
    double seconds;                /* 0: no limit */
    const char *const *readable;   /* with `writable`: run in the sandbox */
    const char *writable;
    int locked;                    /* a kit build: take the build lock */
} make_run;

/* make -s BACKEND=... VARIABLES... TARGET [ALSO]; returns its exit status
 * (124 when stopped by the time limit). */
static int run_make(const make_run *how, const char *backend, const char *target, const char *also,
                    const char *const vars[])
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "make";
    argv[argc++] = "-s";
    argv[argc++] = "--no-print-directory";
    argv[argc++] = str_printf("BACKEND=%s", backend);
    for (int i = 0; vars && vars[i] && argc < 13; i++)
        argv[argc++] = (char *)vars[i];
    argv[argc++] = (char *)target;
    if (also)
        argv[argc++] = (char *)also;
    argv[argc] = NULL;

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
        if (how->writable) {
            const char *writable[] = {how->writable, NULL}, *listable[] = {".", NULL};
            setenv("TMPDIR", how->writable, 1); /* the compilers' temporary files */
            sandbox_enter(how->readable, writable, listable);
        }
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
    make_run how = {log, 0, NULL, NULL, 1};
    return run_make(&how, backend, target, also, NULL);
}

/* ---- a submission -------------------------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buffer[1 << 16];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buffer, 1, sizeof buffer, in)) > 0)
        ok = fwrite(buffer, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* Copies the lab's files found in the submission's folder into a fresh,
 * plainly named folder; returns how many it found. */
static int copy_submission(const char *from, const grade_lab *lab, char *names, size_t size)
{
    if (!submission_copy) {
        mkdir("build/submissions", 0755);
        submission_copy = str_dup("build/submissions/XXXXXXXX");
        if (!mkdtemp(submission_copy))
            kit_fault("cannot make a folder in build/submissions: %s", strerror(errno), NULL);
    }
    char *lab_dir = str_printf("labs/%s", lab->dir);
    DIR *d = opendir(lab_dir);
    struct dirent *e;
    int found = 0;
    names[0] = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0)
            continue;
        snprintf(names + strlen(names), size - strlen(names), "%s%s", names[0] ? ", " : "", e->d_name);
        char *source = str_printf("%s/%s", from, e->d_name), *copy = str_printf("%s/%s", submission_copy, e->d_name);
        struct stat st;
        if (stat(source, &st) == 0 && S_ISREG(st.st_mode)) {
            if (copy_file(source, copy) != 0)
                kit_fault("cannot copy %s", source, NULL);
            found++;
        }
        free(source);
        free(copy);
    }
    if (d)
        closedir(d);
    free(lab_dir);
    return found;
}

/* Removes every "<submission copy>/" from the log: messages name the file alone. */
static void plain_names_in_log(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char *text = NULL;
    size_t size = 0;
    FILE *all = open_memstream(&text, &size);
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, f)) > 0)
        fwrite(buffer, 1, n, all);
    fclose(f);
    fclose(all);
    char *prefix = str_printf("%s/", submission_copy);
    f = fopen(log, "w");
    for (char *p = text; f && p && *p;) {
        char *hit = strstr(p, prefix);
        if (!hit) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(hit - p), f);
        p = hit + strlen(prefix);
    }
    if (f)
        fclose(f);
    free(prefix);
    free(text);
}

/* The compilers and the system's headers, the kit's top level minus what a
 * submission must never read, and the parts of the kit's own build that its
 * link needs. */
static const char *const *submission_readable(const char *backend, const grade_lab *lab)
{
    static const char *list[128];
    static const char *const tools[] = {"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/include", "/usr/local/bin",
                                        "/usr/local/include", "/usr/local/cuda", "/usr/local/nvidia", NULL};
    static const char *const hidden[] = {"solutions", "grading", "prebuilt", "build", "tests", "dist", "docs",
                                         "handouts", "bench", ".git", ".", "..", NULL};
    int n = 0;
    for (int i = 0; tools[i]; i++)
        list[n++] = tools[i];
    /* the compilers on the PATH, where they lie outside the kit */
    char here[PATH_MAX], *path = str_dup(getenv("PATH") ? getenv("PATH") : "");
    if (getcwd(here, sizeof here))
        for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir && n < 60; dir = strtok_r(NULL, ":", &save))
            if (!sandbox_overlaps(dir, here))
                list[n++] = dir;
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 110) {
        int secret = 0;
        for (int i = 0; hidden[i]; i++)
            secret |= strcmp(e->d_name, hidden[i]) == 0;
        if (!secret)
            list[n++] = str_dup(e->d_name);
    }
    if (d)
        closedir(d);
    list[n++] = submission_copy;
    list[n++] = str_printf("build/%s/harness", backend);
    list[n++] = str_printf("build/%s/emu", backend);
    list[n++] = str_printf("build/%s/%s/main.o", backend, lab->dir);
    list[n] = NULL;
    return list;
}

/* ---- one lab ----------------------------------------------------------------------------- */

void build_lab(const build_plan *plan, const grade_lab *lab, lab_build *out)
{
    const char *backend = plan->backend;
    memset(out, 0, sizeof *out);
    mkdir("build", 0755);
    mkdir("build/logs", 0755);
    char *reference_log = str_printf("build/logs/%s-reference.log", lab->dir);
    char *solutions = str_printf("solutions/%s", lab->dir);
    /* what a submission's build reads from the kit's own build (a lab
     * without a program, such as the tests' fixture, has none) */
    char *main_c = str_printf("labs/%s/main.c", lab->dir);
    char *main_o = access(main_c, R_OK) == 0 ? str_printf("build/%s/%s/main.o", backend, lab->dir) : NULL;
    struct stat st;
    if (stat(solutions, &st) == 0) {
        if (!plan->quiet)
            fprintf(stderr, "building the reference of %s (%s backend)...\n", lab->dir, backend);
        out->reference_so = str_printf("build/%s/%s/reference.so", backend, lab->dir);
        if (kit_make(backend, out->reference_so, main_o, reference_log) != 0 || access(out->reference_so, R_OK) != 0) {
            char *what = str_printf("the reference solution of %s does not build on the %s backend (a problem of the "
                                    "kit, not of your code); %s says:", lab->dir, backend, reference_log);
            kit_fault("%s", what, reference_log);
        }
    } else {
        out->reference_so = str_printf("prebuilt/%s/%s/reference.so", backend, lab->dir); /* a student copy */
        if (access(out->reference_so, R_OK) != 0) {
            char *what = str_printf("no reference for %s: there is neither solutions/%s nor %s", lab->dir, lab->dir,
                                    out->reference_so);
            kit_fault("%s", what, NULL);
        }
        if (main_o)
            kit_make(backend, main_o, NULL, reference_log);
    }

    if (plan->solution) {
        out->student_so = str_dup(out->reference_so);
        if (strcmp(backend, "gpu") == 0 && stat(solutions, &st) == 0) /* its machine code (the grader reads it) */
            kit_make(backend, str_printf("build/gpu/%s/reference.sass", lab->dir), NULL, reference_log);
        char *program = str_printf("build/%s/%s/lab-solution", backend, lab->dir);
        if (plan->lab_programs && kit_make(backend, program, NULL, reference_log) == 0)
            out->student_program = program;
        return;
    }

    char *tag_var = NULL, *dir_var = NULL, *student_base;
    char *log;
    make_run how = {NULL, 0, NULL, NULL, 0};
    if (plan->student_dir) {
        char names[1024];
        if (copy_submission(plan->student_dir, lab, names, sizeof names) == 0) {
            char *what = str_printf("%s holds no file of %s (looked for: %s); nothing to grade", plan->student_dir,
                                    lab->dir, names);
            kit_fault("%s", what, NULL);
        }
        const char *tag = strrchr(submission_copy, '/') + 1;
        submission_build = str_printf("build/%s/submissions/%s", backend, tag);
        char *parent = str_printf("build/%s/submissions", backend);
        mkdir(str_printf("build/%s", backend), 0755);
        mkdir(parent, 0755);
        mkdir(submission_build, 0755);
        student_base = str_printf("%s/%s", submission_build, lab->dir);
        tag_var = str_printf("STUDENT_TAG=%s", tag);
        dir_var = str_printf("STUDENT_DIR=%s", submission_copy);
        log = str_printf("build/logs/%s-%s-student.log", tag, lab->dir);
        const char *limit = getenv("STUDENT_BUILD_SECONDS");
        how.seconds = limit && atof(limit) > 0 ? atof(limit) : STUDENT_BUILD_SECONDS;
        how.readable = submission_readable(backend, lab);
        how.writable = submission_build;
        if (!plan->quiet)
            fprintf(stderr, "building %s for %s (%s backend)...\n", plan->student_dir, lab->dir, backend);
    } else {
        student_base = str_printf("build/%s/%s", backend, lab->dir);
        log = str_printf("build/logs/%s-student.log", lab->dir);
        how.seconds = STUDENT_BUILD_SECONDS;
        if (!plan->quiet)
            fprintf(stderr, "building your code for %s (%s backend)...\n", lab->dir, backend);
    }
    const char *vars[] = {dir_var, tag_var, NULL};
    out->student_so = str_printf("%s/student.so", student_base);
    how.log = log;
    /* on a GPU, with the machine code of its kernels, which the grader reads */
    char *sass = strcmp(backend, "gpu") == 0 ? str_printf("%s/student.sass", student_base) : NULL;
    int status = run_make(&how, backend, out->student_so, sass, dir_var ? vars : NULL);
    if (submission_copy)
        plain_names_in_log(log);
    if (status != 0 || access(out->student_so, R_OK) != 0) {
        out->failed_log = log;
        return;
    }
    if (plan->lab_programs) {
        char *program = str_printf("%s/lab", student_base);
        how.log = str_printf("%s.program", log);
        if (run_make(&how, backend, program, NULL, dir_var ? vars : NULL) == 0)
            out->student_program = program;
    }
}

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char *child = str_printf("%s/%s", path, e->d_name);
                remove_tree(child);
                free(child);
            }
        closedir(dir);
        rmdir(path);
    } else {
        unlink(path);
    }
}

void build_cleanup(void)
{
    if (submission_copy)
        remove_tree(submission_copy);
    if (submission_build)
        remove_tree(submission_build);
    submission_copy = submission_build = NULL;
}

void build_remove_tree(const char *path) { remove_tree(path); }
