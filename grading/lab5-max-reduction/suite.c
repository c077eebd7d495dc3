/* lab5-max-reduction.c: the grading suite of lab 5 (the maximum, two ways).
 *
 * Part 1, the tournament of pairs:
 *   tmax_invariant          the grader's own invariant on every round's snapshot (exact)
 *   tmax_results            the maximum for every n from 1 to 1050, primes, all-negative inputs
 *   tmax_launches           one launch per round, ceil(log2 n) rounds, no block without work
 *   tmax_predicate_accepts  your max_invariant_holds() accepts every correct state
 *   tmax_predicate_rejects  ... and rejects wrong ones
 * Part 2, the block reduction in one launch:
 *   block_max_negative      all-negative inputs (the identity is -infinity, not 0)
 *   block_max_edges         n = 1, n smaller than a block, maximum first or last, duplicates
 *   block_max_random        random floats, many sizes, large n
 *   block_max_schedules     every thread order of the cpu backend (a missing barrier shows)
 *   block_max_launches      one launch (or two with a second pass)
 *   block_max_speed         GPU only: time against the reference
 *
 * A maximum is exact whatever the order, so every result must equal the
 * largest input bit for bit.  The items that check results also check, from
 * the copy record, that the device did the work: the maximum returned is what
 * came back from the device (after the rounds, or the launch), nothing goes
 * from the host to the device after the first launch, and block_max brings
 * back one value, not the blocks' results.
 *
 * The header's rules and the items that check them:
 *   part 1 takes ceil(log2 n) rounds, one launch per round, none for n = 1 -> tmax_launches
 *   round r writes B[t] = max(A[2t], A[2t + 1]) (A[2t] alone at an odd end), ceil(m / 2) of them ->
 *       tmax_invariant
 *   each round writes into a second device array, and the two arrays swap roles -> tmax_invariant (the
 *       snapshots' device arrays alternate)
 *   SNAPSHOT the array just written (ceil(n / 2^r) values) after every round, round 0 too -> tmax_invariant
 *   after round r, B[t] is the largest of a[tW .. min((t + 1)W, n) - 1], W = 2^r -> tmax_invariant
 *   the one value left after the last round is the maximum, and is returned -> tmax_invariant, tmax_results
 *   the identity is -INFINITY, not 0, so all-negative inputs work -> tmax_invariant, tmax_results,
 *       block_max_negative
 *   tournament_max returns the largest of a[0..n-1] for every n >= 1 -> tmax_results
 *   the rounds run on the device, nothing is uploaded between them, the result is copied back ->
 *       tmax_invariant, tmax_results
 *   tournament_max leaves the host array a unchanged -> tmax_results
 *   with snapshots on, tournament_max checks max_invariant_holds after every round -> tmax_predicate_rejects
 *       (a state spoiled in device memory must be reported)
 *   max_invariant_holds returns 1 for every correct state -> tmax_predicate_accepts
 *   max_invariant_holds returns 0 for a wrong state -> tmax_predicate_rejects
 *   max_invariant_holds is host code -> tmax_predicate_accepts, tmax_predicate_rejects
 *   block_max returns the largest of a[0..n-1] for every n >= 1 -> block_max_negative, block_max_edges,
 *       block_max_random, block_max_schedules
 *   block_max makes one launch, or two when a second pass combines the blocks -> block_max_launches
 *   each block reduces its share in shared memory with a sequential-addressing tree -> block_max_launches (cpu
 *       backend: shared memory and a barrier per thread for each level above a warp, which may use shuffles;
 *       the addressing is not seen)
 *   __syncthreads separates the levels of the tree -> block_max_schedules, sanitizer
 *   the blocks' results are combined on the device and one value comes back -> block_max_negative,
 *       block_max_edges, block_max_random, block_max_schedules
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "round_states.h"
#include "lab5.h"
#include "lab5-max-reduction/model.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab5-max-reduction/lab-calls.h"

typedef float (*max_fn)(const float *a, int n);
enum { PICTURE_MAX = 40 };

/* ---- the rounds, as lab5.h defines them ---------------------------------------- */

static int values_after(int n, int round) { return (int)((n + (1LL << round) - 1) >> round); }

/* The largest of a[from, to) and where it first is. */
static float block_best(const float *a, long long from, long long to, long long *at)
{
    float best = -INFINITY;
    *at = from;
    for (long long j = from; j < to; j++)
        if (a[j] > best)
            best = a[j], *at = j;
    return best;
}

