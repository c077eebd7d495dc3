/* svg.c: draws a figure record (figure.h) as one SVG element, standalone
 * XML (presentation attributes, no style sheet, no script, nothing
 * linked), for the HTML report (html.c) and, with a handout's own legend,
 * for the handouts' figures (tools/handout-figures.c).
 *
 * The colours say the same in every figure: red, the element that broke
 * the rule; orange, the inputs it should have combined; blue, the live
 * part; a dark outline, a cell a thread wrote this round; grey, what is
 * out of play. */
#include "svg.h"
#include "grade.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1000          /* the drawing's width, in its own units */
#define LABEL_WIDTH 150     /* the row labels' column */
#define GROUP_GAP 16        /* rounds: the room between two groups of cells (svg_look.group) */
#define RED SVG_RED
#define ORANGE SVG_ORANGE
#define BLUE SVG_BLUE
#define GREEN SVG_GREEN
#define GREY SVG_GREY
#define INK SVG_INK

void svg_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if (*p >= 0x20 || *p == '\n' || *p == '\t')
                fputc(*p, out);
        }
    }
}

/* A value as short as it reads: 12, 3.5, -0.25, 1.2e+07. */
static void number(char *out, size_t size, double v)
{
    if (isnan(v))
        snprintf(out, size, "NaN");
    else if (v == floor(v) && fabs(v) < 1e7)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%.4g", v);
}

static void open_svg_wide(FILE *out, int width, int height, const char *title)
{
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                 "height=\"%d\" font-family=\"monospace\" font-size=\"12\" role=\"img\"><title>",
            width, height, width, height);
    svg_text(out, title);
    fputs("</title>\n", out);
}

static void open_svg(FILE *out, int height, const char *title) { open_svg_wide(out, WIDTH, height, title); }

static void text_at(FILE *out, double x, double y, const char *anchor, const char *fill, const char *s)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">", x, y, anchor, fill);
    svg_text(out, s);
    fputs("</text>\n", out);
}

/* The line under a figure that names the marked element, what it held and should have. */
static void mark_line(FILE *out, const figure_record *f, double y, const char *name)
{
    char got[32], should[32], line[200];
    number(got, sizeof got, f->mark_got);
    number(should, sizeof should, f->mark_should);
    snprintf(line, sizeof line, "%s holds %s; it should hold %s", name, got, should);
    fprintf(out, "<rect x=\"4\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"" RED "\"/>\n", y - 10);
    text_at(out, 22, y, "start", INK, line);
}

/* A figure's note under it, a line per '\n'; returns the lines drawn. */
static int note_lines(FILE *out, double y, const char *note)
{
    int lines = 0;
    for (const char *p = note; *p; lines++) {
        const char *end = strchr(p, '\n');
        size_t length = end ? (size_t)(end - p) : strlen(p);
        char line[FIGURE_CAPTION];
        snprintf(line, sizeof line, "%.*s", (int)length, p);
        text_at(out, 4, y + 18 * lines, "start", INK, line);
        p += length + (end ? 1 : 0);
    }
    return lines;
}

static int count_lines(const char *note)
{
    int lines = *note ? 1 : 0;
    for (; *note; note++)
        lines += *note == '\n';
    return lines;
}

static void legend(FILE *out, double y, const svg_key *entries, int count)
{
    double x = 4;
    for (int i = 0; i < count; i++) {
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#999\"/>\n", x,
                y - 10, entries[i].fill);
        text_at(out, x + 16, y, "start", INK, entries[i].text);
        x += 24 + 7.5 * (double)strlen(entries[i].text);
    }
}

/* ---- rounds ------------------------------------------------------------------------------ */

static int widest_row(const figure_record *f)
{
    int widest = 1;
    for (int r = 0; r < f->rows; r++)
        if (f->row_start[r + 1] - f->row_start[r] > widest)
            widest = f->row_start[r + 1] - f->row_start[r];
    return widest;
}

