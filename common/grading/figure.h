/* figure.h: the record of a failing item's figures, as its forked child
 * writes it (figure.c, called by the suites through grade.h's
 * grade_figure_*) and the grader reads it back to draw it (svg.c) in the
 * HTML report (html.c).
 *
 * Plain numbers in fixed room, no pointers: it lives in the item's slot of
 * the mapping the parent shares with its children (outcome.h), as the
 * feedback does.  Only the grader's own processes write it, from what the
 * runners sent back; nothing the student's code prints goes in but
 * through the grader's checks.
 *
 * One record holds the item's main figure and, beside it, up to
 * FIGURE_MORE smaller ones of the same failing input (the tree of the
 * wrong block, the tail of a float4 read...): each is a figure_panel's
 * worth of fields, the main one's at the top of the record (so a reader
 * that knows only one figure reads the main one), the others in `more`. */
#ifndef FIGURE_H
#define FIGURE_H

enum figure_kind {
    FIGURE_NONE,
    FIGURE_ROUNDS,   /* one row per round: the array after it (labs 3-5, 9) */
    FIGURE_PARTIALS, /* two rows of bars: the blocks' partials and the expected ones (labs 6-7) */
    FIGURE_MATRIX,   /* a matrix of cells, the wrong ones flagged, tiles outlined (lab 8) */
    FIGURE_GRID,     /* blocks of threads, each cell the times its index was written (lab 1) */
    FIGURE_TREE,     /* one block's tree: its slots after each step, drawn as rounds (labs 6-7) */
    FIGURE_TAIL,     /* the last elements of an array: the times the code counted each (lab 7) */
    FIGURE_TABLE     /* a table of numbers, a row per case tried, the wrong cells flagged (lab 8) */
};

#define FIGURE_CELLS 6144  /* values kept; a row past this is cut, and the figure says so */
#define FIGURE_MORE_CELLS 3072 /* the same, for each figure beside the main one */
#define FIGURE_MORE 2      /* figures beside the main one */
#define FIGURE_ROWS 40
#define FIGURE_COLUMNS 10  /* a table's columns */
#define FIGURE_CAPTION 400
#define FIGURE_LABEL 48

/* The fields of one figure, its cells `cells` at most: the main figure's
 * (figure_record) and each one beside it (figure_more) alike, so that one
 * drawing code serves both (svg.c copies a figure_more into a record). */
#define FIGURE_PANEL_FIELDS(cells)                                                                               \
    int kind;                      /* enum figure_kind; FIGURE_NONE: no figure */                               \
    char caption[FIGURE_CAPTION];  /* what it shows, in the feedback's words */                                \
    int rows;                                                                                                  \
    int row_start[FIGURE_ROWS + 1]; /* row r's cells are values[row_start[r] .. row_start[r + 1]) */           \
    char row_label[FIGURE_ROWS][FIGURE_LABEL];                                                                 \
    long long row_threads[FIGURE_ROWS]; /* rounds: the threads that round's launch started; -1: not known */   \
    int columns;                   /* matrix, grid and table: cells in a row (the rows are whole) */           \
    int tile;                      /* matrix: a tile's side in cells (0: none); grid: threads per block;      \
                                      partials: the first block drawn; tail: the first element drawn */       \
    int cell_span;                 /* matrix: elements of a side each cell stands for (1: one) */              \
    int mark_row, mark_column;     /* the element that broke the rule, or -1 */                                \
    int marked_element_row, marked_element_column; /* matrix: its (row, column) in elements */                 \
    double mark_got, mark_should;  /* what it held, and what it should have */                                 \
    int truncated;                 /* cells were left out for room */                                          \
    char column_label[FIGURE_COLUMNS][FIGURE_LABEL]; /* table: the headings */                                 \
    char note[FIGURE_CAPTION];     /* table, tail, tree: a line under the drawing ("" for none) */             \
    int bar_column;                /* table: the first of two columns drawn as bars too (-1: none) */          \
    double values[cells];                                                                                      \
    unsigned char flags[cells];    /* GRADE_CELL_* (grade.h) */

typedef struct figure_more {
    FIGURE_PANEL_FIELDS(FIGURE_MORE_CELLS)
} figure_more;

typedef struct figure_record {
    FIGURE_PANEL_FIELDS(FIGURE_CELLS)
    int more_count;                /* the figures beside this one */
    figure_more more[FIGURE_MORE];
} figure_record;

#endif
