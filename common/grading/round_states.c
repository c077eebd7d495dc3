/* round_states.c: see round_states.h. */
#include "round_states.h"

#include <stdio.h>
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

/* ---- one state, of ints or of floats, as the check says ---------------------------- */

static int values_in(const invariant_check *c, int n, int round)
{
    return c->values_after ? c->values_after(n, round) : n;
}

static int grader_holds(const invariant_check *c, const void *a, const void *state, int n, int round)
{
    return c->floats ? c->float_truly_holds(a, state, n, round) : c->truly_holds(a, state, n, round);
}

/* The correct state after `round`, in room for n elements (to be freed). */
static void *new_correct_state(const invariant_check *c, const void *a, int n, int round)
{
    void *state = calloc((size_t)(n > 0 ? n : 1), c->floats ? sizeof(float) : sizeof(int));
    if (!state)
        grade_fail("grading error: no host memory for n = %d", n);
    if (c->floats)
        c->float_correct_state(a, n, round, state);
    else
        c->correct_state(a, n, round, state);
    return state;
}

static void picture(const invariant_check *c, const char *label, const void *values, int count, int from, int to)
{
    if (c->floats)
        grade_picture_floats(label, values, count, from, to);
    else
        grade_picture_ints(label, values, count, from, to);
}

/* The student's predicate on one state: plain host code, so no launch and no copy. */
static int student_says(const invariant_check *c, const void *a, const void *state, int n, int round)
{
    grade_reset_records(grade_student());
    int holds = c->floats ? c->float_student(a, state, n, round) : c->student(a, state, n, round);
    grade_require_host_only(grade_student(), c->name);
    return holds;
}

/* ---- the predicate's verdicts ------------------------------------------------------- */

static double element(const invariant_check *c, const void *values, int i)
{
    return c->floats ? ((const float *)values)[i] : ((const int *)values)[i];
}

enum { STATE_WINDOW = 128 }; /* elements of a judged state drawn: the ones around the marked one */

/* The report's figure for the predicate's verdict on one state: the
 * original array, the correct state after `round` and the state judged,
 * its elements that differ from the correct ones red and element `mark`
 * marked (-1: none, where the state judged is correct). */
static void attach_state_figure(const invariant_check *c, const void *a, const void *judged, int n, int round,
                                int mark, const char *caption)
{
    void *right = new_correct_state(c, a, n, round);
    int values = values_in(c, n, round);
    int first = mark > STATE_WINDOW / 2 && n > STATE_WINDOW ? mark - STATE_WINDOW / 2 : 0;
    if (n > STATE_WINDOW && first + STATE_WINDOW > n)
        first = n - STATE_WINDOW;
    double row[STATE_WINDOW];
    unsigned char flags[STATE_WINDOW];
    grade_figure_rounds(caption);
    const void *arrays[3] = {a, right, judged};
    const char *labels[3] = {"original a[]", "the correct state", "the state judged"};
    for (int k = 0; k < 3; k++) {
        int count = (k ? values : n) - first;
        count = count > STATE_WINDOW ? STATE_WINDOW : count < 0 ? 0 : count;
        for (int i = 0; i < count; i++) {
            row[i] = element(c, arrays[k], first + i);
            flags[i] = k == 2 && row[i] != element(c, right, first + i) ? GRADE_CELL_WRONG : 0;
        }
        grade_figure_round(labels[k], row, flags, count, -1);
    }
    if (mark >= first && mark < values)
        grade_figure_mark(2, mark - first, element(c, judged, mark), element(c, right, mark));
    free(right);
}

void expect_accepted(const invariant_check *c, const void *a, const void *state, int n, int r, uint64_t seed,
                     const char *which)
{
    if (student_says(c, a, state, n, r))
        return;
    char caption[160];
    snprintf(caption, sizeof caption, "%s rejected %s after round %d (n = %d, seed %llu)", c->name, which, r, n,
             (unsigned long long)seed);
    attach_state_figure(c, a, state, n, r, -1, caption);
    if (n <= PICTURE_MAX) {
        picture(c, "original a[]", a, n, -1, -1);
        picture(c, which, state, values_in(c, n, r), -1, -1);
    }
    grade_fail("%s(original, state, n = %d, round = %d) returned 0 for %s after round %d (seed %llu): an invariant "
               "must hold on every correct run%s", c->name, n, r, which, r, (unsigned long long)seed,
               strcmp(which, "the correct state") ? "; the elements outside the live part are not part of it" : "");
}

