/* cputime.cu: the watchdog counts the CPU time a launch uses, not its time
 * on the clock.  The machine is made busy for it: this program and three
 * busy processes share one CPU, so that a kernel gets about a quarter of it
 * and takes about four times its CPU time on the clock.  With a limit of
 * 1 s (CUDAEMU_WATCHDOG_SECONDS=1, to keep the test short):
 *   busy:    a kernel that needs 0.6 s of CPU time runs to its end, though
 *            it takes well over 1 s on the clock (a watchdog that counted the
 *            clock stopped it: the batch grading of issue 32);
 *   spread:  a launch spread over four host threads (CUDAEMU_CPUS=4) that
 *            uses 1.5 s of CPU time in all, under 0.5 s on each, runs to its
 *            end: the watchdog counts the busiest host thread's CPU time,
 *            as long as an endless loop in one block keeps one busy (the
 *            process's would stop a big launch on a machine of many cores);
 *   endless: an endless loop is still stopped, after 1 s of CPU time (not
 *            fewer: less than the limit less a tenth of it, the most the
 *            watchdog counts over what was used; not many more).
 * `cputime` runs all three (about 10 s on an idle machine), `cputime PART` one.
 * Only for the cpu backend: it reads the host thread's CPU clock in a kernel. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { BUSY_PROCESSES = 3 };
static const double LIMIT = 1, WORK = 0.6;

static double clock_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Computes until its host thread has used `seconds` of CPU time (a fiber
 * of the cpu backend runs on its host thread). */
static __global__ void burn(double seconds, unsigned long long *out)
{
    unsigned long long x = 1, rounds = 0;
    double start = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    while (clock_seconds(CLOCK_THREAD_CPUTIME_ID) - start < seconds) {
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        rounds++;
    }
    out[0] = x;
    out[1] = rounds;
}

/* Thread 0 of every block computes until its host thread has used
 * `seconds` of CPU time more. */
static __global__ void burn_per_block(double seconds, unsigned long long *out)
{
    if (threadIdx.x != 0)
        return;
    unsigned long long x = blockIdx.x;
    double start = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    while (clock_seconds(CLOCK_THREAD_CPUTIME_ID) - start < seconds)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    out[blockIdx.x] = x;
}

static __global__ void spin_until(volatile int *flag)
{
    while (!*flag) {
    }
}

/* This program onto one CPU, and BUSY_PROCESSES processes spinning there
 * beside it (killed with it, should it die first). */
static int share_one_cpu(pid_t busy[BUSY_PROCESSES])
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return -1;
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed))
        cpu++;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return -1;
    for (int i = 0; i < BUSY_PROCESSES; i++) {
        busy[i] = fork();
        if (busy[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            for (volatile unsigned long long n = 0;; n++) {
            }
        }
        if (busy[i] < 0)
            return -1;
    }
    return cpu;
}

static void stop_busy(pid_t busy[BUSY_PROCESSES])
{
    for (int i = 0; i < BUSY_PROCESSES; i++)
        if (busy[i] > 0) {
            kill(busy[i], SIGKILL);
            while (waitpid(busy[i], 0, 0) < 0 && errno == EINTR) {
            }
        }
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    bool all = !strcmp(part, "all");
    if (!all && strcmp(part, "busy") && strcmp(part, "spread") && strcmp(part, "endless")) {
        fprintf(stderr, "usage: cputime [busy|spread|endless]\n");
        return 2;
    }
    setenv("CUDAEMU_WATCHDOG_SECONDS", "1", 1);
    pid_t busy[BUSY_PROCESSES] = {0};
    int cpu = share_one_cpu(busy);
    EXPECT(cpu >= 0, "could not share one CPU with %d busy processes", BUSY_PROCESSES);
    if (cpu < 0) {
        stop_busy(busy);
        return check_result();
    }

    if (all || !strcmp(part, "busy")) {
        unsigned long long *out;
        EXPECT_OK(cudaMalloc(&out, 2 * sizeof *out));
        double wall = clock_seconds(CLOCK_MONOTONIC), used = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        burn<<<1, 1>>>(WORK, out);
        cudaError_t err = cudaDeviceSynchronize();
        wall = clock_seconds(CLOCK_MONOTONIC) - wall;
        used = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - used;
        printf("busy: %.1f s of CPU time took %.1f s on the clock (CPU %d shared with %d busy processes): %s\n", used,
               wall, cpu, BUSY_PROCESSES, cudaGetErrorName(err));
        EXPECT(err == cudaSuccess, "a kernel that needs %.1f s of CPU time was stopped with a limit of %.0f s: %s",
               WORK, LIMIT, cudaGetErrorString(err));
        /* the check means something only where the clock ran past the limit */
        EXPECT(wall > LIMIT + 0.5, "the busy processes did not slow the kernel down (%.1f s on the clock for %.1f s "
               "of CPU time): the limit was never passed on the clock", wall, used);
        EXPECT(used >= WORK - 0.05 && used < LIMIT, "the kernel used %.1f s of CPU time, not %.1f", used, WORK);
        if (err == cudaSuccess)
            EXPECT_OK(cudaFree(out));
        else
            cudaDeviceReset();
    }

    if (all || !strcmp(part, "spread")) {
        enum { BLOCKS = 2048, THREADS = 64 }; /* enough threads to be spread */
        setenv("CUDAEMU_CPUS", "4", 1);
        unsigned long long *out;
        EXPECT_OK(cudaMalloc(&out, BLOCKS * sizeof *out));
        double wall = clock_seconds(CLOCK_MONOTONIC), used = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        burn_per_block<<<BLOCKS, THREADS>>>(1.5 / BLOCKS, out);
        cudaError_t err = cudaDeviceSynchronize();
        wall = clock_seconds(CLOCK_MONOTONIC) - wall;
        used = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - used;
        printf("spread: %.1f s of CPU time over 4 host threads took %.1f s on the clock: %s\n", used, wall,
               cudaGetErrorName(err));
        EXPECT(err == cudaSuccess, "a launch whose host threads each used under half the limit was stopped: %s",
               cudaGetErrorString(err));
        EXPECT(used > LIMIT + 0.2, "the launch used %.1f s of CPU time in all: not past the limit", used);
        if (err == cudaSuccess)
            EXPECT_OK(cudaFree(out));
        else
            cudaDeviceReset();
        unsetenv("CUDAEMU_CPUS");
    }

    if (all || !strcmp(part, "endless")) {
        int *flag;
        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
        double wall = clock_seconds(CLOCK_MONOTONIC), used = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        spin_until<<<1, 1>>>(flag);
        cudaError_t err = cudaDeviceSynchronize();
        wall = clock_seconds(CLOCK_MONOTONIC) - wall;
        used = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - used;
        printf("endless: stopped after %.1f s of CPU time, %.1f s on the clock: %s\n", used, wall,
               cudaGetErrorName(err));
        EXPECT(err == cudaErrorLaunchTimeout, "the endless loop gave %s, want cudaErrorLaunchTimeout",
               cudaGetErrorName(err));
        EXPECT(strstr(cudaGetErrorString(err), "ran for more than 1 s of CPU time and was stopped"),
               "the message does not say what was counted: %s", cudaGetErrorString(err));
        EXPECT(used >= LIMIT * 0.9 - 0.05 && used < LIMIT + 0.5, "stopped after %.1f s of CPU time, with a limit of "
               "%.0f s", used, LIMIT);
        EXPECT(wall > LIMIT + 0.5, "the busy processes did not slow the loop down (%.1f s on the clock)", wall);
    }
    stop_busy(busy);
    return check_result();
}
