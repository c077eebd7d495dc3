/* lab3-folding.c: the grading suite of lab 3 (the array-folding sum).
 *
 * What it checks, item by item:
 *   fold_invariant          the grader's own invariant on every round's snapshot (exact)
 *   fold_sums_exact         the sum for every n from 1 to 1050 and some primes above
 *   fold_large              the sum for large n (2^20 on the cpu backend, 2^24 and more on a GPU)
 *   fold_launches           one launch per round, ceil(log2 n) rounds, no block without work
 *   fold_predicate_accepts  your fold_invariant_holds() accepts every correct state
 *   fold_predicate_rejects  ... and rejects wrong ones (off by one, swapped, other round, other algorithm),
 *                           and fold_sum reports a wrong state
 *   fold_unfold             going further: fold_unfold() gives the original array back
 *
 * The data are small integers, so every sum is exact whatever the order.
 *
 * The header's rules and the items that check them:
 *   n elements take ceil(log2 n) rounds, one launch per round, none for n = 1 -> fold_launches
 *   round r adds A[i + d] into A[i] for i < d with i + d < n, d = P >> r -> fold_invariant
 *   no round writes A[i] for i >= d, so a left-behind element keeps its value -> fold_invariant
 *   after each round, every live A[i] is the sum of a[j] over j % w == i -> fold_invariant
 *   fold_sum returns the sum of a[0..n-1] for every n >= 1 -> fold_sums_exact, fold_large
 *   the sum is A[0] after the last round, folded on the device and copied back -> fold_invariant,
 *       fold_sums_exact, fold_large
 *   fold_sum leaves the host array a unchanged -> fold_sums_exact
 *   SNAPSHOT(d_a, n, round) after every round, round 0 included -> fold_invariant
 *   with snapshots on, fold_sum checks fold_invariant_holds on every state -> fold_predicate_rejects (a state
 *       spoiled in device memory must be reported)
 *   fold_invariant_holds returns 1 for every correct state -> fold_predicate_accepts
 *   fold_invariant_holds returns 0 when the live part is wrong -> fold_predicate_rejects
 *   fold_invariant_holds ignores the elements outside the live part -> fold_predicate_accepts
 *   fold_invariant_holds is plain host code, run on the CPU -> fold_predicate_accepts, fold_predicate_rejects
 *   fold_unfold turns the final state back into the original a[] -> fold_unfold
 *   fold_unfold undoes the rounds on the device, last first, one launch each -> fold_unfold (launches, no
 *       upload between them, the array from the device; not the order)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "round_states.h"
#include "lab3.h"
#include "lab3-folding/model.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab3-folding/lab-calls.h"

/* ---- the rounds, as lab3.h defines them ---------------------------------------- */

