/* lab4-tournament.c: the grading suite of lab 4 (the tournament-tree sum).
 *
 *   naive_invariant / compact_invariant   the grader's own invariant on every round's snapshot (exact)
 *   naive_sums_exact / compact_sums_exact the sum for every n from 1 to 1050 and some primes above
 *   tournament_large                      both mappings for large n (compact: a round at D = 2^23)
 *   naive_launches                        one launch per round, ceil(log2 n) rounds, a thread per element
 *   compact_launches                      the same, and no block launched without work
 *   tournament_predicate_accepts          your tournament_invariant_holds() accepts every correct state
 *   tournament_predicate_rejects          ... and rejects wrong ones
 *
 * The data are small integers, so every sum is exact whatever the order.
 * The invariant and sums items also check, from the copy record, that the
 * device did the work: the sum returned is A[0] as the rounds left it, copied
 * back, and nothing goes from the host to the device between rounds.
 *
 * The header's rules and the items that check them:
 *   n elements take ceil(log2 n) rounds, one launch per round, none for n = 1 -> naive_launches,
 *       compact_launches
 *   round r adds A[i + D] into A[i] for multiples i of 2D with i + D < n, D = 2^(r-1) -> naive_invariant,
 *       compact_invariant
 *   after each round, every multiple i of W holds a[i] + ... + a[min(i + W, n) - 1] -> naive_invariant,
 *       compact_invariant
 *   an element that lost a round keeps the value it had then -> naive_invariant, compact_invariant
 *   both functions return the sum of a[0..n-1] for every n >= 1 -> naive_sums_exact, compact_sums_exact,
 *       tournament_large
 *   the sum is A[0] after the last round, played on the device and copied back -> naive_invariant,
 *       compact_invariant, naive_sums_exact, compact_sums_exact, tournament_large
 *   both functions leave the host array a unchanged -> naive_sums_exact, compact_sums_exact
 *   SNAPSHOT(d_a, n, round) after every round, round 0 included -> naive_invariant, compact_invariant
 *   with snapshots on, both check tournament_invariant_holds on every state -> tournament_predicate_rejects
 *       (a state spoiled in device memory must be reported)
 *   naive mapping: thread i looks after element i -> naive_launches (a thread for each element in
 *       every round, no block past them)
 *   compact mapping: thread t looks after element 2Dt, as many threads as pairs -> compact_launches,
 *       compact_invariant
 *   compact mapping: no warp is launched without work -> compact_launches (idle whole blocks only)
 *   tournament_invariant_holds returns 1 for every correct state -> tournament_predicate_accepts
 *   tournament_invariant_holds returns 0 for a wrong state -> tournament_predicate_rejects
 *   tournament_invariant_holds is plain host code, run on the CPU -> tournament_predicate_accepts,
 *       tournament_predicate_rejects
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "round_states.h"
#include "lab4.h"
#include "lab4-tournament/model.h"
#define GRADE_STUBS
#include "calls.h"
#include "lab4-tournament/lab-calls.h"

typedef int (*sum_fn)(const int *a, int n);
enum { PICTURE_MAX = 40, WARP = 32 };

/* ---- the rounds, as lab4.h defines them ---------------------------------------- */

/* The model of the rounds (the block of each element, the state after a
 * round, the invariant itself) is in lab4-tournament/model.h. */

static void describe_terms(char *out, size_t size, const int *a, int n, int i, long long width)
{
    long long end = i + width < n ? i + width : n;
    if (end - i == 1)
        snprintf(out, size, "a[%d] = %lld", i, lab4_block_sum(a, n, i, width));
    else if (end - i <= 4) {
        size_t used = 0;
        for (long long j = i; j < end && used < size; j++)
            used += (size_t)snprintf(out + used, size - used, "%sa[%lld]", j > i ? " + " : "", j);
        if (used < size)
            snprintf(out + used, size - used, " = %lld", lab4_block_sum(a, n, i, width));
    } else
        snprintf(out, size, "a[%d] + a[%d] + ... + a[%lld] = %lld", i, i + 1, end - 1,
                 lab4_block_sum(a, n, i, width));
}