static const char *round_fill(unsigned char flags, int marked)
{
    return marked || (flags & GRADE_CELL_WRONG) ? RED : flags & GRADE_CELL_PARTNER ? ORANGE
         : flags & GRADE_CELL_LIVE ? BLUE : GREY;
}

static const svg_key report_rounds_keys[] = {{BLUE, "live part"}, {GREY, "out of play"},
                                            {ORANGE, "inputs it combines"}, {RED, "broke the invariant"}};
static const svg_look report_rounds = {report_rounds_keys, 4, "dark outline: written this round", 0, 0};

/* Cell i's left edge: groups of look->group cells (0: one group) a gap apart. */
static double cell_x(const svg_look *look, int i, double cell)
{
    return LABEL_WIDTH + i * cell + (look->group > 0 ? (i / look->group) * GROUP_GAP : 0);
}

static void draw_rounds(FILE *out, const figure_record *f, const svg_look *look)
{
    int widest = widest_row(f);
    double room = WIDTH - LABEL_WIDTH - 10 - (look->group > 0 ? ((widest - 1) / look->group) * GROUP_GAP : 0);
    double cell = room / (double)widest;
    if (cell > 40)
        cell = 40;
    const double row_height = 24;
    int height = (int)(f->rows * row_height + 70 + 18 * count_lines(f->note));
    open_svg(out, height, f->caption);
    for (int r = 0; r < f->rows; r++) {
        double y = 8 + r * row_height;
        char label[FIGURE_LABEL + 40];
        if (f->row_threads[r] >= 0)
            snprintf(label, sizeof label, "%s (%lld thr)", f->row_label[r], f->row_threads[r]);
        else
            snprintf(label, sizeof label, "%s", f->row_label[r]);
        text_at(out, LABEL_WIDTH - 6, y + 15, "end", INK, label);
        for (int i = 0; i < f->row_start[r + 1] - f->row_start[r]; i++) {
            int at = f->row_start[r] + i;
            int marked = r == f->mark_row && i == f->mark_column;
            double x = cell_x(look, i, cell);
            int worked = (f->flags[at] & GRADE_CELL_WORKED) != 0;
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"20\" fill=\"%s\" stroke=\"%s\" "
                         "stroke-width=\"%s\"%s/>\n",
                    x, y, cell - 1, round_fill(f->flags[at], marked), worked ? INK : "#bbbbbb", worked ? "1.5" : "0.5",
                    marked ? " class=\"wrong\"" : "");
            if (cell >= 16) {
                char v[32];
                number(v, sizeof v, f->values[at]);
                if (strlen(v) * 7 < cell)
                    text_at(out, x + cell / 2, y + 14, "middle", marked ? "#ffffff" : INK, v);
            }
        }
    }
    double y = f->rows * row_height + 26;
    legend(out, y, look->keys, look->key_count);
    if (look->note)
        text_at(out, WIDTH - 4, y, "end", INK, look->note);
    if (f->mark_row >= 0) {
        char name[96];
        if (f->kind == FIGURE_TREE)
            snprintf(name, sizeof name, "the root (slot 0 after %s), the block's result,", f->row_label[f->mark_row]);
        else
            snprintf(name, sizeof name, "element %d after %s", f->mark_column, f->row_label[f->mark_row]);
        mark_line(out, f, y + 22, name);
    }
    note_lines(out, y + 44, f->note);
    fputs("</svg>\n", out);
}

static const svg_key report_tree_keys[] = {{BLUE, "slots still adding"}, {GREY, "done with"},
                                          {ORANGE, "holds your block's value"}, {RED, "the root, wrong"}};
static const svg_look report_tree = {report_tree_keys, 4, "dark outline: written this step", 0, 0};

/* ---- the tail of a float4 read ------------------------------------------------------------- */

/* The last elements, a cell each (the times the code counted it), the
 * float4s of the body outlined, and a cell past the end of the array. */
