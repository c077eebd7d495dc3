/* profile.c: why a kernel is slower than the reference's, in the lab's terms.
 *
 * A performance item's verdict is the time ratio measured in the same run;
 * this file only explains it.  Where the item scored below full and Nsight
 * Compute (ncu) is on the PATH, the lab program runs under ncu twice, on
 * the student's code and on the reference, profiling the first launches of
 * one kernel.  The counters of the longest launch of each are compared
 * through the lenses the lab teaches (grade.h: GRADE_LENS_*) and written as
 * a note.  Nothing here changes a score.
 *
 * ncu runs the student's program as any tool does (run_contained: the
 * runner user when root, not sandboxed, since ncu needs its own files).  Its
 * table is read from the run's output, where it comes last; a program that
 * prints a table of its own can change only the words of the note. */
#include "grader.h"
#include "outcome.h"
#include "counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one profiled run -------------------------------------------------------------------- */

/* The lab program `program` with `args` under ncu, its kernel `kernel`:
 * 1 with the counters in *c, else 0 with why in `why`. */
static int profile(const char *program, int untrusted, const char *kernel, const char *args, counters *c,
                   char *why, size_t why_size)
{
    char name[160], copy[256];
    snprintf(name, sizeof name, "regex:^%s$", kernel);
    char count[16];
    snprintf(count, sizeof count, "%d", COUNTERS_LAUNCHES);
    char *argv[32] = {(char *)run_profiler(), "--csv", "--page", "raw", "--kernel-name", name,
                      "--launch-count", count, "--metrics", (char *)counters_metric_list(), (char *)program};
    run_append_words(argv, 11, copy, sizeof copy, args);
    char *output;
    int code = run_contained(argv, untrusted, 0, &output);
    int got = counters_read_table(output, c);
    if (!got) {
        const char *error = strstr(output, "==ERROR==");
        if (strstr(output, "ERR_NVGPUCTRPERM"))
            snprintf(why, why_size, "ncu may not read this GPU's performance counters as the user that runs %s (the "
                     "driver lets administrators alone read them where NVreg_RestrictProfilingToAdminUsers=1)",
                     untrusted ? "your code" : "the grader");
        else if (code == RUN_PAST_DEADLINE)
            snprintf(why, why_size, "ncu did not finish within the item's time");
        else if (error)
            snprintf(why, why_size, "ncu said: %.200s", error);
        else
            snprintf(why, why_size, "ncu profiled no launch of %s (exit %d)", kernel, code);
        char *end = strchr(why, '\n');
        if (end)
            *end = 0;
        str_clean(why);
    }
    free(output);
    return got;
}

/* ---- what a performance item calls -------------------------------------------------------- */

void grade_explain_speed(const char *kernel, const char *program_args, unsigned lenses)
{
    double score = outcome_score();
    if (!grade_on_gpu() || score < 0 || score >= 1)
        return;
    if (!run_profiler()) {
        grade_note("ncu (Nsight Compute, part of the CUDA Toolkit) is not on the PATH here, so this item cannot show "
                   "the GPU's counters that explain its time");
        return;
    }
    const char *yours = run_student_program(), *reference = run_reference_program();
    if (!yours) {
        grade_note("no profiler's explanation: the lab program was not built from your code");
        return;
    }
    char why[400], text[NOTES_MAX / 2] = "";
    counters you, ref;
    if (!profile(yours, 1, kernel, program_args, &you, why, sizeof why)) {
        grade_note("no profiler's explanation of `lab %s`: %s", program_args, why);
        return;
    }
    int have_ref = reference && profile(reference, 0, kernel, program_args, &ref, why, sizeof why);
    counters_explain(kernel, &you, have_ref ? &ref : NULL, lenses, text, sizeof text);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        grade_note("%s", line); /* (a note is a line of at most 1023 bytes) */
}
