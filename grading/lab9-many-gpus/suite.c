/* grading/lab9-many-gpus/suite.c: the grading suite of lab 9 (one dot product over several GPUs).
 *
 * What it checks, item by item:
 *   split_balanced          TODO 1: every n from 0 to 200 on 1 to 8 devices, and large n, exactly
 *   partials_per_device     TODOs 1, 2: each device's partial exact; each device launched the dot kernel,
 *                           every device started before the host waited for any
 *   peer_total              TODO 3: the total exact, finished on device 0 and copied back from there
 *   nccl_totals             TODO 4: every device's total exact, bit for bit the same, each read back
 *   ring_steps              TODO 5, going further: the ring's state after every step, as lab9.h defines it
 *   ring_predicate_accepts  TODO 6: your predicate accepts every correct state
 *   ring_predicate_rejects  TODO 6: ... and rejects near misses
 *   split_speed             (two GPUs or more) dot_partials on all the GPUs against the reference's, at 2^28
 *                           floats (make bench times the ring against NCCL's all-reduce)
 *   sanitizer               (GPU) compute-sanitizer on a small run
 *
 * The data are whole numbers from -8 to 8, so every partial, total and
 * chunk sum is exact in any order: a difference is an element dropped or
 * counted twice, never rounding.  The device count is the one the runners
 * see: min(cudaGetDeviceCount, LAB9_MAX_DEVICES), which the reference's
 * dot_partials reports (the cpu backend emulates CUDAEMU_DEVICES of them).
 *
 * The header's rules and the items that check them:
 *   the split: balanced, larger slices first, empty slices for n < devices -> split_balanced
 *   each partial computed on its own device by the given kernel -> partials_per_device (one dot_kernel launch
 *       on each device, by the launch record's device; the partial is what a copy brought back, with a kernel run on that memory since)
 *   every device started before the host waits for any -> partials_per_device (every launch recorded before
 *       the first copy back)
 *   dot_peer: the partials combined on device 0 by the given kernel, one value back -> peer_total
 *   dot_nccl: every device holds the same total, read back from each -> nccl_totals (a copy back from each
 *       device, by the copy record's device, bringing the total)
 *   the ring's steps, chunks and sums -> ring_steps
 *   ring_state_holds decides exactly the ring's state, as plain host code -> ring_predicate_accepts,
 *       ring_predicate_rejects
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "lab9.h"
#include "lab9-many-gpus/model.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab9-many-gpus/lab-calls.h"

/* ---- inputs -------------------------------------------------------------------------- */

typedef struct {
    float *x, *y;
    int n;
    uint64_t seed;
} vectors;

/* Whole numbers from -8 to 8 (x from the seed, y from seed + 1). */
static vectors exact_vectors(int n, uint64_t seed)
{
    vectors v = {malloc(((size_t)n + 1) * sizeof(float)), malloc(((size_t)n + 1) * sizeof(float)), n, seed};
    if (!v.x || !v.y)
        grade_fail("the grader ran out of memory for n = %d", n);
    kit_fill_small_floats(v.x, (size_t)n, -8, 8, seed);
    kit_fill_small_floats(v.y, (size_t)n, -8, 8, seed + 1);
    return v;
}

static void free_vectors(vectors *v)
{
    free(v->x);
    free(v->y);
}

/* The sizes the combining items try: 0, 1, fewer than the devices, primes,
 * one more than the devices, and above 2^24 on a GPU. */
static int sizes_for(int devices, int *sizes)
{
    int count = 0;
    int fixed[] = {0, 1, devices - 1, devices + 1, 7, 13, 101, 1009, 65537};
    for (int i = 0; i < (int)(sizeof fixed / sizeof fixed[0]); i++)
        if (fixed[i] >= 0 && (i < 3 || fixed[i] != fixed[i - 1]))
            sizes[count++] = fixed[i];
    if (grade_on_gpu())
        sizes[count++] = (1 << 24) + 3;
    return count;
}

/* The device counts an item grades with: 1 to 4 emulated devices on the cpu
 * backend (grade_use_devices), the machine's own on a GPU (0: as it is). */
static int device_count(void);

static int device_counts(int *counts)
{
    if (grade_on_gpu()) {
        counts[0] = 0;
        return 1;
    }
    for (int k = 0; k < 4; k++)
        counts[k] = k + 1;
    return 4;
}

/* Sets the runners' device count (0: as it is) and returns the devices
 * they see. */
static int use_devices(int count)
{
    if (count > 0)
        grade_use_devices(count);
    return device_count();
}

/* The devices the runners see: what the reference's dot_partials reports. */
static int device_count(void)
{
    double partials[LAB9_MAX_DEVICES];
    float none = 0.0f;
    return GRADE_FN(grade_reference(), dot_partials)(&none, &none, 0, partials);
}