static void draw_tail(FILE *out, const figure_record *f)
{
    int count = f->columns - 1, first = f->tile, head = f->cell_span, n = (int)f->row_threads[0];
    double cell = (WIDTH - LABEL_WIDTH - 10) / (double)(count + 1);
    if (cell > 56)
        cell = 56;
    int height = 190 + 18 * count_lines(f->note);
    open_svg(out, height, f->caption);
    const double top = 40;
    text_at(out, LABEL_WIDTH - 6, top + 22, "end", INK, "times counted");
    text_at(out, LABEL_WIDTH - 6, top - 8, "end", INK, "element");
    for (int i = 0; i <= count; i++) {
        int element = first + i, past = i == count;
        double x = LABEL_WIDTH + i * cell;
        int wrong = (f->flags[i] & GRADE_CELL_WRONG) != 0, marked = f->mark_row == 0 && f->mark_column == i;
        const char *fill = marked ? RED : wrong ? "#f4a6a6" : past ? GREY : GREEN;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"34\" fill=\"%s\" stroke=\"#ffffff\"%s/>\n",
                x, top, cell - 2, fill, marked ? " class=\"wrong\"" : "");
        char v[32];
        if (past)
            snprintf(v, sizeof v, "%s", f->values[i] ? "read" : "-");
        else
            snprintf(v, sizeof v, "%.0f", f->values[i]);
        text_at(out, x + cell / 2, top + 22, "middle", marked ? "#ffffff" : INK, v);
        snprintf(v, sizeof v, past ? "n+" : "%d", element);
        text_at(out, x + cell / 2, top - 8, "middle", INK, v);
    }
    /* the float4s: groups of four from the end of the head, while whole */
    for (int start = head; start + 4 <= n; start += 4) {
        if (start + 4 <= first)
            continue;
        double x0 = LABEL_WIDTH + (start - first) * cell, x1 = x0 + 4 * cell - 2;
        if (start < first)
            x0 = LABEL_WIDTH;
        fprintf(out, "<path d=\"M%.1f %.1fv6H%.1fv-6\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x0,
                top + 40, x1, INK);
        text_at(out, (x0 + x1) / 2, top + 60, "middle", INK, "float4");
    }
    if (head > first) {
        char line[64];
        snprintf(line, sizeof line, "head: x[0..%d) one by one", head);
        text_at(out, LABEL_WIDTH, top + 78, "start", INK, line);
    }
    double y = top + 100;
    static const svg_key keys[] = {{GREEN, "counted once"}, {"#f4a6a6", "missed (0) or counted twice (2)"},
                                   {GREY, "past the end, not read"}, {RED, "the first wrong"}};
    legend(out, y, keys, 4);
    if (f->mark_row >= 0) {
        char line[200];
        if (f->mark_column == count)
            snprintf(line, sizeof line, "past the end (x[%d] and on) was read: it should not be", n);
        else
            snprintf(line, sizeof line, "x[%d] (n = %d) is counted %.0f time%s: it should be once", first + f->mark_column,
                     n, f->mark_got, f->mark_got == 1 ? "" : "s");
        fprintf(out, "<rect x=\"4\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"" RED "\"/>\n", y + 12);
        text_at(out, 22, y + 22, "start", INK, line);
    }
    note_lines(out, y + 44, f->note);
    fputs("</svg>\n", out);
}

/* ---- a table ----------------------------------------------------------------------------------- */

/* A row per case: the numbers, the wrong cell red, the two bar columns
 * (yours, the right one) with a bar of their value from 0 to 1 behind. */