static int power_of_two_above(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* The model of the rounds (the class of each element, the state after a
 * round, the invariant itself) is in lab3-folding/model.h. */

/* "a[5] + a[133] + a[261] = 14", with at most a few terms spelled out. */
static void describe_terms(char *out, size_t size, const int *a, int n, int i, int width)
{
    size_t used = 0;
    int shown = 0;
    for (int j = i; j < n && used < size; j += width) {
        if (shown == 6) {
            used += (size_t)snprintf(out + used, size - used, " + ...");
            break;
        }
        used += (size_t)snprintf(out + used, size - used, "%sa[%d]", shown ? " + " : "", j);
        shown++;
    }
    if (used < size)
        snprintf(out + used, size - used, " = %lld", lab3_class_sum(a, n, i, width));
}

enum { PICTURE_MAX = 40 };

/* The live part after round k, A[0..min(P >> k, n)) (the report's figure). */
static int live_after(int n, int k, int i) { return i < ((power_of_two_above(n) >> k) < n ? power_of_two_above(n) >> k : n); }

#define ROUNDS_STAY_ON_DEVICE "the rounds fold the array where it is, in device memory; nothing from the host enters " \
                              "it between rounds"

/* ---- fold_invariant -------------------------------------------------------------- */

/* Checks every snapshot of one run of the student's fold_sum on a[]. */
static void check_rounds(const int *a, int n, uint64_t seed, const char *schedule)
{
    grade_side *you = grade_student_recording_rounds(schedule);
    int got = GRADE_FN(you, fold_sum)(a, n);
    grade_set_snapshots(you, 0);
    grade_require_no_upload_after_launch(you, "fold_sum", ROUNDS_STAY_ON_DEVICE);

    int rounds = log2_rounds(n), top = power_of_two_above(n);
    int taken = grade_snapshot_count(you);
    char where[96];
    snprintf(where, sizeof where, "n = %d, seed %llu%s%s", n, (unsigned long long)seed,
             grade_on_gpu() ? "" : ", schedule ", grade_on_gpu() ? "" : schedule);
    for (int k = 0; k < taken && k <= rounds; k++) {
        const kit_snapshot *s = grade_snapshot_at(you, k);
        grade_check(s->round == k && s->count == (size_t)n && s->element_size == sizeof(int),
                    "snapshot %d (%s) is labelled round %d with %zu elements; expected round %d with all %d elements: "
                    "call SNAPSHOT(d_a, n, round) once after every round",
                    k, where, s->round, s->count, k, n);
        const int *state = s->data;
        for (int i = 0; i < n; i++) {
            int width = lab3_class_width(n, k, i);
            long long needed = lab3_class_sum(a, n, i, width);
            if (state[i] == needed)
                continue;
            char terms[256];
            describe_terms(terms, sizeof terms, a, n, i, width);
            int live = (top >> k) < n ? (top >> k) : n;
            attach_rounds_figure(0, n, k, i, state[i], (double)needed, live_after, i, width, n, where);
            if (n <= PICTURE_MAX) {
                int *expected = new_ints(n);
                lab3_fold_state(a, n, k, expected);
                grade_picture_ints("the array you have", state, n, i, i + 1);
                grade_picture_ints("what the invariant needs", expected, n, i, i + 1);
                free(expected);
            }
            if (i < live)
                grade_fail("%s %d (d = %d), %s: A[%d] = %d but the invariant needs %s%s", k ? "after round" : "at round", k,
                           top >> k, where, i, state[i], terms, grade_guard_hint_int(state[i], needed, "A", n));
            grade_fail("after round %d (d = %d), %s: A[%d] = %d, but A[%d] lies outside the live part A[0..%d) and should "
                       "still hold its value from the last round it was live, %s (no round writes A[i] for i >= d)%s",
                       k, top >> k, where, i, state[i], i, live, terms, grade_guard_hint_int(state[i], needed, "A", n));
        }
    }
    grade_check(taken == rounds + 1,
                "%s: found %d snapshots, but n = %d needs %d rounds, so %d snapshots (round 0, then one after every "
                "round); the loop makes one round too %s, or SNAPSHOT is missing",
                where, taken, n, rounds, rounds + 1, taken > rounds + 1 ? "many" : "few");
    const int *last = grade_snapshot_at(you, rounds)->data;
    grade_check(got == last[0], "%s: fold_sum returned %d, but after the last round A[0] = %d: the sum returned is "
                "the one the rounds left in A[0], copied back", where, got, last[0]);
}

GRADE_ITEM(fold_invariant, 20, GRADE_CORRECTNESS, 60, "1,3", "the invariant holds after every round (checked on each snapshot)",
           "the grader's own invariant on every round's snapshot, exact, for n from 1 to 1025 (on the cpu "
           "backend under every thread order)")
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 100, 255, 256, 257, 1000, 1025};
    int count = (int)(sizeof sizes / sizeof sizes[0]);
    for (int k = 0; k < count; k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        int *a = seeded_ints(n, 1, 9, seed);
        /* every schedule order for the sizes where blocks are full enough to race */
        int orders = n >= 32 ? grade_schedule_count() : 1;
        for (int s = 0; s < orders; s++)
            check_rounds(a, n, seed, grade_schedule_name(s));
        free(a);
    }
}

/* ---- fold_sums_exact and fold_large ---------------------------------------------- */

