/* warpsync.cu: the classic unrolled "last warp" reduction, which relies on
 * the lanes of a warp running in lock-step (volatile shared memory, no
 * __syncwarp): `warpsync racy`.  The backend does not run lanes in step, so
 * its sum is wrong here; the TSan build reports the race and adds a line
 * saying that the code relies on warp-synchronous execution and needs
 * __syncwarp() (tests/check-backend.sh).  `warpsync fixed`: the same with
 * __syncwarp() between the steps: right, and no report.  `warpsync blocks`:
 * a race between lanes of two different warps, reported with no such line. */
#include "check.h"

#define THREADS 128

static __device__ void warp_reduce(volatile int *s, unsigned t)
{
    s[t] += s[t + 32]; /* warpsync: a lane reads what another lane of its warp wrote, no __syncwarp */
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

static __device__ void warp_reduce_synced(volatile int *s, unsigned t)
{
    for (unsigned half = 32; half > 0; half /= 2) {
        int v = s[t] + s[t + half];
        __syncwarp();
        s[t] = v;
        __syncwarp();
    }
}

static __global__ void sum(const int *in, int *out, bool fixed)
{
    __shared__ int s[THREADS];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (unsigned half = THREADS / 2; half > 32; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t < 32) {
        if (fixed)
            warp_reduce_synced(s, t);
        else
            warp_reduce(s, t);
    }
    if (t == 0)
        *out = s[0];
}

/* Thread 40 (warp 1) reads what thread 0 (warp 0) wrote, no barrier. */
static __global__ void across_warps(int *out)
{
    __shared__ int s[THREADS];
    if (threadIdx.x == 0)
        s[0] = 7;
    if (threadIdx.x == 40)
        *out = s[0]; /* blocks: a read across warps, no barrier */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fixed";
    int h[THREADS], *in, *out, got = 0, want = 0;
    for (int i = 0; i < THREADS; i++)
        want += h[i] = 1 + i % 3;
    EXPECT_OK(cudaMalloc(&in, sizeof h));
    EXPECT_OK(cudaMalloc(&out, sizeof(int)));
    EXPECT_OK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
    if (!strcmp(mode, "blocks"))
        across_warps<<<1, THREADS>>>(out);
    else
        sum<<<1, THREADS>>>(in, out, !strcmp(mode, "fixed"));
    EXPECT_OK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    printf("%s: %d (want %d)\n", mode, got, want);
    if (!strcmp(mode, "fixed"))
        EXPECT(got == want, "the reduction with __syncwarp gave %d", got);
    cudaFree(in), cudaFree(out);
    return check_result();
}
