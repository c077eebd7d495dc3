/* spread.cu: a launch's blocks spread over host threads (CUDAEMU_CPUS).
 *   spread          results: several host threads ran the blocks, atomics
 *                   across blocks, block reductions in shared memory, the
 *                   launch's counts; with a schedule order fixed, one thread
 *   spread printf   kernel printf from 64 blocks, printed in block order
 *   spread assert   an assert in one block of 4096: one message, a sticky error
 *   spread far      a write far outside device memory in one block: reported
 *   spread wild     every block reads an unmapped address: every host thread
 *                   faults, the launch fails with one report, the program goes on
 *   spread endless  one block of many never ends: the watchdog (1 s) stops it
 * check-backend runs each with CUDAEMU_CPUS=4, so that the launches are
 * spread even on a machine with one CPU. */
#include <assert.h>
#include <pthread.h>
#include <time.h>

#include "check.h"

enum { BLOCKS = 512, THREADS = 256 };

/* Thread 0 of each block notes the host thread that ran it.  A block
 * finishes in microseconds, so the launching thread could run them all
 * before the pool's threads wake: each block on the first host thread
 * waits (a second at most, then none does) until a block has run on another. */
static __global__ void note_host_thread(unsigned long long *ran_on, unsigned long long *first, int *state)
{
    if (threadIdx.x != 0)
        return;
    unsigned long long me = (unsigned long long)pthread_self();
    ran_on[blockIdx.x] = me;
    unsigned long long was = atomicCAS(first, 0ull, me);
    if (was != 0 && was != me)
        atomicExch(state, 1); /* a second host thread */
    long long start = clock64();
    while (atomicAdd(state, 0) == 0)
        if (clock64() - start > 3000000000LL) /* about a second */
            atomicExch(state, 2);            /* waited long enough: none waits any more */
}

static int host_threads_used(unsigned long long *ran_on)
{
    unsigned long long *first;
    int *state;
    EXPECT_OK(cudaMallocManaged(&first, sizeof *first));
    EXPECT_OK(cudaMallocManaged(&state, sizeof *state));
    *first = 0;
    *state = 0;
    note_host_thread<<<BLOCKS, THREADS>>>(ran_on, first, state);
    EXPECT_OK(cudaDeviceSynchronize());
    int distinct = 0;
    for (int b = 0; b < BLOCKS; b++) {
        int seen = 0;
        for (int c = 0; c < b && !seen; c++)
            seen = ran_on[c] == ran_on[b];
        distinct += !seen;
    }
    cudaFree(first), cudaFree(state);
    return distinct;
}

/* Every thread adds 1 to two counters (an int and a float: 2^17 is exact in
 * a float) and its block's sum of 0..255 goes through a shared-memory tree. */
static __global__ void count_and_reduce(int *count, float *fcount, int *block_sums)
{
    __shared__ int cache[THREADS];
    atomicAdd(count, 1);
    atomicAdd(fcount, 1.0f);
    cache[threadIdx.x] = (int)threadIdx.x + (int)blockIdx.x;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s)
            cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = cache[0];
}

static void check_results(void)
{
    int *count, *block_sums;
    float *fcount;
    EXPECT_OK(cudaMallocManaged(&count, sizeof(int)));
    EXPECT_OK(cudaMallocManaged(&fcount, sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&block_sums, BLOCKS * sizeof(int)));
    *count = 0;
    *fcount = 0.0f;
    count_and_reduce<<<BLOCKS, THREADS>>>(count, fcount, block_sums);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(*count == BLOCKS * THREADS, "the int counter reached %d, want %d", *count, BLOCKS * THREADS);
    EXPECT(*fcount == (float)(BLOCKS * THREADS), "the float counter reached %g, want %d", *fcount, BLOCKS * THREADS);
    int wrong = 0;
    for (int b = 0; b < BLOCKS; b++)
        wrong += block_sums[b] != THREADS * (THREADS - 1) / 2 + THREADS * b;
    EXPECT(wrong == 0, "%d of %d block sums are wrong", wrong, BLOCKS);
    cudaemuLaunchCounts counts;
    cudaemuLastLaunchCounts(&counts);
    /* 2 atomics, and 1 + log2(256) = 9 barriers, per thread */
    EXPECT(counts.atomics == 2LL * BLOCKS * THREADS, "%lld atomics counted, want %d", counts.atomics,
           2 * BLOCKS * THREADS);
    EXPECT(counts.barriers == 9LL * BLOCKS * THREADS, "%lld barriers counted, want %d", counts.barriers,
           9 * BLOCKS * THREADS);
    EXPECT(counts.static_shared == THREADS * sizeof(int), "%zu bytes of static shared memory counted, want %zu",
           counts.static_shared, THREADS * sizeof(int));
    cudaFree(count), cudaFree(fcount), cudaFree(block_sums);
}

static __global__ void print_blocks(void)
{
    __syncthreads();
    if (threadIdx.x == 0)
        printf("block %d\n", blockIdx.x);
}

