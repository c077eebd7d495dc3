/* race.cu: a tree reduction that forgot the __syncthreads() inside its
 * loop, beside the correct one.  `race schedules` checks that some schedule
 * order gives the racy kernel a wrong sum while the correct kernel is right
 * in every order; `race racy` and `race correct` run one launch each, for
 * the TSan build (tests/check-backend.sh). */
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
