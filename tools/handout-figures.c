/* handout-figures: the pictures that teach each lab, as SVG files for the
 * handouts (make handouts: tools/render-handout.sh puts each where its
 * handout says <!-- figure: NAME -->).
 *
 *   build/host/handout-figures OUT_DIR REFERENCE_DIR [NAME...]
 *
 * writes OUT_DIR/NAME.svg for every figure (or the ones named), drawn by
 * the report's own code (common/grading/svg.c).  The labs whose pictures
 * are rounds (3, 4, 5), lab 6's tree and lab 9's ring come from a real run
 * of the reference solution: REFERENCE_DIR/<lab>/reference.so (make builds
 * it, build/cpu on the cpu backend, which needs no GPU and emulates lab 9's
 * four devices), loaded here as the runner loads a student's code, with
 * its snapshots on, as the suites read them (round_states.c); lab 8's
 * occupancy table comes from the reference's own occupancy calls.  Lab 1's grid
 * and lab 8's tiles are the labs' own definitions: a run adds nothing to
 * them.
 *
 * Each figure is made in a child process of its own, so that one lab's
 * failure (its reference missing, a kit_fail) leaves the others made; the
 * program prints "made NAME" or "not made NAME: why" for each, and exits 1
 * when one was not made. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "figure.h"
#include "grade.h" /* GRADE_CELL_* */
#include "kit.h"   /* kit_snapshot, kit_launch (the types only: the functions come from the reference) */
#include "kit_program.h" /* kit_dot_vectors */
#include "svg.h"

static const char *reference_dir;
static figure_record record; /* the figure being made (one a process) */

/* ---- the reference, loaded ----------------------------------------------------------- */

static void *reference;

static void load_reference(const char *lab)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/reference.so", reference_dir, lab);
    reference = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!reference) {
        fprintf(stderr, "%s\n", dlerror());
        exit(3);
    }
}

static void *symbol(const char *name)
{
    void *f = dlsym(reference, name);
    if (!f) {
        fprintf(stderr, "the reference has no %s\n", name);
        exit(3);
    }
    return f;
}

#define CALL(type, name) ((type)symbol(#name))

static void snapshots_on(void)
{
    CALL(void (*)(void), kit_reset_records)();
    CALL(void (*)(int), kit_set_snapshots)(1);
}

static int snapshot_count(void) { return CALL(int (*)(void), kit_snapshot_count)(); }
static const kit_snapshot *snapshot(int i) { return CALL(const kit_snapshot *(*)(int), kit_snapshot_at)(i); }

/* The threads the launch of round r (1..) started; -1 when it made none. */
static long long round_threads(int r)
{
    if (r < 1 || r > CALL(int (*)(void), kit_launch_count)())
        return -1;
    const kit_launch *l = CALL(const kit_launch *(*)(int), kit_launch_at)(r - 1);
    return (long long)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
}

static int *seeded_ints(int n, int lo, int hi, unsigned long long seed)
{
    int *a = calloc((size_t)n, sizeof *a);
    CALL(void (*)(int *, size_t, int, int, unsigned long long), kit_fill_ints)(a, (size_t)n, lo, hi, seed);
    return a;
}

/* ---- building a figure ------------------------------------------------------------------ */

static void begin(int kind, const char *caption)
{
    memset(&record, 0, sizeof record);
    record.kind = kind;
    snprintf(record.caption, sizeof record.caption, "%s", caption);
    record.cell_span = 1;
    record.mark_row = record.mark_column = -1;
    record.marked_element_row = record.marked_element_column = -1;
}

/* Row `label` of `count` cells (rounds); values and flags from the caller. */
static void add_row(const char *label, const double *values, const unsigned char *flags, int count, long long threads)
{
    if (record.rows >= FIGURE_ROWS || record.row_start[record.rows] + count > FIGURE_CELLS) {
        fprintf(stderr, "the figure has too many cells\n");
        exit(3);
    }
    int start = record.row_start[record.rows];
    memcpy(record.values + start, values, (size_t)count * sizeof *values);
    memcpy(record.flags + start, flags, (size_t)count);
    snprintf(record.row_label[record.rows], FIGURE_LABEL, "%s", label);
    record.row_threads[record.rows] = threads;
    record.rows++;
    record.row_start[record.rows] = start + count;
}

enum { MOST = 1024 };

/* ---- lab 1: the grid of blocks and threads ------------------------------------------------ */

