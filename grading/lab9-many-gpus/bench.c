/* lab9-many-gpus bench: one dot product over several GPUs (lab9.h).  GPU only, two GPUs or more.
 *
 * Two comparisons, each with its target (bench/table.awk's last table):
 *   the ring (ring_allreduce, TODO 5) against NCCL's own all-reduce at 256 MB per device, as bus
 *     bandwidth, NCCL's tests' measure: bytes per device / time x 2(D-1)/D (target: 0.8 x NCCL's);
 *   the split dot product (dot_partials, TODO 2) at 2^28 floats on all the GPUs against one GPU
 *     (target: 1.8 x faster).
 *
 * What is timed, and why.  These entry points take host arrays: ring_allreduce makes its streams,
 * buffers and NCCL communicators, copies 256 MB in and out per device, and destroys it all, in some
 * hundreds of milliseconds, around steps of about a millisecond.  Timing the whole call with
 * 2(D-1) steps minus the same call with none leaves the steps' millisecond as the difference of two
 * times whose jitter (ncclCommInitAll, pageable copies) is larger than it, so that difference is
 * not a fair measure.  Instead the lab's given code (the parts the student does not write) calls a
 * given timer (lab9.h: lab9_timer_begin/end, lab9_timed_ms): it waits until every device is idle,
 * reads the host's clock, and after the last step waits for every device again: the steps alone,
 * as NCCL's own tests time a collective (the host's clock around the calls and a wait).  NCCL's row
 * is nccl_allreduce (given, dot_kernel.cu): the same layout, setup, copies and timer around ONE
 * ncclAllReduce per device, on the device buffers, in one group, so both rows time the same span.
 * dot_partials calls the timer around start_partials (the split, each device's copies in and its
 * kernel), before any partial comes back: what "every device started before any is waited for"
 * buys.  Its host arrays are pinned (as the grader's runners pin theirs), so that the copies to
 * different devices can overlap.  The harness's LAUNCH timing is turned off here: it waits for
 * each launch, which would make the devices take turns.
 *
 * One GPU: CUDA_VISIBLE_DEVICES cannot change inside a process, so the program runs itself again
 * with only the first GPU visible (BENCH_LAB9_ONE_GPU=1), and that run writes the one-GPU row.
 * With one GPU in all, both comparisons are skipped with a line that says so. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "kit.h"
#include "lab9.h"

#define RING_COUNT (1L << 26) /* floats per device: 256 MB */
#define SPLIT_N (1L << 28)
#define ONE_GPU_VERSION "dot_partials on 1 GPU (timed from the split to the kernel done)"

typedef struct {
    void (*ring)(float *, int, int, int);
    void (*nccl)(float *, int, int);
    double (*timed_ms)(void);
    float *data, *original, *sums;
    int devices;
} allreduce_run;

/* One all-reduce from the original data: the timer's time, or -1 when a device's result is wrong. */
static double allreduce_once(allreduce_run *r, int nccl, char *note)
{
    size_t total = (size_t)r->devices * RING_COUNT;
    memcpy(r->data, r->original, total * sizeof(float));
    if (nccl)
        r->nccl(r->data, (int)RING_COUNT, r->devices);
    else
        r->ring(r->data, (int)RING_COUNT, r->devices, 2 * (r->devices - 1));
    for (int d = 0; d < r->devices; d++)
        for (size_t i = 0; i < (size_t)RING_COUNT; i++)
            if (r->data[(size_t)d * RING_COUNT + i] != r->sums[i]) {
                snprintf(note, 200, "wrong: device %d's element %zu is %g, the sum is %g", d, i,
                         r->data[(size_t)d * RING_COUNT + i], r->sums[i]);
                return -1;
            }
    return r->timed_ms();
}
static double ring_once(void *context, char *note) { return allreduce_once(context, 0, note); }
static double nccl_once(void *context, char *note) { return allreduce_once(context, 1, note); }

typedef struct {
    int (*partials)(const float *, const float *, int, double *);
    double (*timed_ms)(void);
    const float *x, *y;
    double exact; /* whole numbers: every order of the sum is exact */
} split_run;

static double split_once(void *context, char *note)
{
    split_run *r = context;
    double partials[LAB9_MAX_DEVICES], total = 0.0;
    int devices = r->partials(r->x, r->y, (int)SPLIT_N, partials);
    for (int d = 0; d < devices; d++)
        total += partials[d];
    if (total != r->exact) {
        snprintf(note, 200, "wrong: the partials add up to %.17g, the dot product is %.17g", total, r->exact);
        return -1;
    }
    return r->timed_ms();
}