static void draw_table(FILE *out, const figure_record *f)
{
    int columns = f->columns, notes = f->column_label[columns][0] != 0;
    double width = (WIDTH - 8) / (double)(columns + (notes ? 2 : 0));
    const double row_height = 24, top = 34;
    int height = (int)(top + f->rows * row_height + 70 + 18 * count_lines(f->note));
    open_svg(out, height, f->caption);
    for (int c = 0; c < columns + notes; c++)
        text_at(out, c < columns ? 4 + c * width + width - 6 : 4 + c * width + 12, top - 10, c < columns ? "end" : "start",
                INK, f->column_label[c]);
    for (int r = 0; r < f->rows; r++) {
        double y = top + r * row_height;
        fprintf(out, "<rect x=\"4\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n", y, WIDTH - 8,
                row_height - 2, r % 2 ? "#ffffff" : "#f5f5f5");
        for (int c = 0; c < columns; c++) {
            int at = f->row_start[r] + c;
            double x = 4 + c * width, v = f->values[at];
            int marked = r == f->mark_row && c == f->mark_column, wrong = (f->flags[at] & GRADE_CELL_WRONG) != 0;
            if (f->bar_column >= 0 && (c == f->bar_column || c == f->bar_column + 1) && isfinite(v)) {
                double fraction = v < 0 ? 0 : v > 1 ? 1 : v;
                fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x + 2,
                        y + 3, (width - 4) * fraction, row_height - 8, c == f->bar_column ? "#4e79a7" : BLUE);
            }
            if (wrong)
                fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"" RED
                             "\" stroke-width=\"2.5\"%s/>\n",
                        x + 1, y + 1, width - 2, row_height - 4, marked ? " class=\"wrong\"" : "");
            char text[32];
            number(text, sizeof text, v);
            text_at(out, x + width - 6, y + 16, "end", wrong ? RED : INK, text);
        }
        if (notes)
            text_at(out, 4 + columns * width + 12, y + 16, "start", INK, f->row_label[r]);
    }
    double y = top + f->rows * row_height + 20;
    if (f->bar_column >= 0) {
        const svg_key keys[] = {{"#4e79a7", f->column_label[f->bar_column]},
                                {BLUE, f->column_label[f->bar_column + 1]}, {"#ffffff", "red outline: wrong"}};
        legend(out, y, keys, 3);
    }
    if (f->mark_row >= 0) {
        char name[160];
        char key[32];
        number(key, sizeof key, f->values[f->row_start[f->mark_row]]);
        snprintf(name, sizeof name, "%s %s: %s", f->column_label[0], key, f->column_label[f->mark_column]);
        mark_line(out, f, y + 22, name);
    }
    note_lines(out, y + 44, f->note);
    fputs("</svg>\n", out);
}

/* ---- partials ----------------------------------------------------------------------------- */

static void draw_partials(FILE *out, const figure_record *f)
{
    int count = f->row_start[1] - f->row_start[0];
    double top = 0, bottom = 0;
    for (int r = 0; r < 2 && r < f->rows; r++)
        for (int i = 0; i < count; i++) {
            double v = f->values[f->row_start[r] + i];
            if (isfinite(v)) {
                top = v > top ? v : top;
                bottom = v < bottom ? v : bottom;
            }
        }
    if (top == bottom)
        top = bottom + 1;
    const double plot = 220;
    double scale = plot / (top - bottom), zero = 10 + top * scale;
    double slot = (WIDTH - 20) / (double)count;
    int height = (int)(plot + 80);
    open_svg(out, height, f->caption);
    fprintf(out, "<line x1=\"10\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\"/>\n", zero, WIDTH - 10, zero);
    for (int i = 0; i < count; i++) {
        double x = 10 + i * slot;
        for (int r = 0; r < 2 && r < f->rows; r++) {
            double v = f->values[f->row_start[r] + i];
            int marked = r == 0 && i == f->mark_column;
            double h = isfinite(v) ? fabs(v) * scale : plot / 2;
            double y = isfinite(v) && v < 0 ? zero : zero - h;
            const char *fill = r == 1 ? "none" : marked ? RED : isfinite(v) ? "#4e79a7" : RED;
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\"%s/>\n",
                    x + (r ? slot * 0.1 : slot * 0.2), y, slot * (r ? 0.8 : 0.6), h > 0.5 ? h : 0.5, fill,
                    r == 1 ? INK : "none", marked ? " class=\"wrong\"" : "");
        }
    }
    double y = plot + 40;
    static const svg_key entries[] = {{"#4e79a7", "your partial"}, {"#ffffff", "expected (outline)"}, {RED, "wrong"}};
    legend(out, y, entries, 3);
    char first[80];
    snprintf(first, sizeof first, "blocks %d to %d", f->tile, f->tile + count - 1);
    text_at(out, WIDTH - 4, y, "end", INK, first);
    if (f->mark_column >= 0) {
        char name[64];
        snprintf(name, sizeof name, "the partial of block %d", f->tile + f->mark_column);
        mark_line(out, f, y + 22, name);
    }
    fputs("</svg>\n", out);
}