static void lab1_grid(FILE *out)
{
    const int n = 10, per_block = 4, blocks = (n + per_block - 1) / per_block;
    begin(FIGURE_GRID, "kernel<<<3, 4>>> for n = 10: each cell a thread, with its global index "
                       "g = blockIdx.x * blockDim.x + threadIdx.x; g = 10 and 11 are past n, and the bound "
                       "check if (g < n) stops them");
    for (int g = 0; g < blocks * per_block; g++) {
        record.values[g] = g < n ? 1 : 0; /* each index below n written once, by its own thread */
        record.flags[g] = g < n ? GRADE_CELL_LIVE : 0;
    }
    record.columns = record.tile = per_block;
    record.rows = blocks;
    record.row_start[1] = blocks * per_block;
    static const svg_key keys[] = {{SVG_GREEN, "g < n: the thread writes element g"},
                                   {SVG_GREY, "g >= n: the bound check stops the thread"}};
    svg_look look = {keys, 2, "a row: one block; a cell: its global index g", 0, 1};
    svg_figure_with(out, &record, &look);
}

/* ---- lab 3: folding 13 elements --------------------------------------------------------- */

static void lab3_rounds(FILE *out)
{
    load_reference("lab3-folding");
    const int n = 13;
    int *a = seeded_ints(n, 0, 9, 1); /* as `make lab3 ARGS="13 1"` */
    snapshots_on();
    CALL(int (*)(const int *, int), fold_sum)(a, n);
    int top = 1;
    while (top < n)
        top *= 2;
    begin(FIGURE_ROUNDS, "fold_sum of 13 elements (the reference, seed 1): round r folds at d = 16 >> r, "
                         "A[i] += A[i + d] for i < d with i + d < n; the first round folds the 13 onto the 8 below 16");
    for (int k = 0; k < snapshot_count(); k++) {
        const kit_snapshot *s = snapshot(k);
        int r = s->round, d = top >> r;
        double values[MOST];
        unsigned char flags[MOST];
        for (int i = 0; i < n; i++) {
            values[i] = ((const int *)s->data)[i];
            flags[i] = r == 0 || i < d ? GRADE_CELL_LIVE : 0;
            if (r > 0 && i < d && i + d < n)
                flags[i] |= GRADE_CELL_WORKED;
            if (r > 0 && i >= d && i < 2 * d)
                flags[i] |= GRADE_CELL_PARTNER;
        }
        char label[48];
        snprintf(label, sizeof label, r ? "round %d, d = %d" : "round 0 (input)", r, d);
        add_row(label, values, flags, n, round_threads(r));
    }
    static const svg_key keys[] = {{SVG_BLUE, "live part, i < min(d, n)"}, {SVG_ORANGE, "read: A[i + d]"},
                                   {SVG_GREY, "out of play, kept"}};
    svg_look look = {keys, 3, "dark outline: written this round", 0, 0};
    svg_figure_with(out, &record, &look);
}

/* ---- lab 4: the tournament's strides, and the lanes of a warp ------------------------------ */

typedef int (*sum_fn)(const int *, int);

static void lab4_rounds(FILE *out)
{
    load_reference("lab4-tournament");
    const int n = 13;
    int *a = seeded_ints(n, 0, 9, 1);
    snapshots_on();
    CALL(sum_fn, tournament_sum_naive)(a, n);
    begin(FIGURE_ROUNDS, "tournament_sum_naive of 13 elements (the reference, seed 1): round r plays at the "
                         "distance D = 2^(r-1), A[i] += A[i + D] for the multiples i of 2D with i + D < n");
    for (int k = 0; k < snapshot_count(); k++) {
        const kit_snapshot *s = snapshot(k);
        int r = s->round, width = 1 << r, distance = width / 2;
        double values[MOST];
        unsigned char flags[MOST];
        for (int i = 0; i < n; i++) {
            values[i] = ((const int *)s->data)[i];
            flags[i] = i % width == 0 ? GRADE_CELL_LIVE : 0;
            if (r > 0 && i % width == 0 && i + distance < n)
                flags[i] |= GRADE_CELL_WORKED;
            if (r > 0 && i % width == distance)
                flags[i] |= GRADE_CELL_PARTNER;
        }
        char label[48];
        snprintf(label, sizeof label, r ? "round %d, D = %d" : "round 0 (input)", r, distance);
        add_row(label, values, flags, n, round_threads(r));
    }
    static const svg_key keys[] = {{SVG_BLUE, "winners so far: multiples of 2^r"}, {SVG_ORANGE, "read: A[i + D]"},
                                   {SVG_GREY, "lost a round, kept"}};
    svg_look look = {keys, 3, "dark outline: written this round", 0, 0};
    svg_figure_with(out, &record, &look);
}

