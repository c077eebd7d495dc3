/* figure.h: the record of one figure, as an item's forked child writes it
 * (figure.c, called by the suites through grade.h's grade_figure_*) and the
 * grader reads it back to draw it (svg.c) in the HTML report (html.c).
 *
 * Plain numbers in fixed room, no pointers: it lives in the item's slot of
 * the mapping the parent shares with its children (outcome.h), as the
 * feedback does.  Only the grader's own processes write it, from what the
 * runners sent back; nothing the student's code prints goes in but
 * through the grader's checks. */
#ifndef FIGURE_H
#define FIGURE_H

enum figure_kind {
    FIGURE_NONE,
    FIGURE_ROUNDS,   /* one row per round: the array after it (labs 3-5, 9) */
    FIGURE_PARTIALS, /* two rows of bars: the blocks' partials and the expected ones (labs 6-7) */
    FIGURE_MATRIX,   /* a matrix of cells, the wrong ones flagged, tiles outlined (lab 8) */
    FIGURE_GRID      /* blocks of threads, each cell the times its index was written (lab 1) */
};

#define FIGURE_CELLS 6144  /* values kept; a row past this is cut, and the figure says so */
#define FIGURE_ROWS 40
#define FIGURE_CAPTION 400
#define FIGURE_LABEL 48

typedef struct figure_record {
    int kind;                      /* enum figure_kind; FIGURE_NONE: no figure */
    char caption[FIGURE_CAPTION];  /* what it shows, in the feedback's words */
    int rows;
    int row_start[FIGURE_ROWS + 1]; /* row r's cells are values[row_start[r] .. row_start[r + 1]) */
    char row_label[FIGURE_ROWS][FIGURE_LABEL];
    long long row_threads[FIGURE_ROWS]; /* rounds: the threads that round's launch started; -1: not known */
    int columns;                   /* matrix and grid: cells in a row (the rows are whole) */
    int tile;                      /* matrix: a tile's side in cells (0: none); grid: threads per block */
    int cell_span;                 /* matrix: elements of a side each cell stands for (1: one) */
    int mark_row, mark_column;     /* the element that broke the rule, or -1 */
    int marked_element_row, marked_element_column; /* matrix: its (row, column) in elements */
    double mark_got, mark_should;  /* what it held, and what it should have */
    int truncated;                 /* cells were left out for room */
    double values[FIGURE_CELLS];
    unsigned char flags[FIGURE_CELLS]; /* GRADE_CELL_* (grade.h) */
} figure_record;

#endif
