/* main.c: the lab 9 program (fixed: you do not edit it).
 *
 *   lab [n] [seed]
 *
 * Splits two vectors of n floats over the devices, prints the split, each
 * device's partial, the totals of the peer copies and of NCCL beside the
 * exact one (computed on the CPU), and then runs the ring (going further)
 * on `devices` buffers of min(n, 24) floats, step by step, with a picture
 * of every device's chunks after each step, each state checked against the
 * ring's rules (lab9.h) and by your ring_state_holds.  The vectors hold
 * whole numbers from -8 to 8, so every order of the sums is exact and every
 * result must be exactly right.  Exits 0 when everything is, 1 otherwise.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "kit_program.h"
#include "lab9.h"

#define RING_PICTURE_MAX 24

static int mod(int i, int m) { return ((i % m) + m) % m; }

/* The chunks of the ring as lab9.h defines them (the program's own copy,
 * so that its pictures stay right while your split_slices is not). */
static void ring_chunks(int count, int devices, int *first)
{
    first[0] = 0;
    for (int d = 0; d < devices; d++)
        first[d + 1] = first[d] + count / devices + (d < count % devices ? 1 : 0);
}

static double dot_range(const float *x, const float *y, int from, int to)
{
    double sum = 0.0;
    for (int i = from; i < to; i++)
        sum += (double)x[i] * y[i];
    return sum;
}

/* TODOs 1 and 2: the split and the partials.  Returns the device count. */
static int show_partials(const float *x, const float *y, int n, int *all_ok)
{
    double partials[LAB9_MAX_DEVICES];
    int devices = dot_partials(x, y, n, partials);
    int first[LAB9_MAX_DEVICES + 1];
    split_slices(n, devices, first);
    printf("\nThe split (TODO 1) and each device's partial (TODO 2):\n");
    int split_ok = first[0] == 0 && first[devices] == n;
    for (int d = 0; d < devices; d++) {
        int size = first[d + 1] - first[d], largest = (n + devices - 1) / devices;
        split_ok &= size == largest || size == n / devices;
        split_ok &= d == 0 || size <= first[d] - first[d - 1];
    }
    if (!split_ok)
        printf("  WRONG split: the slices must cover x[0..%d) in sizes that differ by at most 1, the larger first\n", n);
    *all_ok &= split_ok;
    for (int d = 0; d < devices; d++) {
        double exact = dot_range(x, y, first[d], first[d + 1]);
        int ok = partials[d] == exact;
        *all_ok &= ok;
        printf("  device %d: x[%d..%d) %10d floats   partial %16.1f   exact %16.1f  %s\n", d, first[d], first[d + 1],
               first[d + 1] - first[d], partials[d], exact, ok ? "ok" : "WRONG");
    }
    return devices;
}

/* TODOs 3 and 4: the totals. */
static void show_totals(const float *x, const float *y, int n, double exact, int nccl, int *all_ok)
{
    printf("\nThe total (exact: %.1f):\n", exact);
    double peer = dot_peer(x, y, n);
    *all_ok &= peer == exact;
    printf("  peer copies to device 0 (TODO 3): %16.1f  %s\n", peer, peer == exact ? "ok" : "WRONG");
    if (!nccl)
        return;
    double totals[LAB9_MAX_DEVICES];
    int devices = dot_nccl(x, y, n, totals);
    for (int d = 0; d < devices; d++) {
        *all_ok &= totals[d] == exact;
        printf("  NCCL all-reduce, on device %d (TODO 4): %16.1f  %s\n", d, totals[d],
               totals[d] == exact ? "ok" : "WRONG");
    }
}

/* ---- The ring ---------------------------------------------------------------------
 * Which devices' share each chunk holds, as a bit mask per device and chunk,
 * played on the host by the rules of lab9.h. */
static void play_ring_step(unsigned masks[][LAB9_MAX_DEVICES], int devices, int step)
{
    unsigned before[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES];
    memcpy(before, masks, sizeof before);
    int reduce = step <= devices - 1;
    for (int r = 0; r < devices; r++) {
        int chunk = reduce ? mod(r - step + 1, devices) : mod(r - (step - (devices - 1)) + 2, devices);
        int to = mod(r + 1, devices);
        masks[to][chunk] = reduce ? before[to][chunk] | before[r][chunk] : before[r][chunk];
    }
}

/* The values that masks say: chunk c of device r is the sum of chunk c over its devices. */
static void expected_state(const float *original, unsigned masks[][LAB9_MAX_DEVICES], const int *first, int count,
                           int devices, float *expected)
{
    for (int r = 0; r < devices; r++)
        for (int c = 0; c < devices; c++)
            for (int i = first[c]; i < first[c + 1]; i++) {
                float sum = 0.0f;
                for (int k = 0; k < devices; k++)
                    if (masks[r][c] >> mod(r - k, devices) & 1)
                        sum += original[(size_t)mod(r - k, devices) * count + i];
                expected[(size_t)r * count + i] = sum;
            }
}

static const char *share_words(unsigned mask, int devices)
{
    static char words[4 * LAB9_MAX_DEVICES + 8];
    char *at = words;
    if (mask == (1u << devices) - 1)
        return "all";
    for (int d = 0; d < devices; d++)
        if (mask >> d & 1)
            at += sprintf(at, "%s%d", at == words ? "" : "+", d);
    return words;
}