/* Which lanes of warp 0 did work in each of the first rounds of one
 * mapping: lane t looks after element t (naive) or 2Dt (compact), and it
 * worked when that element changed (the inputs are 1..9, so every
 * addition changes it). */
static void lanes_of(const char *mapping, const char *fn, const int *a, int n, int rounds)
{
    snapshots_on();
    ((sum_fn)symbol(fn))(a, n);
    int compact = strcmp(mapping, "compact") == 0;
    for (int r = 1; r <= rounds && r < snapshot_count(); r++) {
        const int *before = snapshot(r - 1)->data, *after = snapshot(r)->data;
        int distance = 1 << (r - 1);
        double values[32];
        unsigned char flags[32];
        for (int lane = 0; lane < 32; lane++) {
            long long element = compact ? 2LL * distance * lane : lane;
            values[lane] = (double)element;
            flags[lane] = element < n && after[element] != before[element] ? GRADE_CELL_LIVE | GRADE_CELL_WORKED : 0;
        }
        char label[48];
        snprintf(label, sizeof label, "%s r%d", mapping, r);
        add_row(label, values, flags, 32, round_threads(r));
    }
}

static void lab4_lanes(FILE *out)
{
    load_reference("lab4-tournament");
    const int n = 1024, rounds = 6;
    int *a = seeded_ints(n, 1, 9, 1);
    begin(FIGURE_ROUNDS, "the 32 lanes of warp 0 in the first six rounds of a tournament of 1024 elements (the "
                         "reference's two mappings): each cell is a lane, with the element it looks after; the "
                         "naive mapping's busy lanes thin out (one in 2D), the compact one's stay side by side");
    lanes_of("naive", "tournament_sum_naive", a, n, rounds);
    lanes_of("compact", "tournament_sum_compact", a, n, rounds);
    static const svg_key keys[] = {{SVG_BLUE, "busy lane: A[i] += A[i + D]"}, {SVG_GREY, "idle lane"}};
    svg_look look = {keys, 2, "(thr): threads that round launched", 0, 0};
    svg_figure_with(out, &record, &look);
}

/* ---- lab 5: the tournament of pairs ----------------------------------------------------- */

static void lab5_rounds(FILE *out)
{
    load_reference("lab5-max-reduction");
    const int n = 13;
    float a[13];
    CALL(void (*)(float *, size_t, int, int, unsigned long long), kit_fill_small_floats)(a, n, -99, 99, 1);
    snapshots_on();
    float max = CALL(float (*)(const float *, int), tournament_max)(a, n);
    begin(FIGURE_ROUNDS, "tournament_max of 13 values (the reference, seed 1): round r writes "
                         "B[t] = max(A[2t], A[2t + 1]) into the other array, ceil(m / 2) winners of the m values "
                         "left");
    for (int k = 0; k < snapshot_count(); k++) {
        const kit_snapshot *s = snapshot(k);
        double values[MOST];
        unsigned char flags[MOST];
        for (size_t t = 0; t < s->count && t < MOST; t++) {
            values[t] = ((const float *)s->data)[t];
            flags[t] = GRADE_CELL_LIVE | (s->round > 0 ? GRADE_CELL_WORKED : 0) |
                       (values[t] == max ? GRADE_CELL_PARTNER : 0);
        }
        char label[48];
        snprintf(label, sizeof label, s->round ? "round %d" : "round 0 (input)", s->round);
        add_row(label, values, flags, (int)s->count, round_threads(s->round));
    }
    static const svg_key keys[] = {{SVG_BLUE, "the values left"}, {SVG_ORANGE, "the maximum, on its way to B[0]"}};
    svg_look look = {keys, 2, "dark outline: written this round", 0, 0};
    svg_figure_with(out, &record, &look);
}

/* ---- lab 6: the tree in shared memory --------------------------------------------------- */

