/* grader.h: what the parts of the grader program share (not for suites:
 * suites see grade.h only).
 *
 *   main.c     the command line; builds and runs each lab and writes the reports
 *   build.c    building the student's code (contained) and the lab programs
 *   items.c    one Check suite per lab, one forked item at a time
 *   sides.c    the student's and the reference's runners, seen from the child
 *   run.c      seeds, schedules, the current item's time, pictures, the sanitizer item
 *   outcome.c  the outcome of the item (grade_fail, grade_note, ...) in the child
 *   text.c     the report people read, and the string helpers
 *   formats.c  tap, junit, json, gradescope, prairielearn, html
 *   html.c     the HTML report (svg.c draws its figures, figure.c records them)
 *   contain.c  starting untrusted programs contained, and reaping them
 *   wire.c     the messages between the grader and a runner
 *
 * Each uses only those below it in this order: main.c, formats.c, items.c,
 * sides.c, run.c, outcome.c, text.c (contain.c and wire.c serve them all).
 */
#ifndef GRADER_H
#define GRADER_H

#include <stdio.h>
#include <sys/types.h>
#include "grade.h"

typedef enum { ITEM_PASSED, ITEM_FAILED, ITEM_ERROR, ITEM_SKIPPED } item_status;

typedef struct {
    const grade_item *item;
    item_status status;
    double points;      /* what it scored (0 when skipped) */
    double max_points;  /* 0 when skipped: skipped items count toward nothing */
    double seconds;     /* wall clock of the forked item */
    char *feedback;     /* why it failed, or why it was skipped; "" when none */
    char *notes;        /* grade_note() lines; "" when none */
    int elsewhere;      /* skipped because only the other backend (or a GPU with compute-sanitizer) grades it */
    int kit_fault;      /* the reference could not run: an error that counts toward nothing */
    struct figure_record *figure; /* a failing item's figure (figure.h) for the HTML report, or NULL */
} item_result;

typedef struct {
    const grade_lab *lab;
    const char *student_so;
    /* The reference: a reference runner, a program with the reference
     * built in (build/<backend>/<lab>/reference-runner, or prebuilt/ in a
     * student copy), or a shared object that the kit's runner loads
     * (--reference-so, for the kit's tests); one of the two is NULL. */
    const char *reference_runner;
    const char *reference_so;
    /* The kit's runner as the student's side runs it: a copy named as the
     * lab program, and the argv[0] that the lab program has (runner.c). */
    const char *student_runner;
    const char *student_shown_as;
    const char *student_program; /* the lab program from the student's code (sanitizer item), or NULL */
    const char *student_cpu_program; /* on a GPU, the same built with the cpu backend (sanitizer item), or NULL */
    const char *reference_program; /* on a GPU with ncu, the lab program from the reference (profile.c), or NULL */
    const char *build_log;  /* set when the student's code did not compile */
    int gradable;           /* 0: the lab could not be graded (no item ran) */
    char *problem;          /* why it could not be graded */
    item_result *items;     /* the selected items, in the suite's order */
    int count;
    double points, max_points;
    double elsewhere_points; /* the points of the items graded elsewhere (item_result.elsewhere) */
    /* going-further items (grade.h): reported apart, in neither points nor
     * max_points; their max is 0 while none was attempted */
    double further_points, further_max_points;
} lab_result;

typedef struct {
    const char *backend;    /* "gpu" or "cpu" */
    int on_gpu;
    unsigned long long seed;
    int verbose;
    int color;              /* colour and progress count in the live report */
    int have_sanitizer;     /* compute-sanitizer is on the PATH */
    const char *sanitizer;  /* its full path */
    const char *profiler;   /* Nsight Compute's ncu: its full path, or NULL */
    const char *runner;     /* the runner program */
    const char *scratch;    /* a folder of the run's own, where runners work */
    double time_scale;      /* item time limits are multiplied by this (>= 1) */
    const char *replay;     /* the command that regrades, without --seed */
    const char *const *only; /* NULL-terminated item names, or NULL for all */
    const char *const *hidden_items; /* NULL-terminated: items Gradescope shows only once grades are published */
    FILE *live;             /* where the report is printed while items run */
    lab_result *labs;
    int lab_count;
} grade_run;

extern const grade_lab *const grade_labs[];
int grade_list(int argc, char **argv); /* ./grader list [--markdown LAB] (list.c) */

/* items.c */
void runner_grade_lab(grade_run *run, lab_result *result);
void runner_build_failed(grade_run *run, lab_result *result);