/* The split's row on the GPUs this process sees (one in the child run). */
static void split_row(const bench_options *o, bench_lab *lab, int devices)
{
    split_run r = {BENCH_FN(lab, dot_partials), BENCH_FN(lab, lab9_timed_ms), NULL, NULL, 0.0};
    char version[160];
    if (devices == 1)
        snprintf(version, sizeof version, ONE_GPU_VERSION);
    else
        snprintf(version, sizeof version, "dot_partials on %d GPUs (timed from the split to the kernels done)",
                 devices);
    float *x = malloc(SPLIT_N * sizeof(float)), *y = malloc(SPLIT_N * sizeof(float));
    if (!x || !y) {
        bench_skip_row(o, o->who, version, SPLIT_N, "out of host memory for 2 x 1 GB");
        return;
    }
    kit_fill_small_floats(x, SPLIT_N, -8, 8, 9);
    kit_fill_small_floats(y, SPLIT_N, -8, 8, 10);
    r.x = x, r.y = y, r.exact = kit_dot(x, y, SPLIT_N);
    void (*pin)(void *, size_t) = (void (*)(void *, size_t))bench_symbol(lab, "kit_pin_host");
    void (*unpin)(void *) = (void (*)(void *))bench_symbol(lab, "kit_unpin_host");
    if (pin)
        pin(x, SPLIT_N * sizeof(float)), pin(y, SPLIT_N * sizeof(float));
    /* the target, on the reference side: 1.8 times the speed of the same on one GPU */
    char target[200];
    snprintf(target, sizeof target, "speed:%s>=1.8", ONE_GPU_VERSION);
    bench_timed_row(o, r.partials && r.timed_ms ? (void *)r.partials : NULL, version, SPLIT_N, 8.0 * SPLIT_N, "GB/s",
                    o->reference && devices > 1 ? target : NULL, split_once, &r);
    if (unpin)
        unpin(x), unpin(y);
    free(x);
    free(y);
}

/* Runs this program again with only the first GPU visible, to write the one-GPU row. */
static void one_gpu_child(const bench_options *o, char **argv)
{
    fflush(o->csv);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        char first[64] = "0";
        if (visible && *visible)
            snprintf(first, sizeof first, "%.*s", (int)strcspn(visible, ","), visible);
        setenv("CUDA_VISIBLE_DEVICES", first, 1);
        setenv("BENCH_LAB9_ONE_GPU", "1", 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "bench: lab9: the one-GPU run failed (status %d): its row is missing\n", status);
}

static void ring_rows(const bench_options *o, bench_lab *lab, int devices)
{
    allreduce_run r = {BENCH_FN(lab, ring_allreduce), BENCH_FN(lab, nccl_allreduce), BENCH_FN(lab, lab9_timed_ms),
                       NULL, NULL, NULL, devices};
    size_t total = (size_t)devices * RING_COUNT;
    r.data = malloc(total * sizeof(float));
    r.original = malloc(total * sizeof(float));
    r.sums = calloc(RING_COUNT, sizeof(float));
    char ring_version[160], nccl_version[160];
    snprintf(ring_version, sizeof ring_version, "ring_allreduce on %d GPUs (bus bandwidth; 256 MB per device)",
             devices);
    snprintf(nccl_version, sizeof nccl_version, "NCCL ncclAllReduce on %d GPUs (bus bandwidth; same setup)", devices);
    if (!r.data || !r.original || !r.sums || !r.timed_ms) {
        bench_skip_row(o, o->who, ring_version, RING_COUNT, "out of host memory, or no lab9_timed_ms");
        return;
    }
    /* whole numbers from -8 to 8: every order of the sums is exact */
    kit_fill_small_floats(r.original, total, -8, 8, 11);
    for (int d = 0; d < devices; d++)
        for (size_t i = 0; i < (size_t)RING_COUNT; i++)
            r.sums[i] += r.original[(size_t)d * RING_COUNT + i];
    double bus_bytes = (double)RING_COUNT * sizeof(float) * 2.0 * (devices - 1) / devices;
    if (o->reference && r.nccl) { /* the library's row, which the ring's target compares with */
        bench_result nccl = bench_repeat(&o->plan, nccl_once, &r);
        bench_row(o, "library", nccl_version, RING_COUNT, bus_bytes, "GB/s", NULL, &nccl);
    }
    bench_timed_row(o, (void *)r.ring, ring_version, RING_COUNT, bus_bytes, "GB/s",
                    o->reference ? "library>=0.8" : NULL, ring_once, &r);
    free(r.data);
    free(r.original);
    free(r.sums);
}

int main(int argc, char **argv)
{
    bench_options o = bench_parse(argc, argv);
    bench_lab *lab = bench_open(&o);
    /* the harness's LAUNCH timing waits for each launch: off, so that the devices work side by side */
    void (*set_timing)(int) = (void (*)(int))bench_symbol(lab, "kit_set_timing");
    if (set_timing)
        set_timing(0);
    int (*partials)(const float *, const float *, int, double *) = BENCH_FN(lab, dot_partials);
    if (!partials)
        return 0;
    double none[LAB9_MAX_DEVICES];
    float zero = 0.0f;
    int devices = partials(&zero, &zero, 0, none);
    if (getenv("BENCH_LAB9_ONE_GPU")) {
        split_row(&o, lab, devices);
        return 0;
    }
    if (devices < 2) {
        const char *why = "needs two GPUs or more; this machine has one (lab 9's speed is measured across GPUs)";
        printf("bench: lab9-many-gpus: %s\n", why);
        bench_skip_row(&o, o.who, "ring_allreduce (bus bandwidth; 256 MB per device)", RING_COUNT, why);
        bench_skip_row(&o, o.who, "dot_partials on all the GPUs against one", SPLIT_N, why);
        return 0;
    }
    ring_rows(&o, lab, devices);
    one_gpu_child(&o, argv);
    split_row(&o, lab, devices);
    return 0;
}