static void lab6_tree(FILE *out)
{
    load_reference("lab6-shared-dot");
    const int n = 100, block = 32, blocks = 2;
    kit_dot_vectors v = CALL(kit_dot_vectors (*)(int, int, unsigned long long), kit_dot_vectors_make)(n, 1, 1);
    float partials[2];
    CALL(float (*)(const float *, const float *, int, int, int, float *), dot_host_finish)(v.x, v.y, n, block,
                                                                                         blocks, partials);
    /* Block 0's cache: thread t's running sum over the elements it owns
     * (t, t + 64: the ownership rule), then the tree's levels. */
    double cache[32];
    for (int t = 0; t < block; t++) {
        cache[t] = 0;
        for (int i = t; i < n; i += block * blocks)
            cache[t] += (double)v.x[i] * v.y[i];
    }
    begin(FIGURE_ROUNDS, "block 0's cache[] in the reference's run with n = 100, blocks of 32 threads, 2 blocks "
                         "(seed 1): each thread stores its running sum, then each level's first `half` threads add "
                         "cache[t + half]; every row ends at a __syncthreads()");
    double values[32];
    unsigned char flags[32];
    for (int t = 0; t < block; t++)
        values[t] = cache[t], flags[t] = GRADE_CELL_LIVE | GRADE_CELL_WORKED;
    add_row("stored", values, flags, block, block);
    for (int half = block / 2; half >= 1; half /= 2) {
        for (int t = 0; t < half; t++)
            cache[t] += cache[t + half];
        for (int t = 0; t < block; t++) {
            values[t] = cache[t];
            flags[t] = t < half ? GRADE_CELL_LIVE | GRADE_CELL_WORKED : t < 2 * half ? GRADE_CELL_PARTNER : 0;
        }
        char label[48];
        snprintf(label, sizeof label, "half = %d", half);
        add_row(label, values, flags, block, block);
    }
    if (cache[0] != partials[0]) {
        fprintf(stderr, "the tree's total %g is not the reference's partial of block 0, %g\n", cache[0],
                (double)partials[0]);
        exit(3);
    }
    static const svg_key keys[] = {{SVG_BLUE, "live slots"}, {SVG_ORANGE, "read at this level: cache[t + half]"},
                                   {SVG_GREY, "done"}};
    svg_look look = {keys, 3, "outline: written; cache[0]: partials[0]", 0, 0};
    svg_figure_with(out, &record, &look);
}

/* ---- lab 8: the tile walk --------------------------------------------------------------- */

static void lab8_tiles(FILE *out)
{
    svg_tile_walk(out, "a 12 x 8 matrix A times an 8 x 12 matrix B in 4 x 4 tiles: the block of C's tile (row 1, "
                       "column 1) walks along A's tile row 1 and B's tile column 1, one pair of tiles a step",
                  3, 2, 3, 4, 1, 1);
}

/* ---- lab 8: the occupancy limits ------------------------------------------------------- */

/* The reference's matmul_occupancy for every tile on the cpu backend's
 * emulated device (an H100's limits), beside what the warps alone would
 * allow: where the API fits fewer blocks, another limit decides. */
static void lab8_occupancy(FILE *out)
{
    enum { COLUMNS = 6, TILES = 6, SM_BLOCKS = 32 };
    load_reference("lab8-tiled-matmul");
    double (*occupancy)(int) = CALL(double (*)(int), matmul_occupancy);
    double (*from_blocks)(int, int) = CALL(double (*)(int, int), occupancy_from_blocks);
    size_t (*shared_bytes)(int) = CALL(size_t (*)(int), matmul_shared_bytes);
    int (*registers)(void) = CALL(int (*)(void), matmul_kernel_registers);
    int sm_warps = (int)(1.0 / from_blocks(1, 32) + 0.5);
    begin(FIGURE_TABLE, "matmul_occupancy(tile) of the reference for every tile, on the cpu backend's emulated "
                        "device (an H100's limits): the blocks an SM holds by its warps alone, and by the "
                        "occupancy API");
    static const char *const headings[COLUMNS + 1] = {"tile", "threads", "warps a block", "shared bytes",
                                                      "blocks by warps", "occupancy", "what limits it"};
    record.columns = COLUMNS;
    record.bar_column = -1;
    for (int c = 0; c <= COLUMNS; c++)
        snprintf(record.column_label[c], FIGURE_LABEL, "%s", headings[c]);
    snprintf(record.note, sizeof record.note, "at most %d warps and %d blocks per SM; %d registers per thread",
             sm_warps, SM_BLOCKS, registers());
    for (int t = 1, k = 0; k < TILES; t *= 2, k++) {
        int threads = t * t, warps = (threads + 31) / 32;
        int by_warps = sm_warps / warps;
        double got = occupancy(t);
        int blocks = (int)(got * sm_warps / warps + 0.5);
        const char *limit = blocks >= by_warps ? "the warps" : blocks == SM_BLOCKS ? "the blocks per SM"
                                                                                   : "registers or shared memory";
        double values[COLUMNS] = {t, threads, warps, (double)shared_bytes(threads), by_warps, got};
        unsigned char flags[COLUMNS] = {0};
        add_row(limit, values, flags, COLUMNS, -1);
    }
    svg_figure(out, &record);
}

/* ---- lab 9: the ring -------------------------------------------------------------------- */

