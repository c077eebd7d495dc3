/* items.c: grades one lab with Check.
 *
 * One Suite per lab, one TCase per scored item, so that each Check result
 * maps to exactly one item.  Every item runs in its own forked child (fork
 * mode always) with a timeout.  Neither the parent nor the child ever loads
 * student code: the child talks to runner processes (sides.c), so a crash, a
 * hang, an exit() or an attack costs that item only.
 *
 * Pass, failure or error comes from Check's own record; what Check cannot
 * carry the child writes into its item's slot (outcome.c).  After each item
 * the parent kills and reaps every process the item left behind.
 *
 * The grading core uses itself in one direction: items.c (this file, the
 * grader's side of each item) uses sides.c (the runners), which uses run.c
 * (the run and the current item), which uses outcome.c (the item's outcome),
 * which uses text.c (the report and the string helpers). */
#include "grader.h"
#include "contain.h"
#include "outcome.h"
#include "figure.h"

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ERROR_LINES 8   /* lines of a failing item's error output shown as feedback */

/* The lab being graded: set in the parent, inherited by every child. */
static grade_run *run;
static lab_result *lab;
static item_slot *slots;     /* one per selected item, shared with the children */
static int *tcase_item;      /* the j-th TCase grades lab->items[tcase_item[j]] */
static int tcase_count, tcase_done, printed;
static SRunner *runner;
static double item_started;
static double reference_cpu_seconds; /* the kept reference runner's CPU time limit: the lab's */
/* Once the student's code has hung in an item, every later item of the lab
 * gets a quarter of its time, and at most this long: an endless loop costs
 * one item's full time, not every item's (a platform's limit on the whole
 * run would end it with no results at all). */
#define AFTER_HANG_SECONDS 15.0
static int student_hung;
static int reference_ended, reference_renew;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double round2(double x) { return round(x * 100.0) / 100.0; }

/* ---- in the child ------------------------------------------------------------ */

static double item_timeout(const grade_item *item);

START_TEST(run_item)
{
    outcome_enter_item(&slots[_i], student_hung, run->verbose);
    double seconds = item_timeout(lab->items[_i].item);
    if (student_hung)
        seconds = fmin(seconds / 4, AFTER_HANG_SECONDS * run->time_scale);
    run_enter_item(lab, lab->items[_i].item, seconds);
    if (setjmp(outcome_skip_jump) == 0)
        lab->items[_i].item->run();
    sides_stop();
    slots[_i].finished = 1;
}
END_TEST

/* ---- in the parent ------------------------------------------------------------- */

/* The first lines a failing item wrote to stderr, indented, or NULL.  The
 * kit's "TODO n is not implemented yet" reminders are left out when the
 * feedback already says so. */
static char *error_output(int k, int skip_todo_notes)
{
    const char *p = slots[k].errors;
    char *text = str_dup("");
    int lines = 0, more = 0;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (lines == ERROR_LINES) {
            more = 1;
            break;
        }
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(len < 255 ? len : 255), p);
        p += len + (end ? 1 : 0);
        if (skip_todo_notes && strstr(line, "is not implemented yet"))
            continue;
        char *next = str_printf("%s\n  | %s", text, line); /* marked: never mistaken for the grader's lines */
        free(text);
        text = next;
        lines++;
    }
    if (!lines) {
        free(text);
        return NULL;
    }
    char *result = str_printf("its error output:%s%s", text, more ? "\n  ..." : "");
    free(text);
    return result;
}

static char *describe_error(const item_result *r, const item_slot *s, const char *message, double timeout)
{
    int sig;
    (void)s;
    if (strstr(message, "timeout"))
        return str_printf("did not finish within %.0f s: an endless loop, a deadlock, or far too slow?", timeout);
    if (sscanf(message, "(after this point) Received signal %d", &sig) == 1
        || sscanf(message, "Received signal %d", &sig) == 1) {
        const char *hint = sig == 11 || sig == 7 ? ": an access outside an array, or a device pointer used on the host?"
                         : sig == 8 ? ": a division by zero?"
                         : sig == 6 ? ": abort() or a failed assert" : "";
        return str_printf("crashed with signal %d (%s)%s", sig, strsignal(sig), hint);
    }
    (void)r;
    return str_dup(message);
}

