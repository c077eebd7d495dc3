/* text.c: the report people read, one line per item and a total, plus the
 * string helpers every report shares.  The lowest part of the grading core:
 * it uses none of items.c, sides.c, run.c or outcome.c. */
#include "grader.h"
#include "contain.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

char *str_dup(const char *s)
{
    char *copy = strdup(s ? s : "");
    if (!copy) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return copy;
}

char *str_printf(const char *fmt, ...)
{
    char *text = NULL;
    va_list args;
    va_start(args, fmt);
    int n = vasprintf(&text, fmt, args);
    va_end(args);
    if (n < 0) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return text;
}

/* Reports must stay valid JSON and XML whatever the code under test wrote:
 * control bytes and bytes that are not UTF-8 become '?'. */
/* Strict UTF-8: a sequence is kept only when it is the shortest form of a
 * code point up to U+10FFFF that is not a surrogate; control characters
 * (C0 but newline and tab, DEL, C1) would drive a terminal: each bad byte
 * becomes '?'. */
void str_clean(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (p && *p) {
        int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        unsigned long cp = extra == 0 ? *p : extra == 1 ? *p & 0x1fu : extra == 2 ? *p & 0x0fu : *p & 0x07u;
        int ok = extra >= 0;
        for (int i = 1; ok && i <= extra; i++) {
            ok = (p[i] & 0xc0) == 0x80;
            cp = (cp << 6) | (p[i] & 0x3fu);
        }
        static const unsigned long shortest[] = {0, 0x80, 0x800, 0x10000};
        ok = ok && cp >= shortest[extra] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
        ok = ok && !(cp < 0x20 && cp != '\n' && cp != '\t') && !(cp >= 0x7f && cp <= 0x9f);
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += 1 + extra;
    }
}

/* A going-further item says so in its title (grade.h); the reports set it apart. */
int grade_item_going_further(const grade_item *item)
{
    return item && item->title && strcasestr(item->title, "going further") != NULL;
}

const char *status_word(item_status status)
{
    switch (status) {
    case ITEM_PASSED: return "PASS";
    case ITEM_FAILED: return "FAIL";
    case ITEM_ERROR: return "ERROR";
    default: return "SKIP";
    }
}

/* 10 -> "10.0", 2.5 -> "2.5", 3.33 -> "3.33" */
static const char *points_text(double x, char *buffer, size_t size)
{
    snprintf(buffer, size, "%.2f", x);
    size_t n = strlen(buffer);
    if (n > 3 && buffer[n - 1] == '0')
        buffer[n - 1] = 0;
    return buffer;
}

static void indented(FILE *out, const char *text, const char *indent)
{
    const char *line = text;
    while (*line) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%s%.*s\n", indent, (int)len, line);
        line += len;
        if (*line)
            line++;
    }
}

void text_lab_header(FILE *out, const grade_run *run, const lab_result *lab, int color)
{
    fprintf(out, "%s== %s (%s backend, seed %llu)%s\n", color ? BOLD : "", lab->lab->dir, run->backend,
            run->seed, color ? RESET : "");
}

void text_item(FILE *out, const grade_run *run, const lab_result *lab, int index, int color, int progress)
{
    const item_result *r = &lab->items[index];
    const char *colour = r->status == ITEM_PASSED ? GREEN : r->status == ITEM_SKIPPED ? YELLOW : RED;
    char got[32], max[32], score[80];
    if (r->status == ITEM_SKIPPED)
        snprintf(score, sizeof score, "(%s)", points_text(r->item->points, max, sizeof max));
    else
        snprintf(score, sizeof score, "%s/%s", points_text(r->points, got, sizeof got),
                 points_text(r->max_points, max, sizeof max));
    if (progress)
        fprintf(out, "[%d/%d] ", index + 1, lab->count);
    else
        fprintf(out, "  ");
    /* an attempted going-further item says it counts toward no total (a
     * skipped one's reason says so already) */
    int apart = grade_item_going_further(r->item) && r->status != ITEM_SKIPPED;
    fprintf(out, "%s%-5s%s %11s  %s: %s%s\n", color ? colour : "", status_word(r->status), color ? RESET : "",
            score, r->item->name, r->item->title, apart ? " (not counted in the total)" : "");
    if (r->status == ITEM_FAILED && lab->build_log) {
        int first = 0;
        while (first < index && lab->items[first].status != ITEM_FAILED)
            first++;
        if (first < index) { /* the compiler's errors were shown once already */
            fprintf(out, "      your code does not compile (as above)\n");
            return;
        }
    }
    if (r->feedback && *r->feedback && r->status != ITEM_PASSED)
        indented(out, r->feedback, "      ");
    if (r->notes && *r->notes && (run->verbose || r->status != ITEM_PASSED || r->points < r->max_points))
        indented(out, r->notes, "      note: ");
}

