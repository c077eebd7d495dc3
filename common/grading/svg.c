/* svg.c: draws a figure record (figure.h) as one SVG element, standalone
 * XML (presentation attributes, no style sheet, no script, nothing
 * linked), for the HTML report (html.c).
 *
 * The colours say the same in every figure: red, the element that broke
 * the rule; orange, the inputs it should have combined; blue, the live
 * part; a dark outline, a cell a thread wrote this round; grey, what is
 * out of play. */
#include "svg.h"
#include "grade.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WIDTH 1000          /* the drawing's width, in its own units */
#define LABEL_WIDTH 150     /* the row labels' column */
#define RED "#d62728"
#define ORANGE "#ff9f40"
#define BLUE "#cfe3f7"
#define GREEN "#b9e4b0"
#define GREY "#eeeeee"
#define INK "#222222"

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

static void open_svg(FILE *out, int height, const char *title)
{
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                 "height=\"%d\" font-family=\"monospace\" font-size=\"12\" role=\"img\"><title>",
            WIDTH, height, WIDTH, height);
    svg_text(out, title);
    fputs("</title>\n", out);
}

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

static void legend(FILE *out, double y, const char *const entries[][2], int count)
{
    double x = 4;
    for (int i = 0; i < count; i++) {
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#999\"/>\n", x,
                y - 10, entries[i][0]);
        text_at(out, x + 16, y, "start", INK, entries[i][1]);
        x += 24 + 7.5 * (double)strlen(entries[i][1]);
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

static void draw_rounds(FILE *out, const figure_record *f)
{
    double cell = (WIDTH - LABEL_WIDTH - 10) / (double)widest_row(f);
    if (cell > 40)
        cell = 40;
    const double row_height = 24;
    int height = (int)(f->rows * row_height + 70);
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
            double x = LABEL_WIDTH + i * cell;
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
    static const char *const entries[][2] = {{BLUE, "live part"}, {GREY, "out of play"},
                                             {ORANGE, "inputs it combines"}, {RED, "broke the invariant"}};
    legend(out, y, entries, 4);
    text_at(out, WIDTH - 4, y, "end", INK, "dark outline: written this round");
    if (f->mark_row >= 0) {
        char name[64];
        snprintf(name, sizeof name, "element %d after %s", f->mark_column, f->row_label[f->mark_row]);
        mark_line(out, f, y + 22, name);
    }
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
    static const char *const entries[][2] = {{"#4e79a7", "your partial"}, {"#ffffff", "expected (outline)"},
                                             {RED, "wrong"}};
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

static void draw_cells(FILE *out, const figure_record *f)
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
            if (grid && cell >= 16 && (f->flags[at] & GRADE_CELL_WRONG)) {
                char v[16];
                snprintf(v, sizeof v, "%.0f", f->values[at]);
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
    if (grid) {
        static const char *const entries[][2] = {{GREEN, "written once"}, {"#ffffff", "never written"},
                                                 {ORANGE, "written twice, or past n"}, {GREY, "past n, untouched"},
                                                 {RED, "the index named"}};
        legend(out, y, entries, 5);
    } else {
        static const char *const entries[][2] = {{GREEN, "right"}, {"#f4a6a6", "wrong"},
                                                 {RED, "worst element"}};
        legend(out, y, entries, 3);
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
    case FIGURE_ROUNDS: draw_rounds(out, f); break;
    case FIGURE_PARTIALS: draw_partials(out, f); break;
    case FIGURE_MATRIX:
    case FIGURE_GRID: draw_cells(out, f); break;
    default: break;
    }
}
