/* run.c: what a suite asks about the run (seed, backend, schedules) and the
 * small helpers many suites need (performance fraction, pictures). */
#include "grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const grade_run *the_run;
static const grade_lab *current_lab;
static const grade_item *current_item;

void run_init(grade_run *run) { the_run = run; }
const grade_run *run_current(void) { return the_run; }

void run_enter_item(const grade_lab *lab, const grade_item *item)
{
    current_lab = lab;
    current_item = item;
}

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
    uint64_t h = mix(grade_seed() ^ hash_text(current_lab ? current_lab->dir : ""));
    h = mix(h ^ hash_text(current_item ? current_item->name : ""));
    h = mix(h ^ (uint64_t)(int64_t)case_number);
    return h & 0xffffffffu;
}

int grade_on_gpu(void) { return the_run && the_run->on_gpu; }

const char *grade_device_name(void)
{
    return ((const char *(*)(void))grade_symbol(grade_student(), "kit_device_name"))();
}
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

double grade_perf_fraction(double student_ms, double reference_ms)
{
    if (!(student_ms > 0) || !(reference_ms > 0))
        return 0;
    if (student_ms <= 1.2 * reference_ms)
        return 1;
    if (student_ms > 10 * reference_ms)
        return 0;
    return reference_ms / student_ms;
}

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
    runner_append_picture(text);
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

/* ---- the sanitizer item ------------------------------------------------------------ */

void grade_sanitize(const char *program_args)
{
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck"};
    const char *program = sides_student_program();
    if (access(program, X_OK) != 0)
        runner_fail_not_student("the lab program to run under compute-sanitizer was not built");
    for (int t = 0; t < 3; t++) {
        char command[8192], report[3000];
        snprintf(command, sizeof command, "compute-sanitizer --tool %s --report-api-errors no --error-exitcode 97 --print-limit 4 %s %s 2>&1",
                 tools[t], program, program_args);
        FILE *pipe = popen(command, "r");
        if (!pipe)
            runner_fail_not_student("could not start compute-sanitizer");
        size_t used = fread(report, 1, sizeof report - 1, pipe);
        report[used] = 0;
        while (fgetc(pipe) != EOF) /* let it finish */
            ;
        int status = pclose(pipe);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == 97)
            grade_fail("compute-sanitizer --tool %s found an error in `lab %s` (the lab program on your code):\n%s",
                       tools[t], program_args, report);
        if (code != 0)
            grade_fail("`lab %s` (the lab program on your code) did not succeed under compute-sanitizer --tool %s "
                       "(exit %d): the sanitizer item counts only for a program that computes the right result",
                       program_args, tools[t], code);
    }
    grade_note("compute-sanitizer's memcheck, racecheck and synccheck found nothing in `lab %s`", program_args);
}