/* The model of the rounds (the state after a round, the invariant itself)
 * is in lab5-max-reduction/model.h. */

static float *new_floats(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(float)); }

/* Whole numbers in [lo, hi]: exact, and easy to read in a picture. */
static float *seeded_floats(int n, int lo, int hi, uint64_t seed)
{
    float *a = new_floats(n);
    kit_fill_small_floats(a, (size_t)n, lo, hi, seed);
    return a;
}

#define ROUNDS_STAY_ON_DEVICE "the rounds play the pairs in device memory, from one device array to the other; " \
                              "nothing from the host enters them between rounds"
#define BLOCKS_COMBINE_ON_DEVICE "lab5.h: the blocks' results are combined on the device, and the maximum is " \
                                 "copied back as one value; the host takes no part after the launch"

/* ---- tmax_invariant ------------------------------------------------------------ */

static void check_rounds(const float *a, int n, uint64_t seed, const char *schedule)
{
    grade_side *you = grade_student_recording_rounds(schedule);
    float got = GRADE_FN(you, tournament_max)(a, n);
    grade_set_snapshots(you, 0);

    int rounds = log2_rounds(n), taken = grade_snapshot_count(you);
    char where[96];
    snprintf(where, sizeof where, "n = %d, seed %llu%s%s", n, (unsigned long long)seed,
             grade_on_gpu() ? "" : ", schedule ", grade_on_gpu() ? "" : schedule);
    float *right = new_floats(n);
    for (int k = 0; k < taken && k <= rounds; k++) {
        const kit_snapshot *s = grade_snapshot_at(you, k);
        int m = values_after(n, k);
        grade_check(s->round == k && s->count == (size_t)m && s->element_size == sizeof(float),
                    "%s: snapshot %d is labelled round %d with %zu values; expected round %d with %d values "
                    "(ceil(n / 2^round)): call SNAPSHOT(d_out, winners, round) once after every round",
                    where, k, s->round, s->count, k, m);
        const float *state = s->data;
        lab5_tournament_state(a, n, k, right);
        for (int t = 0; t < m; t++) {
            if (state[t] == right[t])
                continue;
            long long width = 1LL << k, at;
            long long end = (t + 1) * width < n ? (t + 1) * width : n;
            block_best(a, t * width, end, &at);
            attach_rounds_figure(1, n, k, t, state[t], right[t], NULL, t * width, 1, end, where);
            if (m <= PICTURE_MAX) {
                grade_picture_floats("the values you have", state, m, t, t + 1);
                grade_picture_floats("what the invariant needs", right, m, t, t + 1);
            }
            grade_fail("%s %d, %s: B[%d] = %g but the invariant needs the largest of a[%lld..%lld), which is "
                       "a[%lld] = %g%s",
                       k ? "after round" : "at round", k, where, t, state[t], t * width, end, at, right[t],
                       state[t] == 0 && right[t] < 0 ? " (a 0 where every value is negative: is 0 used as the identity?)"
                                                     : grade_guard_hint_float(state[t], right[t], k ? "B" : "a",
                                                                              k ? values_after(n, k - 1) : n));
        }
    }
    free(right);
    grade_check(taken == rounds + 1,
                "%s: found %d snapshots, but n = %d needs %d rounds, so %d snapshots (round 0, then one after every "
                "round); the loop makes one round too %s, or SNAPSHOT is missing",
                where, taken, n, rounds, rounds + 1, taken > rounds + 1 ? "many" : "few");
    /* lab5.h: each round writes into a second device array, and the two swap roles */
    for (int k = 1; k <= rounds; k++) {
        uint64_t here = grade_snapshot_at(you, k)->device_address;
        grade_check(here != grade_snapshot_at(you, k - 1)->device_address,
                    "%s: round %d wrote into the device array it read (its snapshot is of the array the snapshot "
                    "before it was of): each round reads one array and writes the other, then the two swap roles",
                    where, k);
        grade_check(k < 2 || here == grade_snapshot_at(you, k - 2)->device_address,
                    "%s: round %d wrote into a third device array: lab5.h asks for two arrays that swap roles, the "
                    "output of one round the input of the next", where, k);
    }
    const float *last = grade_snapshot_at(you, rounds)->data;
    grade_check(got == last[0], "%s: tournament_max returned %.9g, but after the last round B[0] = %.9g: the maximum "
                "returned is the one value the rounds left, copied back", where, got, last[0]);
    grade_require_no_upload_after_launch(you, "tournament_max", ROUNDS_STAY_ON_DEVICE);
}

