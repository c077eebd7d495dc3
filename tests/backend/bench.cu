/* bench.cu: what the cpu backend's fibers cost (a measurement, not a test).
 *   bench [threads-log2]   default 20: one launch of 2^20 threads
 * Prints: the cost of one context switch (two threads passing a barrier back
 * and forth), the cost per thread per __syncthreads() in a block of 1024,
 * a launch of 2^N threads with 8 barriers each, and one without barriers. */
#include <time.h>

#include "check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static __global__ void ping_pong(int rounds, int *out)
{
    for (int r = 0; r < rounds; r++)
        __syncthreads();
    out[threadIdx.x] = rounds;
}

static __global__ void eight_barriers(const float *in, float *out)
{
    __shared__ float cache[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    cache[t] = in[i];
    __syncthreads();
    for (int s = 128; s > 0; s /= 2) { /* 8 rounds */
        if (t < s)
            cache[t] += cache[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = cache[0];
}

static __global__ void no_barriers(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i];
}

int main(int argc, char **argv)
{
    int log2n = argc > 1 ? atoi(argv[1]) : 20, n = 1 << log2n, rounds = n < 1024 ? 1000 : 200000;
    float *in, *out;
    int *d;
    EXPECT_OK(cudaMalloc(&in, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&d, 1024 * sizeof(int)));
    EXPECT_OK(cudaMemset(in, 0, n * sizeof(float)));

    double t0 = now_s();
    ping_pong<<<1, 2>>>(rounds, d);
    double t1 = now_s();
    /* per round: each of the 2 threads is switched to once */
    printf("context switch:                     %6.1f ns\n", (t1 - t0) / (2.0 * rounds) * 1e9);

    int brounds = rounds / 100;
    t0 = now_s();
    ping_pong<<<1, 1024>>>(brounds, d);
    t1 = now_s();
    printf("__syncthreads, per thread:          %6.1f ns (block of 1024)\n", (t1 - t0) / (1024.0 * brounds) * 1e9);

    int threads = n < 256 ? n : 256;
    t0 = now_s();
    eight_barriers<<<n / threads, threads>>>(in, out);
    t1 = now_s();
    printf("2^%d threads, 8 barriers each:      %6.3f s (%.1f ns per thread)\n", log2n, t1 - t0, (t1 - t0) / n * 1e9);

    t0 = now_s();
    no_barriers<<<n / threads, threads>>>(in, out);
    t1 = now_s();
    printf("2^%d threads, no barrier:           %6.3f s (%.1f ns per thread)\n", log2n, t1 - t0, (t1 - t0) / n * 1e9);
    EXPECT_OK(cudaDeviceSynchronize());
    cudaFree(in), cudaFree(out), cudaFree(d);
    return check_result();
}