static double dot_range(const vectors *v, int from, int to)
{
    double sum = 0.0;
    for (int i = from; i < to; i++)
        sum += (double)v->x[i] * v->y[i];
    return sum;
}

static const char *first_text(const int *first, int devices)
{
    static char text[16 * (LAB9_MAX_DEVICES + 1)];
    char *at = text;
    for (int d = 0; d <= devices; d++)
        at += sprintf(at, "%s%d", d ? " " : "", first[d]);
    return text;
}

/* ---- split_balanced ------------------------------------------------------------------------ */

static void check_split(int n, int devices)
{
    int got[LAB9_MAX_DEVICES + 2], want[LAB9_MAX_DEVICES + 1];
    for (int d = 0; d <= devices; d++)
        got[d] = -1;
    GRADE_FN(grade_student(), split_slices)(n, devices, got);
    lab9_split(n, devices, want);
    if (memcmp(got, want, (size_t)(devices + 1) * sizeof(int)) == 0)
        return;
    char gave[16 * (LAB9_MAX_DEVICES + 1)];
    snprintf(gave, sizeof gave, "%s", first_text(got, devices));
    grade_fail("split_slices(n = %d, devices = %d) wrote first = %s, but lab9.h asks for %s: first[0] = 0, "
               "first[devices] = n, slices that differ in size by at most one, the larger ones first%s", n, devices,
               gave, first_text(want, devices),
               n < devices ? " (n < devices: the last slices are empty)" : "");
}

/* On a GPU, NCCL starts through network sockets even between the devices
 * of one process (its bootstrap and its proxy listen and connect on an
 * interface: the loopback, where there is no other).  The runners' walls
 * refuse sockets, except inside a network namespace of their own whose one
 * interface is its loopback (grade_use_loopback): there NCCL's items are
 * graded on the GPUs.  The cpu backend's NCCL needs no sockets, but its
 * runners get the same walls, so that the walls a GPU grades in are the
 * ones the kit's tests try.  A host whose runners get no namespaces (some
 * containers) grades these items on the cpu backend only. */
#define NCCL_ON_GPU "on this host the grader's runners get no network of their own, which NCCL needs to start " \
                    "on a GPU: graded on the cpu backend, ./grader lab9 --backend=cpu"

static void nccl_may_start(void)
{
    if (!grade_use_loopback() && grade_on_gpu())
        grade_skip_elsewhere(NCCL_ON_GPU);
}

GRADE_ITEM(split_balanced, 10, GRADE_CORRECTNESS, 60, "1", "the split: every n from 0 to 200 on 1 to 8 devices, and large n",
           "`split_slices` writes exactly the slices lab9.h defines (balanced, the larger first, empty ones when "
           "n < devices) for every n from 0 to 200 on 1 to 8 devices and for n near 2^31, as plain host code")
{
    grade_side *you = grade_student();
    for (int devices = 1; devices <= LAB9_MAX_DEVICES; devices++) {
        for (int n = 0; n <= 200; n++)
            check_split(n, devices);
        check_split((1 << 30) + 7, devices);
        check_split(2147483647, devices);
    }
    grade_reset_records(you);
    check_split(1000, 3);
    grade_require_host_only(you, "split_slices");
}

/* ---- partials_per_device ------------------------------------------------------------------- */

#define DOT_KERNEL "dot_kernel"

/* The records of one call: the dot kernel launched once per device, every
 * launch made before the first copy back (no device waited for before
 * every device has started). */
static void require_every_device_started(const char *fn, int devices, int n)
{
    grade_side *you = grade_student();
    int dots[LAB9_MAX_DEVICES] = {0}, elsewhere = -1;
    for (int i = 0; i < grade_launch_count(you); i++) {
        const kit_launch *l = grade_launch_at(you, i);
        if (strcmp(l->kernel, DOT_KERNEL) != 0)
            continue;
        if (l->device >= 0 && l->device < devices)
            dots[l->device]++;
        else
            elsewhere = l->device;
    }
    grade_check(elsewhere < 0, "%s (n = %d) launched the dot kernel on device %d, which is not one of the %d devices "
                "the lab uses", fn, n, elsewhere, devices);
    for (int d = 0; d < devices; d++)
        grade_check(dots[d] == 1,
                    "%s (n = %d on %d device%s) launched the given dot kernel %d time%s on device %d (the launch "
                    "record names the device current at each launch): each device computes its own slice's partial "
                    "with ONE launch_dot, made after cudaSetDevice(d)", fn, n, devices, devices == 1 ? "" : "s",
                    dots[d], dots[d] == 1 ? "" : "s", d);
    for (int i = 0; i < grade_copy_count(you); i++) {
        const kit_copy *c = grade_copy_at(you, i);
        if (c->direction != KIT_TO_HOST && c->direction != KIT_EITHER_WAY)
            continue;
        grade_check(c->launches_before >= devices,
                    "%s (n = %d): the copy back from device %d at %s:%d came after only %d of the %d devices' "
                    "launches: the host waited for a device before every device had started, so the devices did "
                    "not work at the same time (start them all first, then collect the partials)", fn, n, c->device,
                    c->file, c->line, c->launches_before, devices);
        break;
    }
}

