/* dot_inputs.h: what the dot-product labs' suites (6 and 7) share: their
 * input vectors, how feedback names them, and the checks of one result. */
#ifndef DOT_INPUTS_H
#define DOT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    float *x, *y;
    int n;
    uint64_t seed;
    char kind[64]; /* how feedback describes the data */
} vectors;

/* Whole numbers, in [0, 3] while 9n < 2^24, else in [0, 1] (n <= 2^24):
 * every partial sum is exact, so any summation order gives the exact dot. */
vectors exact_vectors(int n, uint64_t seed);
/* Uniform floats in [lo, hi), for the tolerance tests. */
vectors random_vectors(int n, uint64_t seed, float lo, float hi);
/* Uniform in [-0.5, 1): mixed signs (products cancel, partial sums go up
 * and down) with a mean of 1/4, so that the dot (about n/16) stays
 * thousands of tolerances away from 0 at every n.  Zero-mean data do not:
 * their dot is only about sqrt(n)/3 while the tolerance grows with n, so a
 * kernel returning 0 passes them from about n = 2^27 (and by chance below). */
vectors mixed_sign_vectors(int n, uint64_t seed);
/* x = 0 everywhere, y whole numbers: the dot (and every partial of it) is
 * exactly 0, so anything added to it shows, even what a thread reads past
 * the end of x and y (on the cpu backend, guard floats of -2.87e-16, whose
 * product, 8.26e-32, rounds away beside whole numbers). */
vectors zero_dot_vectors(int n, uint64_t seed);
void free_vectors(vectors *v);
/* "n = 1000 (whole numbers in [0, 3], seed 123)" (a static buffer) */
const char *case_text(const vectors *v);

/* ", schedule rev" on the cpu backend, "" on a GPU (a static buffer). */
const char *dot_schedule_text(const char *schedule);

/* Fail the item unless `got`, what `call` returned on v, is the dot product:
 * exactly (whole-number data, where every order of the sum is exact), or
 * within the tolerance policy with constant c.  `hint` (or NULL) ends the
 * feedback. */
void dot_check_exact(const char *call, float got, const vectors *v, const char *hint);
void dot_check_tolerance(const char *call, float got, const vectors *v, double c, const char *hint);

/* For the checks that the device did the work (evidence.c):
 * whether `size` bytes are all zero: the right result is then also what
 * code that never ran a kernel (an unfinished TODO, say) leaves, so it
 * proves nothing either way, and the feedback on the next case says more; */
int dot_all_zero(const void *bytes, size_t size);

/* The dot-product labs' speed item, once a correct result came back: times
 * `call` on each side (median of 9, after 2 warm-ups; `mine` and `theirs`
 * are its arguments for the student and the reference), notes both times
 * and the bandwidth of reading x and y (each side's `detail` after its time,
 * e.g. " with 512 blocks"), and scores the student's time against the
 * reference's. */
void dot_time_against_reference(const char *fn, void (*call)(void *), void *mine, void *theirs, const vectors *v,
                                int block_size, const char *my_detail, const char *their_detail);
/* One timed call of a dot-product lab's entry point on v, for its speed
 * item (grade_time_ms calls it on a void *): the side, the block size, the
 * call's one other argument and what the call returned. */
typedef struct {
    struct grade_side *side;
    const vectors *v;
    int block_size;
    union {
        int blocks; /* lab 6's dot_device_finish */
        int offset; /* lab 7's dot_vectorized */
    };
    float result;
} dot_timed_call;
/* The dot-product labs' speed item: `call(mine)` once, whose result must be
 * within the tolerance policy with constant c ("Only a correct result is
 * timed"), then dot_time_against_reference on mine and theirs. */
void dot_time_if_correct(const char *fn, void (*call)(void *), dot_timed_call *mine, dot_timed_call *theirs, double c,
                         const char *my_detail, const char *their_detail);
/* whether `bytes` are those of x or y (n = 1 with y[0] = 1, say): then "a
 * kernel computed it" cannot be told from "it went to the device and back",
 * so only "it came back from the device" can be required. */
int dot_same_as_input(const void *bytes, size_t size, const vectors *v);

#endif
