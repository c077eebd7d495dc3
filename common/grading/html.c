/* html.c: the report a person opens in a browser: one self-contained page
 * (one inline style sheet, report.css compiled in; SVG figures inline; no
 * script, nothing linked) with each lab's items, points, feedback and, for
 * a failing item, the figure its suite attached (figure.h, drawn by svg.c).
 *
 * Everything comes from the grader's own record of the run.  The feedback
 * may quote what the student's code printed: it is cleaned to valid UTF-8
 * again here and escaped, so that any bytes stay text, and the page's
 * Content-Security-Policy forbids scripts besides. */
#include "grader.h"
#include "svg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* common/grading/report.css, the one style sheet of the kit's pages (and
 * of tools/grades-stats.sh --html), built in as a string: the assembler
 * reads it (the build runs in the kit's folder; the Makefile makes html.o
 * depend on it), so the grader needs no file at run time. */
__asm__(".pushsection .rodata\n"
        ".globl report_css\n"
        ".hidden report_css\n"
        "report_css:\n"
        ".incbin \"common/grading/report.css\"\n"
        ".byte 0\n"
        ".popsection\n");
extern const char report_css[];

static void escaped(FILE *out, const char *s)
{
    char *clean = str_dup(s ? s : "");
    str_clean(clean);
    svg_text(out, clean);
    free(clean);
}

static const char *points_text(double x, char *buffer, size_t size)
{
    snprintf(buffer, size, "%.2f", x);
    size_t n = strlen(buffer);
    while (n > 1 && buffer[n - 1] == '0')
        buffer[--n] = 0;
    if (n && buffer[n - 1] == '.')
        buffer[--n] = 0;
    return buffer;
}

static const char *status_class(item_status status)
{
    return status == ITEM_PASSED ? "passed" : status == ITEM_FAILED ? "failed"
         : status == ITEM_ERROR ? "error" : "skipped";
}

/* One figure with its caption; a figure of the kind `tree` is class="figure-tree", and so on. */
static void html_figure(FILE *out, const figure_record *f)
{
    static const char *const kinds[] = {"none", "rounds", "partials", "matrix", "grid", "tree", "tail", "table"};
    fprintf(out, "<figure class=\"figure-%s\">\n",
            f->kind >= 0 && f->kind < (int)(sizeof kinds / sizeof kinds[0]) ? kinds[f->kind] : "other");
    svg_figure(out, f);
    fputs("<figcaption>", out);
    escaped(out, f->caption);
    if (f->truncated)
        fputs(" (part of it: the rest did not fit)", out);
    fputs("</figcaption>\n</figure>\n", out);
}

static void html_item(FILE *out, const item_result *r)
{
    char got[32], max[32];
    fprintf(out, "<section class=\"item %s\" id=\"item-%s\">\n<h2><span class=\"status\">%s</span>"
                 "<span class=\"name\">", status_class(r->status), r->item->name, status_word(r->status));
    escaped(out, r->item->name);
    fputs("</span> <span class=\"title\">", out);
    escaped(out, r->item->title);
    if (r->status == ITEM_SKIPPED)
        fprintf(out, "</span><span class=\"points\">(%s)</span></h2>\n", points_text(r->item->points, max, sizeof max));
    else
        fprintf(out, "</span><span class=\"points\">%s/%s</span></h2>\n", points_text(r->points, got, sizeof got),
                points_text(r->max_points, max, sizeof max));
    if (r->feedback && *r->feedback && r->status != ITEM_PASSED) {
        fputs("<pre class=\"feedback\">", out);
        escaped(out, r->feedback);
        fputs("</pre>\n", out);
    }
    if (r->figure) {
        html_figure(out, r->figure);
        for (int k = 0; k < r->figure->more_count; k++) {
            figure_record *beside = svg_figure_beside(r->figure, k);
            if (beside)
                html_figure(out, beside);
            free(beside);
        }
    }
    if (r->notes && *r->notes) {
        fputs("<pre class=\"note\">", out);
        escaped(out, r->notes);
        fputs("</pre>\n", out);
    }
    fputs("</section>\n", out);
}

static void html_lab(FILE *out, const grade_run *run, const lab_result *lab)
{
    char got[32], max[32];
    fputs("<h1>", out);
    escaped(out, lab->lab->dir);
    fprintf(out, "</h1>\n<p class=\"total\">%s/%s points", points_text(lab->points, got, sizeof got),
            points_text(lab->max_points, max, sizeof max));
    if (lab->further_max_points > 0)
        fprintf(out, " (going further: %s/%s, not counted in the total)",
                points_text(lab->further_points, got, sizeof got),
                points_text(lab->further_max_points, max, sizeof max));
    if (!lab->gradable) {
        fputs(" (not graded: ", out);
        escaped(out, lab->problem ? lab->problem : "?");
        fputs(")", out);
    }
    fprintf(out, "</p>\n<p class=\"meta\">%s backend, seed %llu: replay with <code>", run->backend, run->seed);
    escaped(out, run->replay);
    fprintf(out, " --seed=%llu</code></p>\n", run->seed);
    for (int k = 0; k < lab->count; k++)
        html_item(out, &lab->items[k]);
}

void html_report(FILE *out, const grade_run *run, int lab)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n"
          "<title>", out);
    for (int i = 0; i < run->lab_count; i++)
        if (lab < 0 || i == lab) {
            char got[32], max[32];
            escaped(out, run->labs[i].lab->dir);
            fprintf(out, ": %s/%s ", points_text(run->labs[i].points, got, sizeof got),
                    points_text(run->labs[i].max_points, max, sizeof max));
        }
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", report_css);
    for (int i = 0; i < run->lab_count; i++)
        if (lab < 0 || i == lab)
            html_lab(out, run, &run->labs[i]);
    fputs("</body>\n</html>\n", out);
}

/* One lab's page (or the whole run's: lab < 0), for write_file_whole. */
typedef struct {
    const grade_run *run;
    int lab;
} page;

static int write_page(FILE *out, const void *context)
{
    const page *p = context;
    html_report(out, p->run, p->lab);
    return 0;
}

void html_write_lab_reports(FILE *live, const grade_run *run, const char *dir)
{
    if (run->lab_count == 0)
        return;
    if (!dir) {
        dir = "build/report";
        mkdir("build", 0755);
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(live, "report: not written (%s: %s)\n", dir, strerror(errno));
        return;
    }
    char *line = str_dup("report:");
    for (int i = 0; i < run->lab_count; i++) {
        char *path = str_printf("%s/lab%d.html", dir, run->labs[i].lab->number);
        page p = {run, i};
        char *next = write_file_whole(path, write_page, &p) == 0 ? str_printf("%s %s", line, path)
                                                    : str_printf("%s (%s not written: %s)", line, path, strerror(errno));
        free(line);
        free(path);
        line = next;
    }
    fprintf(live, "%s\n", line);
    free(line);
}
