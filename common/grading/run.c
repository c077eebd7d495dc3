/* run.c: what a suite asks about the run (seed, backend, schedules), the
 * current item's time, pictures, and the sanitizer item.  It uses
 * outcome.c (to end the item) and text.c, never sides.c or items.c. */
#include "grader.h"
#include "contain.h"
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const grade_run *the_run;
static const lab_result *current_lab;
static const grade_item *current_item;
static double item_seconds, item_deadline;

void run_init(grade_run *run) { the_run = run; }

void run_enter_item(const lab_result *lab, const grade_item *item, double seconds)
{
    current_lab = lab;
    current_item = item;
    item_seconds = seconds;
    /* a call must answer a little before Check's own limit ends the child,
     * so that the feedback can name the call */
    double margin = seconds > 20 ? 2.0 : seconds / 10;
    item_deadline = wire_now() + seconds - margin;
}

double run_item_seconds(void) { return item_seconds; }

/* the lab program from the student's code and from the reference, and on
 * a GPU the student's built with the cpu backend too (the sanitizer item);
 * NULL where not built */
const char *run_student_program(void) { return current_lab ? current_lab->student_program : NULL; }
const char *run_reference_program(void) { return current_lab ? current_lab->reference_program : NULL; }
static const char *student_cpu_program(void) { return current_lab ? current_lab->student_cpu_program : NULL; }
double run_item_deadline(void) { return item_deadline; }
const char *run_profiler(void) { return the_run && the_run->on_gpu ? the_run->profiler : NULL; }

int run_item_selected(const grade_run *run, const grade_item *item)
{
    if (!run->only)
        return 1;
    for (const char *const *name = run->only; *name; name++)
        if (strcmp(*name, item->name) == 0)
            return 1;
    return 0;
}

int run_item_backend_skip(const grade_run *run, const grade_item *item, const char **reason)
{
    if (item->kind == GRADE_PERFORMANCE && !run->on_gpu) {
        *reason = "performance is measured on a GPU only (this run uses the cpu backend)";
        return 1;
    }
    if (item->kind == GRADE_SANITIZER && !run->on_gpu) {
        *reason = "compute-sanitizer runs on a GPU only (this run uses the cpu backend)";
        return 1;
    }
    if (item->kind == GRADE_SANITIZER && !run->have_sanitizer) {
        *reason = "compute-sanitizer is not installed on this machine";
        return 1;
    }
    return 0;
}

/* ---- seeds ------------------------------------------------------------------------ */

static uint64_t mix(uint64_t x) /* splitmix64's finaliser */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

uint64_t grade_seed(void) { return the_run ? the_run->seed : 0; }

/* Depends on the run's seed, the lab, the item and the case only, so that
 * --seed=S with --only=ITEM replays exactly the same inputs.  Kept to 32
 * bits so that feedback quoting it stays readable. */
uint64_t grade_seed_for(int case_number)
{
    uint64_t h = mix(grade_seed() ^ hash_text(current_lab ? current_lab->lab->dir : ""));
    h = mix(h ^ hash_text(current_item ? current_item->name : ""));
    h = mix(h ^ (uint64_t)(int64_t)case_number);
    return h & 0xffffffffu;
}

int grade_on_gpu(void) { return the_run && the_run->on_gpu; }

int grade_verbose(void) { return the_run && the_run->verbose; }

int grade_schedule_count(void) { return grade_on_gpu() ? 1 : 3; }

const char *grade_schedule_name(int i)
{
    static char random_order[32];
    if (grade_on_gpu())
        return "gpu";
    if (i == 0)
        return "fwd";
    if (i == 1)
        return "rev";
    snprintf(random_order, sizeof random_order, "rand:%u", (unsigned)(mix(grade_seed() ^ 0x5c4edu) % 1000000u));
    return random_order;
}

/* ---- helpers ------------------------------------------------------------------------ */

static void picture(const char *label, const int *ints, const float *floats, int n, int from, int to)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return;
    fprintf(f, "%s\n", label);
    if (ints)
        kit_draw_ints(f, "  ", ints, n, from, to);
    else
        kit_draw_floats(f, "  ", floats, n, from, to);
    fclose(f);
    outcome_append_picture(text);
    free(text);
}

void grade_picture_ints(const char *label, const int *a, int n, int mark_from, int mark_to)
{
    picture(label, a, NULL, n, mark_from, mark_to);
}

