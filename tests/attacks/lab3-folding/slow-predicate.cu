/* Makes the student's calls of fold_invariant_holds take until just before
 * the item's time limit, so that the reference's next call (reference_states
 * runs the reference's fold_sum between the predicate's calls) is left no
 * time: the item must be lost by the student, never read "the reference
 * solution failed" (which counts for nothing and makes the lab ungradable).
 * The predicate itself cannot be renamed here, so a thread holds stdout's
 * lock, which the runner takes to flush the code's output before it
 * answers: the call's answer waits as if the predicate slept.  The thread
 * knows a predicate item by the size of the call's array file (two arrays
 * of at most 1024 ints: 16 KB, a size no fold_sum item makes) and the
 * item's start by the runner's (each item starts a runner of its own). */
// costs: fold_predicate_accepts fold_predicate_rejects
// modes: plain (minutes per run: the time charged to each side is the same through every package)
#include <pthread.h>
#include <time.h>

static double attack_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double attack_loaded;

static void *attack_hold_stdout(void *unused)
{
    (void)unused;
    struct stat st;
    /* the first call of the item has sized the array file */
    for (int i = 0; i < 5000 && (fstat(4, &st) != 0 || st.st_size == 0); i++)
        usleep(1000);
    usleep(20000); /* the file grows array by array: its size once the call's arrays are in */
    if (fstat(4, &st) != 0 || st.st_size != 16384)
        return NULL;
    /* the item's limit: 30 s, four times that on the cpu backend; calls
     * answer 2 s before it */
    double limit = kit_on_gpu() ? 30.0 : 120.0, until = attack_loaded + limit - 2.0 - 0.03;
    flockfile(stdout);
    while (attack_now() < until)
        usleep(1000);
    funlockfile(stdout);
    return NULL;
}

__attribute__((constructor)) static void attack_start(void)
{
    attack_loaded = attack_now();
    pthread_t t;
    if (pthread_create(&t, NULL, attack_hold_stdout, NULL) == 0)
        pthread_detach(t);
}
