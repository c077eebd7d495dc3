/* ceiling.c: the device's own limits, measured in the same run as the labs.
 *
 * The streaming ceiling is a device-to-device copy: no kernel that reads
 * and writes memory moves bytes faster, and a reduction, which only reads,
 * gets close to it.  The launch cost is what one round of a multi-launch
 * algorithm costs however little it does. */
#include "libraries.h"

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