GRADE_ITEM(tmax_invariant, 12, GRADE_CORRECTNESS, 60, "1,3", "tournament: the invariant holds after every round",
           "the grader's own invariant on every round's snapshot of the tournament, exact; the rounds write "
           "into two device arrays that swap roles")
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 100, 255, 256, 257, 1000, 1025};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        /* every other size all negative, where a 0 identity shows */
        float *a = seeded_floats(n, -99, k % 2 ? -1 : 99, seed);
        int orders = n >= 32 ? grade_schedule_count() : 1;
        for (int s = 0; s < orders; s++)
            check_rounds(a, n, seed, grade_schedule_name(s));
        free(a);
    }
}

/* ---- results of either part ------------------------------------------------------ */

static const char *input_kind;

/* The student's result for a[], checked against the largest value; returns it. */
typedef struct {
    max_fn fn;
    const float *a;
    int n;
} max_call;

static void rerun_max(void *arg, void *result)
{
    const max_call *c = arg;
    *(float *)result = c->fn(c->a, c->n);
}

static float check_max(max_fn fn, const char *name, const float *a, int n, uint64_t seed)
{
    grade_reset_records(grade_student());
    float got = fn(a, n);
    long long at;
    float expected = block_best(a, 0, n, &at);
    if (got == expected && !isnan(got))
        return got;
    if (n <= PICTURE_MAX)
        grade_picture_floats("the input", a, n, (int)at, (int)at + 1);
    max_call again = {fn, a, n};
    const char *hint = got == 0 && expected < 0
                           ? " (every value is negative: is 0 used as the identity instead of -INFINITY?)"
                       : *grade_guard_hint_float(got, expected, "a", n) ? grade_guard_hint_float(got, expected, "a", n)
                       : grade_depends_on_order(rerun_max, &again, sizeof(float)) ? ": " GRADE_RACE_HINT
                                                                                   : "";
    grade_fail("n = %d (seed %llu, %s): %s returned %.9g but the largest value is a[%lld] = %.9g%s", n,
               (unsigned long long)seed, input_kind, name, got, at, expected, hint);
}

static max_fn student_tournament(void) { return GRADE_FN(grade_student(), tournament_max); }
static max_fn student_blocks(void) { return GRADE_FN(grade_student(), block_max); }

static void check_tournament_max(const float *a, int n, uint64_t seed)
{
    float got = check_max(student_tournament(), "tournament_max", a, n, seed);
    grade_side *you = grade_student();
    grade_require_no_upload_after_launch(you, "tournament_max", ROUNDS_STAY_ON_DEVICE);
    /* n = 1 needs no round: its one value goes to the device and back as it is */
    grade_require_from_device(you, "tournament_max", "the maximum it returned", &got, sizeof got, n > 1);
}

/* atomicMax has no float form, so the blocks' results often meet as integer
 * keys that order like the floats, and the key is what comes back: the
 * float's own bits, the skeleton's signed key (negative floats with all but
 * the sign bit flipped) or the unsigned key (the sign bit flipped for the
 * non-negative, every bit for the negative).  The form that one 4-byte copy
 * to the host holds, else the float's bits. */
static uint32_t form_copied_back(grade_side *you, float got)
{
    uint32_t bits;
    memcpy(&bits, &got, sizeof bits);
    uint32_t forms[3] = {bits, bits >> 31 ? bits ^ 0x7fffffffu : bits, bits >> 31 ? ~bits : bits | 0x80000000u};
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < grade_copy_count(you); i++) {
            const kit_copy *c = grade_copy_at(you, i);
            if (c->direction == KIT_TO_HOST && c->bytes == sizeof forms[f]
                && c->checksum == kit_checksum(&forms[f], sizeof forms[f]))
                return forms[f];
        }
    return bits;
}

