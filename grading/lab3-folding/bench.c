/* lab3-folding.c: the bench of lab 3, the folding sum (lab3.h).
 *
 * fold_sum makes one launch per round, so it cannot beat its floor: the
 * bytes its rounds must move at the streaming ceiling, plus the cost of
 * its launches.  Beside it: CUB DeviceReduce::Sum on the same ints. */
#include "bench.h"
#include "kit.h"
#include "lab3.h"
#include "libraries.h"

/* The bytes the rounds of lab3.h move at least: every round reads A[i] and
 * A[i + d] and writes A[i], for each i < d with i + d < n. */
static double folding_bytes(long n, int *rounds)
{
    long p = 1;
    while (p < n)
        p *= 2;
    double elements = 0;
    *rounds = 0;
    for (long d = p / 2; d >= 1; d /= 2, ++*rounds)
        elements += 3.0 * (n - d < d ? n - d : d);
    return elements * sizeof(int);
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    __typeof__(&fold_sum) fold = BENCH_FN(lab, fold_sum);
    const char *name = "fold_sum (one launch per round)";

    bench_floor floor = bench_floor_costs(&o, "folding floor (bytes at the ceiling + launches)");
    int *a = bench_host_alloc(bench_largest_size(&o) * sizeof(int));
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        long long exact = bench_sum_inputs(a, n);
        double bytes = 4.0 * n; /* what a sum must read: GB/s counts these */

        if (o.reference) {
            bench_result warm = lib_sum_ints(a, (size_t)n, 1, exact, &o.plan);
            bench_result cold = lib_sum_ints(a, (size_t)n, 0, exact, &o.plan);
            bench_library_rows(&o, "CUB DeviceReduce::Sum", n, bytes, &warm, &cold);
            bench_rounds_floor_row(&o, &floor, n, folding_bytes, "moved", bytes);
        }
        bench_sum_run run = {lab, fold, a, (int)n, exact};
        bench_timed_row(&o, fold, name, n, bytes, "GB/s", o.reference && n == 1L << 24 ? floor.target : NULL,
                        bench_sum_once, &run);
    }
    bench_host_free(a);
    return 0;
}
