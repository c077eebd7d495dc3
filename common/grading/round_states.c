/* round_states.c: see round_states.h. */
#include "round_states.h"

#include <stdlib.h>
#include <string.h>

#include "grade.h"

enum { PICTURE_MAX = 40 }; /* larger arrays are described, not drawn */

int *new_ints(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(int)); }

int *seeded_ints(int n, int lo, int hi, uint64_t seed)
{
    int *a = new_ints(n);
    if (!a)
        grade_fail("grading error: no host memory for n = %d", n);
    kit_fill_ints(a, (size_t)n, lo, hi, seed);
    return a;
}

int **reference_states(int (*run)(const int *a, int n), const int *a, int n, int rounds)
{
    grade_side *ref = grade_reference();
    grade_reset_records(ref);
    grade_set_snapshots(ref, 1);
    run(a, n);
    grade_check(grade_snapshot_count(ref) == rounds + 1, "internal: the reference took %d snapshots for n = %d",
                grade_snapshot_count(ref), n);
    int **states = calloc((size_t)rounds + 1, sizeof *states);
    for (int r = 0; r <= rounds; r++) {
        states[r] = new_ints(n);
        memcpy(states[r], grade_snapshot_at(ref, r)->data, (size_t)n * sizeof(int));
    }
    grade_set_snapshots(ref, 0);
    return states;
}

void free_states(int **states, int rounds)
{
    for (int r = 0; r <= rounds; r++)
        free(states[r]);
    free(states);
}

void expect_accepts(const invariant_check *c, const int *a, int n, int **states, int rounds, uint64_t seed)
{
    for (int r = 0; r <= rounds; r++)
        if (!c->student(a, states[r], n, r)) {
            if (n <= PICTURE_MAX) {
                grade_picture_ints("original a[]", a, n, -1, -1);
                grade_picture_ints("the correct state", states[r], n, -1, -1);
            }
            grade_fail("%s(original, state, n = %d, round = %d) returned 0 for the correct state after round %d "
                       "(seed %llu): an invariant must hold on every correct run",
                       c->name, n, r, r, (unsigned long long)seed);
        }
    grade_require_written(grade_student(), c->name, "it accepts every state, right or wrong");
}

void offer_wrong(const invariant_check *c, const int *a, const int *wrong, int n, int round, uint64_t seed,
                 const char *what, int mark)
{
    if (c->truly_holds(a, wrong, n, round))
        return; /* this change happens to keep the invariant: not a wrong state */
    if (!c->student(a, wrong, n, round))
        return;
    if (n <= PICTURE_MAX) {
        int *right = new_ints(n);
        c->correct_state(a, n, round, right);
        grade_picture_ints("original a[]", a, n, -1, -1);
        grade_picture_ints("the correct state", right, n, mark, mark + 1);
        grade_picture_ints("the state it accepted", wrong, n, mark, mark + 1);
        free(right);
    }
    grade_fail("%s(original, state, n = %d, round = %d) returned 1 for a wrong state: %s (seed %llu). An invariant "
               "this weak would let a broken kernel pass its own assert",
               c->name, n, round, what, (unsigned long long)seed);
}