static void check_block_max(const float *a, int n, uint64_t seed)
{
    float got = check_max(student_blocks(), "block_max", a, n, seed);
    grade_side *you = grade_student();
    grade_require_bytes_back_at_most(you, "block_max", sizeof(float), BLOCKS_COMBINE_ON_DEVICE);
    grade_require_no_upload_after_launch(you, "block_max", BLOCKS_COMBINE_ON_DEVICE);
    /* With n = 1 the one value goes to the device and may come back as its
     * own key (a non-negative float's key is its bits), which is not a round
     * trip of the host's result; block_max_launches counts the launch. */
    uint32_t form = form_copied_back(you, got);
    grade_require_from_device(you, "block_max", "the maximum it returned", &form, sizeof form, n > 1);
}

GRADE_ITEM(tmax_results, 8, GRADE_CORRECTNESS, 60, "1,3", "tournament: exact maximum for n = 1..1050, primes, negative inputs",
           "the tournament's maximum for every n from 1 to 1050 (a third of them all negative) and primes up "
           "to 65537")
{
    grade_inputs_must_stay(); /* lab5.h: tournament_max takes a const a[]: the host's array stays as it was */
    static const int primes_above[] = {1031, 2039, 4093, 8191, 65537};
    for (int n = 1; n <= 1050; n++) {
        int negative = n % 3 == 0;
        input_kind = negative ? "whole numbers in [-999, -1]" : "whole numbers in [-999, 999]";
        float *a = seeded_floats(n, -999, negative ? -1 : 999, grade_seed_for(n));
        check_tournament_max(a, n, grade_seed_for(n));
        free(a);
    }
    input_kind = "uniform in [-1, 0)";
    for (int k = 0; k < (int)(sizeof primes_above / sizeof primes_above[0]); k++) {
        int n = primes_above[k];
        float *a = new_floats(n);
        kit_fill_uniform(a, (size_t)n, -1.0f, 0.0f, grade_seed_for(2000 + k));
        check_tournament_max(a, n, grade_seed_for(2000 + k));
        free(a);
    }
}

/* ---- tmax_launches --------------------------------------------------------------- */

/* One call of the student's `fn` on n seeded whole numbers in [-9, 9] (case
 * k), its records fresh: what the launch items read. */
static grade_side *run_for_launches(max_fn fn, int n, int k)
{
    float *a = seeded_floats(n, -9, 9, grade_seed_for(k));
    grade_side *you = grade_student();
    grade_reset_records(you);
    fn(a, n);
    free(a);
    return you;
}

GRADE_ITEM(tmax_launches, 8, GRADE_CORRECTNESS, 30, "3", "tournament: one launch per round, ceil(log2 n) rounds",
           "ceil(log2 n) launches, one per round, no block without work")
{
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 256, 257, 1000, 4097, 100003};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        run_for_launches(student_tournament(), n, k);
        int rounds = expect_one_launch_per_round("tournament_max", n, "",
                                                 " (one value is its own maximum: no launch at all)");
        for (int r = 1; r <= rounds; r++) {
            long long blocks, per_block;
            const kit_launch *l = round_launch(r, &blocks, &per_block);
            int winners = values_after(n, r);
            grade_check(blocks >= 1 && per_block >= 1, "n = %d, round %d: %s launched with an empty grid", n, r, l->kernel);
            grade_check((blocks - 1) * per_block < winners,
                        "n = %d, round %d: %s was launched with %lld blocks of %lld threads, but only %d pairs are "
                        "played in this round, so at least one whole block does nothing",
                        n, r, l->kernel, blocks, per_block, winners);
        }
    }
}

/* ---- the student's predicate ------------------------------------------------------ */

static const int predicate_sizes[] = {1, 2, 5, 8, 13, 16, 37, 100};

static float **reference_max_states(const float *a, int n)
{
    grade_side *ref = grade_reference();
    grade_reset_records(ref);
    grade_set_snapshots(ref, 1);
    GRADE_FN(ref, tournament_max)(a, n);
    int rounds = log2_rounds(n);
    grade_check(grade_snapshot_count(ref) == rounds + 1, "internal: the reference took %d snapshots for n = %d",
                grade_snapshot_count(ref), n);
    float **states = calloc((size_t)rounds + 1, sizeof *states);
    for (int r = 0; r <= rounds; r++) {
        states[r] = new_floats(n); /* room for n values: a wrong state may be offered in any round */
        memcpy(states[r], grade_snapshot_at(ref, r)->data, (size_t)values_after(n, r) * sizeof(float));
    }
    grade_set_snapshots(ref, 0);
    return states;
}

static void free_max_states(float **states, int n)
{
    for (int r = 0; r <= log2_rounds(n); r++)
        free(states[r]);
    free(states);
}

