/* sides.c: the student's code and the reference solution, side by side.
 *
 * Each side is a shared object carrying its own copy of the harness.  They
 * are opened lazily inside the forked child (RTLD_LOCAL, so the two copies
 * never see each other), and each gets an error handler that turns a failed
 * CUDA call, a failed launch or an emulator diagnostic into the item's
 * feedback instead of ending the child. */
#include "grader.h"

#include <string.h>

#include <dlfcn.h>
#include <stdlib.h>

struct grade_side {
    const char *label;  /* how feedback names it */
    const char *path;
    void *handle;
    int is_student;
};

static grade_side student = {"your code", NULL, NULL, 1};
static grade_side reference = {"the reference", NULL, NULL, 0};

void sides_set_paths(const char *student_so, const char *reference_so)
{
    student.path = student_so;
    reference.path = reference_so;
    student.handle = reference.handle = NULL;
}

/* The student's lab program sits beside its shared object (".../lab");
 * with --solution the student side is a copy of the reference, whose
 * program is ".../lab-solution". */
const char *sides_student_program(void)
{
    static char program[4096];
    const char *so = strstr(student.path, "student.so") ? student.path : reference.path;
    const char *slash = strrchr(so, '/');
    int dir = slash ? (int)(slash - so) : 0;
    snprintf(program, sizeof program, "%.*s%s%s", dir, so, slash ? "/" : "",
             so == student.path ? "lab" : "lab-solution");
    return program;
}

static void student_error(const char *message)
{
    grade_fail("your code stopped with an error:\n%s", message);
}

static void reference_error(const char *message)
{
    static char text[4096]; /* static: small emulated stacks */
    snprintf(text, sizeof text, "the reference solution stopped with an error (a fault of the kit or this "
             "machine, not of your code):\n%s", message);
    runner_fail_not_student(text);
}

/* A harness function of one side; a side built without the harness cannot
 * be graded, and says so. */
static void *harness(grade_side *side, const char *name)
{
    void *fn = dlsym(side->handle, name);
    if (!fn)
        grade_fail("grading error: %s (%s) lacks the kit's harness function %s(); "
                   "was it built with the kit's Makefile?", side->label, side->path, name);
    return fn;
}

static grade_side *open_side(grade_side *side)
{
    if (side->handle)
        return side;
    if (!side->path)
        grade_fail("grading error: no shared object was given for %s", side->label);
    dlerror();
    side->handle = dlopen(side->path, RTLD_NOW | RTLD_LOCAL);
    if (!side->handle) {
        const char *why = dlerror();
        if (side->is_student)
            grade_fail("your code could not be loaded (%s):\n%s", side->path, why ? why : "?");
        grade_fail("grading error: the reference could not be loaded (%s):\n%s", side->path, why ? why : "?");
    }
    void (*set_handler)(kit_error_handler) = (void (*)(kit_error_handler))harness(side, "kit_set_error_handler");
    set_handler(side->is_student ? student_error : reference_error);
    return side;
}

grade_side *grade_student(void) { return open_side(&student); }
grade_side *grade_reference(void) { return open_side(&reference); }
const char *grade_side_name(const grade_side *side) { return side->label; }

void *grade_symbol(grade_side *side, const char *name)
{
    void *fn = dlsym(side->handle, name);
    if (!fn) {
        if (side->is_student)
            grade_fail("your code does not define %s(): the lab's header declares it; "
                       "is it still there, with that exact name?", name);
        grade_fail("grading error: the reference does not define %s()", name);
    }
    return fn;
}

const char *sides_student_todo(void)
{
    if (!student.handle)
        return NULL;
    const char *(*pending)(void) = (const char *(*)(void))dlsym(student.handle, "kit_todo_pending");
    return pending ? pending() : NULL;
}

/* ---- each side's harness ---------------------------------------------------------- */

void grade_reset_records(grade_side *side)
{
    ((void (*)(void))harness(side, "kit_reset_records"))();
}

void grade_set_snapshots(grade_side *side, int on)
{
    ((void (*)(int))harness(side, "kit_set_snapshots"))(on);
}

void grade_set_timing(grade_side *side, int on)
{
    ((void (*)(int))harness(side, "kit_set_timing"))(on);
}

double grade_timed_ms(grade_side *side)
{
    return ((double (*)(void))harness(side, "kit_timed_ms"))();
}

int grade_launch_count(grade_side *side)
{
    return ((int (*)(void))harness(side, "kit_launch_count"))();
}

const kit_launch *grade_launch_at(grade_side *side, int i)
{
    return ((const kit_launch *(*)(int))harness(side, "kit_launch_at"))(i);
}

int grade_snapshot_count(grade_side *side)
{
    return ((int (*)(void))harness(side, "kit_snapshot_count"))();
}

const kit_snapshot *grade_snapshot_at(grade_side *side, int i)
{
    return ((const kit_snapshot *(*)(int))harness(side, "kit_snapshot_at"))(i);
}

long long grade_device_bytes_in_use(grade_side *side)
{
    return ((long long (*)(void))harness(side, "kit_device_bytes_in_use"))();
}

void grade_set_schedule(grade_side *side, const char *order)
{
    if (grade_on_gpu())
        return; /* the GPU has its own schedule */
    ((void (*)(const char *))harness(side, "kit_set_schedule"))(order);
}

double grade_time_ms(grade_side *side, void (*call)(void *arg), void *arg, int warmup, int reps)
{
    if (reps < 1)
        reps = 1;
    double *times = calloc((size_t)reps, sizeof *times);
    if (!times)
        grade_fail("grading error: out of memory");
    grade_set_timing(side, 1);
    for (int i = 0; i < warmup; i++)
        call(arg);
    for (int i = 0; i < reps; i++) {
        grade_reset_records(side);
        call(arg);
        times[i] = grade_timed_ms(side);
    }
    grade_set_timing(side, 0);
    double median = kit_median(times, reps);
    free(times);
    return median;
}
