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
#include <stdlib.h>

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
    const float *x, *y;
    int n, block_size, blocks;
    double exact, abs_sum;
} dot_run;

static double dot_once(void *context, char *note)
{
    dot_run *r = context;
    float got;
    bench_lab_start(r->lab);
    if (r->step == DEVICE_FINISH)
        got = ((__typeof__(&dot_device_finish))r->fn)(r->x, r->y, r->n, r->block_size, r->blocks);
    else if (r->step == HOST_FINISH)
        got = ((__typeof__(&dot_host_finish))r->fn)(r->x, r->y, r->n, r->block_size, r->blocks, NULL);
    else if (r->step == SUM_ON_HOST)
        got = ((__typeof__(&dot_sum_on_host))r->fn)(r->x, r->y, r->n);
    else
        got = dot_fastest(r->x, r->y, r->n);
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
    void *fns[3] = {bench_symbol(lab, "dot_device_finish"), bench_symbol(lab, "dot_host_finish"),
                    bench_symbol(lab, "dot_sum_on_host")};
    __typeof__(&dot_choose_blocks) choose_blocks = BENCH_FN(lab, dot_choose_blocks);
    char names[3][80];
    snprintf(names[0], sizeof names[0], "dot_device_finish (block %d)", block_size);
    snprintf(names[1], sizeof names[1], "dot_host_finish (block %d; kernel only)", block_size);
    snprintf(names[2], sizeof names[2], "dot_sum_on_host (products kernel only)");

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
        int blocks = choose_blocks ? choose_blocks((int)n, block_size) : 0;
        for (int f = DEVICE_FINISH; f <= SUM_ON_HOST; f++) {
            if (!fns[f] || (f != SUM_ON_HOST && blocks < 1)) {
                bench_skip_row(&o, o.who, names[f], n,
                               !fns[f] ? "no such entry point in the shared object"
                                       : "dot_choose_blocks gave no block count");
                continue;
            }
            dot_run run = {f, lab, fns[f], x, y, (int)n, block_size, blocks, exact, abs_sum};
            bench_result r = bench_repeat(&o.plan, dot_once, &run);
            bench_row(&o, o.who, names[f], n, bytes, "GB/s", NULL, &r);
        }
        if (o.reference) {
            dot_run run = {FASTEST, NULL, NULL, x, y, (int)n, 0, 0, exact, abs_sum};
            bench_result r = bench_repeat(&o.plan, dot_once, &run);
            /* The target: the library's speed at 2^24 and 2^28. */
            int targeted = n == 1L << 24 || n == 1L << 28;
            bench_row(&o, "solution", "dot_fastest (one launch, float4; solutions/fastest.cu)", n, bytes, "GB/s",
                      targeted ? "library>=1" : NULL, &r);
        }
    }
    bench_host_free(x);
    bench_host_free(y);
    return 0;
}