/* Distinct whole numbers, shuffled: every block has one clear winner. */
static float *distinct_floats(int n, uint64_t seed)
{
    float *a = new_floats(n);
    kit_rng rng = kit_rng_new(seed);
    for (int i = 0; i < n; i++)
        a[i] = (float)(i * 3 - n);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(kit_rng_next(&rng) % (uint64_t)(i + 1));
        float t = a[i];
        a[i] = a[j], a[j] = t;
    }
    return a;
}

/* The student's predicate and the grader's model of it (round_states.h):
 * float states, of values_after(n, round) values. */
static invariant_check max_check(void)
{
    invariant_check c = {.name = "max_invariant_holds", .floats = 1,
                         .float_student = GRADE_FN(grade_student(), max_invariant_holds),
                         .float_truly_holds = lab5_invariant_holds, .float_correct_state = lab5_tournament_state,
                         .values_after = values_after, .array = "B"};
    return c;
}

/* What a predicate item does with the state after round r of one run. */
typedef void (*max_round_fn)(const invariant_check *check, const float *a, float **states, float *wrong, int n, int r,
                             int rounds, uint64_t seed);

/* Both predicate items' runs: for each of predicate_sizes (case k:
 * distinct_floats, seed grade_seed_for(k)), the reference's states, and
 * each(...) for every round r, `wrong` room for n values. */
static void each_predicate_round(const invariant_check *check, max_round_fn each)
{
    for (int k = 0; k < (int)(sizeof predicate_sizes / sizeof predicate_sizes[0]); k++) {
        int n = predicate_sizes[k], rounds = log2_rounds(n);
        uint64_t seed = grade_seed_for(k);
        float *a = distinct_floats(n, seed);
        float **states = reference_max_states(a, n);
        float *wrong = new_floats(n);
        for (int r = 0; r <= rounds; r++)
            each(check, a, states, wrong, n, r, rounds, seed);
        free_max_states(states, n);
        free(wrong);
        free(a);
    }
}

static void accept_correct_state(const invariant_check *check, const float *a, float **states, float *wrong, int n,
                                 int r, int rounds, uint64_t seed)
{
    (void)wrong, (void)rounds;
    expect_accepted(check, a, states[r], n, r, seed, "the correct state");
}

GRADE_ITEM(tmax_predicate_accepts, 5, GRADE_CORRECTNESS, 30, "2", "your invariant accepts every correct state",
           "your invariant accepts the correct state of every round, as plain host code (no launch, no copy)")
{
    invariant_check check = max_check();
    each_predicate_round(&check, accept_correct_state);
    grade_require_written(grade_student(), "max_invariant_holds", "it accepts every state, right or wrong");
}

static void call_tournament_max(void *arg)
{
    const max_call *c = arg;
    c->fn(c->a, c->n);
}

/* The wrong states of round r: the near misses of its last winner (B[0]
 * its swap partner), another round's winners, and lab 4's in-place array. */
static void offer_max_round(const invariant_check *check, const float *a, float **states, float *wrong, int n, int r,
                            int rounds, uint64_t seed)
{
    char what[200];
    int last = values_after(n, r) - 1;
    offer_near_misses(check, a, states[r], wrong, n, r, seed, last, last > 0 ? 0 : -1);

    /* the next round's winners written over the front of this round's */
    if (r < rounds) {
        memcpy(wrong, states[r], (size_t)n * sizeof *wrong);
        memcpy(wrong, states[r + 1], (size_t)values_after(n, r + 1) * sizeof *wrong);
        snprintf(what, sizeof what, "the winners of round %d offered as those of round %d", r + 1, r);
        offer_wrong(check, a, wrong, n, r, seed, what, -1);
    } else if (r > 0) {
        snprintf(what, sizeof what, "the winners of round %d offered as those of round %d", r - 1, r);
        offer_wrong(check, a, states[r - 1], n, r, seed, what, -1);
    }

    lab5_in_place_state(a, n, r, wrong);
    snprintf(what, sizeof what, "the in-place tournament's array after round %d (lab 4's pattern), not the "
             "tournament of pairs'", r);
    offer_wrong(check, a, wrong, n, r, seed, what, -1);
}

