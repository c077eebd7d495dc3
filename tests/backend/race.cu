/* race.cu: a tree reduction that forgot the __syncthreads() inside its
 * loop, beside the correct one.  `race schedules` checks that some schedule
 * order gives the racy kernel a wrong sum while the correct kernel is right
 * in every order; `race racy` and `race correct` run one launch each, for
 * the TSan build (tests/check-backend.sh).  Two more races for it:
 * `race neighbours` (thread 1 reads what thread 0 wrote, neither waiting
 * anywhere: the threads run one after the other, in the program's first
 * launch) and `race zeroed` (one thread zeroes a counter that the others
 * add to atomically). */
#include "check.h"

#define THREADS 256

static __global__ void sum_racy(const int *in, int *out)
{
    __shared__ int cache[THREADS];
    int t = threadIdx.x;
    cache[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (t < s)
            cache[t] += cache[t + s]; /* racy: no barrier between the rounds */
    }
    if (t == 0)
        out[blockIdx.x] = cache[0];
}

static __global__ void sum_correct(const int *in, int *out)
{
    __shared__ int cache[THREADS];
    int t = threadIdx.x;
    cache[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (t < s)
            cache[t] += cache[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = cache[0];
}

static __global__ void neighbours(int *x)
{
    if (threadIdx.x == 0)
        x[0] = 42;
    if (threadIdx.x == 1)
        x[1] = x[0]; /* neighbours: read of what thread 0 wrote */
}

static __global__ void zeroed(int *count)
{
    if (threadIdx.x == 5)
        *count = 0; /* zeroed: a plain write among atomics */
    atomicAdd(count, 1);
}

static long long run(bool racy, const int *d_in, int *d_out, int blocks)
{
    int out[64];
    if (racy)
        sum_racy<<<blocks, THREADS>>>(d_in, d_out);
    else
        sum_correct<<<blocks, THREADS>>>(d_in, d_out);
    EXPECT_OK(cudaMemcpy(out, d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long s = 0;
    for (int b = 0; b < blocks; b++)
        s += out[b];
    return s;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "schedules";
    if (!strcmp(mode, "neighbours") || !strcmp(mode, "zeroed")) {
        int *d, h[2];
        EXPECT_OK(cudaMalloc(&d, sizeof h));
        EXPECT_OK(cudaMemset(d, 0, sizeof h));
        if (!strcmp(mode, "neighbours"))
            neighbours<<<1, 32>>>(d);
        else
            zeroed<<<1, 32>>>(d);
        EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        printf("%s: %d %d\n", mode, h[0], h[1]);
        cudaFree(d);
        return check_result();
    }
    int blocks = 4, n = blocks * THREADS, *in = (int *)malloc(n * sizeof(int)), *d_in, *d_out;
    long long want = 0;
    for (int i = 0; i < n; i++)
        want += in[i] = 1 + i % 5;
    EXPECT_OK(cudaMalloc(&d_in, n * sizeof(int)));
    EXPECT_OK(cudaMalloc(&d_out, blocks * sizeof(int)));
    EXPECT_OK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    if (!strcmp(mode, "racy") || !strcmp(mode, "correct")) {
        long long first = 0;
        for (int i = 0; i < THREADS; i++)
            first += in[i];
        printf("%s kernel: %lld (want %lld)\n", mode, run(!strcmp(mode, "racy"), d_in, d_out, 1), first);
    } else {
        const char *orders[] = {"fwd", "rev", "rand:1", "rand:2", "rand:3"};
        int wrong = 0;
        for (int o = 0; o < 5; o++) {
            cudaemuSetSchedule(orders[o]);
            long long good = run(false, d_in, d_out, blocks), bad = run(true, d_in, d_out, blocks);
            printf("%-7s correct kernel %lld, racy kernel %lld (want %lld)\n", orders[o], good, bad, want);
            EXPECT(good == want, "the correct kernel gave %lld in order %s", good, orders[o]);
            wrong += bad != want;
        }
        EXPECT(wrong > 0, "no schedule order exposed the missing __syncthreads()");
    }
    cudaFree(d_in), cudaFree(d_out);
    free(in);
    return check_result();
}
