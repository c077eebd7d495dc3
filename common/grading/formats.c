/* formats.c: machine-readable results for platforms and scripts.
 *
 * Everything here is written from the grader's own record of the run (the
 * parent's results), never from anything the code under test printed. */
#include "grader.h"
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const formats[] = {"text", "tap", "junit", "json", "gradescope", "prairielearn", "html", NULL};

int formats_known(const char *format)
{
    for (int i = 0; formats[i]; i++)
        if (strcmp(format, formats[i]) == 0)
            return 1;
    return 0;
}

static const char *kind_word(enum grade_kind kind)
{
    return kind == GRADE_PERFORMANCE ? "performance" : kind == GRADE_SANITIZER ? "sanitizer" : "correctness";
}

static const char *json_status(item_status status)
{
    return status == ITEM_PASSED ? "passed" : status == ITEM_FAILED ? "failed"
         : status == ITEM_ERROR ? "error" : "skipped";
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void xml_text(FILE *out, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\t': fputs("&#9;", out); break;
        default: fputc(*p, out);
        }
    }
}

/* The first line of a feedback, for one-line summaries. */
static char *first_line(const char *s)
{
    s = s ? s : "";
    return str_printf("%.*s", (int)strcspn(s, "\n"), s);
}

/* Whether the item counts toward its lab's total: a going-further item
 * never does (grade.h), and its output says so. */
static int counted(const item_result *r)
{
    return !grade_item_going_further(r->item);
}

/* Feedback followed by the notes: what a platform shows under one test. */
static char *item_output(const item_result *r)
{
    const char *feedback = r->status == ITEM_PASSED ? "" : r->feedback;
    if (r->status == ITEM_SKIPPED)
        return str_printf("skipped: %s", r->feedback);
    char *text = *feedback && *r->notes ? str_printf("%s\n%s", feedback, r->notes) : str_dup(*feedback ? feedback : r->notes);
    if (counted(r))
        return text;
    char *apart = str_printf("going further: %.2f/%.2f, not counted in the total%s%s", r->points, r->max_points,
                             *text ? "\n" : "", text);
    free(text);
    return apart;
}

static void totals(const grade_run *run, double *points, double *max_points)
{
    *points = *max_points = 0;
    for (int i = 0; i < run->lab_count; i++) {
        *points += run->labs[i].points;
        *max_points += run->labs[i].max_points;
    }
}

static int all_gradable(const grade_run *run)
{
    for (int i = 0; i < run->lab_count; i++)
        if (!run->labs[i].gradable)
            return 0;
    return 1;
}

/* ---- TAP version 13 ------------------------------------------------------------ */
static void write_tap(FILE *out, const grade_run *run)
{
    int n = 0, number = 0;
    for (int i = 0; i < run->lab_count; i++)
        n += run->labs[i].count;
    fprintf(out, "TAP version 13\n1..%d\n# backend %s, seed %llu\n", n, run->backend, run->seed);
    for (int i = 0; i < run->lab_count; i++) {
        const lab_result *lab = &run->labs[i];
        for (int k = 0; k < lab->count; k++) {
            const item_result *r = &lab->items[k];
            number++;
            int ok = r->status == ITEM_PASSED || r->status == ITEM_SKIPPED;
            fprintf(out, "%s %d - %s/%s: %s", ok ? "ok" : "not ok", number, lab->lab->dir, r->item->name,
                    r->item->title);
            if (r->status == ITEM_SKIPPED) {
                char *why = first_line(r->feedback);
                fprintf(out, " # SKIP %s\n", why);
                free(why);
                continue;
            }
            fputc('\n', out);
            fprintf(out, "  ---\n  status: %s\n  points: %.2f\n  max_points: %.2f\n", json_status(r->status),
                    r->points, r->max_points);
            if (!counted(r))
                fputs("  going_further: true\n", out);
            char *output = item_output(r);
            if (*output) {
                fputs("  feedback: |-\n", out);
                for (const char *line = output; *line;) {
                    size_t len = strcspn(line, "\n");
                    fprintf(out, "    %.*s\n", (int)len, line);
                    line += len + (line[len] ? 1 : 0);
                }
            }
            free(output);
            fputs("  ...\n", out);
        }
    }
}

