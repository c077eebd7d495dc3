/* outcome.h: the outcome of one item, as its forked child writes it and
 * the grader reads it back (outcome.c writes, items.c reads).
 *
 * What Check cannot carry (the full feedback with pictures, notes, a skip,
 * a performance score) the child writes into a slot of a shared mapping
 * that the parent made before forking; no runner ever sees that mapping
 * (runners are new programs, started with nothing of the grader's but
 * their pipes). */
#ifndef OUTCOME_H
#define OUTCOME_H

#include <setjmp.h>

#include "figure.h"

#define FEEDBACK_MAX 12288
#define NOTES_MAX 4096
#define PICTURES_MAX 8192
#define REASON_MAX 512
#define ERRORS_MAX 4096

typedef struct {
    int finished;        /* the item returned, failed or skipped */
    int skipped;
    int elsewhere;       /* skipped: graded on the other backend */
    int kit_fault;       /* the reference could not run: not the student's points to lose */
    int hung;            /* the student's code did not finish within the item's time */
    int code_error;      /* the student's code crashed, hung or ended its process */
    double score;        /* grade_score(), or -1 */
    char errors[ERRORS_MAX]; /* the start of what the student's code wrote to stderr */
    char todo[128];      /* the first TODO the student's code reported as not implemented */
    char reason[REASON_MAX];
    char feedback[FEEDBACK_MAX];
    char notes[NOTES_MAX];
    char pictures[PICTURES_MAX];
    figure_record figure; /* the figure the item attached (grade_figure_*), drawn if it fails */
} item_slot;

/* In the child, before the item runs: where its outcome goes, whether its
 * time was cut (the student's code hung in an earlier item), whether what
 * the sides print is echoed (--verbose). */
void outcome_enter_item(item_slot *slot, int shortened, int verbose);
/* grade_skip() jumps here: the child's item function sets it. */
extern jmp_buf outcome_skip_jump;
/* In the child: the item's score so far (grade_score), or -1 where none was given. */
double outcome_score(void);
/* In the child: the item's figure record (figure.c fills it); NULL outside an item. */
figure_record *outcome_figure(void);

#endif /* OUTCOME_H */