/* ---- cells: the matrix and the grid ----------------------------------------------------------- */

static const svg_key report_grid_keys[] = {{GREEN, "written once"}, {"#ffffff", "never written"},
                                          {ORANGE, "written twice, or past n"}, {GREY, "past n, untouched"},
                                          {RED, "the index named"}};
static const svg_look report_grid = {report_grid_keys, 5, NULL, 0, 0};
static const svg_key report_matrix_keys[] = {{GREEN, "right"}, {"#f4a6a6", "wrong"}, {RED, "worst element"}};
static const svg_look report_matrix = {report_matrix_keys, 3, NULL, 0, 0};

static void draw_cells(FILE *out, const figure_record *f, const svg_look *look)
{
    int columns = f->columns > 0 ? f->columns : 1, rows = f->rows;
    int grid = f->kind == FIGURE_GRID;
    double cell = (WIDTH - LABEL_WIDTH - 10) / (double)columns;
    if (cell > 28)
        cell = 28;
    if (rows * cell > 640)
        cell = 640.0 / rows;
    int height = (int)(rows * cell + 80);
    open_svg(out, height, f->caption);
    for (int r = 0; r < rows; r++) {
        if (grid || r % (f->tile > 0 ? f->tile : rows) == 0) {
            char label[48];
            if (grid)
                snprintf(label, sizeof label, "block %d", r);
            else
                snprintf(label, sizeof label, "row %d", r * f->cell_span);
            if (cell >= 10 || r % 8 == 0)
                text_at(out, LABEL_WIDTH - 6, 10 + r * cell + cell * 0.75, "end", INK, label);
        }
        for (int c = 0; c < columns; c++) {
            int at = r * columns + c;
            if (at >= f->row_start[1])
                break;
            int marked = r == f->mark_row && c == f->mark_column;
            const char *fill;
            if (grid)
                fill = marked ? RED : !(f->flags[at] & GRADE_CELL_LIVE) ? (f->values[at] == 0 ? GREY : ORANGE)
                     : f->values[at] == 0 ? "#ffffff" : f->values[at] == 1 ? GREEN : ORANGE;
            else
                fill = marked ? RED : f->flags[at] & GRADE_CELL_WRONG ? "#f4a6a6" : GREEN;
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\" "
                         "stroke-width=\"0.5\"%s/>\n",
                    LABEL_WIDTH + c * cell, 10 + r * cell, cell, cell, fill,
                    grid && f->values[at] == 0 && (f->flags[at] & GRADE_CELL_LIVE) ? RED : "#ffffff",
                    marked ? " class=\"wrong\"" : "");
            if (grid && cell >= 16 && (look->index_labels || (f->flags[at] & GRADE_CELL_WRONG))) {
                char v[16];
                snprintf(v, sizeof v, "%.0f", look->index_labels ? (double)at : f->values[at]);
                text_at(out, LABEL_WIDTH + c * cell + cell / 2, 10 + r * cell + cell * 0.7, "middle", INK, v);
            }
        }
    }
    /* the tiles of the matrix, outlined */
    if (!grid && f->tile > 0)
        for (int r = 0; r < rows; r += f->tile)
            for (int c = 0; c < columns; c += f->tile) {
                int h = r + f->tile <= rows ? f->tile : rows - r, w = c + f->tile <= columns ? f->tile : columns - c;
                int wrong_tile = f->mark_row >= r && f->mark_row < r + h && f->mark_column >= c && f->mark_column < c + w;
                fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"%s\" "
                             "stroke-width=\"%s\"%s/>\n",
                        LABEL_WIDTH + c * cell, 10 + r * cell, w * cell, h * cell, wrong_tile ? RED : "#555555",
                        wrong_tile ? "3" : "1", wrong_tile ? " class=\"wrong-tile\"" : "");
            }
    double y = rows * cell + 34;
    legend(out, y, look->keys, look->key_count);
    if (grid) {
        if (look->note)
            text_at(out, WIDTH - 4, y, "end", INK, look->note);
    } else {
        char span[80] = "";
        if (f->cell_span > 1)
            snprintf(span, sizeof span, "a cell: %d x %d elements", f->cell_span, f->cell_span);
        text_at(out, WIDTH - 4, y, "end", INK, span);
    }
    if (f->mark_row >= 0) {
        char name[96];
        if (grid)
            snprintf(name, sizeof name, "index %d (block %d, thread %d): written %.0f time%s, should be %.0f",
                     f->mark_row * columns + f->mark_column, f->mark_row, f->mark_column, f->mark_got,
                     f->mark_got == 1 ? "" : "s", f->mark_should);
        else
            snprintf(name, sizeof name, "C[%d][%d] (row %d, column %d)", f->marked_element_row,
                     f->marked_element_column, f->marked_element_row, f->marked_element_column);
        if (grid) {
            fprintf(out, "<rect x=\"4\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"" RED "\"/>\n", y + 12);
            text_at(out, 22, y + 22, "start", INK, name);
        } else {
            mark_line(out, f, y + 22, name);
        }
    }
    fputs("</svg>\n", out);
}

