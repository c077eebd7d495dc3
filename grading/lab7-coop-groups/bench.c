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
#include <stdlib.h>

#include "bench.h"
#include "dot.h"
#include "lab7.h"
#include "libraries.h"

enum way { BLOCK_SYNC, TILE_SHUFFLE, CG_REDUCE, VECTORIZED, GRID_SYNC, WAYS };

typedef struct {
    enum way way;
    bench_lab *lab;
    void *fn;
    const float *x, *y;
    int n, block_size;
    double exact, abs_sum;
} dot_run;

static double dot_once(void *context, char *note)
{
    dot_run *r = context;
    float got;
    bench_lab_start(r->lab);
    if (r->way == VECTORIZED)
        got = ((__typeof__(&dot_vectorized))r->fn)(r->x, r->y, r->n, r->block_size, 0);
    else /* the other four have one type */
        got = ((__typeof__(&dot_cg_reduce))r->fn)(r->x, r->y, r->n, r->block_size);
    double ms = bench_lab_elapsed(r->lab, note);
    if (ms < 0)
        return ms;
    return bench_check_sum(got, r->exact, r->abs_sum, DOT_TOLERANCE_C, note) ? ms : -1;
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    const char *block_text = getenv("BENCH_BLOCK");
    int block_size = block_text && atoi(block_text) >= 32 ? atoi(block_text) : 256;
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

    if (o.reference)
        bench_ceiling(&o);
    size_t largest = (size_t)o.sizes[o.size_count - 1];
    float *x = bench_host_alloc(largest * sizeof(float));
    float *y = bench_host_alloc(largest * sizeof(float));
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        double exact, abs_sum, bytes = 8.0 * n; /* x and y, read once */
        bench_dot_inputs(x, y, n, &exact, &abs_sum);
        if (o.reference)
            bench_dot_library_rows(&o, x, y, n, exact, abs_sum);
        for (int w = 0; w < WAYS; w++) {
            if (!fns[w]) {
                bench_skip_row(&o, o.who, names[w], n, "no such entry point in the shared object");
                continue;
            }
            dot_run run = {w, lab, fns[w], x, y, (int)n, block_size, exact, abs_sum};
            bench_result r = bench_repeat(&o.plan, dot_once, &run);
            /* The target: the library's speed at 2^24 and 2^28, for the fastest way. */
            int targeted = o.reference && w == VECTORIZED && (n == 1L << 24 || n == 1L << 28);
            bench_row(&o, o.who, names[w], n, bytes, "GB/s", targeted ? "library>=1" : NULL, &r);
        }
    }
    bench_host_free(x);
    bench_host_free(y);
    return 0;
}