/* sides.c (in the child) */
void sides_set_paths(const lab_result *lab, const char *kit_runner, const char *scratch);
void sides_stop(void);
void sides_keep_reference(double cpu_seconds, int ended, int renew); /* in the grader, before each item */
pid_t sides_kept_reference(void);                                   /* its pid, or 0 */
void sides_release_reference(void);                                 /* after the lab's last item */
const char *sides_student_so(void);

/* run.c */
void run_init(grade_run *run);
void run_enter_item(const lab_result *lab, const grade_item *item, double seconds); /* in the child */
double run_item_seconds(void);   /* the current item's time limit */
double run_item_deadline(void);  /* when a call must have answered (CLOCK_MONOTONIC seconds) */
int run_item_selected(const grade_run *run, const grade_item *item);
int run_item_backend_skip(const grade_run *run, const grade_item *item, const char **reason);
/* The lab programs (make LAB's, on the student's code and on the reference),
 * for the tools that run them (the sanitizer item, profile.c); NULL where
 * not built. */
const char *run_student_program(void);
const char *run_reference_program(void);
const char *run_profiler(void); /* ncu on a GPU run, or NULL */
/* Runs a program contained (contain.h), as the runner user when root where
 * `untrusted`, in the sandbox where `sandboxed`: its exit code (-1: a signal;
 * RUN_PAST_DEADLINE: killed at the item's deadline) and its output's start
 * in *output (to be freed). */
#define RUN_PAST_DEADLINE (-2)
int run_contained(char *const argv[], int untrusted, int sandboxed, char **output);
/* Puts the words of `args` after argv's first `argc` entries (of 32) and ends it with NULL. */
void run_append_words(char *argv[32], int argc, char *copy, size_t copy_size, const char *args);

/* outcome.c (in the child; outcome.h has the slot items.c reads) */
void outcome_append_picture(const char *text);
/* Fails the item for a fault of the reference or the kit: no TODO hint. */
void outcome_fail_not_student(const char *message) __attribute__((noreturn));
/* Fails the item because the reference could not run: the item counts
 * toward nothing and the lab is "could not grade" (exit 2). */
void outcome_fail_kit(const char *message) __attribute__((noreturn));
void outcome_mark_hung(void); /* the student's code did not finish in time: later items get less */
int outcome_item_shortened(void); /* this item's time was cut because the student's code hung before */
/* What a side printed: its stderr is kept for the feedback of a failing
 * item; both go to the grader's stderr in --verbose. */
void outcome_add_output(int is_student, const char *out, const char *err);
/* The item's failure is an error of the code (crash, hang, exit), not a wrong answer. */
void outcome_mark_error(void);

/* text.c */
void text_lab_header(FILE *out, const grade_run *run, const lab_result *lab, int color);
void text_item(FILE *out, const grade_run *run, const lab_result *lab, int index, int color, int progress);
void text_lab_total(FILE *out, const grade_run *run, const lab_result *lab, int color);
void text_run_total(FILE *out, const grade_run *run, int color);
void text_report(FILE *out, const grade_run *run); /* all of it, plain */
char *text_report_string(const grade_run *run);
const char *status_word(item_status status);

/* formats.c */
int formats_write(FILE *out, const char *format, const grade_run *run);
int formats_known(const char *format);

/* html.c: the report a person opens in a browser, one self-contained page
 * (its figures drawn by svg.c): every lab of the run, or only run->labs[lab]. */
void html_report(FILE *out, const grade_run *run, int lab);
/* After a run: DIR/labN.html for each lab graded (DIR: `dir`, made if
 * missing; NULL for build/report); the paths, or why not, in one line on
 * `live` ("report: build/report/lab3.html"). */
void html_write_lab_reports(FILE *live, const grade_run *run, const char *dir);

/* text helpers shared by the reports */
char *str_dup(const char *s);
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void str_clean(char *s); /* control bytes and invalid UTF-8 become '?' */
/* The full path of `program` in the first folder of `path` (a PATH's text;
 * NULL: the environment's PATH) that holds it, or NULL. */
char *path_find(const char *program, const char *path);
/* Writes `path` whole or not at all: write(out, context) into a new file
 * beside it, renamed into place once complete, so that a reader sees the
 * whole file or the old one.  0, or -1 (nothing changed). */
int write_file_whole(const char *path, int (*write)(FILE *out, const void *context), const void *context);

#endif /* GRADER_H */