static void check_sum(int n, uint64_t seed, int lo, int hi)
{
    int *a = seeded_ints(n, lo, hi, seed);
    grade_side *you = grade_student();
    grade_reset_records(you);
    int got = GRADE_FN(you, fold_sum)(a, n);
    long long expected = kit_sum_ints(a, (size_t)n);
    if (got != expected) {
        if (n <= PICTURE_MAX)
            grade_picture_ints("the input", a, n, -1, -1);
        const char *hint = grade_guard_hint_int(got, expected, "A", n);
        if (!*hint && n != power_of_two_above(n) && grade_launch_count(you) == log2_rounds(n))
            hint = " (n is not a power of two: does the first round fold onto the power of two above n?)";
        char caption[96];
        snprintf(caption, sizeof caption, "n = %d, seed %llu: the sum returned is %d, the sum is %lld", n,
                 (unsigned long long)seed, got, expected);
        attach_wrong_sum_figure(GRADE_FN(you, fold_sum), a, n, expected, live_after, caption);
        grade_fail("n = %d (seed %llu, integers in [%d, %d]): fold_sum returned %d but the sum is %lld%s", n,
                   (unsigned long long)seed, lo, hi, got, expected, hint);
    }
    grade_require_no_upload_after_launch(you, "fold_sum", ROUNDS_STAY_ON_DEVICE);
    grade_require_from_device(you, "fold_sum", "the sum it returned", &got, sizeof got, n > 1);
    free(a);
}

GRADE_ITEM(fold_sums_exact, 20, GRADE_CORRECTNESS, 60, "1,3", "exact sums for every n from 1 to 1050 and primes above",
           "the sum for every n from 1 to 1050 and some primes up to 65537")
{
    grade_inputs_must_stay(); /* lab3.h: fold_sum leaves the host's a[] as it was */
    static const int primes_above[] = {1031, 2039, 4093, 8191, 65537};
    for (int n = 1; n <= 1050; n++)
        check_sum(n, grade_seed_for(n), -9, 9);
    for (int k = 0; k < (int)(sizeof primes_above / sizeof primes_above[0]); k++)
        check_sum(primes_above[k], grade_seed_for(2000 + k), -9, 9);
}

GRADE_ITEM(fold_large, 10, GRADE_CORRECTNESS, 60, "1,3", "exact sums for large n",
           "the sum for n = 2^20 + 7 (cpu backend) or 2^24, 2^24 + 3, 2^25 + 1 (GPU)")
{
    static const int cpu_sizes[] = {(1 << 20) + 7};
    static const int gpu_sizes[] = {1 << 24, (1 << 24) + 3, (1 << 25) + 1};
    const int *sizes = grade_on_gpu() ? gpu_sizes : cpu_sizes;
    int count = grade_on_gpu() ? 3 : 1;
    for (int k = 0; k < count; k++)
        check_sum(sizes[k], grade_seed_for(k), -50, 50);
}

/* ---- fold_launches --------------------------------------------------------------- */

GRADE_ITEM(fold_launches, 15, GRADE_CORRECTNESS, 30, "3", "one launch per round, ceil(log2 n) rounds, threads halving",
           "ceil(log2 n) launches, one per round, and no block without work")
{
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 256, 257, 1000, 4097};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        int *a = seeded_ints(n, 0, 9, grade_seed_for(k));
        grade_side *you = grade_student();
        grade_reset_records(you);
        GRADE_FN(you, fold_sum)(a, n);
        int rounds = expect_one_launch_per_round("fold_sum", n, "folding ", " (n = 1 is already summed: no launch at all)");
        for (int r = 1; r <= rounds; r++) {
            long long blocks, threads;
            const kit_launch *l = round_launch(r, &blocks, &threads);
            int d = power_of_two_above(n) >> r;
            grade_check(blocks >= 1 && threads >= 1, "n = %d, round %d: launch of %s with an empty grid", n, r, l->kernel);
            grade_check((blocks - 1) * threads < d,
                        "n = %d, round %d (d = %d): %s was launched with %lld blocks of %lld threads, but only %d "
                        "threads have work in this round, so at least one whole block does nothing; the number of "
                        "threads should halve with every round",
                        n, r, d, l->kernel, blocks, threads, d);
        }
        free(a);
    }
}

/* ---- the student's predicate ---------------------------------------------------- */

static invariant_check fold_check(void)
{
    invariant_check c = {.name = "fold_invariant_holds", .student = GRADE_FN(grade_student(), fold_invariant_holds),
                         .truly_holds = lab3_live_part_holds, .correct_state = lab3_fold_state};
    return c;
}

static const int predicate_sizes[] = {1, 2, 5, 8, 13, 16, 37, 100};

GRADE_ITEM(fold_predicate_accepts, 10, GRADE_CORRECTNESS, 30, "2", "your invariant accepts every correct state",
           "your `fold_invariant_holds` accepts the correct state of every round, whatever lies outside the "
           "live part, as plain host code (no launch, no copy)")
{
    invariant_check check = fold_check();
    expect_accepts_on_sizes(&check, GRADE_FN(grade_reference(), fold_sum), predicate_sizes,
                            (int)(sizeof predicate_sizes / sizeof predicate_sizes[0]));
}