/* Runs check(you, devices, v) for every device count the grader tries
 * (device_counts) and every size for it (sizes_for), on fresh exact vectors
 * seeded from seed_base, with the records reset before each. */
static void for_each_case(int seed_base, void (*check)(grade_side *you, int devices, const vectors *v))
{
    int counts[4], runs = device_counts(counts);
    for (int run = 0; run < runs; run++) {
        int devices = use_devices(counts[run]), sizes[16];
        grade_side *you = grade_student();
        int count = sizes_for(devices, sizes);
        for (int k = 0; k < count; k++) {
            vectors v = exact_vectors(sizes[k], grade_seed_for(seed_base + k));
            grade_reset_records(you);
            check(you, devices, &v);
            free_vectors(&v);
        }
    }
}

/* One case of partials_per_device. */
static void check_partials(grade_side *you, int devices, const vectors *v)
{
    double partials[LAB9_MAX_DEVICES];
    for (int d = 0; d < LAB9_MAX_DEVICES; d++)
        partials[d] = -1.0;
    int got = GRADE_FN(you, dot_partials)(v->x, v->y, v->n, partials);
    grade_check(got == devices, "dot_partials (n = %d) returned %d, but the runner sees %d device%s: use "
                "min(cudaGetDeviceCount, LAB9_MAX_DEVICES) of them", v->n, got, devices,
                devices == 1 ? "" : "s");
    int first[LAB9_MAX_DEVICES + 1];
    lab9_split(v->n, devices, first);
    for (int d = 0; d < devices; d++) {
        double exact = dot_range(v, first[d], first[d + 1]);
        grade_check(partials[d] == exact,
                    "dot_partials (n = %d, whole numbers from -8 to 8, seed %llu): partials[%d] = %.17g, but "
                    "device %d's slice x[%d..%d) has the dot product %.17g", v->n, (unsigned long long)v->seed, d,
                    partials[d], d, first[d], first[d + 1], exact);
    }
    require_every_device_started("dot_partials", devices, v->n);
    for (int d = 0; d < devices; d++)
        if (partials[d] != 0.0) {
            char what[64];
            snprintf(what, sizeof what, "partials[%d]", d);
            grade_require_from_device(you, "dot_partials", what, &partials[d], sizeof(double), 1);
        }
}

GRADE_ITEM(partials_per_device, 15, GRADE_CORRECTNESS, 120, "1,2", "one partial per device, every device started before any is waited for",
           "`dot_partials`: each device's partial exact for n = 0, 1, fewer than the devices, primes (above 2^24 "
           "on a GPU), the device count returned; each device launched the given kernel once, every launch before "
           "the first copy back, and each partial is what a copy brought back from a device")
{
    for_each_case(0, check_partials);
}

/* ---- peer_total ---------------------------------------------------------------------------- */

/* One case of peer_total. */
static void check_peer_total(grade_side *you, int devices, const vectors *v)
{
    double got = GRADE_FN(you, dot_peer)(v->x, v->y, v->n);
    double exact = dot_range(v, 0, v->n);
    grade_check(got == exact, "dot_peer (n = %d on %d device%s, whole numbers from -8 to 8, seed %llu) returned "
                "%.17g, but the dot product is %.17g", v->n, devices, devices == 1 ? "" : "s",
                (unsigned long long)v->seed, got, exact);
    require_every_device_started("dot_peer", devices, v->n);
    int last = grade_launch_count(you) - 1;
    grade_check(last >= 0 && strcmp(grade_launch_at(you, last)->kernel, "add_doubles_kernel") == 0 &&
                    grade_launch_at(you, last)->device == 0,
                "dot_peer (n = %d): the last launch was %s on device %d, not the given adding kernel "
                "(launch_add_doubles) on device 0: device 0 adds up the partials it gathered", v->n,
                last >= 0 ? grade_launch_at(you, last)->kernel : "none",
                last >= 0 ? grade_launch_at(you, last)->device : -1);
    if (got != 0.0)
        grade_require_from_device(you, "dot_peer", "the total", &got, sizeof got, 1);
}

