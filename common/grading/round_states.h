/* round_states.h: grading a student's loop-invariant predicate over int
 * arrays (labs 3 and 4).  The correct state of every round comes from the
 * reference's snapshots; the predicate must accept each of them and reject
 * wrong states that the grader's own invariant rejects. */
#ifndef ROUND_STATES_H
#define ROUND_STATES_H

#include <stdint.h>

typedef int (*invariant_fn)(const int *original, const int *state, int n, int round);

typedef struct {
    const char *name;              /* the student's function, e.g. "fold_invariant_holds" */
    invariant_fn student;          /* that function, from the student's side */
    invariant_fn truly_holds;      /* the grader's own invariant */
    void (*correct_state)(const int *original, int n, int round, int *state);
} invariant_check;

int *new_ints(int n);                                    /* zeroed, never NULL for n = 0 */
int *seeded_ints(int n, int lo, int hi, uint64_t seed);  /* whole numbers in [lo, hi] */

/* The state after each of `rounds` rounds (and round 0) of the reference's
 * `run(a, n)`, from its snapshots. */ 
int **reference_states(int (*run)(const int *a, int n), const int *a, int n, int rounds);
void free_states(int **states, int rounds);

/* Fails the item unless the student's predicate accepts every state. */
void expect_accepts(const invariant_check *c, const int *a, int n, int **states, int rounds, uint64_t seed);
/* The same for the state of every round of the reference's `run` on seeded
 * whole numbers in [1, 9], for each of the `count` sizes (case k: seed
 * grade_seed_for(k)). */
void expect_accepts_on_sizes(const invariant_check *c, int (*run)(const int *a, int n), const int *sizes, int count);
/* Fails the item if the student's predicate accepts `wrong` as the state
 * after `round` (a state the grader's invariant rejects), drawing both
 * with element `mark` starred. */
void offer_wrong(const invariant_check *c, const int *a, const int *wrong, int n, int round, uint64_t seed,
                 const char *what, int mark);

/* offer_wrong with `state` (the state after round `round`) but A[i] and A[j]
 * swapped; `wrong` is room for n ints. */
void offer_swapped(const invariant_check *c, const int *a, const int *state, int *wrong, int n, int round,
                   uint64_t seed, int i, int j);

/* offer_wrong with the state after the round next to `r` (r + 1, or r - 1
 * after the last of `rounds`) as the state after round r. */
void offer_other_round(const invariant_check *c, const int *a, int **states, int n, int r, int rounds, uint64_t seed);

/* Fails the item unless `run`, the student's `fn` on n seeded elements in
 * `rounds` rounds, with snapshots on, reports a state spoiled in device
 * memory (grade_require_checks_every_state) after round 0, 1, a middle one and
 * the last: its check of `predicate` on every state.  Not graded (a note
 * says why) when its own rounds already break `truly_holds`, the grader's
 * invariant, and it reported that: one mistake, charged by the invariant items. */
void expect_checks_every_state(int (*run)(const int *a, int n), const char *fn, const char *predicate, int n,
                               int rounds, invariant_fn truly_holds);

#endif