static sum_fn student_sum(int compact)
{
    return compact ? GRADE_FN(grade_student(), tournament_sum_compact) : GRADE_FN(grade_student(), tournament_sum_naive);
}

static const char *mapping_name(int compact) { return compact ? "tournament_sum_compact" : "tournament_sum_naive"; }

#define ROUNDS_STAY_ON_DEVICE "the rounds play the tournament where it is, in device memory; nothing from the host " \
                              "enters it between rounds"

/* ---- the invariant on every snapshot ------------------------------------------------ */

/* The elements still in play after round k, the multiples of 2^k (the report's figure). */
static int winner_after(int n, int k, int i) { (void)n; return i % (1 << k) == 0; }

static void check_rounds(int compact, const int *a, int n, uint64_t seed, const char *schedule)
{
    grade_side *you = grade_student_recording_rounds(schedule);
    int got = student_sum(compact)(a, n);
    grade_set_snapshots(you, 0);

    int rounds = log2_rounds(n), taken = grade_snapshot_count(you);
    char where[128];
    snprintf(where, sizeof where, "%s, n = %d, seed %llu%s%s", mapping_name(compact), n, (unsigned long long)seed,
             grade_on_gpu() ? "" : ", schedule ", grade_on_gpu() ? "" : schedule);
    for (int k = 0; k < taken && k <= rounds; k++) {
        const kit_snapshot *s = grade_snapshot_at(you, k);
        grade_check(s->round == k && s->count == (size_t)n && s->element_size == sizeof(int),
                    "%s: snapshot %d is labelled round %d with %zu elements; expected round %d with all %d elements: "
                    "call SNAPSHOT(d_a, n, round) once after every round",
                    where, k, s->round, s->count, k, n);
        const int *state = s->data;
        for (int i = 0; i < n; i++) {
            long long width = lab4_block_width(k, i);
            long long needed = lab4_block_sum(a, n, i, width);
            if (state[i] == needed)
                continue;
            char terms[256];
            describe_terms(terms, sizeof terms, a, n, i, width);
            attach_rounds_figure(0, n, k, i, state[i], (double)needed, winner_after, i, 1,
                                 i + width < n ? i + width : n, where);
            if (n <= PICTURE_MAX) {
                int *expected = new_ints(n);
                lab4_tournament_state(a, n, k, expected);
                grade_picture_ints("the array you have", state, n, i, i + 1);
                grade_picture_ints("what the invariant needs", expected, n, i, i + 1);
                free(expected);
            }
            if (i % (1LL << k) == 0)
                grade_fail("%s %d (D = %lld), %s: A[%d] = %d but the invariant needs %s%s", k ? "after round" : "at round",
                           k, k ? 1LL << (k - 1) : 0, where, i, state[i], terms, grade_guard_hint_int(state[i], needed, "A", n));
            grade_fail("after round %d (D = %lld), %s: A[%d] = %d, but A[%d] is not a multiple of %lld, so it has "
                       "lost, and a loser keeps the value it had when it lost: %s (a round writes only multiples of 2D)%s",
                       k, 1LL << (k - 1), where, i, state[i], i, 1LL << k, terms, grade_guard_hint_int(state[i], needed, "A", n));
        }
    }
    grade_check(taken == rounds + 1,
                "%s: found %d snapshots, but n = %d needs %d rounds, so %d snapshots (round 0, then one after every "
                "round); the loop makes one round too %s, or SNAPSHOT is missing",
                where, taken, n, rounds, rounds + 1, taken > rounds + 1 ? "many" : "few");
    const int *last = grade_snapshot_at(you, rounds)->data;
    grade_check(got == last[0], "%s: it returned %d, but after the last round A[0] = %d: the sum returned is the one "
                "the rounds left in A[0], copied back", where, got, last[0]);
    grade_require_no_upload_after_launch(you, mapping_name(compact), ROUNDS_STAY_ON_DEVICE);
}