static __global__ void assert_in_one_block(int *out)
{
    assert(!(blockIdx.x == 3000 && threadIdx.x == 7));
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

static __global__ void write_far_in_one_block(int *a)
{
    if (blockIdx.x == 3000 && threadIdx.x == 0)
        a[1 << 18] = 42; /* 1 MB past a small array */
}

/* Every block's thread 0 works a while, then reads an address no mapping
 * covers: each host thread faults, most after the first has failed the
 * launch (one of them killed the process once). */
static __global__ void every_block_reads_wild(const int *work, int *out)
{
    if (threadIdx.x != 0)
        return;
    int s = 0;
    for (int i = 0; i < 200000; i++)
        s += work[i & 255];
    out[blockIdx.x] = s + *(const volatile int *)(0x100000000000ull + 64ull * blockIdx.x * (s == -1));
}

static __global__ void one_block_never_ends(int *flag)
{
    if (blockIdx.x == 100)
        while (*(volatile int *)flag == 0) {} /* nobody sets it */
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "results";
    if (!strcmp(part, "results")) {
        unsigned long long *ran_on;
        EXPECT_OK(cudaMallocManaged(&ran_on, BLOCKS * sizeof *ran_on));
        int used = host_threads_used(ran_on);
        EXPECT(used >= 2, "the blocks of a launch ran on %d host thread(s), want several (CUDAEMU_CPUS=%s)", used,
               getenv("CUDAEMU_CPUS") ? getenv("CUDAEMU_CPUS") : "unset");
        check_results();
        cudaemuSetSchedule("rev"); /* a fixed order: blocks on one host thread, in that order */
        used = host_threads_used(ran_on);
        EXPECT(used == 1, "with a schedule order set, the blocks ran on %d host threads, want 1", used);
        check_results();
        cudaFree(ran_on);
    } else if (!strcmp(part, "printf")) {
        print_blocks<<<64, 64>>>();
        EXPECT_OK(cudaDeviceSynchronize());
    } else if (!strcmp(part, "assert")) {
        int *out;
        EXPECT_OK(cudaMalloc(&out, 4096 * 64 * sizeof(int)));
        assert_in_one_block<<<4096, 64>>>(out);
        cudaError_t err = cudaDeviceSynchronize();
        EXPECT(err == cudaErrorAssert, "the launch gave %s, want cudaErrorAssert", cudaGetErrorName(err));
        EXPECT(cudaDeviceSynchronize() == cudaErrorAssert, "the error is not sticky");
        EXPECT(strstr(cudaGetErrorString(err), "spread.cu"), "the message names no line: %s", cudaGetErrorString(err));
    } else if (!strcmp(part, "far")) {
        int *a;
        EXPECT_OK(cudaMalloc(&a, 16 * sizeof(int)));
        write_far_in_one_block<<<4096, 64>>>(a);
        cudaError_t err = cudaDeviceSynchronize();
        EXPECT(err == cudaErrorIllegalAddress, "the launch gave %s, want cudaErrorIllegalAddress",
               cudaGetErrorName(err));
    } else if (!strcmp(part, "wild")) {
        int *work, *out;
        EXPECT_OK(cudaMalloc(&work, 256 * sizeof(int)));
        EXPECT_OK(cudaMalloc(&out, 512 * sizeof(int)));
        EXPECT_OK(cudaMemset(work, 0, 256 * sizeof(int)));
        every_block_reads_wild<<<512, 32>>>(work, out);
        cudaError_t err = cudaDeviceSynchronize();
        EXPECT(err == cudaErrorIllegalAddress && strstr(cudaGetErrorString(err), "outside all device memory"),
               "the launch gave %s: %s", cudaGetErrorName(err), cudaGetErrorString(err));
    } else if (!strcmp(part, "endless")) {
        setenv("CUDAEMU_WATCHDOG_SECONDS", "1", 1);
        int *flag;
        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
        double start = seconds();
        one_block_never_ends<<<4096, 64>>>(flag);
        cudaError_t err = cudaDeviceSynchronize();
        double took = seconds() - start;
        const char *message = cudaGetErrorString(err);
        EXPECT(err == cudaErrorLaunchTimeout, "the launch gave %s, want cudaErrorLaunchTimeout", cudaGetErrorName(err));
        EXPECT(took >= 0.9 && took < 10, "the watchdog of 1 s stopped the launch after %.1f s", took);
        EXPECT(strstr(message, "in block 100, 1 thread still running (0:"), "the message does not name block 100's "
               "running thread: %s", message);
        EXPECT(strstr(message, " of 4096 blocks had finished (a kernel sized for a GPU may only be slow"),
               "the message does not say how far the launch got: %s", message);
        /* the backend runs kernels again after a reset, spread as before */
        EXPECT(cudaDeviceReset() == cudaSuccess && cudaGetLastError() == cudaSuccess, "cudaDeviceReset clears it");
        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 1, sizeof(int)));
        one_block_never_ends<<<4096, 64>>>(flag);
        EXPECT_OK(cudaDeviceSynchronize());
    } else {
        fprintf(stderr, "usage: spread [results|printf|assert|far|endless]\n");
        return 2;
    }
    return check_result();
}
