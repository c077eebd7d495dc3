/* svg.h: a figure record (figure.h) drawn as SVG (svg.c): for the HTML
 * report, and for the handouts (tools/handout-figures.c). */
#ifndef SVG_H
#define SVG_H

#include <stdio.h>

#include "figure.h"

/* The colours, the same in every figure (svg.c says what each means). */
#define SVG_RED "#d62728"
#define SVG_ORANGE "#ff9f40"
#define SVG_BLUE "#cfe3f7"
#define SVG_GREEN "#b9e4b0"
#define SVG_GREY "#eeeeee"
#define SVG_INK "#222222"

/* One entry of a figure's legend: a colour and what it means there. */
typedef struct {
    const char *fill;
    const char *text;
} svg_key;

/* How a rounds, grid or matrix figure is explained: its legend, the note at
 * the right of the legend (NULL: none) and, for rounds, the cells drawn in
 * groups of `group` with a gap between (0: no groups); a grid's cells
 * labelled with their index where index_labels is set. */
typedef struct {
    const svg_key *keys;
    int key_count;
    const char *note;
    int group;
    int index_labels;
} svg_look;

/* One <svg> element, well-formed XML on its own (the report's legends). */
void svg_figure(FILE *out, const figure_record *figure);
/* The k-th figure beside the record's main one, as a record of its own
 * (malloc'd: free it), for svg_figure; NULL where there is none. */
figure_record *svg_figure_beside(const figure_record *figure, int k);
/* The same drawing with another legend (a handout's words). */
void svg_figure_with(FILE *out, const figure_record *figure, const svg_look *look);
/* Lab 8's tiles: A (tiles_m x tiles_k tiles), B (tiles_k x tiles_n) and C,
 * the tile of C at (block_row, block_column) and the tiles of A and B that
 * its block loads at each step, `tile` elements a side. */
void svg_tile_walk(FILE *out, const char *caption, int tiles_m, int tiles_k, int tiles_n, int tile, int block_row,
                   int block_column);
/* `s` as XML text (and attribute) content: markup escaped, control bytes dropped. */
void svg_text(FILE *out, const char *s);

#endif