static void lab9_ring(FILE *out)
{
    enum { DEVICES = 4, COUNT = 4 };
    setenv("CUDAEMU_DEVICES", "4", 1); /* the cpu backend's four emulated devices (before it starts) */
    load_reference("lab9-many-gpus");
    /* device r holds 10^r in every element: a sum's digits say whose shares it holds (1111: all four) */
    float original[DEVICES * COUNT], state[DEVICES * COUNT];
    for (int d = 0; d < DEVICES; d++)
        for (int i = 0; i < COUNT; i++)
            original[d * COUNT + i] = (float)(d == 0 ? 1 : d == 1 ? 10 : d == 2 ? 100 : 1000);
    begin(FIGURE_ROUNDS, "ring_allreduce on 4 devices (the reference, on the cpu backend's emulated devices), one "
                         "chunk of one element each: device r starts with 10^r, so a chunk's digits say whose "
                         "shares it holds; 3 steps of reduce-scatter, then 3 of all-gather");
    double values[DEVICES * COUNT], previous[DEVICES * COUNT];
    unsigned char flags[DEVICES * COUNT];
    for (int step = 0; step <= 2 * (DEVICES - 1); step++) {
        memcpy(state, original, sizeof state);
        CALL(void (*)(float *, int, int, int), ring_allreduce)(state, COUNT, DEVICES, step);
        for (int i = 0; i < DEVICES * COUNT; i++) {
            values[i] = state[i];
            flags[i] = (state[i] == 1111 ? GRADE_CELL_LIVE : 0) |
                       (step > 0 && values[i] != previous[i] ? GRADE_CELL_WORKED : 0);
            previous[i] = values[i];
        }
        char label[48];
        snprintf(label, sizeof label, step == 0 ? "start" : step < DEVICES ? "step %d, reduce" : "step %d, gather",
                 step);
        add_row(label, values, flags, DEVICES * COUNT, -1);
    }
    static const svg_key keys[] = {{SVG_BLUE, "the full sum, 1111"}, {SVG_GREY, "partial: its digits say whose"}};
    svg_look look = {keys, 2, "devices 0 to 3, chunks 0 to 3 each; outline: received", 0, COUNT};
    svg_figure_with(out, &record, &look);
}

/* ---- the figures ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*draw)(FILE *out);
} figures[] = {
    {"lab1-grid", lab1_grid},     {"lab3-rounds", lab3_rounds}, {"lab4-rounds", lab4_rounds},
    {"lab4-lanes", lab4_lanes},   {"lab5-rounds", lab5_rounds}, {"lab6-tree", lab6_tree},
    {"lab8-tiles", lab8_tiles},   {"lab8-occupancy", lab8_occupancy}, {"lab9-ring", lab9_ring},
};
enum { FIGURES = sizeof figures / sizeof figures[0] };

/* Draws figure k into OUT_DIR/NAME.svg in a child; 1 when it was made. */
static int make_figure(int k, const char *out_dir)
{
    char path[4096], part[4200];
    snprintf(path, sizeof path, "%s/%s.svg", out_dir, figures[k].name);
    snprintf(part, sizeof part, "%s.part", path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        /* the reference's own output (its asserts' words) stays out of ours */
        if (!freopen("/dev/null", "w", stdout))
            _exit(3);
        FILE *out = fopen(part, "w");
        if (!out)
            _exit(3);
        figures[k].draw(out);
        _exit(fclose(out) == 0 ? 0 : 3);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    struct stat st;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && stat(part, &st) == 0 && st.st_size > 0 &&
        rename(part, path) == 0) {
        printf("made %s\n", path);
        return 1;
    }
    unlink(part);
    printf("not made %s: %s\n", path, WIFEXITED(status) ? "its drawing stopped (see above)" : "its process was killed");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: handout-figures OUT_DIR REFERENCE_DIR [NAME...]\n");
        return 2;
    }
    reference_dir = argv[2];
    mkdir(argv[1], 0777);
    int failed = 0, asked = argc > 3;
    for (int k = 0; k < FIGURES; k++) {
        int wanted = !asked;
        for (int i = 3; i < argc; i++)
            wanted |= strcmp(argv[i], figures[k].name) == 0;
        if (wanted && !make_figure(k, argv[1]))
            failed = 1;
    }
    for (int i = 3; i < argc; i++) {
        int known = 0;
        for (int k = 0; k < FIGURES; k++)
            known |= strcmp(argv[i], figures[k].name) == 0;
        if (!known) {
            printf("not made %s: no such figure\n", argv[i]);
            failed = 1;
        }
    }
    return failed;
}