/* ---- JUnit XML (as GitLab, Jenkins and GitHub reporters read it) -------------------- */
static void write_junit(FILE *out, const grade_run *run)
{
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    double seconds = 0;
    for (int i = 0; i < run->lab_count; i++)
        for (int k = 0; k < run->labs[i].count; k++) {
            const item_result *r = &run->labs[i].items[k];
            tests++;
            failures += r->status == ITEM_FAILED;
            errors += r->status == ITEM_ERROR;
            skipped += r->status == ITEM_SKIPPED;
            seconds += r->seconds;
        }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out, "<testsuites name=\"CUDA Labs\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
            tests, failures, errors, skipped, seconds);
    for (int i = 0; i < run->lab_count; i++) {
        const lab_result *lab = &run->labs[i];
        int f = 0, e = 0, s = 0;
        double t = 0;
        for (int k = 0; k < lab->count; k++) {
            f += lab->items[k].status == ITEM_FAILED;
            e += lab->items[k].status == ITEM_ERROR;
            s += lab->items[k].status == ITEM_SKIPPED;
            t += lab->items[k].seconds;
        }
        fprintf(out, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                lab->lab->dir, lab->count, f, e, s, t);
        fprintf(out, "    <properties>\n");
        fprintf(out, "      <property name=\"backend\" value=\"%s\"/>\n", run->backend);
        fprintf(out, "      <property name=\"seed\" value=\"%llu\"/>\n", run->seed);
        fprintf(out, "      <property name=\"points\" value=\"%.2f\"/>\n", lab->points);
        fprintf(out, "      <property name=\"max_points\" value=\"%.2f\"/>\n", lab->max_points);
        fprintf(out, "      <property name=\"going_further_points\" value=\"%.2f\"/>\n", lab->further_points);
        fprintf(out, "      <property name=\"going_further_max_points\" value=\"%.2f\"/>\n", lab->further_max_points);
        fprintf(out, "    </properties>\n");
        for (int k = 0; k < lab->count; k++) {
            const item_result *r = &lab->items[k];
            fprintf(out, "    <testcase classname=\"%s\" name=\"", lab->lab->dir);
            xml_text(out, r->item->name);
            fprintf(out, "\" time=\"%.3f\"", r->seconds);
            if (r->status == ITEM_PASSED && !*r->notes) {
                fputs("/>\n", out);
                continue;
            }
            fputs(">\n", out);
            char *summary = first_line(r->feedback);
            if (r->status == ITEM_SKIPPED) {
                fputs("      <skipped message=\"", out);
                xml_text(out, summary);
                fputs("\"/>\n", out);
            } else if (r->status != ITEM_PASSED) {
                const char *tag = r->status == ITEM_ERROR ? "error" : "failure";
                fprintf(out, "      <%s message=\"", tag);
                xml_text(out, summary);
                fprintf(out, "\" type=\"%s\">", r->status == ITEM_ERROR ? "crash, timeout or exit" : "wrong result");
                xml_text(out, r->feedback);
                fprintf(out, "</%s>\n", tag);
            }
            if (*r->notes) {
                fputs("      <system-out>", out);
                xml_text(out, r->notes);
                fputs("</system-out>\n", out);
            }
            free(summary);
            fputs("    </testcase>\n", out);
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
}

/* ---- JSON (docs/developing.md) --------------------------------------------------- */
static void write_json(FILE *out, const grade_run *run)
{
    double points, max_points;
    totals(run, &points, &max_points);
    fprintf(out, "{ \"backend\": ");
    json_string(out, run->backend);
    fprintf(out, ", \"seed\": %llu, \"points\": %.2f, \"max_points\": %.2f,\n  \"labs\": [", run->seed, points, max_points);
    for (int i = 0; i < run->lab_count; i++) {
        const lab_result *lab = &run->labs[i];
        fprintf(out, "%s\n    { \"lab\": ", i ? "," : "");
        json_string(out, lab->lab->dir);
        fprintf(out, ", \"points\": %.2f, \"max_points\": %.2f, \"going_further_points\": %.2f, "
                "\"going_further_max_points\": %.2f, \"gradable\": %s,\n      \"items\": [",
                lab->points, lab->max_points, lab->further_points, lab->further_max_points,
                lab->gradable ? "true" : "false");
        for (int k = 0; k < lab->count; k++) {
            const item_result *r = &lab->items[k];
            fprintf(out, "%s\n        { \"name\": ", k ? "," : "");
            json_string(out, r->item->name);
            fputs(", \"title\": ", out);
            json_string(out, r->item->title);
            fprintf(out, ", \"kind\": \"%s\", \"status\": \"%s\", \"points\": %.2f, \"max_points\": %.2f, "
                    "\"going_further\": %s, \"feedback\": ",
                    kind_word(r->item->kind), json_status(r->status), r->points, r->max_points,
                    counted(r) ? "false" : "true");
            char *output = item_output(r);
            json_string(out, output);
            free(output);
            fputs(" }", out);
        }
        fputs(" ] }", out);
    }
    fputs(" ] }\n", out);
}

/* ---- Gradescope results.json --------------------------------------------------------- */

/* An item of the instructor's hidden suite (--hidden-items). */
static int is_hidden(const grade_run *run, const char *name)
{
    for (const char *const *h = run->hidden_items; h && *h; h++)
        if (strcmp(*h, name) == 0)
            return 1;
    return 0;
}

/* ---- Figures for the platforms: a failing item's SVG as a data URL ------------------------ */

/* A figure drawn (svg.c) and encoded as "data:image/svg+xml;base64,...": an
 * image a page shows in an <img>, where a browser runs no script of an SVG
 * (the figure has none anyway: it is drawn from the grader's records). */
static char *figure_data_url(const figure_record *figure)
{
    char *svg = NULL;
    size_t size = 0;
    FILE *drawn = open_memstream(&svg, &size);
    if (!drawn)
        return NULL;
    svg_figure(drawn, figure);
    fclose(drawn);
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char prefix[] = "data:image/svg+xml;base64,";
    char *url = malloc(sizeof prefix + (size + 2) / 3 * 4);
    if (!url) {
        free(svg);
        return NULL;
    }
    char *at = url + sizeof prefix - 1;
    memcpy(url, prefix, sizeof prefix - 1);
    for (size_t i = 0; i < size; i += 3) {
        unsigned a = (unsigned char)svg[i], b = i + 1 < size ? (unsigned char)svg[i + 1] : 0,
                 c = i + 2 < size ? (unsigned char)svg[i + 2] : 0;
        *at++ = digits[a >> 2];
        *at++ = digits[((a & 3) << 4) | (b >> 4)];
        *at++ = i + 1 < size ? digits[((b & 15) << 2) | (c >> 6)] : '=';
        *at++ = i + 2 < size ? digits[c & 63] : '=';
    }
    *at = 0;
    free(svg);
    return url;
}

/* Calls show(out, lab, item, url, first) for each failing item of the run
 * that has a figure, its figure as a data URL. */
typedef void (*figure_shower)(FILE *out, const lab_result *lab, const item_result *item, const char *url, int first);
static void each_figure(FILE *out, const grade_run *run, figure_shower show)
{
    int shown = 0;
    for (int i = 0; i < run->lab_count; i++)
        for (int k = 0; k < run->labs[i].count; k++) {
            const item_result *r = &run->labs[i].items[k];
            char *url = r->figure ? figure_data_url(r->figure) : NULL;
            if (!url)
                continue;
            show(out, &run->labs[i], r, url, shown == 0);
            shown++;
            free(url);
        }
}

/* Whether any failing item of the run has a figure. */
static int run_has_figures(const grade_run *run)
{
    for (int i = 0; i < run->lab_count; i++)
        for (int k = 0; k < run->labs[i].count; k++)
            if (run->labs[i].items[k].figure)
                return 1;
    return 0;
}

/* Gradescope's results.json (its "Autograder Specifications"): the score is
 * given whole at the top, the run's total over the lab's fixed maximum, so
 * that tests which count toward nothing can carry no score: a skipped item
 * has neither score nor status (Gradescope has no "skipped", and 0/0 or a
 * status shows as passed), a going-further item its status and, in its
 * output, its points apart.  execution_time is the items' own time, whole
 * seconds (the build before them is the platform script's to count). */
/* Gradescope shows a test's output as HTML where its output_format says so:
 * one more test, with no score and no status (so it counts for nothing and
 * shows as neither passed nor failed), holds each failing item's figure as
 * an image, with its caption.  The items' own tests stay plain text. */
static void gradescope_figure(FILE *page, const lab_result *lab, const item_result *r, const char *url, int first)
{
    (void)lab, (void)first;
    fputs("\n<h4>", page);
    svg_text(page, r->item->name); /* svg_text escapes for HTML as for SVG */
    fputs("</h4>\n<p>", page);
    svg_text(page, r->figure->caption);
    fputs("</p>\n<img alt=\"", page);
    svg_text(page, r->figure->caption);
    fprintf(page, "\" src=\"%s\">", url);
}

static void write_gradescope_figures(FILE *out, const grade_run *run, int first)
{
    if (!run_has_figures(run))
        return;
    char *html = NULL;
    size_t size = 0;
    FILE *page = open_memstream(&html, &size);
    if (!page)
        return;
    fputs("<p>What your code did, for the first failing input of each item (the grader's HTML report draws "
          "the same):</p>", page);
    each_figure(page, run, gradescope_figure);
    fclose(page);
    fprintf(out, "%s\n    { \"name\": \"figures: what your code did\", \"output\": ", first ? "" : ",");
    json_string(out, html);
    fputs(", \"output_format\": \"html\", \"visibility\": \"visible\" }", out);
    free(html);
}

static void write_gradescope(FILE *out, const grade_run *run)
{
    double points, max_points, seconds = 0;
    totals(run, &points, &max_points);
    for (int i = 0; i < run->lab_count; i++)
        for (int k = 0; k < run->labs[i].count; k++)
            seconds += run->labs[i].items[k].seconds;
    char *summary = str_printf("backend %s; seed %llu: replay with %s --seed=%llu", run->backend, run->seed,
                               run->replay, run->seed);
    for (int i = 0; i < run->lab_count; i++)
        if (!run->labs[i].gradable) {
            char *more = str_printf("%s\n%s: %s", summary, run->labs[i].lab->dir, run->labs[i].problem);
            free(summary);
            summary = more;
        }
    fprintf(out, "{ \"score\": %.2f, \"execution_time\": %.0f, \"output\": ", points, ceil(seconds));
    json_string(out, summary);
    free(summary);
    fputs(", \"output_format\": \"text\", \"visibility\": \"visible\", \"stdout_visibility\": \"hidden\",\n", out);
    fprintf(out, "  \"extra_data\": { \"backend\": \"%s\", \"seed\": %llu, \"max_score\": %.2f },\n  \"tests\": [",
            run->backend, run->seed, max_points);
    int first = 1;
    for (int i = 0; i < run->lab_count; i++) {
        const lab_result *lab = &run->labs[i];
        for (int k = 0; k < lab->count; k++) {
            const item_result *r = &lab->items[k];
            char *name = str_printf("%s: %s", r->item->name, r->item->title);
            char *number = str_printf("%d.%d", lab->lab->number, k + 1);
            char *output = item_output(r);
            fprintf(out, "%s\n    { \"name\": ", first ? "" : ",");
            json_string(out, name);
            fputs(", \"number\": ", out);
            json_string(out, number);
            if (r->status != ITEM_SKIPPED && counted(r))
                fprintf(out, ", \"score\": %.2f, \"max_score\": %.2f", r->points, r->max_points);
            if (r->status != ITEM_SKIPPED)
                fprintf(out, ", \"status\": \"%s\"", r->status == ITEM_PASSED ? "passed" : "failed");
            fputs(", \"output\": ", out);
            json_string(out, output);
            fprintf(out, ", \"output_format\": \"text\", \"tags\": [\"%s\", \"%s\"], \"visibility\": \"%s\" }",
                    lab->lab->dir, kind_word(r->item->kind),
                    is_hidden(run, r->item->name) ? "after_published" : "visible");
            free(name);
            free(number);
            free(output);
            first = 0;
        }
    }
    write_gradescope_figures(out, run, first);
    fputs(" ] }\n", out);
}

/* ---- PrairieLearn results.json -------------------------------------------------------- */
/* PrairieLearn shows the images of results.json (label and URL) beside the
 * grading's output: each failing item's figure, as an SVG data URL. */
static void prairielearn_image(FILE *out, const lab_result *lab, const item_result *r, const char *url, int first)
{
    char *label = str_printf("%s: %s: %s", lab->lab->dir, r->item->name, r->figure->caption);
    fprintf(out, "%s\n    { \"label\": ", first ? "" : ",");
    json_string(out, label);
    fputs(", \"url\": ", out);
    json_string(out, url);
    fputs(" }", out);
    free(label);
}

static void write_prairielearn_images(FILE *out, const grade_run *run)
{
    if (!run_has_figures(run))
        return;
    fputs(",\n  \"images\": [", out);
    each_figure(out, run, prairielearn_image);
    fputs(" ]", out);
}

static void write_prairielearn(FILE *out, const grade_run *run)
{
    double points, max_points;
    totals(run, &points, &max_points);
    int gradable = all_gradable(run);
    double score = max_points > 0 ? points / max_points : 0;
    char *message;
    if (!gradable) {
        message = str_dup("");
        for (int i = 0; i < run->lab_count; i++)
            if (!run->labs[i].gradable) {
                char *more = str_printf("%s%s%s: %s", message, *message ? "\n" : "", run->labs[i].lab->dir,
                                        run->labs[i].problem);
                free(message);
                message = more;
            }
    } else {
        double further = 0, further_max = 0;
        for (int i = 0; i < run->lab_count; i++) {
            further += run->labs[i].further_points;
            further_max += run->labs[i].further_max_points;
        }
        if (further_max > 0)
            message = str_printf("%.2f/%.2f points; going further: %.2f/%.2f, not counted (seed %llu)", points,
                                 max_points, further, further_max, run->seed);
        else
            message = str_printf("%.2f/%.2f points (seed %llu)", points, max_points, run->seed);
    }
    char *report = text_report_string(run);
    fprintf(out, "{ \"gradable\": %s, \"score\": %.4f, \"message\": ", gradable ? "true" : "false", score);
    json_string(out, message);
    fputs(",\n  \"output\": ", out);
    json_string(out, report);
    write_prairielearn_images(out, run);
    fputs(",\n  \"tests\": [", out);
    int first = 1;
    for (int i = 0; i < run->lab_count; i++) {
        const lab_result *lab = &run->labs[i];
        for (int k = 0; k < lab->count; k++) {
            const item_result *r = &lab->items[k];
            char *name = str_printf("%s: %s%s", lab->lab->dir, r->item->name,
                                    counted(r) ? "" : " (going further, not counted)");
            char *summary = r->status == ITEM_PASSED ? str_dup("") : first_line(r->feedback);
            char *output = item_output(r);
            fprintf(out, "%s\n    { \"name\": ", first ? "" : ",");
            json_string(out, name);
            fputs(", \"description\": ", out);
            json_string(out, r->item->title);
            fprintf(out, ", \"points\": %.2f, \"max_points\": %.2f, \"message\": ", r->points, r->max_points);
            json_string(out, summary);
            fputs(", \"output\": ", out);
            json_string(out, output);
            fputs(" }", out);
            free(name);
            free(summary);
            free(output);
            first = 0;
        }
    }
    fputs(" ] }\n", out);
    free(message);
    free(report);
}

int formats_write(FILE *out, const char *format, const grade_run *run)
{
    if (strcmp(format, "text") == 0)
        text_report(out, run);
    else if (strcmp(format, "tap") == 0)
        write_tap(out, run);
    else if (strcmp(format, "junit") == 0)
        write_junit(out, run);
    else if (strcmp(format, "json") == 0)
        write_json(out, run);
    else if (strcmp(format, "gradescope") == 0)
        write_gradescope(out, run);
    else if (strcmp(format, "prairielearn") == 0)
        write_prairielearn(out, run);
    else if (strcmp(format, "html") == 0)
        html_report(out, run, -1);
    else
        return -1;
    return ferror(out) ? -1 : 0;
}