static void check_invariant(int compact)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 100, 255, 256, 257, 1000, 1025};
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        uint64_t seed = grade_seed_for(k);
        int *a = seeded_ints(n, 1, 9, seed);
        int orders = n >= 32 ? grade_schedule_count() : 1;
        for (int s = 0; s < orders; s++)
            check_rounds(compact, a, n, seed, grade_schedule_name(s));
        free(a);
    }
}

GRADE_ITEM(naive_invariant, 12, GRADE_CORRECTNESS, 60, "1,4", "naive mapping: the invariant holds after every round",
           "the grader's own invariant on every round's snapshot of the naive tournament (cpu backend: every "
           "thread order)")
{ check_invariant(0); }
GRADE_ITEM(compact_invariant, 12, GRADE_CORRECTNESS, 60, "2,5", "compact mapping: the invariant holds after every round",
           "the same for the compact tournament")
{ check_invariant(1); }

/* ---- sums -------------------------------------------------------------------------- */

static void check_sum(int compact, int n, uint64_t seed, int lo, int hi)
{
    int *a = seeded_ints(n, lo, hi, seed);
    /* no zeros: with a[1] = 0, n = 2 ends with a[] as it began, and a copy of the
     * final array back into the caller's a[] would go unseen there */
    for (int i = 0; i < n; i++)
        if (a[i] == 0)
            a[i] = hi;
    grade_side *you = grade_student();
    grade_reset_records(you);
    int got = student_sum(compact)(a, n);
    long long expected = kit_sum_ints(a, (size_t)n);
    if (got != expected) {
        if (n <= PICTURE_MAX)
            grade_picture_ints("the input", a, n, -1, -1);
        char caption[128];
        snprintf(caption, sizeof caption, "%s, n = %d, seed %llu: the sum returned is %d, the sum is %lld",
                 mapping_name(compact), n, (unsigned long long)seed, got, expected);
        attach_wrong_sum_figure(student_sum(compact), a, n, expected, winner_after, caption);
        grade_fail("n = %d (seed %llu, integers in [%d, %d]): %s returned %d but the sum is %lld%s", n,
                   (unsigned long long)seed, lo, hi, mapping_name(compact), got, expected,
                   grade_guard_hint_int(got, expected, "A", n));
    }
    grade_require_no_upload_after_launch(you, mapping_name(compact), ROUNDS_STAY_ON_DEVICE);
    /* n = 1 needs no round: its sum goes to the device and back as it is */
    grade_require_from_device(you, mapping_name(compact), "the sum it returned", &got, sizeof got, n > 1);
    free(a);
}

static void check_sums(int compact)
{
    grade_inputs_must_stay(); /* lab4.h: both take a const a[]: the host's array stays as it was */
    static const int primes_above[] = {1031, 2039, 4093, 8191, 65537};
    for (int n = 1; n <= 1050; n++)
        check_sum(compact, n, grade_seed_for(n), -9, 9);
    for (int k = 0; k < (int)(sizeof primes_above / sizeof primes_above[0]); k++)
        check_sum(compact, primes_above[k], grade_seed_for(2000 + k), -9, 9);
}

GRADE_ITEM(naive_sums_exact, 8, GRADE_CORRECTNESS, 60, "1,4", "naive mapping: exact sums for n = 1..1050 and primes above",
           "naive: the sum for every n from 1 to 1050 and primes up to 65537")
{ check_sums(0); }
GRADE_ITEM(compact_sums_exact, 8, GRADE_CORRECTNESS, 60, "2,5", "compact mapping: exact sums for n = 1..1050 and primes above",
           "compact: the same")
{ check_sums(1); }

/* Above 2^23 elements a round plays at D = 2^23, where 2Dt passes 2^31 from
 * t = 128 on: a compact thread past the pairs (the last block has up to
 * 255) that computes its element before it tests t < pairs gets a negative
 * int.  So the cpu backend, whose sizes otherwise stop at 2^20, plays the
 * compact tournament once over 2^23 + 5 too: its threads number about n in
 * all (0.2 s); the naive one's, n in every round (4 s), would cost too much
 * for an overflow it cannot have. */