void grade_picture_floats(const char *label, const float *a, int n, int mark_from, int mark_to)
{
    picture(label, NULL, a, n, mark_from, mark_to);
}

/* ---- the sanitizer item ------------------------------------------------------------
 *
 * On a GPU, the student's lab program runs on a small input under
 * compute-sanitizer's memcheck (out-of-bounds and misaligned accesses),
 * racecheck (shared-memory hazards between the threads of a block) and
 * synccheck (barriers and warp synchronization used wrongly); what any of
 * them reports costs the item.  Where they are silent a GPU can still hide a
 * mistake: a __syncthreads() that only some threads of a block reach runs
 * on a Hopper GPU without a word from synccheck.  So the same program, built
 * with the cpu backend (build.c), runs too with the same arguments: the cpu
 * backend stops a kernel at a divergent barrier, a wrong warp mask, a
 * deadlock or a write past an array, at the student's line. */

#define REPORT_KEEP 3000   /* of a report, what the feedback shows */
#define OUTPUT_READ (1 << 20) /* of a program's output, what is read to find the tool's summary */

/* Runs argv contained, its output in an in-memory file; returns its exit
 * code (-1 for a signal, RUN_PAST_DEADLINE where it was still running at the
 * item's deadline and was killed) and its output's first OUTPUT_READ bytes
 * in *output (to be freed).  As the runner user when root where
 * `untrusted`; sandboxed (an untrusted program's walls) where `sandboxed`.
 * compute-sanitizer and ncu are not sandboxed, since they need their own
 * files and folders. */
int run_contained(char *const argv[], int untrusted, int sandboxed, char **output)
{
    int out = memfd_create("output", MFD_CLOEXEC);
    if (out < 0)
        outcome_fail_not_student("grading error: no in-memory file for the program's output");
    const char *readable[] = {argv[0], NULL};
    contain_spec spec = {argv, -1, -1, -1, out, out, the_run->scratch, 4 * item_seconds + 10,
                         sandboxed ? contain_memory_limit() : 0, untrusted, sandboxed, sandboxed ? readable : NULL,
                         NULL};
    pid_t pid = contain_spawn(&spec);
    if (pid < 0)
        outcome_fail_not_student("grading error: could not start a program");
    int status = 0, past = 0;
    if (contain_wait(pid, &status, item_deadline) != 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        past = 1;
    }
    char *text = malloc(OUTPUT_READ + 1);
    if (!text)
        outcome_fail_not_student("grading error: no memory for a program's output");
    ssize_t n = pread(out, text, OUTPUT_READ, 0);
    text[n > 0 ? n : 0] = 0;
    close(out);
    *output = text;
    return past ? RUN_PAST_DEADLINE : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* run_contained for the sanitizer item: a run past the item's deadline fails it. */
static int run_to_judge(char *const argv[], const char *what, int sandboxed, char **output)
{
    int code = run_contained(argv, 1, sandboxed, output);
    if (code == RUN_PAST_DEADLINE)
        grade_fail("%s did not finish within the item's time (%.0f s)", what, item_seconds);
    return code;
}

/* The lines of `output` that hold one of `marks` (NULL-terminated): at
 * most REPORT_KEEP bytes, cleaned, in `report`; the output's start where
 * none does.  A lab program prints plenty of its own before a tool's or
 * the cpu backend's lines, which are what the student needs to see. */
static void report_lines(const char *output, const char *const marks[], char *report, size_t size)
{
    size_t used = 0;
    report[0] = 0;
    for (const char *p = output; *p && used + 2 < size;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p + 1) : strlen(p);
        int keep = 0;
        for (int m = 0; marks[m] && !keep; m++) {
            const char *at = strstr(p, marks[m]);
            keep = at && at < p + len;
        }
        if (keep) {
            size_t take = len < size - 1 - used ? len : size - 1 - used;
            memcpy(report + used, p, take);
            used += take;
            report[used] = 0;
        }
        p += len;
    }
    if (!report[0])
        snprintf(report, size, "%s", output);
    str_clean(report);
}

/* The errors a tool's summary line counts: "ERROR SUMMARY: 3 errors"
 * (memcheck, synccheck) and "RACECHECK SUMMARY: 2 hazards displayed (1
 * error, 1 warning)" (racecheck: its errors, not its warnings, which
 * include benign patterns such as every thread writing the same value).
 * 0 where the output has no summary. */