/* One step's picture: per device, whose share each chunk holds, then its values. */
static int show_ring_state(const float *original, const float *state, unsigned masks[][LAB9_MAX_DEVICES],
                           const int *first, int count, int devices, int step)
{
    float *expected = kit_host_array((size_t)devices * count, sizeof *expected, count);
    expected_state(original, masks, first, count, devices, expected);
    if (step == 0)
        printf("\nstep 0: each device's buffer as it starts\n");
    else if (step <= devices - 1)
        printf("\nafter step %d (reduce-scatter step %d): the chunk each device received is marked *\n", step, step);
    else
        printf("\nafter step %d (all-gather step %d): the chunk each device received is marked *\n", step,
               step - (devices - 1));
    int wrong = 0;
    for (int r = 0; r < devices; r++) {
        int received = -1;
        if (step > 0)
            received = step <= devices - 1 ? mod(r - 1 - step + 1, devices)
                                           : mod(r - 1 - (step - (devices - 1)) + 2, devices);
        printf("  device %d, chunks:", r);
        for (int c = 0; c < devices; c++)
            printf("  %d: %s", c, share_words(masks[r][c], devices));
        printf("\n");
        const float *row = state + (size_t)r * count;
        kit_draw_floats(stdout, "   ", row, count, received < 0 ? -1 : first[received],
                        received < 0 ? -1 : first[received + 1]);
        for (int i = 0; i < count && !wrong; i++)
            if (row[i] != expected[(size_t)r * count + i]) {
                int c = 0;
                while (first[c + 1] <= i)
                    c++;
                printf("   WRONG: element %d (chunk %d) is %g, but it should be %g, the sum of chunk %d over "
                       "devices %s\n", i, c, row[i], expected[(size_t)r * count + i], c,
                       share_words(masks[r][c], devices));
                wrong = 1;
            }
    }
    if (!ring_state_holds(original, state, count, devices, step))
        printf("  your ring_state_holds says this is NOT the state after step %d%s\n", step,
               wrong ? "" : " (but it is)");
    else if (wrong)
        printf("  your ring_state_holds accepts this state, which is wrong\n");
    free(expected);
    return !wrong;
}

/* TODOs 5 and 6: the ring, step by step when count is small. */
static void show_ring(int devices, int n, unsigned long long seed, int *all_ok)
{
    int count = n < RING_PICTURE_MAX ? n : RING_PICTURE_MAX;
    int steps = 2 * (devices - 1);
    float *original = kit_host_array((size_t)devices * count + 1, sizeof *original, count);
    float *state = kit_host_array((size_t)devices * count + 1, sizeof *state, count);
    kit_fill_small_floats(original, (size_t)devices * count, -8, 8, seed + 2);
    int first[LAB9_MAX_DEVICES + 1];
    ring_chunks(count, devices, first);
    printf("\nThe ring (TODOs 5 and 6, going further): %d devices, %d floats each, %d steps; chunks:", devices, count,
           steps);
    for (int c = 0; c < devices; c++)
        printf(" %d = [%d..%d)", c, first[c], first[c + 1]);
    printf("\n");
    unsigned masks[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES] = {{0}};
    for (int r = 0; r < devices; r++)
        for (int c = 0; c < devices; c++)
            masks[r][c] = 1u << r;
    int ring_ok = 1;
    for (int step = 0; step <= steps && ring_ok; step++) {
        if (step > 0)
            play_ring_step(masks, devices, step);
        memcpy(state, original, (size_t)devices * count * sizeof *state);
        ring_allreduce(state, count, devices, step);
        ring_ok = show_ring_state(original, state, masks, first, count, devices, step);
    }
    if (steps == 0)
        printf("(one device: the ring has no step to take)\n");
    printf("the ring: %s\n", ring_ok ? "every state as lab9.h says" : "WRONG (see above)");
    *all_ok &= ring_ok;
    free(original);
    free(state);
}

int main(int argc, char **argv)
{
    const char *usage = "[n >= 1] [seed] [no-nccl]";
    int n = kit_arg_n(argc, argv, kit_on_gpu() ? 1L << 24 : 1L << 20, INT_MAX, usage);
    unsigned long long seed = kit_arg_seed(argc, argv, 2);
    float *x = kit_host_array((size_t)n, sizeof *x, n);
    float *y = kit_host_array((size_t)n, sizeof *y, n);
    kit_fill_small_floats(x, (size_t)n, -8, 8, seed);
    kit_fill_small_floats(y, (size_t)n, -8, 8, seed + 1);
    printf("lab 9, many-gpus: n = %d, seed = %llu, on %s\n", n, seed, kit_device_name());

    int all_ok = 1;
    double started = kit_wall_ms();
    int devices = show_partials(x, y, n, &all_ok);
    printf("  (%d device%s, %.3f ms for the whole call)\n", devices, devices == 1 ? "" : "s",
           kit_wall_ms() - started);
    /* "no-nccl": the steps without NCCL only (TODOs 1 to 3), as the
     * grader's compute-sanitizer run on a GPU takes them */
    int nccl = !(argc > 3 && strcmp(argv[3], "no-nccl") == 0);
    show_totals(x, y, n, dot_range(x, y, 0, n), nccl, &all_ok);
    if (nccl)
        show_ring(devices, n, seed, &all_ok);

    kit_print_reminder("lab9-many-gpus");
    printf("%s\n", all_ok ? "all results exact" : "some results are WRONG");
    free(x);
    free(y);
    return all_ok ? 0 : 1;
}
