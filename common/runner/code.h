/* code.h: where a runner finds the code it serves.
 *
 * runner.c is linked into two kinds of program, each with one of these:
 *
 *   loaded.c    the kit's runner (build/host/runner): loads a shared object
 *               (the student's) and looks its names up in it (dlsym).
 *   built_in.c  a lab's reference runner (build/<backend>/<lab>/reference-runner):
 *               the reference and the harness are linked in, and their
 *               entry points are found through a table compiled into it.
 *               The program exports none of them: what a student copy ships
 *               (prebuilt/<backend>/<lab>/reference-runner) gives a dlopen()
 *               nothing to call.
 */
#ifndef CODE_H
#define CODE_H

/* Loads the code: `object` is the shared object's path, "" where the code
 * is built in.  NULL once loaded, else why not (for the grader's report). */
const char *code_load(const char *object);

/* The address of the loaded code's function `name`, or NULL. */
void *code_symbol(const char *name);

/* Whether this runner serves code built into it (a reference runner). */
int code_built_in(void);

#endif /* CODE_H */
