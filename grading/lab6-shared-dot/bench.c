/* lab6-shared-dot.c: the bench of lab 6, the shared-memory dot product (lab6.h).
 *
 * A dot product of n floats must read 8 n bytes and does one multiply-add
 * per 8 bytes: it is bound by memory, and the library a professional would
 * call, cuBLAS Sdot, reads at nearly the streaming ceiling.  The lab's
 * complete version (dot_device_finish) should keep up with it.  The other
 * two steps are timed too, their kernels only (dot_host_finish adds its
 * partials on the host, dot_sum_on_host all the products): their GB/s
 * count the same 8 n bytes, so the three compare directly.
 *
 * BENCH_BLOCK (default 256) sets the block size. */
#include "bench.h"
#include "dot.h"
#include "lab6.h"
#include "libraries.h"

/* solutions/lab6-shared-dot/fastest.cu (linked into this program): beyond the lab's steps. */
float dot_fastest(const float *x, const float *y, int n);

enum step { DEVICE_FINISH, HOST_FINISH, SUM_ON_HOST, FASTEST };

typedef struct {
    enum step step;
    bench_lab *lab;
    void *fn;
    const bench_dot_vectors *v;
    int n, block_size, blocks;
} dot_run;

static double dot_once(void *context, char *note)
{
    dot_run *r = context;
    float got;
    bench_lab_start(r->lab);
    const float *x = r->v->x, *y = r->v->y;
    if (r->step == DEVICE_FINISH)
        got = ((__typeof__(&dot_device_finish))r->fn)(x, y, r->n, r->block_size, r->blocks);
    else if (r->step == HOST_FINISH)
        got = ((__typeof__(&dot_host_finish))r->fn)(x, y, r->n, r->block_size, r->blocks, NULL);
    else if (r->step == SUM_ON_HOST)
        got = ((__typeof__(&dot_sum_on_host))r->fn)(x, y, r->n);
    else
        got = dot_fastest(x, y, r->n);
    return bench_dot_checked(r->lab, got, r->v, DOT_TOLERANCE_C, note);
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    int block_size = bench_dot_block_size();
    void *fns[3] = {bench_symbol(lab, "dot_device_finish"), bench_symbol(lab, "dot_host_finish"),
                    bench_symbol(lab, "dot_sum_on_host")};
    __typeof__(&dot_choose_blocks) choose_blocks = BENCH_FN(lab, dot_choose_blocks);
    char names[3][80];
    snprintf(names[0], sizeof names[0], "dot_device_finish (block %d)", block_size);
    snprintf(names[1], sizeof names[1], "dot_host_finish (block %d; kernel only)", block_size);
    snprintf(names[2], sizeof names[2], "dot_sum_on_host (products kernel only)");

    bench_dot_vectors v = bench_dot_start(&o);
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        double bytes = 8.0 * n; /* x and y, read once */
        bench_dot_size(&o, &v, n);
        int blocks = choose_blocks ? choose_blocks((int)n, block_size) : 0;
        for (int f = DEVICE_FINISH; f <= SUM_ON_HOST; f++) {
            if (!fns[f] || (f != SUM_ON_HOST && blocks < 1)) {
                bench_skip_row(&o, o.who, names[f], n,
                               !fns[f] ? "no such entry point in the shared object"
                                       : "dot_choose_blocks gave no block count");
                continue;
            }
            dot_run run = {f, lab, fns[f], &v, (int)n, block_size, blocks};
            bench_result r = bench_repeat(&o.plan, dot_once, &run);
            bench_row(&o, o.who, names[f], n, bytes, "GB/s", NULL, &r);
        }
        if (o.reference) {
            dot_run run = {FASTEST, NULL, NULL, &v, (int)n, 0, 0};
            bench_result r = bench_repeat(&o.plan, dot_once, &run);
            /* The target: the library's speed at 2^24 and 2^28. */
            int targeted = n == 1L << 24 || n == 1L << 28;
            bench_row(&o, "solution", "dot_fastest (one launch, float4; solutions/fastest.cu)", n, bytes, "GB/s",
                      targeted ? "library>=1" : NULL, &r);
        }
    }
    bench_dot_end(&v);
    return 0;
}
