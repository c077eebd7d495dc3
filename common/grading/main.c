/* main.c: the grader program (build/host/grader).  The ./grader script only
 * makes sure this program is built, then hands it the command line; this
 * program owns the rest: its options, the builds (build.c), and the grading.
 *
 *   grader [options] LAB...      grade (LAB: lab3, 3, folding, lab3-folding or all)
 *   grader list                  the labs and their items
 *   grader --help                the options people use
 *
 * For tests and platforms it also takes what to grade directly, building
 * nothing: --student-so=LAB:PATH, --reference-runner=LAB:PATH (a reference
 * runner, the program make builds as build/<backend>/<lab>/reference-runner)
 * or --reference-so=LAB:PATH (a shared object that the kit's runner loads,
 * for the kit's tests), --student-program=LAB:PATH, --build-failed=LAB:LOG.
 *
 * Exit status: 0 full marks, 1 points lost, 2 could not grade. */
#include "grader.h"
#include "build.h"
#include "contain.h"
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "grader: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(2);
}

static void usage(FILE *out)
{
    fputs("Usage: ./grader [options] LAB...      grade your code (LAB: lab3, 3, folding, lab3-folding, or all)\n"
          "       ./grader list                  the labs and what each one grades\n"
          "Options:\n"
          "  --solution           grade the reference solution instead of your code\n"
          "  --backend=gpu|cpu    gpu: a real NVIDIA GPU; cpu: the kit's emulation (default: gpu where present)\n"
          "  --seed=S             replay a run: the same inputs as the run that printed seed S\n"
          "  --only=ITEM[,ITEM]   grade only these items (names as ./grader list shows them)\n"
          "  --devices=N          N devices: on the cpu backend, N emulated ones (CUDAEMU_DEVICES) for every item\n"
          "                       that does not choose its own; on a GPU, the first N GPUs (an error beyond those present)\n"
          "  --verbose            show notes of passing items and your code's output (on stderr)\n"
          "  --format=F           also write results as text, tap, junit, json, gradescope, prairielearn or html\n"
          "  --out=FILE           write the results there (default: stdout; the report then goes to stderr)\n"
          "  --report-dir=DIR     write the HTML report labN.html there (default: build/report; one per grading\n"
          "                       run when several run in one copy of the kit at once)\n"
          "  --student-dir=DIR    grade the lab's .cu files found anywhere in DIR (a submission) instead of labs/LAB/;\n"
          "                       each once, as regular files (a link or a second copy is refused)\n"
          "  --color=auto|always|never\n"
          "  --runner-user=NAME   as root: the unprivileged user that runs student code (default: cudalabs, else nobody)\n"
          "  --hidden-items=ITEM[,ITEM]  gradescope: these items stay hidden from students until grades are published\n"
          "  --require-walls      grade nothing (exit 2) where the sandbox is below the minimum a grade needs:\n"
          "                       a seccomp filter, and namespaces or a runner user (the platform packages set it)\n"
          "Exit status: 0 full marks, 1 points lost, 2 could not grade (build error, unknown lab, no item run).\n"
          "On a slow machine, CK_TIMEOUT_MULTIPLIER=2 ./grader ... gives every item twice its time (1 to 20).\n"
          "Student code runs in separate runner processes, sandboxed where the kernel allows.\n",
          out);
}

/* The full path of `program` on the PATH, or NULL. */
static char *on_path(const char *program) { return path_find(program, NULL); }

/* The backend with no --backend: the rule of tools/detect-backend.sh (which
 * the Makefile asks), without its two processes where nvcc or nvidia-smi is
 * missing, as on every machine without a GPU. */
static const char *detect_backend(void)
{
    char *nvcc = on_path("nvcc"), *smi = on_path("nvidia-smi");
    int both = nvcc && smi;
    free(nvcc);
    free(smi);
    if (!both)
        return "cpu";
    FILE *p = popen("nvidia-smi -L 2>/dev/null", "r");
    char line[256];
    int gpu = 0;
    while (p && fgets(line, sizeof line, p))
        gpu |= strncmp(line, "GPU ", 4) == 0;
    if (p)
        pclose(p);
    return gpu ? "gpu" : "cpu";
}

/* `path` (relative to where the grader was started) made absolute. */
static char *from_start(const char *start, const char *path)
{
    return path[0] == '/' ? str_dup(path) : str_printf("%s/%s", start, path);
}