GRADE_ITEM(peer_total, 15, GRADE_CORRECTNESS, 120, "3", "the total, combined on device 0 with peer copies",
           "`dot_peer`: the total exact for the same sizes; the given adding kernel launched after the devices' "
           "dot kernels, and the total is what one copy brought back from the device")
{
    for_each_case(100, check_peer_total);
}

/* ---- nccl_totals ---------------------------------------------------------------------------- */

/* One case of nccl_totals. */
static void check_nccl_totals(grade_side *you, int devices, const vectors *v)
{
    double totals[LAB9_MAX_DEVICES];
    for (int d = 0; d < LAB9_MAX_DEVICES; d++)
        totals[d] = -1.0;
    int got = GRADE_FN(you, dot_nccl)(v->x, v->y, v->n, totals);
    grade_check(got == devices, "dot_nccl (n = %d) returned %d, but the runner sees %d device%s", v->n, got,
                devices, devices == 1 ? "" : "s");
    double exact = dot_range(v, 0, v->n);
    for (int d = 0; d < devices; d++) {
        grade_check(totals[d] == exact, "dot_nccl (n = %d on %d devices, whole numbers from -8 to 8, seed %llu): "
                    "totals[%d] = %.17g, but the dot product is %.17g", v->n, devices,
                    (unsigned long long)v->seed, d, totals[d], exact);
        grade_check(memcmp(&totals[d], &totals[0], sizeof(double)) == 0,
                    "dot_nccl (n = %d): totals[%d] and totals[0] differ in their bits: every device holds the "
                    "same all-reduced total", v->n, d);
    }
    require_every_device_started("dot_nccl", devices, v->n);
    int back[LAB9_MAX_DEVICES] = {0};
    for (int i = 0; i < grade_copy_count(you); i++) {
        const kit_copy *c = grade_copy_at(you, i);
        if ((c->direction == KIT_TO_HOST || c->direction == KIT_EITHER_WAY) && c->bytes == sizeof(double) &&
            c->checksum == kit_checksum(&exact, sizeof exact) && c->device >= 0 && c->device < devices)
            back[c->device]++;
    }
    for (int d = 0; d < devices; d++)
        grade_check(back[d] >= 1,
                    "dot_nccl (n = %d on %d devices): no copy back from device %d brought the total, but every "
                    "device holds it after the all-reduce and totals[%d] is read back from device %d (the copy "
                    "record names the device current at each copy)", v->n, devices, d, d, d);
}

GRADE_ITEM(nccl_totals, 15, GRADE_CORRECTNESS, 120, "4", "the total on every device with NCCL's all-reduce, read back from each",
           "`dot_nccl`: every device's total exact and bit for bit the same for the same sizes, the device count "
           "returned, one copy back per device bringing its total")
{
    nccl_may_start();
    for_each_case(200, check_nccl_totals);
}

/* ---- the ring ---------------------------------------------------------------------------------- */

static const char *step_words(int devices, int step)
{
    static char text[96];
    if (step == 0)
        snprintf(text, sizeof text, "before any step");
    else if (step <= devices - 1)
        snprintf(text, sizeof text, "after step %d of the reduce-scatter", step);
    else
        snprintf(text, sizeof text, "after step %d of the all-gather (step %d of the ring)", step - (devices - 1),
                 step);
    return text;
}

/* "devices 0, 1 and 3's" */
static const char *devices_words(unsigned mask, int devices)
{
    static char text[8][128];
    static int turn;
    char *out = text[turn++ % 8], *at = out;
    int total = __builtin_popcount(mask), seen = 0;
    at += sprintf(at, total == 1 ? "device " : "devices ");
    for (int d = 0; d < devices; d++)
        if (mask >> d & 1) {
            seen++;
            at += sprintf(at, "%s%d", seen == 1 ? "" : seen == total ? " and " : ", ", d);
        }
    sprintf(at, "'s");
    return out;
}

/* The share-coded data: device k's element i is 2^k (1 + i % 3), so a sum
 * over a set of devices says which devices it holds. */
static void share_coded(float *data, int count, int devices)
{
    for (int k = 0; k < devices; k++)
        for (int i = 0; i < count; i++)
            data[(size_t)k * count + i] = (float)((1 << k) * (1 + i % 3));
}

/* The report's figure: each device's floats before the ring and after
 * `step`, chunk [from, to) (the one wrong) in play, device r's element i
 * marked, and the devices' element i it should add up (`should`) coloured. */