void expect_accepts(const invariant_check *c, const int *a, int n, int **states, int rounds, uint64_t seed)
{
    int *outside = new_ints(n);
    for (int r = 0; r <= rounds; r++) {
        expect_accepted(c, a, states[r], n, r, seed, "the correct state");
        /* every element the grader's invariant ignores changed: still correct */
        memcpy(outside, states[r], (size_t)n * sizeof *outside);
        int changed = 0;
        for (int i = 0; i < n; i++) {
            outside[i] += 1000;
            if (c->truly_holds(a, outside, n, r))
                changed = 1;
            else
                outside[i] -= 1000;
        }
        if (changed)
            expect_accepted(c, a, outside, n, r, seed, "a correct live part, other values outside it");
    }
    free(outside);
    grade_require_written(grade_student(), c->name, "it accepts every state, right or wrong");
}

void offer_wrong(const invariant_check *c, const void *a, const void *wrong, int n, int round, uint64_t seed,
                 const char *what, int mark)
{
    if (grader_holds(c, a, wrong, n, round))
        return; /* this change happens to keep the invariant: not a wrong state */
    if (!student_says(c, a, wrong, n, round))
        return;
    char caption[200];
    snprintf(caption, sizeof caption, "%s accepted a wrong state after round %d: %s (n = %d, seed %llu)", c->name,
             round, what, n, (unsigned long long)seed);
    attach_state_figure(c, a, wrong, n, round, mark, caption);
    if (n <= PICTURE_MAX) {
        void *right = new_correct_state(c, a, n, round);
        int values = values_in(c, n, round);
        picture(c, "original a[]", a, n, -1, -1);
        picture(c, "the correct state", right, values, mark, mark + 1);
        picture(c, "the state it accepted", wrong, values, mark, mark + 1);
        free(right);
    }
    grade_fail("%s(original, state, n = %d, round = %d) returned 1 for a wrong state: %s (seed %llu). An invariant "
               "this weak would let a broken kernel pass its own assert",
               c->name, n, round, what, (unsigned long long)seed);
}

typedef struct {
    int (*run)(const int *a, int n);
    const int *a;
    int n;
} round_call;

static void call_run(void *arg)
{
    round_call *c = arg;
    c->run(c->a, c->n);
}

/* The student's own rounds, run on c with snapshots on: how many states
 * they snapshot, and whether one already breaks the grader's invariant
 * while the code said so on stderr.  Then the
 * rounds are the mistake, which the invariant items charge, and its check
 * works: spoiling a state already wrong would change nothing it says, and
 * blame the check for the rounds a second time.  `*round` is that state's. */
static int rounds_broken_and_reported(round_call *c, invariant_fn truly_holds, int *round, int *states)
{
    grade_side *you = grade_student();
    grade_set_snapshots(you, 1);
    grade_reset_records(you); /* this call's snapshots only */
    call_run(c); /* (stopping here fails the item, as grade_require_noticed's first call would) */
    int reported = grade_output(you, 2)[0] != '\0';
    int broken = 0;
    *states = grade_snapshot_count(you);
    for (int i = 0; reported && !broken && i < *states; i++) {
        const kit_snapshot *s = grade_snapshot_at(you, i);
        if (s->element_size == sizeof(int) && s->count >= (size_t)c->n &&
            !truly_holds(c->a, (const int *)s->data, c->n, s->round))
            broken = 1, *round = s->round;
    }
    grade_set_snapshots(you, 0);
    return reported && broken;
}

