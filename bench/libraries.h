/* libraries.h: what a professional would call instead of the labs' code, and
 * the device's own limits, each timed between two events on the default
 * stream after warm-up, the median of many runs, every result checked.
 *
 * Inputs come in two ways:
 *   warm = 1  uploaded from the host arrays just before each run, which is
 *             what the labs' entry points do: the comparison with a lab is
 *             fair, since small inputs then sit partly in L2 for both;
 *   warm = 0  rotated among device copies that together do not fit in L2:
 *             what the same call costs on data coming from device memory.
 * Results are written to poisoned (NaN) device memory and read back after
 * every run; a wrong one stops the measurement with a note. */
#ifndef LIBRARIES_H
#define LIBRARIES_H

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host memory the GPU copies to and from at full speed (pinned). */
void *bench_host_alloc(size_t bytes);
void bench_host_free(void *p);
long bench_l2_bytes(void);

/* Device arrays for the rows that time a kernel alone: a copy of n host
 * floats (none copied when host is NULL); NaN in every element; n floats
 * back to the host; free. */
float *bench_device_copy(const float *host, size_t n);
void bench_device_poison(float *device, size_t n);
void bench_device_download(float *host, const float *device, size_t n);
void bench_device_free(float *device);

/* The streaming ceiling: a device-to-device cudaMemcpy of n floats, rotated
 * through buffers larger than L2; it moves 8 n bytes (read + write). */
bench_result lib_copy(size_t n, const bench_plan *plan);

/* The cost of one launch as the harness's LAUNCH times it (events around a
 * launch of an empty kernel): what every round of a multi-launch algorithm
 * pays however little it does. */
bench_result lib_empty_launch(const bench_plan *plan);

/* The rows every lab shows first (ceiling.c): the copy at every size of the
 * run, returning the best GB/s (the ceiling the floors use), and the cost
 * of one launch in milliseconds (0 when it could not be measured). */
double bench_ceiling(const bench_options *options);

/* Leaves L2 holding no dirty lines: a kernel reads a scratch buffer twice
 * L2's size, so whatever an upload left there is written back to device
 * memory now, untimed, and not during the next timed kernel. */
void bench_write_back_l2(void);
double bench_launch_cost(const bench_options *options);
int bench_sm_count(void);

/* The floor of an algorithm of one launch per round (labs 3 to 5): the
 * bytes its rounds must move at the streaming ceiling plus the cost of its
 * launches.  bench_floor_costs measures both on the reference side (0, 0
 * on the student's) for the floor row named `version`, and makes the
 * target that row sets the lab's versions (bench.h: at most 1.5 times its
 * time); bench_floor_row writes the model row (none when the ceiling is
 * unknown), its note saying "MB <what_moved> at ... + launches". */
typedef struct {
    double ceiling_gbs, launch_ms;
    const char *version; /* the floor row's name */
    char target[160];    /* "floor:<version><=1.5" */
} bench_floor;
bench_floor bench_floor_costs(const bench_options *options, const char *version);
void bench_floor_row(const bench_options *options, const bench_floor *floor, long size, double moved_bytes,
                     const char *what_moved, int launches, double work);
/* bench_floor_row at size n of a lab whose rounds `moved` counts: the bytes
 * they move at least, and (in *rounds) how many there are, one launch each. */
void bench_rounds_floor_row(const bench_options *options, const bench_floor *floor, long n,
                            double (*moved)(long n, int *rounds), const char *what_moved, double work);

/* CUB DeviceReduce::Sum and ::Max, cuBLAS Sdot. */
bench_result lib_sum_ints(const int *x, size_t n, int warm, long long exact, const bench_plan *plan);
bench_result lib_sum_floats(const float *x, size_t n, int warm, double exact, double abs_sum, const bench_plan *plan);
bench_result lib_max_floats(const float *x, size_t n, int warm, float exact, const bench_plan *plan);
bench_result lib_dot(const float *x, const float *y, size_t n, int warm, double exact, double abs_sum,
                     const bench_plan *plan);

/* cuBLAS SGEMM in plain FP32 (CUBLAS_DEFAULT_MATH: no TF32), row-major as
 * lab8.h: C = A B with A m x k and B k x n.  lib_sgemm_once computes it once,
 * untimed (references and bounds); lib_sgemm times it, checking every run's
 * C against `expected` within `bound` element by element. */
void lib_sgemm_once(const float *a, const float *b, float *c, int m, int k, int n);
bench_result lib_sgemm(const float *a, const float *b, int m, int k, int n, const float *expected,
                       const float *bound, const bench_plan *plan);

#ifdef __cplusplus
}
#endif
#endif /* LIBRARIES_H */