static int lab_count(void)
{
    int n = 0;
    while (grade_labs[n])
        n++;
    return n;
}

static const char *short_name(const grade_lab *lab, char *buffer, size_t size)
{
    snprintf(buffer, size, "lab%d", lab->number);
    return buffer;
}

/* lab3, 3, folding, lab3-folding, labs/lab3-folding/ */
static const grade_lab *find_lab(const char *name)
{
    char wanted[256], buffer[32];
    snprintf(wanted, sizeof wanted, "%s", strncmp(name, "labs/", 5) == 0 ? name + 5 : name);
    size_t len = strlen(wanted);
    while (len && wanted[len - 1] == '/')
        wanted[--len] = 0;
    for (int i = 0; grade_labs[i]; i++) {
        const grade_lab *lab = grade_labs[i];
        if (strcmp(wanted, lab->dir) == 0 || strcmp(wanted, lab->name) == 0
            || strcmp(wanted, short_name(lab, buffer, sizeof buffer)) == 0
            || strcmp(wanted, buffer + 3) == 0)
            return lab;
    }
    return NULL;
}

static void unknown_lab(const char *name)
{
    fprintf(stderr, "grader: no lab named %s; the labs are:", name);
    for (int i = 0; grade_labs[i]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", grade_labs[i]->dir);
    if (!grade_labs[0])
        fprintf(stderr, " (none yet)");
    fprintf(stderr, "\n");
    exit(2);
}

/* "LAB:VALUE" options: the value for lab directory `dir`, or NULL. */
typedef struct { const char *lab; const char *value; } lab_value;

static const char *value_for(const lab_value *values, int n, const grade_lab *lab)
{
    for (int i = 0; i < n; i++)
        if (find_lab(values[i].lab) == lab)
            return values[i].value;
    return NULL;
}

static lab_value parse_lab_value(const char *option, const char *text)
{
    const char *colon = strchr(text, ':');
    if (!colon || colon == text || !colon[1])
        usage_error("%s wants LAB:PATH", option);
    lab_value v = {strndup(text, (size_t)(colon - text)), colon + 1};
    if (!find_lab(v.lab))
        unknown_lab(v.lab);
    return v;
}

static const char **split_names(const char *list)
{
    char *copy = str_dup(list);
    int n = 1;
    for (const char *p = copy; *p; p++)
        n += *p == ',';
    const char **names = calloc((size_t)n + 1, sizeof *names);
    int k = 0;
    for (char *save = NULL, *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
        names[k++] = name;
    return names;
}

static unsigned long long fresh_seed(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    unsigned long long x = (unsigned long long)t.tv_nsec ^ ((unsigned long long)t.tv_sec << 20) ^ (unsigned long long)getpid() * 2654435761ull;
    x ^= x >> 29;
    return x % 1000000ull; /* short enough to type */
}

/* The folder of this program (the runner sits beside it). */
static char *program_folder(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "grader: cannot find where the grader program is\n");
        exit(2);
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    return str_dup(self);
}

static char *absolute_path(const char *path)
{
    char full[PATH_MAX];
    return realpath(path, full) ? str_dup(full) : str_dup(path);
}

/* Copies `from` to a new file `to` (never an existing one) with `mode`; a
 * failure ends the grader (exit 2: the kit's fault, not the student's). */
static void copy_new_file(const char *from, const char *to, mode_t mode, int give_to_runner)
{
    FILE *in = fopen(from, "rb");
    int out = in ? open(to, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL | O_CLOEXEC, mode) : -1;
    if (!in || out < 0) {
        fprintf(stderr, "grader: cannot copy %s to %s: %s\n", from, to, strerror(errno));
        exit(2);
    }
    char buffer[1 << 16];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
        if (write(out, buffer, n) != (ssize_t)n) {
            fprintf(stderr, "grader: cannot write %s\n", to);
            exit(2);
        }
    fclose(in);
    if (give_to_runner)
        contain_give_folder(to);
    fchmod(out, mode); /* whatever the umask */
    close(out);
}

/* Copies `from` into the scratch folder as `name`, for the runner user to
 * read (as root the kit's own folders are out of its reach). */
static char *copy_for_runner(const char *scratch, const char *from, const char *name)
{
    char *to = str_printf("%s/%s", scratch, name);
    copy_new_file(from, to, 0500, contain_drops_privilege());
    return to;
}

/* The kit's runner as the student's side runs it: a copy named as the lab
 * program, <scratch>/build/<backend>/<lab>/lab, so that /proc/self/exe and
 * /proc/self/comm say "lab" as the lab program's do (runner.c).  The
 * grader's own (root's, as root): the runner user may run it, never change it. */
static char *runner_named_as_lab(const char *scratch, const char *runner, const char *backend, const char *lab_dir)
{
    char *folder = str_printf("%s/build", scratch);
    mkdir(folder, 0755);
    char *next = str_printf("%s/%s", folder, backend);
    free(folder);
    mkdir(next, 0755);
    folder = str_printf("%s/%s", next, lab_dir);
    free(next);
    mkdir(folder, 0755);
    char *to = str_printf("%s/lab", folder);
    free(folder);
    copy_new_file(runner, to, 0555, 0);
    return to;
}

/* Timeouts can be made longer for a slow machine, never switched off. */
static double time_scale(void)
{
    const char *text = getenv("CK_TIMEOUT_MULTIPLIER");
    double scale = text ? atof(text) : 1;
    unsetenv("CK_TIMEOUT_MULTIPLIER");
    unsetenv("CK_DEFAULT_TIMEOUT");
    return scale >= 1 && scale <= 20 ? scale : 1;
}

/* The results in one format, for write_file_whole. */
typedef struct {
    const char *format;
    const grade_run *run;
} results;

static int write_format(FILE *out, const void *context)
{
    const results *r = context;
    return formats_write(out, r->format, r->run);
}

/* The results to stdout, or to `path` whole (the old file or the new one,
 * never part of it). */
static int write_results(const char *path, const char *format, const grade_run *run)
{
    if (!path)
        return formats_write(stdout, format, run);
    results r = {format, run};
    return write_file_whole(path, write_format, &r);
}

/* ---- the command line ---------------------------------------------------------------- */

typedef struct {
    const char *format, *out_path, *report_dir, *color, *only, *seed;
    const char *runner_user, *student_dir, *backend;
    int devices; /* --devices=N, 0: as the machine (or CUDAEMU_DEVICES) has it */
    const char *const *hidden_items;
    int verbose, solution, require_walls;
    /* what to grade directly, building nothing (tests and platforms) */
    lab_value students[64], references[64], reference_runners[64], failed[64], programs[64];
    int n_students, n_references, n_reference_runners, n_failed, n_programs;
    const grade_lab *chosen[64];
    int n_chosen;
} options;

static void add_lab_value(lab_value *values, int *n, const char *option, const char *text)
{
    if (*n < 64)
        values[(*n)++] = parse_lab_value(option, text);
}

/* A lab named on the command line ("all": every lab), each once. */
static void choose_lab(options *o, const char *name)
{
    if (strcmp(name, "all") == 0) {
        for (int k = 0; grade_labs[k] && o->n_chosen < 64; k++)
            o->chosen[o->n_chosen++] = grade_labs[k];
        return;
    }
    const grade_lab *lab = find_lab(name);
    if (!lab)
        unknown_lab(name);
    int seen = 0;
    for (int k = 0; k < o->n_chosen; k++)
        seen |= o->chosen[k] == lab;
    if (!seen && o->n_chosen < 64)
        o->chosen[o->n_chosen++] = lab;
}

/* The options that take a value ("--name=value"); 0 when `a` is none of them. */
static int value_option(options *o, const char *start, const char *a)
{
#define OPTION(name) (strncmp(a, name "=", sizeof name) == 0 ? (a + sizeof name) : NULL)
    const char *v;
    if ((v = OPTION("--student-dir"))) {
        o->student_dir = from_start(start, v);
    } else if ((v = OPTION("--student-so"))) {
        add_lab_value(o->students, &o->n_students, "--student-so", v);
    } else if ((v = OPTION("--reference-so"))) {
        add_lab_value(o->references, &o->n_references, "--reference-so", v);
    } else if ((v = OPTION("--reference-runner"))) {
        add_lab_value(o->reference_runners, &o->n_reference_runners, "--reference-runner", v);
    } else if ((v = OPTION("--student-program"))) {
        add_lab_value(o->programs, &o->n_programs, "--student-program", v);
    } else if ((v = OPTION("--runner-user"))) {
        o->runner_user = v;
    } else if ((v = OPTION("--build-failed"))) {
        add_lab_value(o->failed, &o->n_failed, "--build-failed", v);
    } else if ((v = OPTION("--backend"))) {
        if (strcmp(v, "gpu") != 0 && strcmp(v, "cpu") != 0)
            usage_error("--backend is gpu or cpu, not %s", v);
        o->backend = v;
    } else if ((v = OPTION("--devices"))) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < 1 || n > 64)
            usage_error("--devices wants a number of devices from 1 to 64, not %s", v);
        o->devices = (int)n;
    } else if ((v = OPTION("--seed"))) {
        o->seed = v;
    } else if ((v = OPTION("--only"))) {
        o->only = v;
    } else if ((v = OPTION("--hidden-items"))) {
        o->hidden_items = split_names(v);
    } else if ((v = OPTION("--format"))) {
        if (!formats_known(v))
            usage_error("unknown format %s (text, tap, junit, json, gradescope, prairielearn, html)", v);
        o->format = v;
    } else if ((v = OPTION("--out"))) {
        o->out_path = from_start(start, v);
    } else if ((v = OPTION("--report-dir"))) {
        o->report_dir = from_start(start, v);
    } else if ((v = OPTION("--color")) || (v = OPTION("--colour"))) {
        if (strcmp(v, "auto") != 0 && strcmp(v, "always") != 0 && strcmp(v, "never") != 0)
            usage_error("--color is auto, always or never, not %s", v);
        o->color = v;
    } else {
        return 0;
    }
    return 1;