static void attach_ring_figure(const float *original, const float *got, int count, int devices, int step, int r,
                               int i, int from, int to, unsigned should, float want)
{
    double values[64];
    unsigned char flags[64];
    int shown = count < 64 ? count : 64;
    if (i >= shown)
        return; /* (counts here are at most 64) */
    char caption[240];
    snprintf(caption, sizeof caption, "ring_allreduce on %d devices, %d floats each: %s", devices, count,
             step_words(devices, step));
    grade_figure_rounds(caption);
    for (int d = 0; d < devices; d++)
        for (int after = 0; after < 2; after++) {
            const float *data = (after ? got : original) + (size_t)d * count;
            for (int e = 0; e < shown; e++) {
                values[e] = data[e];
                flags[e] = e >= from && e < to ? GRADE_CELL_LIVE : 0;
                if (!after && e == i && (should >> d & 1))
                    flags[e] |= GRADE_CELL_PARTNER;
                if (after && data[e] != original[(size_t)d * count + e])
                    flags[e] |= GRADE_CELL_WORKED;
            }
            char label[40];
            snprintf(label, sizeof label, after ? "device %d after" : "device %d before", d);
            grade_figure_round(label, values, flags, shown, -1);
        }
    grade_figure_mark(2 * r + 1, i, got[(size_t)r * count + i], want);
}

/* Fails with the first element of `got` that differs from the ring's state. */
static void compare_ring_state(const float *original, const float *got, int count, int devices, int step,
                               int coded, const char *data_words)
{
    float *want = malloc(((size_t)devices * count + 1) * sizeof(float));
    lab9_ring_state(original, count, devices, step, want);
    unsigned masks[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES];
    lab9_ring_masks(devices, step, masks);
    int first[LAB9_MAX_DEVICES + 1];
    lab9_split(count, devices, first);
    for (int r = 0; r < devices; r++)
        for (int c = 0; c < devices; c++)
            for (int i = first[c]; i < first[c + 1]; i++) {
                size_t at = (size_t)r * count + i;
                if (got[at] == want[at])
                    continue;
                float g = got[at], w = want[at];
                free(want);
                unsigned should = masks[r][c];
                attach_ring_figure(original, got, count, devices, step, r, i, first[c], first[c + 1], should, w);
                int unit = 1 + i % 3;
                if (coded && g == (float)(int)g && (int)g % unit == 0 && (int)g / unit > 0 &&
                    (int)g / unit < (1 << devices)) {
                    unsigned has = (unsigned)((int)g / unit);
                    char lacks[200] = "", extra[200] = "";
                    if (should & ~has)
                        snprintf(lacks, sizeof lacks, ", but it lacks %s", devices_words(should & ~has, devices));
                    if (has & ~should)
                        snprintf(extra, sizeof extra, "%s it holds %s too", should & ~has ? " and" : ", but",
                                 devices_words(has & ~should, devices));
                    grade_fail("ring_allreduce (%d devices, %d float%s each, %s): %s, chunk %d on device %d should "
                               "hold %s chunk %d%s%s (element %d is %g, should be %g)", devices, count,
                               count == 1 ? "" : "s", data_words,
                               step_words(devices, step), c, r, devices_words(should, devices), c, lacks, extra, i, g,
                               (double)(int)(should * unit));
                }
                grade_fail("ring_allreduce (%d devices, %d float%s each, %s): %s, device %d's element %d (chunk %d) "
                           "is %g, but it should be %g, the sum of chunk %d over %s", devices, count,
                           count == 1 ? "" : "s", data_words,
                           step_words(devices, step), r, i, c, g, (double)w, c,
                           devices_words(should, devices));
            }
    free(want);
}

static void check_ring(int count, int devices, int coded, uint64_t seed)
{
    size_t total = (size_t)devices * count;
    float *original = malloc((total + 1) * sizeof(float)), *state = malloc((total + 1) * sizeof(float));
    char words[96];
    if (coded) {
        share_coded(original, count, devices);
        snprintf(words, sizeof words, "device k's floats 2^k times 1, 2 or 3");
    } else {
        kit_fill_small_floats(original, total, -8, 8, seed);
        snprintf(words, sizeof words, "whole numbers from -8 to 8, seed %llu", (unsigned long long)seed);
    }
    for (int step = 0; step <= 2 * (devices - 1); step++) {
        memcpy(state, original, total * sizeof(float));
        GRADE_FN(grade_student(), ring_allreduce)(state, count, devices, step);
        compare_ring_state(original, state, count, devices, step, coded, words);
    }
    free(original);
    free(state);
}