GRADE_ITEM(tmax_predicate_rejects, 10, GRADE_CORRECTNESS, 30, "2,3", "your invariant rejects wrong states",
           "... and rejects wrong states (off by one, swapped, another round's winners, lab 4's pattern); "
           "and `tournament_max`, with snapshots on, reports a state that breaks it (the grader spoils one "
           "in device memory)")
{
    invariant_check check = max_check();
    each_predicate_round(&check, offer_max_round);
    /* lab5.h: with snapshots on, tournament_max checks the invariant after every round */
    max_call c = {student_tournament(), distinct_floats(37, grade_seed_for(90)), 37};
    grade_require_checks_every_state(call_tournament_max, &c, log2_rounds(37), "tournament_max",
                                     "max_invariant_holds");
    free((void *)c.a);
}

/* ---- Part 2: block_max ---------------------------------------------------------------- */

GRADE_ITEM(block_max_negative, 8, GRADE_CORRECTNESS, 30, "4,5,6,7", "block reduction: all-negative inputs",
           "block reduction: every value negative")
{
    static const int sizes[] = {1, 2, 5, 31, 100, 255, 256, 257, 1000, 4097, 100001};
    input_kind = "every value negative, uniform in [-1000, -1)";
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        float *a = new_floats(n);
        kit_fill_uniform(a, (size_t)n, -1000.0f, -1.0f, grade_seed_for(k));
        check_block_max(a, n, grade_seed_for(k));
        free(a);
    }
}

GRADE_ITEM(block_max_edges, 8, GRADE_CORRECTNESS, 30, "4,5,6,7", "block reduction: n = 1, n below a block, maximum first, last, repeated",
           "n = 1, n smaller than a block, the maximum first, last, repeated, all values equal")
{
    static const int sizes[] = {1, 2, 3, 31, 32, 33, 100, 255, 256, 257, 1000, 65537};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        float *a = new_floats(n);
        kit_fill_uniform(a, (size_t)n, -50.0f, 50.0f, seed);

        input_kind = "the maximum first";
        a[0] = 100.0f;
        check_block_max(a, n, seed);

        input_kind = "the maximum last";
        a[0] = -100.0f;
        a[n - 1] = 100.0f;
        check_block_max(a, n, seed);

        input_kind = "the maximum repeated every 7 elements";
        for (int i = 0; i < n; i += 7)
            a[i] = 100.0f;
        check_block_max(a, n, seed);

        input_kind = "every value the same, -3.5";
        for (int i = 0; i < n; i++)
            a[i] = -3.5f;
        check_block_max(a, n, seed);
        free(a);
    }
}

GRADE_ITEM(block_max_random, 8, GRADE_CORRECTNESS, 60, "4,5,6,7", "block reduction: random floats, large n",
           "random floats of tiny and huge magnitude, up to 2^20 + 3 (cpu) or 2^25 (GPU)")
{
    static const int cpu_sizes[] = {7, 129, 1023, 4099, 65536, (1 << 20) + 3};
    static const int gpu_sizes[] = {7, 129, 1023, 4099, 65536, (1 << 20) + 3, (1 << 24) + 1, 1 << 25};
    const int *sizes = grade_on_gpu() ? gpu_sizes : cpu_sizes;
    int count = grade_on_gpu() ? 8 : 6;
    for (int k = 0; k < count; k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        float *a = new_floats(n);
        input_kind = k % 2 ? "uniform in [-1e30, 1e30)" : "uniform in [-1e-30, 1e-30)";
        kit_fill_uniform(a, (size_t)n, k % 2 ? -1e30f : -1e-30f, k % 2 ? 1e30f : 1e-30f, seed);
        check_block_max(a, n, seed);
        free(a);
    }
}

/* A missing barrier lets a thread read a shared value before its partner
 * wrote it; which thread runs first decides whether that shows.  The
 * maximum is put in many positions, under every thread order. */
GRADE_ITEM(block_max_schedules, 8, GRADE_CORRECTNESS, 60, "5", "block reduction: right under every thread order (barriers)",
           "the maximum in many positions under every thread order of the cpu backend")
{
    static const int sizes[] = {1000, 3000};
    char kind[160];
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        float *a = new_floats(n);
        for (int s = 0; s < grade_schedule_count(); s++) {
            grade_set_schedule(grade_student(), grade_schedule_name(s));
            for (int at = 0; at < n; at += 37) {
                kit_fill_uniform(a, (size_t)n, -10.0f, -1.0f, seed);
                a[at] = 5.0f;
                snprintf(kind, sizeof kind, "the maximum at a[%d]%s%s", at, grade_on_gpu() ? "" : ", schedule ",
                         grade_on_gpu() ? "" : grade_schedule_name(s));
                input_kind = kind;
                check_block_max(a, n, seed);
            }
        }
        free(a);
    }
}