void expect_checks_every_state(int (*run)(const int *a, int n), const char *fn, const char *predicate, int n,
                               int rounds, invariant_fn truly_holds)
{
    round_call c = {run, seeded_ints(n, 1, 9, grade_seed_for(90)), n};
    int round = 0, states = 0;
    if (rounds_broken_and_reported(&c, truly_holds, &round, &states)) {
        grade_note("%s's check of %s on every state was not graded: its own rounds already break the invariant "
                   "(after round %d for n = %d), and it said so; the invariant items charge that mistake",
                   fn, predicate, round, n);
        free((void *)c.a);
        return;
    }
    /* The first state, the second, a middle one and the last
     * (grade_require_checks_every_state's), but only those the code makes:
     * a round it never makes is the launch items' to charge, not a silence. */
    const int spoiled[] = {0, 1, rounds / 2 + 1, rounds};
    for (int k = 0; k < 4; k++)
        if (spoiled[k] <= rounds && spoiled[k] < states && (k == 0 || spoiled[k] > spoiled[k - 1]))
            grade_require_noticed(call_run, &c, KIT_SPOIL_SNAPSHOT, spoiled[k], fn, predicate);
    free((void *)c.a);
}

int log2_rounds(int n)
{
    int rounds = 0;
    while ((1LL << rounds) < n)
        rounds++;
    return rounds;
}

void expect_accepts_on_sizes(const invariant_check *c, int (*run)(const int *a, int n), const int *sizes, int count)
{
    for (int k = 0; k < count; k++) {
        int n = sizes[k], rounds = log2_rounds(n);
        uint64_t seed = grade_seed_for(k);
        int *a = seeded_ints(n, 1, 9, seed);
        int **states = reference_states(run, a, n, rounds);
        expect_accepts(c, a, n, states, rounds, seed);
        free_states(states, rounds);
        free(a);
    }
}

void offer_other_round(const invariant_check *c, const int *a, int **states, int n, int r, int rounds, uint64_t seed)
{
    int other = r < rounds ? r + 1 : r - 1;
    if (other < 0)
        return;
    char what[160];
    snprintf(what, sizeof what, "the state after round %d offered as the state after round %d", other, r);
    offer_wrong(c, a, states[other], n, r, seed, what, -1);
}

static size_t element_size(const invariant_check *c) { return c->floats ? sizeof(float) : sizeof(int); }

/* `state` in `wrong`, with `delta` added to element i. */
static void copy_with_delta(const invariant_check *c, const void *state, void *wrong, int n, int i, int delta)
{
    memcpy(wrong, state, (size_t)n * element_size(c));
    if (c->floats)
        ((float *)wrong)[i] += (float)delta;
    else
        ((int *)wrong)[i] += delta;
}

void offer_swapped(const invariant_check *c, const void *a, const void *state, void *wrong, int n, int round,
                   uint64_t seed, int i, int j)
{
    char what[160];
    size_t size = element_size(c);
    memcpy(wrong, state, (size_t)n * size);
    memcpy((char *)wrong + (size_t)i * size, (const char *)state + (size_t)j * size, size);
    memcpy((char *)wrong + (size_t)j * size, (const char *)state + (size_t)i * size, size);
    const char *name = c->array ? c->array : "A";
    snprintf(what, sizeof what, "%s[%d] and %s[%d] swapped, after round %d", name, j, name, i, round);
    offer_wrong(c, a, wrong, n, round, seed, what, i);
}

void offer_near_misses(const invariant_check *c, const void *a, const void *state, void *wrong, int n, int r,
                       uint64_t seed, int i, int j)
{
    char what[200];
    const char *name = c->array ? c->array : "A";
    copy_with_delta(c, state, wrong, n, i, 1);
    snprintf(what, sizeof what, "%s[%d] one more than it should be, after round %d", name, i, r);
    offer_wrong(c, a, wrong, n, r, seed, what, i);

    if (i > 0) {
        copy_with_delta(c, state, wrong, n, 0, -1);
        snprintf(what, sizeof what, "%s[0] one less than it should be, after round %d", name, r);
        offer_wrong(c, a, wrong, n, r, seed, what, 0);
    }
    if (j >= 0)
        offer_swapped(c, a, state, wrong, n, r, seed, i, j);
}

void expect_rejects_on_sizes(const invariant_check *c, int (*run)(const int *a, int n), const int *sizes, int count,
                             offer_round_fn offer_round)
{
    for (int k = 0; k < count; k++) {
        int n = sizes[k], rounds = log2_rounds(n);
        uint64_t seed = grade_seed_for(k);
        int *a = seeded_ints(n, 1, 9, seed);
        int **states = reference_states(run, a, n, rounds);
        int *wrong = new_ints(n);
        for (int r = 0; r <= rounds; r++)
            offer_round(c, a, states, wrong, n, r, rounds, seed);
        free_states(states, rounds);
        free(wrong);
        free(a);
    }
}

