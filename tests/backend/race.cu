/* race.cu: a tree reduction that forgot the __syncthreads() inside its
 * loop, beside the correct one.  `race schedules` checks that some schedule
 * order gives the racy kernel a wrong sum while the correct kernel is right
 * in every order; `race racy` and `race correct` run one launch each, for
 * the TSan build (tests/check-backend.sh).  Two more races for it:
 * `race neighbours` (thread 1 reads what thread 0 wrote, neither waiting
 * anywhere: the threads run one after the other, in the program's first
 * launch) and `race zeroed` (one thread zeroes a counter that the others
 * add to atomically).  And the shape of PMPP's "domino" scan: `race
 * domino`, a block-wide scan whose last thread's sum thread 0 reads after
 * the loop with no barrier since that thread wrote it, a barrier following
 * (TSan once saw none: a thread resumed from the loop's last barrier took
 * in what thread 0 released at the next one); `race warp_domino`, the same
 * in one warp with __syncwarp(); `race domino_fixed`, with the barrier. */
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

/* Kogge-Stone inclusive scan of one block; thread 0 then reads the block's
 * total, the last thread's element, as a domino scan hands it to the next
 * block.  `fixed` puts the missing barrier before that read. */
static __global__ void domino_scan(const int *in, int *out, int *total, bool fixed)
{
    __shared__ int xy[THREADS];
    int t = threadIdx.x;
    xy[t] = in[t];
    for (int stride = 1; stride < THREADS; stride *= 2) {
        __syncthreads();
        int sum = t >= stride ? xy[t] + xy[t - stride] : 0;
        __syncthreads();
        if (t >= stride)
            xy[t] = sum; /* domino: the last thread's write, after the last barrier */
    }
    out[t] = xy[t];
    if (fixed)
        __syncthreads();
    if (t == 0)
        *total = xy[THREADS - 1]; /* domino read: the last thread's sum, no barrier since its write */
    __syncthreads();
}

/* The same within one warp, with __syncwarp(). */
static __global__ void warp_domino_scan(const int *in, int *total)
{
    __shared__ int xy[32];
    int lane = threadIdx.x;
    xy[lane] = in[lane];
    for (int stride = 1; stride < 32; stride *= 2) {
        __syncwarp();
        int sum = lane >= stride ? xy[lane] + xy[lane - stride] : 0;
        __syncwarp();
        if (lane >= stride)
            xy[lane] = sum; /* warp_domino: lane 31's write, after the last __syncwarp */
    }
    if (lane == 0)
        *total = xy[31]; /* warp_domino read: lane 31's sum, no __syncwarp since its write */
    __syncwarp();
}

static int domino(const char *mode)
{
    int h[THREADS], *in, *out, *total, got = 0;
    for (int i = 0; i < THREADS; i++)
        h[i] = 1;
    EXPECT_OK(cudaMalloc(&in, sizeof h));
    EXPECT_OK(cudaMalloc(&out, sizeof h));
    EXPECT_OK(cudaMalloc(&total, sizeof(int)));
    EXPECT_OK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
    int want = THREADS;
    if (!strcmp(mode, "warp_domino")) {
        warp_domino_scan<<<1, 32>>>(in, total);
        want = 32;
    } else {
        domino_scan<<<1, THREADS>>>(in, out, total, !strcmp(mode, "domino_fixed"));
    }
    EXPECT_OK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    printf("%s: total %d (want %d)\n", mode, got, want);
    if (!strcmp(mode, "domino_fixed"))
        EXPECT(got == want, "the scan with its barrier gave %d", got);
    cudaFree(in), cudaFree(out), cudaFree(total);
    return check_result();
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
    if (strstr(mode, "domino"))
        return domino(mode);
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
