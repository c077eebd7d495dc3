/* build.h: what a run builds before it grades, and where it lies.
 *
 * The layout, named here once on the grader's side (the Makefile names the
 * same paths for make):
 *     build/<backend>/<lab>/reference-runner   the reference, in its runner (a student copy: prebuilt/<backend>/<lab>/)
 *     build/<backend>/<lab>/reference.so       the reference as a student's object (--solution; full kit only)
 *     build/<backend>/<lab>/student.so, lab    the student's code in labs/<lab>
 *     build/<backend>/submissions/<tag>/<lab>/ a submission's, copied back from its build's scratch folder
 *     build/logs/                              what each build said
 * Kit builds (the reference, the harness) take turns under a lock, so two
 * graders in one checkout never race.  A submission (--student-dir) is
 * read as the runner user (as root), its lab files found anywhere in it,
 * each once and only as regular files; it builds with the kit's Makefile
 * in a scratch folder outside the kit (<tmp>/cudalabs-build-XXXXXX) that
 * holds its files and the kit's public headers and objects only, as the
 * runner user, with limits on time, memory, output and environment. */
#ifndef BUILD_H
#define BUILD_H

#include "grade.h"

typedef struct {
    const char *backend;     /* "gpu" or "cpu" */
    int solution;            /* grade the reference itself */
    const char *student_dir; /* a submission's folder (absolute), or NULL for labs/<lab> */
    int lab_programs;        /* build the lab programs too (the sanitizer item runs them) */
    int reference_program;   /* and the reference's lab program, in the full kit (profile.c runs it) */
    int quiet;               /* no "building ..." lines */
} build_plan;

typedef struct {
    char *student_so;
    char *reference_runner;  /* the program with the reference built in (grader.h: lab_result) */
    char *student_program;   /* or NULL */
    char *student_cpu_program; /* on a GPU: the same program built with the cpu backend (sanitizer item), or NULL */
    char *reference_program; /* the lab program from the reference, or NULL */
    char *failed_log;        /* set when the student's code did not build */
} lab_build;

/* Checks the tools the backend needs; exits 2 naming what to install. */
void build_check_tools(const char *backend);

/* Builds one lab's sides.  A fault of the kit (the reference does not build,
 * a student copy lacks its reference, a submission has no file of the lab)
 * ends the run with exit 2 and says whose fault it is. */
void build_lab(const build_plan *plan, const grade_lab *lab, lab_build *out);

/* Removes what the run built for a submission. */
void build_cleanup(void);

/* Removes a folder and everything in it. */
void build_remove_tree(const char *path);

#endif /* BUILD_H */