GRADE_ITEM(tournament_large, 8, GRADE_CORRECTNESS, 60, "1,2,4,5", "both mappings: exact sums for large n",
           "both, for n = 2^20 + 7 (cpu backend) or 2^24, 2^24 + 3, 2^25 + 1 (GPU); on the cpu backend the "
           "compact one for n = 2^23 + 5 too, whose round at d = 2^23 overflows an int where 2dt is computed "
           "before t < pairs is tested")
{
    static const int cpu_sizes[] = {(1 << 20) + 7};
    static const int gpu_sizes[] = {1 << 24, (1 << 24) + 3, (1 << 25) + 1};
    grade_inputs_must_stay(); /* (as in the exact sums: a copy back into a[] is named as such) */
    const int *sizes = grade_on_gpu() ? gpu_sizes : cpu_sizes;
    int count = grade_on_gpu() ? 3 : 1;
    for (int compact = 0; compact <= 1; compact++)
        for (int k = 0; k < count; k++)
            check_sum(compact, sizes[k], grade_seed_for(k), -50, 50);
    if (grade_on_gpu())
        return;
    grade_hint_on_error("(n = 2^23 + 5 has a round at D = 2^23, where 2Dt passes 2^31, the largest int, from t = 128 "
                        "on, and the last block of the compact tournament has threads up to t = 255: does your "
                        "compact kernel test t < pairs before it computes 2Dt? An index that wraps to a negative int "
                        "reads and writes far before the array.)");
    check_sum(1, (1 << 23) + 5, grade_seed_for(count), -50, 50);
}

/* ---- launches -------------------------------------------------------------------- */

static const int launch_sizes[] = {1, 2, 3, 5, 8, 13, 64, 100, 256, 257, 1000, 4097, 100003};

static void check_launches(int compact)
{
    for (int k = 0; k < (int)(sizeof launch_sizes / sizeof launch_sizes[0]); k++) {
        int n = launch_sizes[k];
        int *a = seeded_ints(n, 0, 9, grade_seed_for(k));
        grade_side *you = grade_student();
        grade_reset_records(you);
        student_sum(compact)(a, n);
        int rounds = expect_one_launch_per_round(mapping_name(compact), n, "a tournament over ",
                                                 " (n = 1 needs no launch at all)");
        for (int r = 1; r <= rounds; r++) {
            long long blocks, per_block;
            const kit_launch *l = round_launch(r, &blocks, &per_block);
            grade_check(blocks >= 1 && per_block >= 1, "n = %d, round %d: %s launched with an empty grid", n, r, l->kernel);
            long long last_block_start = (blocks - 1) * per_block;
            if (!compact) {
                /* naive: thread i looks after element i, so every round launches
                 * a thread for each of the n elements, and no block beyond them */
                grade_check(blocks * per_block >= n,
                            "n = %d, round %d: %s launched %lld threads (%lld blocks of %lld), fewer than the n = %d "
                            "elements: in the naive mapping thread i looks after element i, in every round (launching "
                            "only the threads the pairs need is the compact mapping, TODO 5)",
                            n, r, l->kernel, blocks * per_block, blocks, per_block, n);
                grade_check(last_block_start < n,
                            "n = %d, round %d: %s launched %lld blocks of %lld threads, but thread i looks after element "
                            "i: the last block starts past the n = %d elements; launch ceil(n / threads per block) blocks",
                            n, r, l->kernel, blocks, per_block, n);
                continue;
            }
            /* compact: every block but the last must be full of work: the grid
             * is about pairs / blockDim blocks, not n / blockDim as in the naive mapping */
            long long d = 1LL << (r - 1);
            long long pairs = (n - d + 2 * d - 1) / (2 * d);
            grade_check(last_block_start < pairs,
                        "n = %d, round %d (D = %lld): %s was launched with %lld blocks of %lld threads, but only %lld "
                        "threads have work (one per multiple i of 2D with i + D < n), so the block starting at thread "
                        "%lld has nothing to do; launch ceil(pairs / threads per block) blocks",
                        n, r, d, l->kernel, blocks, per_block, pairs, last_block_start);
        }
        free(a);
    }
}