static double item_timeout(const grade_item *item)
{
    double t = item->timeout_s > 0 ? item->timeout_s : 10.0;
    return (run->on_gpu ? t : 4.0 * t) * run->time_scale; /* the cpu backend emulates every thread */
}

/* A failing item's figure, copied out of its slot for the HTML report; NULL for none. */
static figure_record *keep_figure(const item_result *r, const item_slot *s)
{
    if ((r->status != ITEM_FAILED && r->status != ITEM_ERROR) || s->figure.kind == FIGURE_NONE)
        return NULL;
    figure_record *copy = malloc(sizeof *copy);
    if (copy)
        memcpy(copy, &s->figure, sizeof *copy);
    return copy;
}

static void finish_item(int k, TestResult *tr)
{
    item_result *r = &lab->items[k];
    item_slot *s = &slots[k];
    const grade_item *item = r->item;
    int type = tr ? tr_rtype(tr) : CK_ERROR;
    const char *message = tr && tr_msg(tr) ? tr_msg(tr) : "the item did not run";

    r->max_points = item->points;
    r->points = 0;
    if (type == CK_PASS && s->skipped) {
        r->status = ITEM_SKIPPED;
        r->max_points = 0;
        r->elsewhere = s->elsewhere;
        r->feedback = str_dup(s->reason);
    } else if (type == CK_PASS && !s->finished) {
        r->status = ITEM_ERROR; /* the grader's own child ended early: never a pass */
        r->feedback = str_dup("the item ended before it finished (a fault of the grader)");
    } else if (type == CK_PASS) {
        r->status = ITEM_PASSED;
        r->points = item->kind == GRADE_PERFORMANCE && s->score >= 0 ? round2(item->points * s->score) : item->points;
        r->feedback = str_dup("");
    } else if (type == CK_FAILURE) {
        r->status = s->code_error ? ITEM_ERROR : ITEM_FAILED;
        r->feedback = str_dup(s->feedback[0] ? s->feedback : message);
    } else {
        r->status = ITEM_ERROR;
        r->feedback = describe_error(r, s, message, item_timeout(item));
    }
    if (s->kit_fault && (r->status == ITEM_FAILED || r->status == ITEM_ERROR)) {
        r->status = ITEM_ERROR; /* not graded: it counts toward nothing, and the lab could not be graded */
        r->max_points = 0;
        r->kit_fault = 1;
    }
    if (r->status == ITEM_FAILED || r->status == ITEM_ERROR) {
        char *err = error_output(k, strstr(r->feedback, "is not implemented yet") != NULL);
        if (err) {
            char *both = str_printf("%s\n%s", r->feedback, err);
            free(r->feedback);
            free(err);
            r->feedback = both;
        }
    }
    r->notes = str_dup(s->notes);
    r->figure = keep_figure(r, s);
    str_clean(r->feedback);
    str_clean(r->notes);
}

static void print_items_before(int k)
{
    for (; printed < k; printed++)
        text_item(run->live, run, lab, printed, run->color, run->color);
    fflush(NULL);
}

static void before_item(void)
{
    print_items_before(tcase_item[tcase_done]);
    fflush(NULL); /* a child inherits unflushed buffers and would print them twice */
    sides_keep_reference(reference_cpu_seconds, reference_ended, reference_renew);
    contain_item_begins(); /* what the item leaves outside its processes goes after it */
    item_started = now_s();
}

static void after_item(void)
{
    /* every process of the item is gone before its result is read (but the
     * reference's runner, kept for the next item) */
    reference_ended = contain_reap_all(sides_kept_reference());
    int k = tcase_item[tcase_done];
    reference_renew = !slots[k].finished;
    int n = srunner_ntests_run(runner);
    TestResult **results = srunner_results(runner);
    TestResult *mine = NULL;
    for (int i = n - 1; i >= 0 && !mine; i--)
        if (strcmp(tr_tcname(results[i]), lab->items[k].item->name) == 0)
            mine = results[i];
    finish_item(k, mine);
    free(results);
    const item_result *r = &lab->items[k];
    if (slots[k].hung || (r->status == ITEM_ERROR && !r->kit_fault && strstr(r->feedback, "did not finish within")))
        student_hung = 1;
    lab->items[k].seconds = now_s() - item_started;
    tcase_done++;
    print_items_before(k + 1);
}

