/* outcome.c: the outcome of the item being graded, in its forked child:
 * grade_fail, grade_skip, grade_note, grade_score and what the sides report
 * about the student's code (its error output, a hang, a crash).  It uses
 * nothing of the grading core but the string helpers (text.c): every other
 * part (sides.c, run.c, the suites) ends items through it. */
#include "grader.h"
#include "outcome.h"

#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* In the child only (NULL in the grader itself). */
static item_slot *slot;
static int item_shortened, echo_output;
jmp_buf outcome_skip_jump;

void outcome_enter_item(item_slot *item_slot, int shortened, int verbose)
{
    slot = item_slot;
    item_shortened = shortened;
    echo_output = verbose;
}

static void append(char *buffer, size_t size, const char *text)
{
    size_t used = strlen(buffer);
    if (used + 1 < size)
        snprintf(buffer + used, size - used, "%s", text);
}

/* Ends the item as failed with `message` (and the pictures drawn so far);
 * `todo_hint`: add the student's pending TODO, when there is one. */
static void fail_item(const char *message, int todo_hint) __attribute__((noreturn));
static void fail_item(const char *message, int todo_hint)
{
    if (!slot) {
        fprintf(stderr, "grader: grade_fail() outside an item: %s\n", message);
        _exit(2);
    }
    slot->feedback[0] = 0;
    append(slot->feedback, FEEDBACK_MAX, message);
    if (slot->pictures[0]) {
        append(slot->feedback, FEEDBACK_MAX, "\n");
        append(slot->feedback, FEEDBACK_MAX, slot->pictures);
    }
    size_t end = strlen(slot->feedback);
    while (end && slot->feedback[end - 1] == '\n')
        slot->feedback[--end] = 0;
    const char *todo = todo_hint && slot->todo[0] ? slot->todo : NULL;
    if (todo) {
        char hint[256];
        snprintf(hint, sizeof hint, "\n(your code says %s is not implemented yet)", todo);
        append(slot->feedback, FEEDBACK_MAX, hint);
    }
    slot->finished = 1;
    /* Check caps its messages at 4 KB; the slot has it all */
    ck_abort_msg("%.3000s", message);
    _exit(1); /* not reached: Check ends a failing child */
}

void grade_fail(const char *fmt, ...)
{
    /* static: this may run deep in an emulated thread's small stack */
    static char message[FEEDBACK_MAX];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    fail_item(message, 1);
}

void outcome_fail_kit(const char *message)
{
    if (slot)
        slot->kit_fault = 1;
    fail_item(message, 0);
}

void outcome_fail_not_student(const char *message)
{
    fail_item(message, 0);
}

void grade_skip(const char *reason)
{
    if (!slot) {
        fprintf(stderr, "grader: grade_skip() outside an item\n");
        _exit(2);
    }
    snprintf(slot->reason, REASON_MAX, "%s", reason);
    slot->skipped = 1;
    longjmp(outcome_skip_jump, 1);
}

void grade_skip_elsewhere(const char *reason)
{
    if (slot)
        slot->elsewhere = 1;
    grade_skip(reason);
}

void grade_note(const char *fmt, ...)
{
    if (!slot)
        return;
    char line[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    if (slot->notes[0])
        append(slot->notes, NOTES_MAX, "\n");
    append(slot->notes, NOTES_MAX, line);
}

void grade_score(double fraction)
{
    if (!slot)
        return;
    if (!(fraction >= 0)) /* NaN too */
        fraction = 0;
    slot->score = fraction > 1 ? 1 : fraction;
}

double outcome_score(void) { return slot ? slot->score : -1; }

/* Keeps the start of the student's stderr; notes the first "TODO n is not
 * implemented yet" reminder of the kit's, for hints (a hint, never a grade).
 * In --verbose, everything a side printed goes to the grader's stderr. */
void outcome_add_output(int is_student, const char *out, const char *text)
{
    if (!slot)
        return;
    for (int k = 0; echo_output && k < 2; k++) {
        char *clean = str_dup(k ? text : out);
        str_clean(clean);
        fprintf(stderr, "%s", clean);
        free(clean);
    }
    if (!is_student || !text || !*text)
        return;
    append(slot->errors, ERRORS_MAX, text);
    const char *note = strstr(text, "note: ");
    const char *end = note ? strstr(note, " is not implemented yet") : NULL;
    if (!slot->todo[0] && end && end - note - 6 < (long)sizeof slot->todo && !memchr(note, '\n', (size_t)(end - note)))
        snprintf(slot->todo, sizeof slot->todo, "%.*s", (int)(end - note - 6), note + 6);
}

void outcome_mark_error(void)
{
    if (slot)
        slot->code_error = 1;
}

void outcome_mark_hung(void)
{
    if (slot)
        slot->hung = 1;
}

int outcome_item_shortened(void) { return item_shortened; }

void outcome_append_picture(const char *text)
{
    if (slot)
        append(slot->pictures, PICTURES_MAX, text);
}

figure_record *outcome_figure(void) { return slot ? &slot->figure : NULL; }