GRADE_ITEM(ring_steps, 5, GRADE_CORRECTNESS, 180, "1,5", "TODO 5 (going further): the ring's state after every step",
           "going further, TODO 5: `ring_allreduce` leaves exactly the state lab9.h defines after every step of "
           "the reduce-scatter and the all-gather, for chunks of equal and unequal sizes and fewer floats than "
           "devices. Needs two devices or more; skipped (no points either way) while TODO 5 still says \"not "
           "implemented\"")
{
    nccl_may_start();
    int devices = use_devices(grade_on_gpu() ? 0 : 2);
    if (devices < 2)
        grade_skip("the ring needs two devices or more (the cpu backend emulates CUDAEMU_DEVICES of them)");
    /* attempted? the whole ring on share-coded data must change something */
    int count = 2 * devices;
    float *probe = malloc((size_t)devices * count * sizeof(float)), *before = malloc((size_t)devices * count * sizeof(float));
    share_coded(probe, count, devices);
    memcpy(before, probe, (size_t)devices * count * sizeof(float));
    grade_reset_records(grade_student());
    GRADE_FN(grade_student(), ring_allreduce)(probe, count, devices, 2 * (devices - 1));
    int untouched = memcmp(probe, before, (size_t)devices * count * sizeof(float)) == 0;
    free(probe);
    free(before);
    if (untouched && grade_todo_pending(grade_student()))
        grade_skip("going further (TODO 5) not attempted: it neither adds nor costs points");
    int runs[4], run_count = device_counts(runs);
    for (int run = 0; run < run_count; run++) {
        if (runs[run] > 0)
            devices = use_devices(runs[run]);
        if (devices < 2)
            continue;
        int counts[] = {1, devices - 1, devices, devices + 1, 7, 13, 64};
        for (int k = 0; k < (int)(sizeof counts / sizeof counts[0]); k++) {
            check_ring(counts[k], devices, 1, 0);
            check_ring(counts[k], devices, 0, grade_seed_for(300 + 10 * devices + k));
        }
    }
}

/* ---- the predicate ------------------------------------------------------------------------------- */

static const int predicate_counts[] = {1, 2, 3, 5, 7, 12};
#define PREDICATE_COUNTS ((int)(sizeof predicate_counts / sizeof predicate_counts[0]))

static int student_holds(const float *original, const float *state, int count, int devices, int step)
{
    return GRADE_FN(grade_student(), ring_state_holds)(original, state, count, devices, step);
}

GRADE_ITEM(ring_predicate_accepts, 10, GRADE_CORRECTNESS, 60, "6", "your predicate accepts every correct state of the ring",
           "your `ring_state_holds` accepts the ring's state after every step on 1 to 4 and 8 devices, chunks of "
           "equal and unequal sizes, as plain host code (no launch, no copy)")
{
    static const int predicate_devices[] = {1, 2, 3, 4, 8};
    int calls = 0;
    for (int di = 0; di < 5; di++)
        for (int k = 0; k < PREDICATE_COUNTS; k++) {
            int devices = predicate_devices[di], count = predicate_counts[k];
            size_t total = (size_t)devices * count;
            uint64_t seed = grade_seed_for(400 + 10 * di + k);
            float *original = malloc(total * sizeof(float)), *state = malloc(total * sizeof(float));
            kit_fill_small_floats(original, total, -8, 8, seed);
            for (int step = 0; step <= 2 * (devices - 1); step++) {
                lab9_ring_state(original, count, devices, step, state);
                if (calls++ == 0)
                    grade_reset_records(grade_student());
                int holds = student_holds(original, state, count, devices, step);
                if (calls == 1) {
                    grade_require_written(grade_student(), "ring_state_holds", "it accepts every state, right or wrong");
                    grade_require_host_only(grade_student(), "ring_state_holds");
                }
                grade_check(holds, "ring_state_holds rejects the correct state %s (%d devices, %d floats each, "
                            "whole numbers from -8 to 8, seed %llu)", step_words(devices, step), devices, count,
                            (unsigned long long)seed);
            }
            free(original);
            free(state);
        }
}

/* One wrong state offered: the predicate must say 0. */
static void offer_wrong(const float *original, const float *state, int count, int devices, int step, uint64_t seed,
                        const char *what)
{
    if (student_holds(original, state, count, devices, step))
        grade_fail("ring_state_holds accepts a wrong state %s (%d devices, %d floats each, whole numbers from -8 to "
                   "8, seed %llu): %s", step_words(devices, step), devices, count, (unsigned long long)seed, what);
}

