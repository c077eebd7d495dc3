/* kit_program.h: what the kit's own programs share: the labs' fixed
 * programs (labs/<lab>/main.c) read their arguments, make the vectors of
 * the dot-product labs and end with a reminder through it; they, the bench
 * programs (bench/, grading/<lab>/bench.c) and the going-further versions
 * of solutions/ ask it about the device.  A student need not read it:
 * kit.h is the student's header, this one only keeps the programs short
 * and alike.  The functions are in kit.c, the device's in kit_cuda.cu;
 * every program links both. */
#ifndef KIT_PROGRAM_H
#define KIT_PROGRAM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Arguments ------------------------------------------------------------- */
/* argv[i] as a whole number (decimal), or fallback when there is no argv[i]. */
long kit_arg_long(int argc, char **argv, int i, long fallback);
/* argv[1], the size n: fallback when absent; exits with the usage line
 * (kit_usage_exit) unless 1 <= n <= max. */
long kit_arg_n(int argc, char **argv, long fallback, long max, const char *usage);
/* argv[i] as a seed (decimal), or 1 when there is no argv[i]. */
unsigned long long kit_arg_seed(int argc, char **argv, int i);
/* Prints "usage: PROGRAM ARGUMENTS" on stderr and exits with status 2. */
void kit_usage_exit(const char *program, const char *arguments);
/* A power of two from lo to hi (a block size, a tile side). */
int kit_is_power_of_two_in(int v, int lo, int hi);

/* The number of rounds that halve n down to 1: the smallest r with 2^r >= n. */
int kit_halving_rounds(long n);

/* ---- Host memory ----------------------------------------------------------- */
/* count elements of size bytes, or exits with status 2 after saying that
 * there is not enough memory for n (the program's size argument). */
void *kit_host_array(size_t count, size_t size, long n);

/* ---- The vectors of the dot-product labs (6 and 7) ------------------------------
 * n floats each from the seed (y from seed + 1): small whole numbers in
 * [0, 3] when small (every order of the sum is then exact), else uniform in
 * [0, 1); with their exact dot product and the sum of |x_i y_i|. */
typedef struct {
    float *x, *y;
    int n, small;
    double exact, abs_dot;
} kit_dot_vectors;
kit_dot_vectors kit_dot_vectors_make(int n, int small, unsigned long long seed);
const char *kit_dot_vectors_words(const kit_dot_vectors *v); /* what they hold, in words */
void kit_dot_vectors_free(kit_dot_vectors *v);

/* ---- The device ------------------------------------------------------------------
 * Its memory's peak bandwidth in GB/s, from its memory clock and bus width
 * (double data rate), or 0 when it does not say (kit_cuda.cu). */
double kit_device_peak_gbs(void);
/* A new device array of count floats, a copy of host's unless host is NULL
 * (a failed CUDA call ends the program, as CHECK does). */
float *kit_device_floats(const float *host, size_t count);
/* How many blocks of `kernel`, with block_size threads and `shared` bytes of
 * dynamic shared memory each, the device holds at once: its SMs times the
 * blocks that fit on one (the occupancy API).  (A failed call ends the
 * program too.) */
int kit_device_blocks_at_once(const void *kernel, int block_size, size_t shared);

/* ---- The end of a run ------------------------------------------------------- */
/* "reminder: TODO n is not done yet; see handouts/HANDOUT.md" when a TODO is
 * still pending (kit_todo_pending), nothing otherwise. */
void kit_print_reminder(const char *handout);

#ifdef __cplusplus
}
#endif
#endif /* KIT_PROGRAM_H */
