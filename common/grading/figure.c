/* figure.c: the suites' figures (grade.h's grade_figure_*), written into
 * the item's slot (figure.h) in its forked child; the grader draws them
 * (svg.c) once the item has failed.  Outside an item they do nothing. */
#include "grader.h"
#include "figure.h"
#include "outcome.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The figure being made, or NULL outside an item. */
static figure_record *figure(void) { return outcome_figure(); }

/* The cells the figure being built may hold: the main one's, or (while a
 * figure beside it is built, begin_beside) a figure_more's. */
static int cell_room = FIGURE_CELLS;

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
    f->note[0] = 0;
    f->bar_column = -1;
    memset(f->column_label, 0, sizeof f->column_label);
    if (f == figure())
        f->more_count = 0; /* a new main figure: the ones beside the old one go with it */
}

/* A figure that goes beside the main one (or is the main one, where the
 * item has none yet): built in a record of its own, `cell_room` cells at
 * most, and moved into place by end_beside.  NULL outside an item. */
static figure_record *begin_beside(int kind, const char *caption)
{
    figure_record *main = figure();
    if (!main)
        return NULL;
    if (main->kind == FIGURE_NONE) {
        cell_room = FIGURE_CELLS;
        begin(main, kind, caption);
        return main;
    }
    figure_record *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    cell_room = FIGURE_MORE_CELLS;
    begin(f, kind, caption);
    f->more_count = 0;
    return f;
}

_Static_assert(offsetof(figure_more, values) == offsetof(figure_record, values),
               "a figure_more's fields before its cells are a figure_record's");