/* ---- the figure of the student's rounds ---------------------------------------------- */

enum { FIGURE_WINDOW = 128 };

void attach_rounds_figure(int floats, int n, int round, int index, double got, double should,
                          int (*live)(int n, int round, int i), long long from, long long step, long long to,
                          const char *caption)
{
    grade_side *you = grade_student();
    int first = index - FIGURE_WINDOW / 2 > 0 && n > FIGURE_WINDOW ? index - FIGURE_WINDOW / 2 : 0;
    if (n > FIGURE_WINDOW && first + FIGURE_WINDOW > n)
        first = n - FIGURE_WINDOW;
    double values[FIGURE_WINDOW], previous[FIGURE_WINDOW];
    unsigned char flags[FIGURE_WINDOW];
    char full[400];
    snprintf(full, sizeof full, "%s%s", caption,
             n > FIGURE_WINDOW ? " (the 128 elements around the one that broke the invariant)" : "");
    grade_figure_rounds(full);
    int launches = grade_launch_count(you);
    for (int r = 0; r <= round && r < grade_snapshot_count(you); r++) {
        const kit_snapshot *s = grade_snapshot_at(you, r);
        int count = (int)s->count - first;
        count = count > FIGURE_WINDOW ? FIGURE_WINDOW : count < 0 ? 0 : count;
        for (int c = 0; c < count; c++) {
            int i = first + c;
            values[c] = floats ? ((const float *)s->data)[i] : ((const int *)s->data)[i];
            flags[c] = !live || live(n, r, i) ? GRADE_CELL_LIVE : 0;
            if (r > 0 && values[c] != previous[c])
                flags[c] |= GRADE_CELL_WORKED;
            if (r == 0 && i >= from && i < to && step > 0 && (i - from) % step == 0)
                flags[c] |= GRADE_CELL_PARTNER;
            previous[c] = values[c];
        }
        char label[32];
        snprintf(label, sizeof label, r ? "round %d" : "round 0 (input)", r);
        long long threads = -1;
        if (r > 0 && r <= launches) {
            const kit_launch *l = grade_launch_at(you, r - 1);
            threads = (long long)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
        }
        grade_figure_round(label, values, flags, count, threads);
    }
    grade_figure_mark(round, index - first, got, should);
}

enum { RERUN_MOST = 4096 }; /* elements, for a second call that only draws */

void attach_wrong_sum_figure(int (*run)(const int *a, int n), const int *a, int n, long long expected,
                             int (*live)(int n, int round, int i), const char *caption)
{
    if (n > RERUN_MOST)
        return;
    grade_side *you = grade_student_recording_rounds(NULL);
    grade_expect_error();
    run(a, n);
    grade_set_snapshots(you, 0);
    int taken = grade_snapshot_count(you);
    if (grade_caught_error() || taken == 0)
        return;
    const kit_snapshot *last = grade_snapshot_at(you, taken - 1);
    if (last->count < 1 || last->element_size != sizeof(int))
        return;
    attach_rounds_figure(0, n, taken - 1, 0, ((const int *)last->data)[0], (double)expected, live, 0, 0, 0,
                         caption);
}

/* ---- the rounds' launches ------------------------------------------------------------ */

int expect_one_launch_per_round(const char *fn, int n, const char *takes, const char *when_one)
{
    int rounds = log2_rounds(n), launched = grade_launch_count(grade_student());
    grade_check(launched == rounds,
                "n = %d: %s made %d kernel launches, but %sn = %d takes ceil(log2 n) = %d rounds, one launch each%s",
                n, fn, launched, takes, n, rounds, n == 1 ? when_one : "");
    return rounds;
}

const kit_launch *round_launch(int r, long long *blocks, long long *per_block)
{
    const kit_launch *l = grade_launch_at(grade_student(), r - 1);
    *blocks = (long long)l->grid[0] * l->grid[1] * l->grid[2];
    *per_block = (long long)l->block[0] * l->block[1] * l->block[2];
    return l;
}