static int summary_errors(const char *output)
{
    int errors = 0, count;
    for (const char *p = output; (p = strstr(p, "SUMMARY: ")) != NULL; p++) {
        const char *open = strchr(p, '(');
        const char *end = strchr(p, '\n');
        if (p >= output + 10 && strncmp(p - 10, "RACECHECK ", 10) == 0) {
            if (open && (!end || open < end) && sscanf(open, "(%d error", &count) == 1)
                errors += count;
        } else if (sscanf(p, "SUMMARY: %d error", &count) == 1) {
            errors += count;
        }
    }
    return errors;
}

/* Puts the words of `args` (split at spaces, into `copy`) after the first
 * `argc` entries of an argv of 32, and ends it with NULL. */
void run_append_words(char *argv[32], int argc, char *copy, size_t copy_size, const char *args)
{
    snprintf(copy, copy_size, "%s", args);
    for (char *save = NULL, *word = strtok_r(copy, " ", &save); word && argc < 30; word = strtok_r(NULL, " ", &save))
        argv[argc++] = word;
    argv[argc] = NULL;
}

static void sanitizer_tool(const char *tool, const char *program, const char *program_args)
{
    char *argv[32] = {(char *)the_run->sanitizer, "--tool", (char *)tool, "--report-api-errors", "no",
                      "--error-exitcode", "97", "--print-limit", "4", (char *)program};
    char copy[256];
    run_append_words(argv, 10, copy, sizeof copy, program_args);
    char *output, report[REPORT_KEEP];
    int code = run_to_judge(argv, "the lab program under compute-sanitizer", 0, &output);
    int errors = summary_errors(output);
    static const char *const marks[] = {"=========", NULL}; /* the sanitizer's own lines */
    report_lines(output, marks, report, sizeof report);
    free(output);
    if (code == 97 || errors > 0)
        grade_fail("compute-sanitizer --tool %s found %s in `lab %s` (the lab program on your code):\n%s", tool,
                   errors > 1 ? "errors" : "an error", program_args, report);
    if (code != 0)
        grade_fail("`lab %s` (the lab program on your code) did not succeed under compute-sanitizer --tool %s "
                   "(exit %d): the sanitizer item counts only for a program that computes the right result",
                   program_args, tool, code);
}

/* The kit's own check: the program built with the cpu backend, the same
 * arguments, sandboxed like any student code.  Its diagnostics name the
 * student's file and line ("hello.cu:44: error: barrier divergence ..."). */
static int cpu_backend_run(const char *program_args)
{
    const char *program = student_cpu_program();
    if (!program || access(program, R_OK) != 0) {
        grade_note("the cpu backend's run of `lab %s` was not made (its build failed or the cpu backend is not "
                   "installed here): the GPU's sanitizer alone judged it", program_args);
        return 0;
    }
    char *argv[32] = {(char *)program};
    char copy[256];
    run_append_words(argv, 1, copy, sizeof copy, program_args);
    char *output, report[REPORT_KEEP];
    int code = run_to_judge(argv, "the lab program on the cpu backend", 1, &output);
    /* the backend's diagnostics ("file:line: error: ..."), the program's own verdict */
    static const char *const marks[] = {": error: ", "cudaemu:", "WRONG", "failed", NULL};
    report_lines(output, marks, report, sizeof report);
    free(output);
    grade_check(code == 0,
                "compute-sanitizer found nothing, but `lab %s` (the lab program on your code) built with the kit's "
                "cpu backend stops (exit %d), which a GPU can hide: a __syncthreads() that only some threads of a "
                "block reach, a warp mask naming lanes that are not there, a write past an array. It said:\n%s",
                program_args, code, report);
    return 1;
}

void grade_sanitize(const char *program_args)
{
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck"};
    const char *program = run_student_program();
    if (!program || access(program, R_OK) != 0)
        outcome_fail_not_student("the lab program to run under compute-sanitizer was not built");
    for (int t = 0; t < 3; t++)
        sanitizer_tool(tools[t], program, program_args);
    int cpu_ran = cpu_backend_run(program_args);
    grade_note("compute-sanitizer's memcheck, racecheck and synccheck found nothing in `lab %s`%s", program_args,
               cpu_ran ? ", nor did the kit's cpu backend" : "");
}