#undef OPTION
}

/* Reads the command line; `list` and `--help` answer and end here. */
static void parse_options(options *o, const char *start, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0 || strcmp(a, "list") == 0) {
            exit(grade_list(argc - i - 1, argv + i + 1)); /* list.c */
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--solution") == 0) {
            o->solution = 1;
        } else if (strcmp(a, "--require-walls") == 0) {
            o->require_walls = 1;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            o->verbose = 1;
        } else if (value_option(o, start, a)) {
            continue;
        } else if (a[0] == '-') {
            usage_error("unknown option %s (./grader --help lists them)", a);
        } else {
            choose_lab(o, a);
        }
    }
}

static void check_options(const options *o)
{
    if (!o->n_chosen) {
        usage(stderr);
        fprintf(stderr, "grader: which lab? (%s)\n", lab_count() ? "for example: ./grader lab1; ./grader list shows them all" : "no lab has a grading suite yet");
        exit(2);
    }
    if (o->solution && o->student_dir)
        usage_error("--solution and --student-dir exclude each other%s", "");
    struct stat st;
    if (o->student_dir && (stat(o->student_dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        usage_error("--student-dir: %s is not a folder", o->student_dir);
}

/* --only: every name must be an item of a chosen lab (labs left with no
 * item are dropped later). */
static void check_only(const options *o, const char *const *only)
{
    for (const char *const *name = only; *name; name++) {
        int found = 0;
        for (int k = 0; k < o->n_chosen; k++)
            for (int j = 0; j < o->chosen[k]->item_count; j++)
                found |= strcmp(o->chosen[k]->items[j].name, *name) == 0;
        if (!found) {
            fprintf(stderr, "grader: --only=%s matches no item; the items are:", *name);
            for (int k = 0; k < o->n_chosen; k++)
                for (int j = 0; j < o->chosen[k]->item_count; j++)
                    fprintf(stderr, " %s", o->chosen[k]->items[j].name);
            fprintf(stderr, "\n");
            exit(2);
        }
    }
}

/* ---- the run ----------------------------------------------------------------------------- */

/* From here on the kit's folder is the working folder (the program is
 * <kit>/build/host/grader); returns the program's folder. */
static char *enter_kit(void)
{
    char *folder = program_folder();
    char *kit = str_printf("%s/../..", folder);
    if (chdir(kit) != 0) {
        fprintf(stderr, "grader: cannot enter the kit's folder %s: %s\n", kit, strerror(errno));
        exit(2);
    }
    return folder;
}

/* Check obeys these; a stray one would silently drop items. */
static void clear_check_environment(void)
{
    unsetenv("CK_RUN_SUITE");
    unsetenv("CK_RUN_CASE");
    unsetenv("CK_INCLUDE_TAGS");
    unsetenv("CK_EXCLUDE_TAGS");
    unsetenv("CK_FORK");
}

/* The walls, before anything of the submission is built or run: with
 * --require-walls a platform's grade must not rest on walls below the
 * minimum, and a refusal is no grade at all (the packages say so in the
 * platform's terms). */
static void put_up_walls(const options *o)
{
    contain_init(o->runner_user);
    contain_protect_kit();
    if (!o->require_walls)
        return;
    const char *below = contain_walls_below_minimum();
    if (below) {
        fprintf(stderr, "grader: not grading: this host's sandbox is below the minimum a grade needs: %s\n"
                "sandbox: %s\n", below, contain_walls_text());
        exit(2);
    }
}

static void find_runner(grade_run *run, const char *folder)
{
    run->runner = str_printf("%s/runner", folder);
    if (access(run->runner, X_OK) != 0) {
        fprintf(stderr, "grader: the runner program %s is missing (a fault of the kit's build)\n", run->runner);
        exit(2);
    }
}

/* The run's own scratch folder; runners work in a folder of the runner
 * user's inside it (run->scratch). */
static char *make_scratch(grade_run *run)
{
    const char *tmp = getenv("TMPDIR");
    char *scratch = str_printf("%s/cudalabs-grader-XXXXXX", tmp && *tmp && access(tmp, W_OK) == 0 ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "grader: cannot make a scratch folder %s: %s\n", scratch, strerror(errno));
        exit(2);
    }
    chmod(scratch, 0711);
    run->scratch = str_printf("%s/work", scratch);
    if (contain_give_folder(run->scratch) != 0) {
        fprintf(stderr, "grader: cannot make %s: %s\n", run->scratch, strerror(errno));
        exit(2);
    }
    return scratch;
}

static unsigned long long choose_seed(const char *seed)
{
    if (!seed)
        return fresh_seed();
    char *end;
    errno = 0;
    unsigned long long value = strtoull(seed, &end, 10);
    if (!*seed || *end || errno)
        usage_error("--seed wants a whole number, not %s", seed);
    return value;
}

/* The command that regrades the same labs the same way, without --seed. */
static char *replay_command(const options *o, const char *backend)
{
    char buffer[32];
    char *replay = str_dup("./grader");
    for (int k = 0; k < o->n_chosen; k++) {
        char *more = str_printf("%s %s", replay, short_name(o->chosen[k], buffer, sizeof buffer));
        free(replay);
        replay = more;
    }
    char *more = str_printf("%s%s%s%s%s%s --backend=%s", replay, o->solution ? " --solution" : "",
                            o->student_dir ? " --student-dir='" : "", o->student_dir ? o->student_dir : "",
                            o->student_dir ? "'" : "", "", backend);
    free(replay);
    if (o->devices) {
        replay = str_printf("%s --devices=%d", more, o->devices);
        free(more);
        more = replay;
    }
    if (o->only) {
        replay = str_printf("%s --only=%s", more, o->only);
        free(more);
        more = replay;
    }
    return more;
}

/* The GPUs this process may use: those CUDA_VISIBLE_DEVICES lists, else
 * the driver's device files (/dev/nvidia0, ...). */
static int gpus_present(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int count = 0;
    if (visible) {
        for (const char *at = visible; *at; at++)
            count += *at == ',';
        return *visible ? count + 1 : 0;
    }
    DIR *dev = opendir("/dev");
    for (struct dirent *e; dev && (e = readdir(dev));)
        if (strncmp(e->d_name, "nvidia", 6) == 0 && e->d_name[6] >= '0' && e->d_name[6] <= '9')
            count++;
    if (dev)
        closedir(dev);
    return count;
}

/* --devices=N: the runners' environment, which every item's runners inherit
 * (grade_use_devices changes it for one item). */
static void use_devices(int devices, int on_gpu)
{
    if (!devices)
        return;
    char *list = str_printf("%d", devices);
    if (!on_gpu) {
        setenv("CUDAEMU_DEVICES", list, 1);
        free(list);
        return;
    }
    int present = gpus_present();
    if (devices > present) {
        fprintf(stderr, "grader: --devices=%d, but this machine has %d GPU%s%s\n", devices, present,
                present == 1 ? "" : "s", getenv("CUDA_VISIBLE_DEVICES") ? " (as CUDA_VISIBLE_DEVICES lists them)" : "");
        exit(2);
    }
    /* the first N of those listed, else of the machine's: 0,1,...,N-1 */
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    free(list);
    if (visible) {
        list = str_dup(visible);
        char *at = list;
        for (int d = 0; d < devices; d++)
            at += strcspn(at, ",") + (d + 1 < devices);
        *at = '\0';
    } else {
        list = str_dup("0");
        for (int d = 1; d < devices; d++) {
            char *more = str_printf("%s,%d", list, d);
            free(list);
            list = more;
        }
    }
    setenv("CUDA_VISIBLE_DEVICES", list, 1);
    free(list);
}

/* The run as the options describe it, the walls up and the scratch folder made. */
static char *prepare_run(grade_run *run, const options *o)
{
    char *folder = enter_kit();
    run->backend = o->backend ? o->backend : detect_backend();
    run->verbose = o->verbose;
    run->hidden_items = o->hidden_items;
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is an error to report, not a reason to die */
    clear_check_environment();
    run->on_gpu = strcmp(run->backend, "gpu") == 0;
    use_devices(o->devices, run->on_gpu);
    run->sanitizer = on_path("compute-sanitizer");
    run->have_sanitizer = run->sanitizer != NULL;
    run->profiler = on_path("ncu");
    run->time_scale = time_scale();
    put_up_walls(o);
    find_runner(run, folder);
    char *scratch = make_scratch(run);
    run->seed = choose_seed(o->seed);
    run->replay = replay_command(o, run->backend);
    if (o->only) {
        run->only = split_names(o->only);
        check_only(o, run->only);
    }
    return scratch;
}

/* Where the report goes while items run, and in colour or not. */
static void choose_live_output(grade_run *run, const options *o)
{
    int machine_to_stdout = strcmp(o->format, "text") != 0 && !o->out_path;
    run->live = machine_to_stdout ? stderr : stdout;
    run->color = strcmp(o->color, "always") == 0
              || (strcmp(o->color, "auto") == 0 && isatty(fileno(run->live)) && !getenv("NO_COLOR")
                  && !(getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0));
}

/* ---- each lab ------------------------------------------------------------------------------ */

static int lab_has_selected_items(const grade_run *run, const grade_lab *lab)
{
    int has_items = 0;
    for (int j = 0; j < lab->item_count; j++)
        has_items |= run_item_selected(run, &lab->items[j]);
    return has_items;
}

/* What to grade for `lab`: built here (build.c), or given on the command line;
 * the lab programs (the sanitizer item) in *program and *cpu_program. */
static void find_lab_files(const options *o, const grade_run *run, const build_plan *plan, lab_result *result,
                           const char **program, const char **cpu_program)
{
    const grade_lab *lab = result->lab;
    const char *student = value_for(o->students, o->n_students, lab);
    const char *reference = value_for(o->references, o->n_references, lab);
    const char *reference_runner = value_for(o->reference_runners, o->n_reference_runners, lab);
    *program = value_for(o->programs, o->n_programs, lab);
    *cpu_program = NULL;
    result->build_log = value_for(o->failed, o->n_failed, lab);
    if (plan) {
        lab_build built;
        build_lab(plan, lab, &built);
        student = built.student_so;
        reference_runner = built.reference_runner;
        reference = NULL;
        *program = built.student_program;
        *cpu_program = built.student_cpu_program;
        if (built.reference_program && access(built.reference_program, X_OK) == 0)
            result->reference_program = absolute_path(built.reference_program);
        result->build_log = built.failed_log;
    }
    result->student_so = student ? student : str_printf("build/%s/%s/student.so", run->backend, lab->dir);
    /* the reference's runner: a reference runner unless a shared object was given */
    if (!reference && !reference_runner)
        reference_runner = str_printf("build/%s/%s/reference-runner", run->backend, lab->dir);
    result->reference_runner = reference_runner ? absolute_path(reference_runner) : NULL;
    result->reference_so = reference ? absolute_path(reference) : NULL;
}

/* As root, the runner user reads copies in the scratch folder, nothing of the kit. */
static void copy_student_files_for_runner(const char *scratch, lab_result *result)
{
    const char *dir = result->lab->dir;
    char *name = str_printf("%s-student.so", dir);
    /* its machine code beside it, where the grader looks (grade_kernel_code) */
    char *sass = str_printf("%.*s.sass", (int)strlen(result->student_so) - 3, result->student_so);
    if (access(sass, R_OK) == 0) {
        char *sass_name = str_printf("%s-student.sass", dir);
        copy_for_runner(scratch, sass, sass_name);
        free(sass_name);
    }
    free(sass);
    result->student_so = copy_for_runner(scratch, result->student_so, name);
    free(name);
    if (result->student_program) {
        name = str_printf("%s-lab", dir);
        result->student_program = copy_for_runner(scratch, result->student_program, name);
        free(name);
    }
    if (result->student_cpu_program) {
        name = str_printf("%s-lab-cpu", dir);
        result->student_cpu_program = copy_for_runner(scratch, result->student_cpu_program, name);
        free(name);
    }
}

static void grade_one_lab(grade_run *run, const options *o, const build_plan *plan, const char *scratch,
                          lab_result *result)
{
    const char *program, *cpu_program;
    find_lab_files(o, run, plan, result, &program, &cpu_program);
    if (result->build_log) {
        runner_build_failed(run, result);
        return;
    }
    result->student_so = absolute_path(result->student_so);
    result->student_runner = runner_named_as_lab(scratch, run->runner, run->backend, result->lab->dir);
    result->student_shown_as = str_printf("./build/%s/%s/lab", run->backend, result->lab->dir);
    result->student_program = program && access(program, R_OK) == 0 ? absolute_path(program) : NULL;
    result->student_cpu_program = cpu_program && access(cpu_program, R_OK) == 0 ? absolute_path(cpu_program) : NULL;
    if (contain_drops_privilege())
        copy_student_files_for_runner(scratch, result);
    runner_grade_lab(run, result);
}

/* Builds (unless told what to grade) and grades each chosen lab that has a selected item. */
static void grade_labs_chosen(grade_run *run, const options *o, const char *scratch)
{
    int direct = o->n_students || o->n_references || o->n_reference_runners || o->n_failed;
    int machine_to_stdout = strcmp(o->format, "text") != 0 && !o->out_path;
    if (!direct)
        build_check_tools(run->backend);
    build_plan plan = {run->backend, o->solution, o->student_dir,
                       run->on_gpu && (run->have_sanitizer || run->profiler != NULL), run->on_gpu && run->profiler != NULL,
                       !isatty(2) || machine_to_stdout};
    for (int k = 0; k < o->n_chosen; k++) {
        if (!lab_has_selected_items(run, o->chosen[k]))
            continue;
        lab_result *result = &run->labs[run->lab_count++];
        result->lab = o->chosen[k];
        grade_one_lab(run, o, direct ? NULL : &plan, scratch, result);
    }
}

/* ---- the end -------------------------------------------------------------------------------- */

/* 0 full marks, 1 points lost, 2 could not grade. */
static int exit_status(const grade_run *run)
{
    int gradable = run->lab_count > 0, full = 1;
    for (int i = 0; i < run->lab_count; i++) {
        gradable &= run->labs[i].gradable;
        full &= run->labs[i].points >= run->labs[i].max_points;
    }
    return !gradable ? 2 : full ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--sandbox-abi") == 0) {
        printf("%d\n", sandbox_abi());
        return 0;
    }
    char start[PATH_MAX];
    if (!getcwd(start, sizeof start)) {
        fprintf(stderr, "grader: cannot tell the current folder: %s\n", strerror(errno));
        return 2;
    }
    options o = {.format = "text", .color = "auto"};
    parse_options(&o, start, argc, argv);
    check_options(&o);

    grade_run run = {0};
    char *scratch = prepare_run(&run, &o);
    choose_live_output(&run, &o);
    run.labs = calloc((size_t)o.n_chosen, sizeof *run.labs);
    run_init(&run);
    grade_labs_chosen(&run, &o, scratch);
    contain_reap_all(0);
    build_remove_tree(scratch);
    build_cleanup();
    text_run_total(run.live, &run, run.color);
    html_write_lab_reports(run.live, &run, o.report_dir); /* the report's path, the last line */

    if (strcmp(o.format, "text") != 0 || o.out_path) {
        if (write_results(o.out_path, o.format, &run) != 0) {
            fprintf(stderr, "grader: cannot write %s: %s\n", o.out_path ? o.out_path : "the results", strerror(errno));
            return 2;
        }
    }
    return exit_status(&run);
}