void svg_figure(FILE *out, const figure_record *f)
{
    switch (f->kind) {
    case FIGURE_ROUNDS: draw_rounds(out, f, &report_rounds); break;
    case FIGURE_PARTIALS: draw_partials(out, f); break;
    case FIGURE_MATRIX: draw_cells(out, f, &report_matrix); break;
    case FIGURE_GRID: draw_cells(out, f, &report_grid); break;
    case FIGURE_TREE: draw_rounds(out, f, &report_tree); break;
    case FIGURE_TAIL: draw_tail(out, f); break;
    case FIGURE_TABLE: draw_table(out, f); break;
    default: break;
    }
}

_Static_assert(offsetof(figure_more, values) == offsetof(figure_record, values),
               "a figure_more's fields before its cells are a figure_record's");

figure_record *svg_figure_beside(const figure_record *f, int k)
{
    if (k < 0 || k >= f->more_count || k >= FIGURE_MORE)
        return NULL;
    figure_record *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    const figure_more *m = &f->more[k];
    memcpy(r, m, offsetof(figure_more, values));
    memcpy(r->values, m->values, sizeof m->values);
    memcpy(r->flags, m->flags, sizeof m->flags);
    return r;
}

void svg_figure_with(FILE *out, const figure_record *f, const svg_look *look)
{
    switch (f->kind) {
    case FIGURE_ROUNDS: draw_rounds(out, f, look); break;
    case FIGURE_MATRIX:
    case FIGURE_GRID: draw_cells(out, f, look); break;
    default: svg_figure(out, f); break;
    }
}

/* ---- the tile walk (handouts: lab 8) ---------------------------------------------------- */

/* One matrix of tiles_down x tiles_across tiles of `tile` elements a side,
 * at (x, y), each tile filled by fill_of (NULL: white) and labelled. */
typedef const char *(*tile_fill_fn)(int tile_row, int tile_column, const void *arg, char *label, size_t size);

