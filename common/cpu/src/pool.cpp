/* pool.cpp: the host threads a large launch's blocks are spread over.
 *
 * Made at the first launch that wants them (again in a fork's child, which
 * has none of its parent's threads) and kept: each waits for the next job's
 * generation and runs its share if the job has a slot for it.  The launching
 * thread runs slot 0 itself, then waits for the others; a job that must stop
 * (a failed launch, one past the watchdog's limit) has its threads told so
 * with a signal until they all have ended, since a thread in an endless loop
 * only leaves when told. */
#include "internal.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

namespace cudaemu {

static struct {
    pthread_mutex_t lock;
    pthread_cond_t start, finished;
    pthread_t threads[POOL_MAX];
    clockid_t clocks[POOL_MAX];     /* each one's CPU time (the watchdog counts it) */
    unsigned made;                  /* threads made: slots 1..made */
    pid_t made_in;
    unsigned long long generation;  /* of the job */
    void (*share)(unsigned slot);
    unsigned slots, running;        /* the job's threads (this one included), those of the pool still running */
    bool busy[POOL_MAX];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, {}, {}, 0, 0, 0, 0, 0, 0, {}};
static void (*thread_begins)(void);

static void *pool_thread(void *arg)
{
    unsigned slot = (unsigned)(uintptr_t)arg;
    thread_begins();
    unsigned long long seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen)
            pthread_cond_wait(&pool.start, &pool.lock);
        seen = pool.generation;
        if (slot >= pool.slots)
            continue;
        pthread_mutex_unlock(&pool.lock);
        pool.share(slot);
        pthread_mutex_lock(&pool.lock);
        pool.busy[slot] = false;
        if (--pool.running == 0)
            pthread_cond_signal(&pool.finished);
    }
    return 0;
}

static void forget_after_fork(void)
{
    pool.made = 0;
    pthread_mutex_init(&pool.lock, 0);
    pthread_cond_init(&pool.start, 0);
    pthread_cond_init(&pool.finished, 0);
}

/* Threads for slots 1..n-1, made with every asynchronous signal blocked (a
 * program's SIGINT or SIGCHLD goes to its own threads), the stop signal and
 * the faults a kernel can cause left open.  Gives the slots there are. */
static unsigned grow(unsigned n, void (*on_stop_signal)(int, siginfo_t *, void *))
{
    if (pool.made_in != getpid()) {
        if (!pool.made_in)
            pthread_atfork(0, 0, forget_after_fork);
        pool.made = 0;
        pool.made_in = getpid();
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART; /* NODEFER: the handler may leave for good */
        sa.sa_sigaction = on_stop_signal;
        sigaction(POOL_STOP_SIGNAL, &sa, 0);
    }
    sigset_t all, before;
    sigfillset(&all);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP})
        sigdelset(&all, sig);
    sigdelset(&all, POOL_STOP_SIGNAL);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    while (pool.made + 1 < n && pool.made + 1 < POOL_MAX) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        unsigned slot = pool.made + 1;
        int failed = pthread_create(&pool.threads[slot], &attr, pool_thread, (void *)(uintptr_t)slot);
        pthread_attr_destroy(&attr);
        if (failed)
            break;
        if (pthread_getcpuclockid(pool.threads[slot], &pool.clocks[slot]) != 0)
            pool.clocks[slot] = CLOCK_THREAD_CPUTIME_ID; /* (never seen) the reader's own clock instead */
        __atomic_store_n(&pool.made, slot, __ATOMIC_RELEASE); /* its clock first: the watchdog's handler reads both */
    }
    pthread_sigmask(SIG_SETMASK, &before, 0);
    return pool.made + 1 < n ? pool.made + 1 : n;
}

unsigned pool_cpu_clocks(clockid_t clocks[POOL_MAX])
{
    unsigned made = __atomic_load_n(&pool.made, __ATOMIC_ACQUIRE); /* 0 in a fork's child (forget_after_fork) */
    for (unsigned s = 1; s <= made; s++)
        clocks[s] = pool.clocks[s];
    return made + 1;
}

unsigned pool_run(unsigned n, void (*share)(unsigned slot), bool (*stop_wanted)(void),
                  void (*on_stop_signal)(int, siginfo_t *, void *), void (*begins)(void))
{
    thread_begins = begins;
    n = grow(n, on_stop_signal);
    pthread_mutex_lock(&pool.lock);
    pool.share = share;
    pool.slots = n;
    pool.running = n - 1;
    for (unsigned s = 1; s < n; s++)
        pool.busy[s] = true;
    pool.generation++;
    pthread_cond_broadcast(&pool.start);
    pthread_mutex_unlock(&pool.lock);

    share(0);

    pthread_mutex_lock(&pool.lock);
    while (pool.running) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&pool.finished, &pool.lock, &until);
        if (pool.running && stop_wanted())
            for (unsigned s = 1; s < n; s++)
                if (pool.busy[s])
                    pthread_kill(pool.threads[s], POOL_STOP_SIGNAL);
    }
    pthread_mutex_unlock(&pool.lock);
    return n;
}

} // namespace cudaemu