static void select_items(lab_result *result)
{
    const grade_lab *l = result->lab;
    result->items = calloc((size_t)l->item_count + 1, sizeof *result->items);
    result->count = 0;
    for (int i = 0; i < l->item_count; i++)
        if (run_item_selected(run, &l->items[i]))
            result->items[result->count++].item = &l->items[i];
}

/* The lab's total leaves the going-further items out, attempted or not, so
 * that its maximum is the same for every student (grade.h). */
static void total(lab_result *result)
{
    result->points = result->max_points = result->elsewhere_points = 0;
    result->further_points = result->further_max_points = 0;
    for (int k = 0; k < result->count; k++) {
        const item_result *r = &result->items[k];
        if (grade_item_going_further(r->item)) {
            result->further_points += r->points;
            result->further_max_points += r->max_points;
            continue;
        }
        result->points += r->points;
        result->max_points += r->max_points;
        if (r->elsewhere)
            result->elsewhere_points += r->item->points;
    }
    result->points = round2(result->points);
    result->max_points = round2(result->max_points);
    result->further_points = round2(result->further_points);
    result->further_max_points = round2(result->further_max_points);
}

static void skip_in_parent(item_result *r, const char *reason)
{
    r->status = ITEM_SKIPPED;
    r->points = r->max_points = 0;
    r->elsewhere = 1; /* only a backend's reason skips an item before it runs */
    r->feedback = str_dup(reason);
    r->notes = str_dup("");
}

/* Results are matched to items by name: two items of one name end the grader. */
static void require_unique_names(const lab_result *result)
{
    for (int k = 0; k < result->count; k++)
        for (int j = 0; j < k; j++)
            if (strcmp(result->items[j].item->name, result->items[k].item->name) == 0) {
                fprintf(stderr, "grader: %s has two items named %s; item names must be unique\n",
                        result->lab->dir, result->items[k].item->name);
                exit(2);
            }
}

/* The slots the children write their outcomes into, and the parent's
 * counts for a new lab; 0 where the mapping could not be made. */
static int prepare_slots(lab_result *result)
{
    slots = mmap(NULL, (size_t)(result->count + 1) * sizeof *slots, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (slots == MAP_FAILED) {
        result->gradable = 0;
        result->problem = str_dup("the grader could not map memory for its children");
        return 0;
    }
    tcase_item = calloc((size_t)result->count + 1, sizeof *tcase_item);
    tcase_count = tcase_done = printed = 0;
    reference_cpu_seconds = 10;
    reference_ended = reference_renew = 0;
    student_hung = 0;
    return 1;
}

/* One TCase per item this backend grades; the others are skipped here. */
static Suite *make_suite(lab_result *result)
{
    Suite *suite = suite_create(result->lab->dir);
    for (int k = 0; k < result->count; k++) {
        const grade_item *item = result->items[k].item;
        const char *reason;
        slots[k].score = -1;
        if (run_item_backend_skip(run, item, &reason)) {
            skip_in_parent(&result->items[k], reason);
            continue;
        }
        TCase *tc = tcase_create(item->name);
        tcase_set_timeout(tc, item_timeout(item));
        reference_cpu_seconds += 4 * item_timeout(item);
        tcase_add_unchecked_fixture(tc, before_item, after_item);
        tcase_add_loop_test(tc, run_item, k, k + 1);
        suite_add_tcase(suite, tc);
        tcase_item[tcase_count++] = k;
    }
    return suite;
}

static void run_suite(Suite *suite)
{
    runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_FORK);
    if (tcase_count > 0)
        srunner_run_all(runner, CK_SILENT);
    srunner_free(runner);
    runner = NULL;
    sides_release_reference();
    /* A TCase Check never ran (it should not happen) is an error, not a pass. */
    for (int j = tcase_done; j < tcase_count; j++)
        finish_item(tcase_item[j], NULL);
}

