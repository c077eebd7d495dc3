/* lab4-tournament.c: the bench of lab 4, the tournament-tree sum (lab4.h).
 *
 * Both thread mappings play the same rounds, one launch each, so neither
 * can beat the rounds' floor: the bytes they move at the streaming ceiling
 * plus the cost of their launches.  In round r the players sit 2D apart,
 * so once 2D floats span a 32-byte memory sector every player costs whole
 * sectors of traffic for its 4 useful bytes: the floor counts sectors, not
 * bytes.  Beside them: lab 3's folding (given in this lab) and CUB. */
#include "bench.h"
#include "kit.h"
#include "lab4.h"
#include "libraries.h"

enum { SECTOR_INTS = 8 }; /* 32-byte sectors, the unit memory is read and written in */

/* Sectors spanned by `count` ints `step` apart (whole sectors each once
 * the step reaches a sector). */
static double sectors(double count, long step)
{
    return step >= SECTOR_INTS ? count : count * step / SECTOR_INTS;
}

/* The bytes the rounds of lab4.h move at least: round D reads A[i] and
 * A[i + D] and writes A[i] for every multiple i of 2D with i + D < n. */
static double tournament_bytes(long n, int *rounds)
{
    double total = 0;
    *rounds = 0;
    for (long d = 1; d < n; d *= 2, ++*rounds) {
        double players = (double)((n - d + 2 * d - 1) / (2 * d));
        /* A[i] and A[i + D] share a sector while 2D ints fit in one. */
        double reads = 2 * d <= SECTOR_INTS ? sectors(players, 2 * d) : 2 * players;
        double writes = sectors(players, 2 * d);
        total += 32.0 * (reads + writes);
    }
    return total;
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    __typeof__(&tournament_sum_compact) fns[3] = {BENCH_FN(lab, tournament_sum_compact),
                                                   BENCH_FN(lab, tournament_sum_naive),
                                                   BENCH_FN(lab, folding_sum_for_comparison)};
    const char *names[3] = {"tournament_sum_compact (one launch per round)",
                            "tournament_sum_naive (one launch per round)",
                            "folding_sum_for_comparison (lab 3, given)"};

    bench_floor floor = bench_floor_costs(&o, "tournament floor (sectors at the ceiling + launches)");
    int *a = bench_host_alloc(bench_largest_size(&o) * sizeof(int));
    for (int s = 0; s < o.size_count; s++) {
        long n = o.sizes[s];
        long long exact = bench_sum_inputs(a, n);
        double bytes = 4.0 * n;

        if (o.reference) {
            bench_result r = lib_sum_ints(a, (size_t)n, 1, exact, &o.plan);
            bench_row(&o, "library", "CUB DeviceReduce::Sum", n, bytes, "GB/s", NULL, &r);
            bench_rounds_floor_row(&o, &floor, n, tournament_bytes, "of sectors moved", bytes);
        }
        for (int f = 0; f < 3; f++) {
            bench_sum_run run = {lab, fns[f], a, (int)n, exact};
            bench_timed_row(&o, fns[f], names[f], n, bytes, "GB/s",
                            o.reference && f == 0 && n == 1L << 24 ? floor.target : NULL, bench_sum_once, &run);
        }
    }
    bench_host_free(a);
    return 0;
}