/* The near misses of the state after `step`. */
static void offer_near_misses(const float *original, const float *right, float *wrong, int count, int devices,
                              int step, uint64_t seed)
{
    size_t total = (size_t)devices * count;
    unsigned masks[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES];
    lab9_ring_masks(devices, step, masks);
    int first[LAB9_MAX_DEVICES + 1];
    lab9_split(count, devices, first);
    char what[200];
    /* the chunk device 1 received at this step, or device 1's first non-empty chunk */
    int r = 1 % devices, c = step > 0 ? lab9_chunk_sent(devices, r - 1 < 0 ? devices - 1 : r - 1, step) : 0;
    while (first[c + 1] == first[c])
        c = (c + 1) % devices;
    /* an element off by one, in a chunk that holds sums and in one that should be as it started */
    for (int kind = 0; kind < 2; kind++) {
        int cc = c, rr = r;
        if (kind == 1) {
            cc = -1;
            for (int q = 0; q < devices * devices && cc < 0; q++)
                if (__builtin_popcount(masks[q / devices][q % devices]) == 1 && first[q % devices + 1] > first[q % devices]) {
                    rr = q / devices;
                    cc = q % devices;
                }
            if (cc < 0)
                continue;
        }
        memcpy(wrong, right, total * sizeof(float));
        wrong[(size_t)rr * count + first[cc]] += 1.0f;
        snprintf(what, sizeof what, "device %d's element %d (chunk %d, which holds %s share) is one more than it "
                 "should be", rr, first[cc], cc, devices_words(masks[rr][cc], devices));
        offer_wrong(original, wrong, count, devices, step, seed, what);
    }
    /* a chunk that lacks one device's share */
    for (int q = 0; q < devices * devices; q++) {
        int rr = q / devices, cc = q % devices;
        unsigned m = masks[rr][cc];
        if (__builtin_popcount(m) < 2 || first[cc + 1] == first[cc])
            continue;
        int lost = (rr + 1) % devices; /* not rr itself: a device always holds its own share */
        while (!(m >> lost & 1) || lost == rr)
            lost = (lost + 1) % devices;
        memcpy(wrong, right, total * sizeof(float));
        int differs = 0;
        for (int i = first[cc]; i < first[cc + 1]; i++) {
            wrong[(size_t)rr * count + i] -= original[(size_t)lost * count + i];
            differs |= original[(size_t)lost * count + i] != 0.0f;
        }
        if (!differs)
            continue;
        snprintf(what, sizeof what, "chunk %d on device %d lacks device %d's share: it should hold %s", cc, rr, lost,
                 devices_words(m, devices));
        offer_wrong(original, wrong, count, devices, step, seed, what);
        break;
    }
    /* two chunks of equal size swapped on one device */
    for (int q = 0; q < devices * devices * devices; q++) {
        int rr = q / (devices * devices), c1 = q / devices % devices, c2 = q % devices;
        int size = first[c1 + 1] - first[c1];
        if (c1 >= c2 || size == 0 || size != first[c2 + 1] - first[c2])
            continue;
        const float *a = right + (size_t)rr * count + first[c1], *b = right + (size_t)rr * count + first[c2];
        if (memcmp(a, b, (size_t)size * sizeof(float)) == 0)
            continue;
        memcpy(wrong, right, total * sizeof(float));
        memcpy(wrong + (size_t)rr * count + first[c1], b, (size_t)size * sizeof(float));
        memcpy(wrong + (size_t)rr * count + first[c2], a, (size_t)size * sizeof(float));
        snprintf(what, sizeof what, "device %d's chunks %d and %d are swapped", rr, c1, c2);
        offer_wrong(original, wrong, count, devices, step, seed, what);
        break;
    }
    /* the state of the step before, and of the step after */
    for (int other = step - 1; other <= step + 1; other += 2) {
        if (other < 0 || other > 2 * (devices - 1))
            continue;
        lab9_ring_state(original, count, devices, other, wrong);
        if (memcmp(wrong, right, total * sizeof(float)) == 0)
            continue;
        snprintf(what, sizeof what, "it is the state %s", step_words(devices, other));
        offer_wrong(original, wrong, count, devices, step, seed, what);
    }
}

GRADE_ITEM(ring_predicate_rejects, 10, GRADE_CORRECTNESS, 60, "6", "your predicate rejects wrong states of the ring",
           "... and rejects, after every step on 2 to 4 devices: an element off by one (in a chunk that holds sums, "
           "and in one that should be as it started), a chunk that lacks one device's share, two chunks swapped, "
           "and the state of the step before or after")
{
    grade_side *you = grade_student();
    grade_reset_records(you);
    float probe = 0.0f;
    student_holds(&probe, &probe, 1, 1, 0);
    grade_require_written(you, "ring_state_holds", "it accepts every state, right or wrong");
    for (int devices = 2; devices <= 4; devices++)
        for (int k = 2; k < PREDICATE_COUNTS; k++) {
            int count = predicate_counts[k];
            size_t total = (size_t)devices * count;
            uint64_t seed = grade_seed_for(500 + 10 * devices + k);
            float *original = malloc(total * sizeof(float)), *right = malloc(total * sizeof(float)),
                  *wrong = malloc(total * sizeof(float));
            kit_fill_small_floats(original, total, -8, 8, seed);
            for (int step = 0; step <= 2 * (devices - 1); step++) {
                lab9_ring_state(original, count, devices, step, right);
                offer_near_misses(original, right, wrong, count, devices, step, seed);
            }
            free(original);
            free(right);
            free(wrong);
        }
}