/* A lab where no item ran, or where the reference could not run, is not graded. */
static void judge_gradable(lab_result *result)
{
    int ran = 0;
    for (int k = 0; k < result->count; k++)
        ran += result->items[k].status != ITEM_SKIPPED;
    int faults = 0;
    for (int k = 0; k < result->count; k++)
        faults += result->items[k].kit_fault;
    if (!ran) {
        result->gradable = 0;
        result->problem = str_dup("no item ran");
    } else if (faults) {
        result->gradable = 0;
        result->problem = str_printf("the reference solution could not run in %d item%s, which count toward nothing (a "
                                     "fault of the kit or this machine, not of your code: see the item%s)",
                                     faults, faults == 1 ? "" : "s", faults == 1 ? "" : "s");
    }
}

void runner_grade_lab(grade_run *the_run, lab_result *result)
{
    run = the_run;
    lab = result;
    select_items(result);
    require_unique_names(result);
    result->gradable = 1;
    sides_set_paths(result, run->runner, run->scratch);
    if (!prepare_slots(result))
        return;
    Suite *suite = make_suite(result);
    text_lab_header(run->live, run, result, run->color);
    fflush(NULL);
    run_suite(suite);
    print_items_before(result->count);
    judge_gradable(result);
    total(result);
    text_lab_total(run->live, run, result, run->color);
    fflush(NULL);
    munmap(slots, (size_t)(result->count + 1) * sizeof *slots);
    slots = NULL;
    free(tcase_item);
}

/* The compiler's first errors, indented: each line that names an error,
 * with the source excerpt the compiler prints under it; make's own
 * complaints left out.  Without any, the log's first lines. */
static char *first_errors(const char *log_path)
{
    FILE *f = fopen(log_path, "r");
    if (!f)
        return str_printf("  (no compiler log at %s)", log_path);
    char line[512];
    char *errors = str_dup(""), *head = str_dup("");
    int n_errors = 0, n_head = 0, excerpt = 0;
    while (fgets(line, sizeof line, f) && n_errors < 16) {
        line[strcspn(line, "\n")] = 0;
        char **into = NULL;
        if (strncmp(line, "make", 4) == 0)
            excerpt = 0;
        else if (strstr(line, "error") || strstr(line, "Error"))
            into = &errors, n_errors++, excerpt = 2;
        else if (excerpt > 0 && line[0] == ' ')
            into = &errors, n_errors++, excerpt--;
        else
            excerpt = 0;
        if (!into && n_head < 12 && strncmp(line, "make", 4) != 0)
            into = &head, n_head++;
        if (into) {
            char *next = str_printf("%s%s  %s", *into, **into ? "\n" : "", line);
            free(*into);
            *into = next;
        }
    }
    fclose(f);
    if (n_errors) {
        free(head);
        return errors;
    }
    free(errors);
    return head;
}

void runner_build_failed(grade_run *the_run, lab_result *result)
{
    run = the_run;
    select_items(result);
    char *errors = first_errors(result->build_log);
    for (int k = 0; k < result->count; k++) {
        item_result *r = &result->items[k];
        const char *reason;
        if (run_item_backend_skip(run, r->item, &reason)) {
            skip_in_parent(r, reason);
            continue;
        }
        r->status = ITEM_FAILED;
        r->points = 0;
        r->max_points = r->item->points;
        r->feedback = str_printf("your code does not compile:\n%s", errors);
        r->notes = str_dup("");
        str_clean(r->feedback);
    }
    free(errors);
    result->gradable = 0;
    result->problem = str_printf("your code does not compile; the compiler's log is %s", result->build_log);
    total(result);
    text_lab_header(run->live, run, result, run->color);
    for (int k = 0; k < result->count; k++)
        text_item(run->live, run, result, k, run->color, run->color);
    text_lab_total(run->live, run, result, run->color);
    fflush(NULL);
}
