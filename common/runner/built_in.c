/* built_in.c: a reference runner's code, linked into it (see code.h).
 *
 * The build compiles this once per lab with -DLAB_CALLS='"labN-name/lab-calls.h"'
 * and -DLAB_TABLE (the Makefile's reference-runner rule) and links it with
 * runner.c, the lab's table of calls, the reference's objects and the
 * harness.  The lab's entry points and the harness's functions are found
 * by name in tables made here, at compile time: the program needs no
 * dynamic symbol of them, and is linked without any (no -rdynamic), so that
 * nothing in it can be looked up from outside. */
#include <stddef.h>
#include <string.h>

#include "code.h"
#include "kit_internal.h"
#include "serve.h"

/* The harness's functions that the runner calls (kit.h, kit_internal.h). */
#define HARNESS_FUNCTIONS(X)                                                                                \
    X(kit_set_error_handler) X(kit_start_device) X(kit_pin_host) X(kit_unpin_host) X(kit_timed_ms)          \
    X(kit_device_bytes_in_use) X(kit_todo_pending) X(kit_launch_count) X(kit_launch_at) X(kit_snapshot_count) \
    X(kit_snapshot_at) X(kit_copy_count) X(kit_copy_at) X(kit_reset_records) X(kit_set_snapshots)          \
    X(kit_set_timing) X(kit_set_copy_sums) X(kit_set_schedule) X(kit_spoil) X(kit_device_name) X(kit_on_gpu) \
    X(kit_device_peak_gbs) X(kit_device_multiprocessors)
/* Weak: a harness without one (the grader's tests' own, tests/fixtures/grader)
 * leaves it NULL, and the runner answers as it does for a loaded object
 * that lacks it (nothing to do, or "the kit's harness function ... is missing"). */
#define PRAGMA(TEXT) _Pragma(#TEXT)
#define WEAK(NAME) PRAGMA(weak NAME)
HARNESS_FUNCTIONS(WEAK)

/* First for the lab header's declarations (the description includes it;
 * its guard keeps the second inclusion, inside the table, from doing so). */
#define CALL(...)
#define CALL_VOID(...)
#include LAB_CALLS
#undef CALL
#undef CALL_VOID

typedef struct {
    const char *name;
    void *address;
} named_code;

#define CALL(RET, NAME, ...) {#NAME, (void *)&NAME},
#define CALL_VOID(NAME, ...) {#NAME, (void *)&NAME},
static const named_code entry_points[] = {
#include LAB_CALLS
};
#undef CALL
#undef CALL_VOID

#define HARNESS(NAME) {#NAME, (void *)&NAME},
static const named_code harness_functions[] = {HARNESS_FUNCTIONS(HARNESS)};

/* The runner serves this lab only. */
extern const serve_lab LAB_TABLE;
const serve_lab *const serve_labs[] = {&LAB_TABLE, 0};

const char *code_load(const char *object)
{
    if (object && object[0])
        return "a reference runner serves the code built into it, and loads no shared object";
    return NULL;
}

void *code_symbol(const char *name)
{
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
        if (strcmp(entry_points[i].name, name) == 0)
            return entry_points[i].address;
    for (size_t i = 0; i < sizeof harness_functions / sizeof harness_functions[0]; i++)
        if (strcmp(harness_functions[i].name, name) == 0)
            return harness_functions[i].address;
    return NULL;
}

int code_built_in(void) { return 1; }
