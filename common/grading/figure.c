/* figure.c: the suites' figures (grade.h's grade_figure_*), written into
 * the item's slot (figure.h) in its forked child; the grader draws them
 * (svg.c) once the item has failed.  Outside an item they do nothing. */
#include "grader.h"
#include "figure.h"
#include "outcome.h"

#include <stdio.h>
#include <string.h>

/* The figure being made, or NULL outside an item. */
static figure_record *figure(void) { return outcome_figure(); }

static void begin(figure_record *f, int kind, const char *caption)
{
    f->kind = kind;
    snprintf(f->caption, sizeof f->caption, "%s", caption ? caption : "");
    f->rows = f->columns = f->tile = f->truncated = 0;
    f->cell_span = 1;
    f->row_start[0] = 0;
    f->mark_row = f->mark_column = -1;
    f->marked_element_row = f->marked_element_column = -1;
    f->mark_got = f->mark_should = 0;
}

/* Adds a row of `count` cells; what does not fit is cut, and said. */
static void add_row(figure_record *f, const char *label, const double *values, const unsigned char *flags, int count,
                    long long threads)
{
    if (f->rows >= FIGURE_ROWS) {
        f->truncated = 1;
        return;
    }
    int start = f->row_start[f->rows];
    int room = FIGURE_CELLS - start;
    if (count > room) {
        count = room;
        f->truncated = 1;
    }
    for (int i = 0; i < count; i++) {
        f->values[start + i] = values ? values[i] : 0;
        f->flags[start + i] = flags ? flags[i] : 0;
    }
    snprintf(f->row_label[f->rows], FIGURE_LABEL, "%s", label ? label : "");
    f->row_threads[f->rows] = threads;
    f->rows++;
    f->row_start[f->rows] = start + (count > 0 ? count : 0);
}

void grade_figure_rounds(const char *caption)
{
    figure_record *f = figure();
    if (f)
        begin(f, FIGURE_ROUNDS, caption);
}

void grade_figure_round(const char *label, const double *values, const unsigned char *flags, int count,
                        long long threads)
{
    figure_record *f = figure();
    if (f && f->kind == FIGURE_ROUNDS)
        add_row(f, label, values, flags, count, threads);
}

void grade_figure_mark(int row, int column, double got, double should)
{
    figure_record *f = figure();
    if (!f || f->kind == FIGURE_NONE)
        return;
    f->mark_row = row;
    f->mark_column = column;
    f->mark_got = got;
    f->mark_should = should;
}

enum { PARTIALS_SHOWN = 256 }; /* blocks drawn: a window around the wrong one */

void grade_figure_partials(const char *caption, const double *yours, const double *expected, int blocks,
                           int wrong_block)
{
    figure_record *f = figure();
    if (!f || blocks <= 0)
        return;
    begin(f, FIGURE_PARTIALS, caption);
    int first = 0, shown = blocks;
    if (blocks > PARTIALS_SHOWN) {
        first = wrong_block > PARTIALS_SHOWN / 2 ? wrong_block - PARTIALS_SHOWN / 2 : 0;
        if (first + PARTIALS_SHOWN > blocks)
            first = blocks - PARTIALS_SHOWN;
        shown = PARTIALS_SHOWN;
        f->truncated = 1;
    }
    char label[FIGURE_LABEL];
    snprintf(label, sizeof label, "yours, blocks %d..%d", first, first + shown - 1);
    add_row(f, label, yours + first, NULL, shown, -1);
    add_row(f, "expected", expected + first, NULL, shown, -1);
    f->tile = first; /* partials: the first block drawn */
    if (wrong_block >= first && wrong_block < first + shown) {
        f->flags[wrong_block - first] = GRADE_CELL_WRONG;
        grade_figure_mark(0, wrong_block - first, yours[wrong_block], expected[wrong_block]);
    }
}

enum { MATRIX_SIDE = 64 }; /* cells a side at most */

void grade_figure_matrix(const char *caption, const unsigned char *wrong, int rows, int columns, int tile,
                         int worst_row, int worst_column, double got, double should)
{
    figure_record *f = figure();
    if (!f || rows <= 0 || columns <= 0)
        return;
    begin(f, FIGURE_MATRIX, caption);
    int longest = rows > columns ? rows : columns;
    int span = (longest + MATRIX_SIDE - 1) / MATRIX_SIDE;
    int cell_rows = (rows + span - 1) / span, cell_columns = (columns + span - 1) / span;
    f->cell_span = span;
    f->columns = cell_columns;
    f->tile = tile > 0 && tile % span == 0 ? tile / span : 0;
    /* one flat block of cells, `columns` a row (at most 64 x 64 of them) */
    f->rows = cell_rows;
    f->row_start[0] = 0;
    f->row_start[1] = cell_rows * cell_columns;
    for (int cr = 0; cr < cell_rows; cr++)
        for (int cc = 0; cc < cell_columns; cc++) {
            unsigned char flag = 0;
            for (int r = cr * span; r < (cr + 1) * span && r < rows && !flag; r++)
                for (int c = cc * span; c < (cc + 1) * span && c < columns && !flag; c++)
                    flag = wrong[(size_t)r * columns + c] ? GRADE_CELL_WRONG : 0;
            f->flags[cr * cell_columns + cc] = flag;
            f->values[cr * cell_columns + cc] = 0;
        }
    f->marked_element_row = worst_row;
    f->marked_element_column = worst_column;
    grade_figure_mark(worst_row / span, worst_column / span, got, should);
}

void grade_figure_grid(const char *caption, const int *writes, int indices, int n, int threads_per_block,
                       int mark_index)
{
    figure_record *f = figure();
    if (!f || indices <= 0 || threads_per_block <= 0)
        return;
    begin(f, FIGURE_GRID, caption);
    int shown = indices < FIGURE_CELLS ? indices : FIGURE_CELLS;
    f->truncated = shown < indices;
    for (int i = 0; i < shown; i++) {
        f->values[i] = writes[i];
        int needed = i < n ? 1 : 0;
        f->flags[i] = (i < n ? GRADE_CELL_LIVE : 0) | (writes[i] == needed ? 0 : GRADE_CELL_WRONG);
    }
    f->columns = threads_per_block;
    f->tile = threads_per_block;
    f->rows = (shown + threads_per_block - 1) / threads_per_block;
    f->row_start[0] = 0;
    f->row_start[1] = shown; /* one flat block of cells, `columns` a row */
    if (mark_index >= 0 && mark_index < shown)
        grade_figure_mark(mark_index / threads_per_block, mark_index % threads_per_block, writes[mark_index],
                          mark_index < n ? 1 : 0);
}