/* ---- speed, on two GPUs or more ------------------------------------------------------------------ */

#define SPEED_RUNS 5

/* Skips a speed item on fewer than two GPUs (the cpu backend skips it before). */
static int require_two_gpus(void)
{
    int devices = device_count();
    if (devices < 2)
        grade_skip_elsewhere("needs two GPUs or more, and this machine has one: graded on a machine with two");
    return devices;
}

/* The median of SPEED_RUNS of lab9_timed_ms() after `call(arg)` on `side`,
 * each checked against the grader's clock around the whole call: the timer
 * runs inside the call, so its time cannot be longer. */
static double timed_median(grade_side *side, const char *fn, void (*call)(void *), void *arg)
{
    double ms[SPEED_RUNS];
    call(arg); /* warm-up: module loading, NCCL's first communicator */
    for (int i = 0; i < SPEED_RUNS; i++) {
        double started = kit_wall_ms();
        call(arg);
        double outside = kit_wall_ms() - started;
        ms[i] = GRADE_FN(side, lab9_timed_ms)();
        grade_check(ms[i] > 0 && ms[i] <= outside + 0.05,
                    "%s: the lab's timer (lab9_timed_ms, given) says %.3f ms, but the whole call took %.3f ms by the "
                    "grader's clock: the given code that calls lab9_timer_begin and lab9_timer_end was changed",
                    fn, ms[i], outside);
    }
    return kit_median(ms, SPEED_RUNS);
}

typedef struct {
    grade_side *side;
    vectors *v;
    double partials[LAB9_MAX_DEVICES];
    int devices;
} split_call;

static void call_split(void *arg)
{
    split_call *c = arg;
    c->devices = GRADE_FN(c->side, dot_partials)(c->v->x, c->v->y, c->v->n, c->partials);
}

/* dot_partials' partials, exact (only a right result is timed). */
static void require_split_right(const split_call *c, const char *where)
{
    int first[LAB9_MAX_DEVICES + 1];
    lab9_split(c->v->n, c->devices, first);
    for (int d = 0; d < c->devices; d++)
        grade_check(c->partials[d] == dot_range(c->v, first[d], first[d + 1]),
                    "dot_partials (n = 2^28 %s): partials[%d] is wrong; only a right result is timed", where, d);
}

GRADE_ITEM(split_speed, 10, GRADE_PERFORMANCE, 300, "2", "the split dot product on all the GPUs, against the reference's (two GPUs or more)",
           "GPU only, two GPUs or more: your `dot_partials` at n = 2^28 on all the GPUs against the reference's in "
           "the same run, both timed by the lab's given timer from the split to every device's kernel done "
           "(lab9.h), medians of 5: the kit's speed rule (full points up to 1.2 times the reference's time). The "
           "note also gives both on one GPU")
{
    int devices = require_two_gpus();
    vectors v = exact_vectors(1 << 28, grade_seed_for(700));
    split_call you = {.side = grade_student(), .v = &v}, reference = {.side = grade_reference(), .v = &v};
    call_split(&you);
    require_split_right(&you, "on all the GPUs");
    double your_ms = timed_median(you.side, "dot_partials", call_split, &you);
    call_split(&reference);
    double reference_ms = timed_median(reference.side, "dot_partials", call_split, &reference);
    grade_use_devices(1); /* from here, the first GPU alone: what the split gains */
    split_call one = {.side = grade_student(), .v = &v};
    call_split(&one);
    require_split_right(&one, "on one GPU");
    double one_ms = timed_median(one.side, "dot_partials", call_split, &one);
    grade_note("%s: dot_partials at n = 2^28 took %.3f ms on %d GPUs (the reference %.3f ms) and %.3f ms on one "
               "GPU: %.2f times faster on %d; the given timer's median of %d", grade_device_name(), your_ms, devices,
               reference_ms, one_ms, one_ms / your_ms, devices, SPEED_RUNS);
    grade_score(grade_perf_fraction(your_ms, reference_ms));
    free_vectors(&v);
}

GRADE_SANITIZER_ITEM(10, "lab9", "100 1 no-nccl", ", its steps without NCCL (TODOs 1 to 3)")

GRADE_LAB(9, "many-gpus", "lab9-many-gpus")