/* lab5.h's tree: shared memory with a barrier between its levels.  The
 * handout's going further finishes the last 64 values in one warp with
 * shuffles, which need no barrier, so what the header requires is a barrier
 * for each shared-memory level above one warp: log2(threads per block) - 5
 * per thread (at least one: the stores must be seen before they are read).
 * A GPU counts no barriers; grade_require_shared_tree reads its machine code. */
static void require_block_tree(grade_side *you, const char *rule)
{
    const kit_launch *l = grade_launch_at(you, 0);
    if (l->barriers < 0) {
        grade_require_shared_tree(you, 0, "block_max", rule);
        return;
    }
    long long per_block = (long long)l->block[0] * l->block[1] * l->block[2];
    long long threads = (long long)l->grid[0] * l->grid[1] * l->grid[2] * per_block;
    int levels = 0; /* levels of shared memory above a warp's 32 values */
    for (long long width = per_block; width > 32; width /= 2)
        levels++;
    if (levels < 1)
        levels = 1;
    grade_check(l->static_shared + (long long)l->shmem > 0, "block_max: its launch of %s (%s:%d) used no shared memory: %s",
                l->kernel, l->file, l->line, rule);
    grade_check(l->barriers >= levels * threads,
                "block_max: its launch of %s (%s:%d) made %lld barrier calls in %lld threads, fewer than the %d a "
                "tree over %lld values needs (one per shared-memory level down to a warp's 32, which may finish "
                "with shuffles): %s",
                l->kernel, l->file, l->line, l->barriers, threads, levels, per_block, rule);
}

GRADE_ITEM(block_max_launches, 5, GRADE_CORRECTNESS, 30, "5,7", "block reduction: a single launch",
           "one launch (two with a second pass), whose blocks reduce in a shared-memory tree (cpu backend: "
           "shared memory and a barrier per level; GPU: stores to shared memory and a barrier in the "
           "kernel's machine code)")
{
    static const int sizes[] = {1, 100, 256, 257, 100000};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        grade_side *you = run_for_launches(student_blocks(), n, k);
        int launched = grade_launch_count(you);
        grade_check(launched == 1 || launched == 2,
                    "n = %d: block_max made %d kernel launches; the point of part 2 is one launch (two if a second "
                    "pass combines the blocks' results)",
                    n, launched);
        require_block_tree(you, "lab5.h asks each block to reduce its share in shared memory, in a tree whose levels "
                                "are separated by __syncthreads()");
    }
}

struct timed_input { max_fn fn; const float *a; int n; };

static void call_max(void *arg)
{
    struct timed_input *in = arg;
    in->fn(in->a, in->n);
}

GRADE_ITEM(block_max_speed, 10, GRADE_PERFORMANCE, 120, "4,5,6,7", "block reduction: time against the reference (GPU)",
           "GPU only: your time against the reference's at n = 2^25, same run")
{
    int n = 1 << 25;
    float *a = new_floats(n);
    kit_fill_uniform(a, (size_t)n, -1.0f, 1.0f, grade_seed_for(1));
    input_kind = "uniform in [-1, 1)";
    check_block_max(a, n, grade_seed_for(1));
    struct timed_input yours = {student_blocks(), a, n};
    struct timed_input reference = {GRADE_FN(grade_reference(), block_max), a, n};
    double your_ms = grade_time_ms(grade_student(), call_max, &yours, 2, 10);
    double reference_ms = grade_time_ms(grade_reference(), call_max, &reference, 2, 10);
    grade_note("n = 2^25 on %s: your kernels %.3f ms, the reference's %.3f ms (median of 10)",
               grade_device_name(), your_ms, reference_ms);
    grade_score(grade_perf_fraction(your_ms, reference_ms));
    free(a);
    grade_explain_speed("block_max_kernel", "33554432 1", GRADE_LENS_BANDWIDTH | GRADE_LENS_LOADS | GRADE_LENS_IDLE_LANES);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab5", "999 1", "")

GRADE_LAB(5, "max-reduction", "lab5-max-reduction")