static void tile_matrix(FILE *out, double x, double y, int tiles_down, int tiles_across, int tile, double side,
                        const char *name, tile_fill_fn fill_of, const void *arg)
{
    double element = side / tile;
    text_at(out, x, y - 6, "start", INK, name);
    for (int r = 0; r < tiles_down; r++)
        for (int c = 0; c < tiles_across; c++) {
            char label[48] = "";
            const char *fill = fill_of(r, c, arg, label, sizeof label);
            double tx = x + c * side, ty = y + r * side;
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#555555\" "
                         "stroke-width=\"1.5\"/>\n", tx, ty, side, side, fill ? fill : "#ffffff");
            for (int k = 1; k < tile; k++)
                fprintf(out, "<path d=\"M%.1f %.1fh%.1fM%.1f %.1fv%.1f\" stroke=\"#bbbbbb\" stroke-width=\"0.5\"/>\n",
                        tx, ty + k * element, side, tx + k * element, ty, side);
            if (label[0])
                text_at(out, tx + side / 2, ty + side / 2 + 4, "middle", INK, label);
        }
}

typedef struct {
    int block_row, block_column;
} walk;

static const char *const step_fills[] = {BLUE, ORANGE, GREEN, "#d8c3f0", "#f7e08a", "#a8dadc"};
enum { STEP_FILLS = sizeof step_fills / sizeof step_fills[0] };

static const char *a_tile(int r, int c, const void *arg, char *label, size_t size)
{
    const walk *w = arg;
    if (r != w->block_row)
        return NULL;
    snprintf(label, size, "step %d", c);
    return step_fills[c % STEP_FILLS];
}

static const char *b_tile(int r, int c, const void *arg, char *label, size_t size)
{
    const walk *w = arg;
    if (c != w->block_column)
        return NULL;
    snprintf(label, size, "step %d", r);
    return step_fills[r % STEP_FILLS];
}

static const char *c_tile(int r, int c, const void *arg, char *label, size_t size)
{
    const walk *w = arg;
    if (r != w->block_row || c != w->block_column)
        return NULL;
    snprintf(label, size, "(%d, %d)", c, r); /* blockIdx: the legend says so; a tile is too narrow for more */
    return "#f4a6a6";
}

void svg_tile_walk(FILE *out, const char *caption, int tiles_m, int tiles_k, int tiles_n, int tile, int block_row,
                   int block_column)
{
    const double side = 64, margin = 20, gap = 30;
    walk w = {block_row, block_column};
    double a_width = tiles_k * side, b_height = tiles_k * side;
    double c_x = margin + a_width + gap, c_y = margin + b_height + gap;
    int width = (int)(c_x + tiles_n * side + margin + 260);
    if (width < 800) /* the legend's lines, about 110 characters of 7 px */
        width = 800;
    int height = (int)(c_y + tiles_m * side + 30 + 22 * (tiles_k + 1));
    open_svg_wide(out, width, height, caption);
    tile_matrix(out, c_x, margin, tiles_k, tiles_n, tile, side, "B (k x n)", b_tile, &w);
    tile_matrix(out, margin, c_y, tiles_m, tiles_k, tile, side, "A (m x k)", a_tile, &w);
    tile_matrix(out, c_x, c_y, tiles_m, tiles_n, tile, side, "C (m x n)", c_tile, &w);
    double y = c_y + tiles_m * side + 30;
    char line[160];
    snprintf(line, sizeof line, "the block with blockIdx (x %d, y %d) computes the red tile of C, %d x %d elements:",
             block_column, block_row, tile, tile);
    text_at(out, 4, y, "start", INK, line);
    for (int s = 0; s < tiles_k; s++) {
        y += 22;
        fprintf(out, "<rect x=\"4\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#999\"/>\n", y - 10,
                step_fills[s % STEP_FILLS]);
        snprintf(line, sizeof line, "step %d: load A tile (%d, %d) and B tile (%d, %d) into shared memory, "
                                    "__syncthreads(), multiply, __syncthreads()", s, block_row, s, s, block_column);
        text_at(out, 22, y, "start", INK, line);
    }
    fputs("</svg>\n", out);
}