void text_lab_total(FILE *out, const grade_run *run, const lab_result *lab, int color)
{
    char got[32], max[32];
    fprintf(out, "%s%s: %s/%s points%s", color ? BOLD : "", lab->lab->dir, points_text(lab->points, got, sizeof got),
            points_text(lab->max_points, max, sizeof max), color ? RESET : "");
    if (lab->further_max_points > 0)
        fprintf(out, " (going further: %s/%s, not counted in the total)",
                points_text(lab->further_points, got, sizeof got),
                points_text(lab->further_max_points, max, sizeof max));
    if (lab->gradable && lab->elsewhere_points > 0)
        fprintf(out, " (%s more are graded %s)", points_text(lab->elsewhere_points, max, sizeof max),
                run->on_gpu ? "elsewhere: see the items not graded here" : "on a GPU");
    if (!lab->gradable)
        fprintf(out, " (not graded: %s)", lab->problem ? lab->problem : "?");
    fprintf(out, "\n");
}

void text_run_total(FILE *out, const grade_run *run, int color)
{
    if (run->lab_count > 1) {
        double points = 0, max_points = 0;
        char got[32], max[32];
        for (int i = 0; i < run->lab_count; i++) {
            points += run->labs[i].points;
            max_points += run->labs[i].max_points;
        }
        fprintf(out, "%stotal: %s/%s points in %d labs%s\n", color ? BOLD : "", points_text(points, got, sizeof got),
                points_text(max_points, max, sizeof max), run->lab_count, color ? RESET : "");
    }
    fprintf(out, "sandbox: %s\n", contain_walls_text()); /* a missing wall is named */
    fprintf(out, "seed %llu: replay with %s --seed=%llu\n", run->seed, run->replay, run->seed);
}

void text_report(FILE *out, const grade_run *run)
{
    for (int i = 0; i < run->lab_count; i++) {
        const lab_result *lab = &run->labs[i];
        text_lab_header(out, run, lab, 0);
        for (int k = 0; k < lab->count; k++)
            text_item(out, run, lab, k, 0, 0);
        text_lab_total(out, run, lab, 0);
    }
    text_run_total(out, run, 0);
}

char *text_report_string(const grade_run *run)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return str_dup("");
    text_report(f, run);
    fclose(f);
    return text;
}

char *path_find(const char *program, const char *path)
{
    if (!path)
        path = getenv("PATH");
    char *copy = str_dup(path ? path : ""), *found = NULL, *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *full = str_printf("%s/%s", dir, program);
        if (access(full, X_OK) == 0)
            found = full;
        else
            free(full);
    }
    free(copy);
    return found;
}

int write_file_whole(const char *path, int (*write)(FILE *out, const void *context), const void *context)
{
    char *temporary = str_printf("%s.grader-%ld", path, (long)getpid());
    int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0644);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out && fd >= 0)
        close(fd);
    int failed = !out || write(out, context) != 0;
    if (out) {
        failed |= ferror(out) != 0;
        failed |= fclose(out) != 0;
    }
    if (!failed && rename(temporary, path) != 0)
        failed = 1;
    if (failed)
        unlink(temporary);
    free(temporary);
    return failed ? -1 : 0;
}