GRADE_ITEM(naive_launches, 6, GRADE_CORRECTNESS, 30, "4", "naive mapping: one launch per round, ceil(log2 n) rounds",
           "ceil(log2 n) launches, one per round")
{ check_launches(0); }
GRADE_ITEM(compact_launches, 14, GRADE_CORRECTNESS, 30, "5", "compact mapping: one launch per round, no warp without work",
           "the same, and no launched block without a pair to play (the grader reads the grid and block "
           "sizes of each launch)")
{ check_launches(1); }

/* ---- the student's predicate ---------------------------------------------------- */

static invariant_check tournament_check(void)
{
    invariant_check c = {.name = "tournament_invariant_holds",
                         .student = GRADE_FN(grade_student(), tournament_invariant_holds),
                         .truly_holds = lab4_winners_hold, .correct_state = lab4_tournament_state};
    return c;
}

static const int predicate_sizes[] = {1, 2, 5, 8, 13, 16, 37, 100};

GRADE_ITEM(tournament_predicate_accepts, 8, GRADE_CORRECTNESS, 30, "3", "your invariant accepts every correct state",
           "your invariant accepts the correct state of every round, as plain host code (no launch, no copy)")
{
    invariant_check check = tournament_check();
    expect_accepts_on_sizes(&check, GRADE_FN(grade_reference(), tournament_sum_compact), predicate_sizes,
                            (int)(sizeof predicate_sizes / sizeof predicate_sizes[0]));
}

/* The tournament's wrong states of round r: the near misses of its last
 * winner (not A[0] unless it is the only one), and lab 3's state. */
static void offer_tournament_round(const invariant_check *check, const int *a, int **states, int *wrong, int n, int r,
                                   int rounds, uint64_t seed)
{
    int width = 1 << r;
    int last = (n - 1) / width * width;
    /* swap with another winner if one differs, else with any element */
    int j = -1;
    for (int pass = 0; pass < 2 && j < 0; pass++)
        for (int c = 0; c < n && j < 0; c++)
            if (c != last && states[r][c] != states[r][last] && (pass == 1 || c % width == 0))
                j = c;
    offer_near_misses(check, a, states[r], wrong, n, r, seed, last, j);
    offer_other_round(check, a, states, n, r, rounds, seed);

    char what[200];
    lab4_folding_state(a, n, r, wrong);
    snprintf(what, sizeof what, "folding's state after round %d (lab 3's algorithm), not the tournament's", r);
    offer_wrong(check, a, wrong, n, r, seed, what, -1);
}

GRADE_ITEM(tournament_predicate_rejects, 14, GRADE_CORRECTNESS, 30, "3,4,5", "your invariant rejects wrong states",
           "... and rejects wrong states; and both sums, with snapshots on, report a state that breaks the "
           "invariant (the grader spoils one in device memory)")
{
    invariant_check check = tournament_check();
    expect_rejects_on_sizes(&check, GRADE_FN(grade_reference(), tournament_sum_compact), predicate_sizes,
                            (int)(sizeof predicate_sizes / sizeof predicate_sizes[0]), offer_tournament_round);
    /* lab4.h: with snapshots on, both check the invariant on every state */
    expect_checks_every_state(GRADE_FN(grade_student(), tournament_sum_naive), "tournament_sum_naive",
                              "tournament_invariant_holds", 37, log2_rounds(37), check.truly_holds);
    expect_checks_every_state(GRADE_FN(grade_student(), tournament_sum_compact), "tournament_sum_compact",
                              "tournament_invariant_holds", 37, log2_rounds(37), check.truly_holds);
}

/* ---- on a GPU: compute-sanitizer on a small run of the lab program ---------------- */

GRADE_SANITIZER_ITEM(10, "lab4", "1000 1", "")

GRADE_LAB(4, "tournament", "lab4-tournament")
