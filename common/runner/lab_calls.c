/* lab_calls.c: one lab's table of calls for the runner.  The build compiles
 * this once per lab with -DLAB_CALLS='"labN-name/lab-calls.h"', -DLAB_DIR and
 * -DLAB_TABLE (see the Makefile); the description is included twice: once
 * for the functions that serve each call, once for the table. */
#define SERVE_STUBS
#include "calls.h"

#include LAB_CALLS

#undef CALL
#undef CALL_VOID
#define CALL(RET, NAME, ...) {#NAME, serve_##NAME},
#define CALL_VOID(NAME, ...) {#NAME, serve_##NAME},
static const serve_entry entries[] = {
#include LAB_CALLS
};

const serve_lab LAB_TABLE = {LAB_DIR, entries, (int)(sizeof entries / sizeof entries[0])};
