/* ceiling.c: the device's own limits, measured in the same run as the labs.
 *
 * The streaming ceiling is a device-to-device copy: no kernel that reads
 * and writes memory moves bytes faster, and a reduction, which only reads,
 * gets close to it.  The launch cost is what one round of a multi-launch
 * algorithm costs however little it does. */
#include "libraries.h"

#include <stdio.h>

double bench_ceiling(const bench_options *o)
{
    double best = 0;
    for (int i = 0; i < o->size_count; i++) {
        long n = o->sizes[i];
        double bytes = 8.0 * n; /* n floats read and n written */
        bench_result r = lib_copy((size_t)n, &o->plan);
        bench_row(o, "ceiling", "copy (cudaMemcpy device to device)", n, bytes, "GB/s", NULL, &r);
        if (r.ok && bytes / (r.median_ms * 1e6) > best)
            best = bytes / (r.median_ms * 1e6);
    }
    return best;
}

double bench_launch_cost(const bench_options *o)
{
    bench_result r = lib_empty_launch(&o->plan);
    bench_row(o, "ceiling", "one launch of an empty kernel (LAUNCH)", 0, 0, "-", NULL, &r);
    return r.ok ? r.median_ms : 0;
}

bench_floor bench_floor_costs(const bench_options *o, const char *version)
{
    bench_floor floor = {0, 0, version, ""};
    snprintf(floor.target, sizeof floor.target, "floor:%s<=1.5", version);
    if (o->reference) {
        floor.ceiling_gbs = bench_ceiling(o);
        floor.launch_ms = bench_launch_cost(o);
    }
    return floor;
}

void bench_floor_row(const bench_options *o, const bench_floor *floor, long size, double moved_bytes,
                     const char *what_moved, int launches, double work)
{
    if (!(floor->ceiling_gbs > 0))
        return;
    char note[200];
    snprintf(note, sizeof note, "%.1f MB %s at %.0f GB/s + %d launches of %.1f us", moved_bytes / 1e6, what_moved,
             floor->ceiling_gbs, launches, floor->launch_ms * 1e3);
    bench_model_row(o, floor->version, size, moved_bytes / (floor->ceiling_gbs * 1e6) + launches * floor->launch_ms,
                    work, "GB/s", note);
}

void bench_rounds_floor_row(const bench_options *o, const bench_floor *floor, long n,
                            double (*moved)(long n, int *rounds), const char *what_moved, double work)
{
    int rounds;
    double bytes = moved(n, &rounds);
    bench_floor_row(o, floor, n, bytes, what_moved, rounds, work);
}
