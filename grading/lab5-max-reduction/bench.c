/* lab5-max-reduction.c: the bench of lab 5, the maximum two ways (lab5.h).
 *
 * block_max reads the array once in one launch: it should keep up with
 * CUB DeviceReduce::Max.  tournament_max makes one launch per round, each
 * reading what the last one wrote: its floor is shown beside it (the bytes
 * its rounds move at the streaming ceiling, plus its launches).  The maximum
 * is exact, so every result must equal the host's. */
#include "bench.h"
#include "kit.h"
#include "lab5.h"
#include "libraries.h"

/* solutions/lab5-max-reduction/fastest.cu (linked into this program): beyond the lab's steps. */
float block_max_fastest(const float *a, int n);

typedef struct {
    bench_lab *lab;
    __typeof__(&block_max) max; /* both entry points have this type */
    const float *a;
    int n;
    float exact;
} max_run;

static double max_once(void *context, char *note)
{
    max_run *r = context;
    bench_lab_start(r->lab);
    float got = r->max(r->a, r->n);
    double ms = bench_lab_elapsed(r->lab, note);
    if (ms >= 0 && !(got == r->exact)) {
        snprintf(note, 200, "wrong: %.9g but the maximum is %.9g", got, r->exact);
        return -1;
    }
    return ms;
}

/* The bytes the rounds of lab5.h move at least: a round reads the m values
 * left by the last one and writes ceil(m / 2). */
static double tournament_bytes(long n, int *rounds)
{
    double total = 0;
    *rounds = 0;
    for (long m = n; m > 1; m = (m + 1) / 2, ++*rounds)
        total += 4.0 * (m + (m + 1) / 2);
    return total;
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    __typeof__(&block_max) fns[2] = {BENCH_FN(lab, block_max), BENCH_FN(lab, tournament_max)};
    const char *names[2] = {"block_max (one launch, shared-memory tree)", "tournament_max (one launch per round)"};
    const char *fastest_name = "block_max_fastest (float4, warp shuffles; solutions/fastest.cu)";

    bench_floor floor = bench_floor_costs(&o, "tournament floor (bytes at the ceiling + launches)");
    float *a = bench_host_alloc(bench_largest_size(&o) * sizeof(float));
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        kit_fill_uniform(a, (size_t)n, -1.0f, 1.0f, (uint64_t)n);
        float exact = kit_max_floats(a, (size_t)n);
        double bytes = 4.0 * n;

        if (o.reference) {
            bench_result warm = lib_max_floats(a, (size_t)n, 1, exact, &o.plan);
            bench_result cold = lib_max_floats(a, (size_t)n, 0, exact, &o.plan);
            bench_library_rows(&o, "CUB DeviceReduce::Max", n, bytes, &warm, &cold);
            bench_rounds_floor_row(&o, &floor, n, tournament_bytes, "moved", bytes);
        }
        for (int f = 0; f < 2; f++) {
            max_run run = {lab, fns[f], a, (int)n, exact};
            bench_timed_row(&o, fns[f], names[f], n, bytes, "GB/s", NULL, max_once, &run);
        }
        if (o.reference) {
            max_run run = {NULL, block_max_fastest, a, (int)n, exact};
            bench_result r = bench_repeat(&o.plan, max_once, &run);
            /* The target: the library's speed at 2^24 and 2^28. */
            int targeted = n == 1L << 24 || n == 1L << 28;
            bench_row(&o, "solution", fastest_name, n, bytes, "GB/s", targeted ? "library>=1" : NULL, &r);
        }
    }
    bench_host_free(a);
    return 0;
}