/* Folding's wrong states of round r: the near misses of its last live
 * element (not A[0] unless it is the only one), and lab 4's state. */
static void offer_fold_round(const invariant_check *check, const int *a, int **states, int *wrong, int n, int r,
                             int rounds, uint64_t seed)
{
    int top = power_of_two_above(n);
    int live = (top >> r) < n ? (top >> r) : n;
    int i = live - 1;
    /* swap with another live element if one differs, else with any element */
    int j = -1;
    for (int c = 0; c < n && j < 0; c++)
        if (c != i && states[r][c] != states[r][i] && (c < live || live == 1))
            j = c;
    offer_near_misses(check, a, states[r], wrong, n, r, seed, i, j);
    offer_other_round(check, a, states, n, r, rounds, seed);

    char what[200];
    lab3_tournament_state(a, n, r, wrong);
    snprintf(what, sizeof what, "the tournament's state after round %d (lab 4's algorithm), not folding's", r);
    offer_wrong(check, a, wrong, n, r, seed, what, -1);
}

GRADE_ITEM(fold_predicate_rejects, 10, GRADE_CORRECTNESS, 30, "2,3", "your invariant rejects wrong states",
           "... and rejects wrong states; and `fold_sum`, with snapshots on, reports a state that breaks the "
           "invariant (the grader spoils one in device memory after round 0, 1, a middle round and the last)")
{
    invariant_check check = fold_check();
    expect_rejects_on_sizes(&check, GRADE_FN(grade_reference(), fold_sum), predicate_sizes,
                            (int)(sizeof predicate_sizes / sizeof predicate_sizes[0]), offer_fold_round);
    /* lab3.h: with snapshots on, fold_sum checks the invariant on every state */
    expect_checks_every_state(GRADE_FN(grade_student(), fold_sum), "fold_sum", "fold_invariant_holds", 37,
                              log2_rounds(37), lab3_live_part_holds);
}

/* ---- fold_unfold (going further) ----------------------------------------------- */

GRADE_ITEM(fold_unfold, 5, GRADE_CORRECTNESS, 30, "4,5", "going further: unfolding gives the original array back",
           "going further: `fold_unfold` gives back the original array. Skipped (no points either way) while "
           "TODO 5 still says \"not implemented\"")
{
    static const int sizes[] = {1, 2, 7, 16, 100, 1000, 1025};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        int *a = seeded_ints(n, -9, 9, seed);
        int *state = new_ints(n);
        lab3_fold_state(a, n, log2_rounds(n), state);
        grade_side *you = grade_student();
        grade_reset_records(you);
        GRADE_FN(you, fold_unfold)(state, n);
        const char *todo = grade_todo_pending(you);
        if (todo && strstr(todo, "TODO 5")) {
            free(state), free(a);
            grade_skip("going further (TODOs 4 and 5) not attempted: it neither adds nor costs points");
        }
        /* lab3.h: on the device, last round first, one launch per round */
        if (grade_launch_count(you) != log2_rounds(n))
            grade_fail("n = %d: fold_unfold made %d launch%s, but there are %d rounds to undo: lab3.h asks for one "
                       "launch per round, on the device", n, grade_launch_count(you),
                       grade_launch_count(you) == 1 ? "" : "es", log2_rounds(n));
        grade_require_no_upload_after_launch(you, "fold_unfold", "the rounds are undone where the array is, in "
                                             "device memory; nothing from the host enters it between rounds");
        for (int i = 0; i < n; i++)
            if (state[i] != a[i]) {
                if (n <= PICTURE_MAX) {
                    grade_picture_ints("original a[]", a, n, i, i + 1);
                    grade_picture_ints("after fold_unfold", state, n, i, i + 1);
                }
                grade_fail("n = %d (seed %llu): after fold_unfold, A[%d] = %d but the original value was %d%s", n,
                           (unsigned long long)seed, i, state[i], a[i], grade_guard_hint_int(state[i], a[i], "A", n));
            }
        grade_require_from_device(you, "fold_unfold", "the array it gave back", state, (size_t)n * sizeof *state,
                                  0);
        free(state);
        free(a);
    }
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab3", "1000 1", "")

GRADE_LAB(3, "folding", "lab3-folding")
