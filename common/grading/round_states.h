/* round_states.h: grading a student's loop-invariant predicate over the
 * states of a reduction's rounds: int arrays (labs 3 and 4) or float ones
 * (lab 5).  The correct state of every round comes from the reference's
 * snapshots; the predicate must accept each of them and reject wrong states
 * that the grader's own invariant rejects. */
#ifndef ROUND_STATES_H
#define ROUND_STATES_H

#include <stdint.h>

#include "grade.h" /* kit_launch */

typedef int (*invariant_fn)(const int *original, const int *state, int n, int round);
typedef int (*float_invariant_fn)(const float *original, const float *state, int n, int round);

/* One lab's predicate and the grader's model of it.  Labs 3 and 4 fill the
 * int functions; lab 5 the float ones instead (floats = 1), with
 * values_after: the rounds of the tournament of pairs leave fewer values
 * than n.  Written once for both element types, so that every lab's
 * predicate is judged, drawn and explained the same way. */
typedef struct {
    const char *name;              /* the student's function, e.g. "fold_invariant_holds" */
    invariant_fn student;          /* that function, from the student's side */
    invariant_fn truly_holds;      /* the grader's own invariant */
    void (*correct_state)(const int *original, int n, int round, int *state);
    int floats;                    /* 1: the states are floats, and these three are used instead */
    float_invariant_fn float_student;
    float_invariant_fn float_truly_holds;
    void (*float_correct_state)(const float *original, int n, int round, float *state);
    int (*values_after)(int n, int round); /* the values a state after `round` holds; NULL: all n */
    const char *array;             /* the state's name in the feedback: "B"; NULL: "A" */
} invariant_check;

int *new_ints(int n);                                    /* zeroed, never NULL for n = 0 */
int *seeded_ints(int n, int lo, int hi, uint64_t seed);  /* whole numbers in [lo, hi] */

/* The state after each of `rounds` rounds (and round 0) of the reference's
 * `run(a, n)`, from its snapshots. */
int **reference_states(int (*run)(const int *a, int n), const int *a, int n, int rounds);
void free_states(int **states, int rounds);

/* Fails the item unless the student's predicate accepts `state`, the
 * correct state after round r of a run on `a` (named `which` in the
 * feedback: "the correct state", or how it was made from it). */
void expect_accepted(const invariant_check *c, const void *a, const void *state, int n, int r, uint64_t seed,
                     const char *which);
/* Fails the item unless the student's predicate accepts every state, and
 * every state with other values outside what the grader's invariant looks
 * at (int states). */
void expect_accepts(const invariant_check *c, const int *a, int n, int **states, int rounds, uint64_t seed);
/* The same for the state of every round of the reference's `run` on seeded
 * whole numbers in [1, 9], for each of the `count` sizes (case k: seed
 * grade_seed_for(k)). */
void expect_accepts_on_sizes(const invariant_check *c, int (*run)(const int *a, int n), const int *sizes, int count);
/* Fails the item if the student's predicate accepts `wrong` (ints or
 * floats, as c says) as the state after `round` (a state the grader's
 * invariant rejects), drawing both with element `mark` starred. */
void offer_wrong(const invariant_check *c, const void *a, const void *wrong, int n, int round, uint64_t seed,
                 const char *what, int mark);

/* offer_wrong with `state` (the state after round `round`) but A[i] and A[j]
 * swapped; `wrong` is room for n elements. */
void offer_swapped(const invariant_check *c, const void *a, const void *state, void *wrong, int n, int round,
                   uint64_t seed, int i, int j);

/* offer_wrong with the state after the round next to `r` (r + 1, or r - 1
 * after the last of `rounds`) as the state after round r. */
void offer_other_round(const invariant_check *c, const int *a, int **states, int n, int r, int rounds, uint64_t seed);

/* The near misses that labs 3, 4 and 5 all offer after round r, made from
 * `state` (the state after round r) in `wrong` (room for n elements): A[i]
 * one more than it should be; A[0] one less (when i > 0); A[i] and A[j]
 * swapped (when j >= 0).  i is the lab's last live element, j another. */
void offer_near_misses(const invariant_check *c, const void *a, const void *state, void *wrong, int n, int r,
                       uint64_t seed, int i, int j);

/* The lab's wrong states of round r: what offer_round offers for one run. */
typedef void (*offer_round_fn)(const invariant_check *c, const int *a, int **states, int *wrong, int n, int r,
                               int rounds, uint64_t seed);
/* For each of the `count` sizes (case k: seeded whole numbers in [1, 9],
 * seed grade_seed_for(k), as expect_accepts_on_sizes), the states of the
 * reference's `run` and, for every round r, offer_round's wrong states of
 * it, with `wrong` room for n ints. */
void expect_rejects_on_sizes(const invariant_check *c, int (*run)(const int *a, int n), const int *sizes, int count,
                             offer_round_fn offer_round);

/* Fails the item unless `run`, the student's `fn` on n seeded elements in
 * `rounds` rounds, with snapshots on, reports a state spoiled in device
 * memory (grade_require_checks_every_state) after round 0, 1, a middle one and
 * the last: its check of `predicate` on every state.  Not graded (a note
 * says why) when its own rounds already break `truly_holds`, the grader's
 * invariant, and it reported that: one mistake, charged by the invariant items. */
void expect_checks_every_state(int (*run)(const int *a, int n), const char *fn, const char *predicate, int n,
                               int rounds, invariant_fn truly_holds);

/* The figure of the student's rounds for the HTML report (grade_figure_rounds),
 * attached to the failure that follows: the states the student's last call
 * snapshot, round 0 to `round` (ints, or floats where `floats`), each
 * element live where live(n, r, i) says so (NULL: all), the threads each
 * round's launch started, and element `index` after `round`, which holds
 * `got` and should hold `should`: what a[from], a[from + step], ... below
 * `to` make (coloured in round 0).  Past 128 elements, the 128 around
 * `index`.  `caption` says which run it is. */
void attach_rounds_figure(int floats, int n, int round, int index, double got, double should,
                          int (*live)(int n, int round, int i), long long from, long long step, long long to,
                          const char *caption);
/* The figure for a wrong sum (int rounds): the student's `run` called again
 * on `a` with its snapshots on, its rounds drawn with A[0] after the last
 * one marked against `expected`.  Nothing where n is large (a second call
 * only to draw) or where that call stops (its own invariant check, say):
 * the drawing never changes the item's verdict. */
void attach_wrong_sum_figure(int (*run)(const int *a, int n), const int *a, int n, long long expected,
                             int (*live)(int n, int round, int i), const char *caption);

/* The rounds' launches (labs 3, 4 and 5): fails the item unless the last
 * call of the student's `fn`, on n elements, made ceil(log2 n) kernel
 * launches, one per round: "n = 5: fn made 2 kernel launches, but
 * <takes>n = 5 takes ceil(log2 n) = 3 rounds, one launch each", then
 * `when_one` for n = 1.  Returns the rounds. */
int expect_one_launch_per_round(const char *fn, int n, const char *takes, const char *when_one);
/* The launch of round r (1..rounds) of that call, with its number of
 * blocks and of threads per block. */
const kit_launch *round_launch(int r, long long *blocks, long long *per_block);

#endif