static void end_beside(figure_record *f)
{
    figure_record *main = figure();
    cell_room = FIGURE_CELLS;
    if (!f || f == main)
        return;
    if (main->more_count < FIGURE_MORE) {
        figure_more *m = &main->more[main->more_count++];
        memcpy(m, f, offsetof(figure_more, values));
        memcpy(m->values, f->values, sizeof m->values);
        memcpy(m->flags, f->flags, sizeof m->flags);
    }
    free(f);
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
    int room = cell_room - start;
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

/* ---- the figures beside the main one ------------------------------------------------ */

enum { TREE_SHOWN = 256 }; /* a tree row's slots drawn: the first ones, where the later steps are */

/* One step's row of the tree: `count` slots, those below `live` (in each
 * group of `group`; 0: one group) live and just written. */
static void tree_row(figure_record *f, const char *label, const double *slots, int count, int live, int group)
{
    int shown = count < TREE_SHOWN ? count : TREE_SHOWN;
    unsigned char flags[TREE_SHOWN];
    for (int t = 0; t < shown; t++) {
        int lane = group > 0 ? t % group : t;
        flags[t] = lane < live ? GRADE_CELL_LIVE | GRADE_CELL_WORKED : 0;
    }
    if (shown < count)
        f->truncated = 1;
    add_row(f, label, slots, flags, shown, -1);
}

/* The steps of a halving tree over slots[0..count): at stride s, slot t < s
 * (of each group of `group`, 0: the whole array) adds slot t + s. */
static void tree_steps(figure_record *f, double *slots, int count, int group, const char *what)
{
    int width = group > 0 ? group : count;
    for (int stride = width / 2; stride >= 1; stride /= 2) {
        for (int base = 0; base < count; base += width)
            for (int t = 0; t < stride && base + t + stride < count; t++)
                slots[base + t] += slots[base + t + stride];
        char label[FIGURE_LABEL];
        snprintf(label, sizeof label, "%s %d", what, stride);
        tree_row(f, label, slots, count, stride, group);
    }
}

void grade_figure_tree(const char *caption, const double *thread_sums, int threads, int warp, double yours)
{
    if (threads <= 0 || (warp > 0 && threads % warp != 0))
        return;
    int warps = warp > 0 ? threads / warp : 0;
    double *slots = malloc((size_t)(threads > warp ? threads : warp) * sizeof *slots);
    figure_record *f = slots ? begin_beside(FIGURE_TREE, caption) : NULL;
    if (!f) {
        free(slots);
        return;
    }
    memcpy(slots, thread_sums, (size_t)threads * sizeof *slots);
    tree_row(f, "threads' sums", slots, threads, threads, 0);
    if (warp <= 0) {
        tree_steps(f, slots, threads, 0, "stride");
    } else {
        /* each warp's lanes by shuffles, then warp 0 over the warps' totals (0 past the last warp) */
        tree_steps(f, slots, threads, warp, "offset");
        for (int w = 0; w < warp; w++)
            slots[w] = w < warps ? slots[w * warp] : 0;
        tree_row(f, "warp totals", slots, warp, warps, 0);
        tree_steps(f, slots, warp, 0, "warp 0, offset");
    }
    double root = slots[0];
    free(slots);
    int last = f->rows - 1, equal = 0;
    if ((float)yours != (float)root) {
        f->flags[f->row_start[last]] |= GRADE_CELL_WRONG;
        /* the slots that hold what the block gave: the step it stopped at, or the part it added */
        for (int r = 0; r < f->rows; r++)
            for (int i = f->row_start[r]; i < f->row_start[r + 1]; i++)
                if ((float)f->values[i] == (float)yours) {
                    f->flags[i] |= GRADE_CELL_PARTNER;
                    equal++;
                }
    }
    f->mark_row = last;
    f->mark_column = 0;
    f->mark_got = yours;
    f->mark_should = root;
    snprintf(f->note, sizeof f->note, "%s",
             (float)yours == (float)root ? "the block's result is the tree's root"
             : equal ? "orange: a slot of the tree that holds what your block gave"
                     : "no slot of the tree holds what your block gave");
    end_beside(f);
}

void grade_figure_tail(const char *caption, const int *times, int first, int count, int n, int head,
                       int read_past_end)
{
    if (count <= 0 || count + 1 > FIGURE_MORE_CELLS)
        return;
    figure_record *f = begin_beside(FIGURE_TAIL, caption);
    if (!f)
        return;
    double values[FIGURE_MORE_CELLS];
    unsigned char flags[FIGURE_MORE_CELLS];
    int wrong = -1;
    for (int i = 0; i <= count; i++) {
        int past = i == count; /* the last cell: past the end of the array */
        values[i] = past ? read_past_end : times[i];
        flags[i] = past ? (read_past_end ? GRADE_CELL_WRONG : 0)
                        : GRADE_CELL_LIVE | (times[i] == 1 ? 0 : GRADE_CELL_WRONG);
        if (wrong < 0 && (flags[i] & GRADE_CELL_WRONG))
            wrong = i;
    }
    add_row(f, "times counted", values, flags, count + 1, -1);
    f->columns = count + 1;
    f->tile = first;     /* tail: the first element drawn */
    f->cell_span = head; /* tail: the head's length (read one by one before the first float4) */
    f->row_threads[0] = n;
    if (wrong >= 0) {
        f->mark_row = 0;
        f->mark_column = wrong;
        f->mark_got = values[wrong];
        f->mark_should = wrong == count ? 0 : 1;
    }
    end_beside(f);
}

void grade_figure_table(const grade_table *t)
{
    if (t->columns <= 0 || t->columns + 1 > FIGURE_COLUMNS || t->rows <= 0)
        return;
    figure_record *f = begin_beside(FIGURE_TABLE, t->caption);
    if (!f)
        return;
    f->columns = t->columns;
    f->bar_column = t->bar_column >= 0 && t->bar_column + 1 < t->columns ? t->bar_column : -1;
    for (int c = 0; c < t->columns + (t->row_notes ? 1 : 0); c++)
        snprintf(f->column_label[c], FIGURE_LABEL, "%s", t->headings[c] ? t->headings[c] : "");
    snprintf(f->note, sizeof f->note, "%s", t->note ? t->note : "");
    for (int r = 0; r < t->rows; r++) {
        unsigned char flags[FIGURE_COLUMNS] = {0};
        int wrong = t->wrong_column ? t->wrong_column[r] : -1;
        if (wrong >= 0 && wrong < t->columns) {
            flags[wrong] = GRADE_CELL_WRONG;
            if (f->mark_row < 0) {
                f->mark_row = r;
                f->mark_column = wrong;
                f->mark_got = t->values[(size_t)r * t->columns + wrong];
                f->mark_should = t->should ? t->should[r] : 0;
            }
        }
        add_row(f, t->row_notes ? t->row_notes[r] : "", t->values + (size_t)r * t->columns, flags, t->columns, -1);
    }
    end_beside(f);
}
