/* lab7-coop-groups.c: the bench of lab 7, the dot product with cooperative
 * groups (lab7.h).
 *
 * Five ways to add up a block, one launch each, beside cuBLAS Sdot: the
 * dot product reads 8 n bytes, so the best of them (dot_vectorized, float4
 * loads) should keep up with the library.  dot_grid_sync makes a
 * cooperative launch; it is timed only when that launch goes through the
 * harness's timing like LAUNCH does.
 *
 * BENCH_BLOCK (default 256) sets the block size. */
#include "bench.h"
#include "dot.h"
#include "lab7.h"
#include "libraries.h"

enum way { BLOCK_SYNC, TILE_SHUFFLE, CG_REDUCE, VECTORIZED, GRID_SYNC, WAYS };

typedef struct {
    enum way way;
    bench_lab *lab;
    void *fn;
    const bench_dot_vectors *v;
    int n, block_size;
} dot_run;

static double dot_once(void *context, char *note)
{
    dot_run *r = context;
    float got;
    bench_lab_start(r->lab);
    if (r->way == VECTORIZED)
        got = ((__typeof__(&dot_vectorized))r->fn)(r->v->x, r->v->y, r->n, r->block_size, 0);
    else /* the other four have one type */
        got = ((__typeof__(&dot_cg_reduce))r->fn)(r->v->x, r->v->y, r->n, r->block_size);
    return bench_dot_checked(r->lab, got, r->v, DOT_TOLERANCE_C, note);
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    int block_size = bench_dot_block_size();
    const char *entry[WAYS] = {"dot_block_sync", "dot_tile_shuffle", "dot_cg_reduce", "dot_vectorized",
                               "dot_grid_sync"};
    const char *how[WAYS] = {"shared-memory tree", "tile shuffles", "cg::reduce", "float4 loads",
                             "cooperative launch"};
    void *fns[WAYS];
    char names[WAYS][80];
    for (int w = 0; w < WAYS; w++) {
        fns[w] = bench_symbol(lab, entry[w]);
        snprintf(names[w], sizeof names[w], "%s (%s; block %d)", entry[w], how[w], block_size);
    }

    bench_dot_vectors v = bench_dot_start(&o);
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        double bytes = 8.0 * n; /* x and y, read once */
        bench_dot_size(&o, &v, n);
        for (int w = 0; w < WAYS; w++) {
            dot_run run = {w, lab, fns[w], &v, (int)n, block_size};
            /* The target: the library's speed at 2^24 and 2^28, for the fastest way. */
            int targeted = o.reference && w == VECTORIZED && (n == 1L << 24 || n == 1L << 28);
            bench_timed_row(&o, fns[w], names[w], n, bytes, "GB/s", targeted ? "library>=1" : NULL, dot_once, &run);
        }
    }
    bench_dot_end(&v);
    return 0;
}
