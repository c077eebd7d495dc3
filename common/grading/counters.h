/* counters.h: Nsight Compute's counters of one kernel launch, read from ncu's
 * table (ncu --csv --page raw) and explained in the lab's terms
 * (counters.c).  profile.c runs ncu; the kit's tests feed these functions
 * tables kept from real runs. */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <stddef.h>

/* Of one launch.  NAN where ncu gave no value. */
typedef struct {
    double time_ns;
    double dram_pct;           /* DRAM throughput, % of the device's peak */
    double dram_bytes;         /* bytes read and written in DRAM */
    double conflicts_load;     /* shared-memory bank conflicts, loads */
    double conflicts_store;    /* and stores */
    double warps_active_pct;   /* achieved occupancy: warps resident, % of the SM's slots */
    double warps_possible_pct; /* theoretical occupancy for this launch */
    double uniform_pct;        /* branches all of whose threads went the same way, % */
    double lanes;              /* threads busy per warp instruction (of 32) */
    double sector_use_pct;     /* of each 32-byte sector a global load fetched, % of the bytes used */
    double loads;              /* global load instructions executed */
    double registers;          /* per thread */
    double block_threads;
    double shared_bytes;       /* per block */
    double limit_registers, limit_shared, limit_warps, limit_blocks; /* blocks per SM each would allow */
} counters;

#define COUNTERS_LAUNCHES 4 /* of the kernel, profiled; the longest is read */

/* ncu's --metrics list: the base names of what `counters` holds. */
const char *counters_metric_list(void);

/* The counters of the longest launch in ncu's table, the last table in
 * `output` (changed in place): 1, or 0 where there is none. */
int counters_read_table(char *output, counters *out);

/* Appends to `out` the explanation of `you` against `ref` (NULL: no
 * reference to compare) through `lenses` (grade.h's GRADE_LENS_*). */
void counters_explain(const char *kernel, const counters *you, const counters *ref, unsigned lenses, char *out,
                      size_t size);

#endif /* COUNTERS_H */
