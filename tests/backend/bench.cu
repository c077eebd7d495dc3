/* bench.cu: what the cpu backend's fibers cost (a measurement, not a test).
 *   bench [threads-log2 [matrix-size]]   defaults 20 and 1024
 * Prints: the cost of one context switch (two threads passing a barrier back
 * and forth), the cost per thread per __syncthreads() in a block of 1024,
 * a launch of 2^N threads with 8 barriers each, one without barriers, and
 * a GPU-sized program: a shared-memory tiled matrix multiply of two
 * size x size matrices (16 x 16 threads a block, two barriers per tile),
 * whose result is checked. */
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

enum { TILE = 16 };
static __global__ void matmul_tiled(const float *a, const float *b, float *c, int size)
{
    __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int k0 = 0; k0 < size; k0 += TILE) {
        a_tile[threadIdx.y][threadIdx.x] = a[row * size + k0 + threadIdx.x];
        b_tile[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * size + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
        __syncthreads();
    }
    c[row * size + col] = sum;
}

/* a[i][k] = (i + k) % 7, b[k][j] = (k + 2j) % 5: small integers, so every
 * sum is exact in a float and c can be checked element by element. */
static void matmul_bench(int size)
{
    size_t n = (size_t)size * size;
    float *a, *b, *c;
    EXPECT_OK(cudaMallocManaged(&a, n * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&b, n * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&c, n * sizeof(float)));
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) {
            a[(size_t)i * size + j] = (float)((i + j) % 7);
            b[(size_t)i * size + j] = (float)((i + 2 * j) % 5);
        }
    double t0 = now_s();
    matmul_tiled<<<dim3(size / TILE, size / TILE), dim3(TILE, TILE)>>>(a, b, c, size);
    EXPECT_OK(cudaDeviceSynchronize());
    double t1 = now_s();
    int wrong = 0;
    for (int i = 0; i < size; i += 37)
        for (int j = 0; j < size; j += 41) {
            float want = 0.0f;
            for (int k = 0; k < size; k++)
                want += (float)((i + k) % 7) * (float)((k + 2 * j) % 5);
            wrong += c[(size_t)i * size + j] != want;
        }
    EXPECT(wrong == 0, "%d elements of the product are wrong", wrong);
    printf("tiled matmul %dx%d:               %6.3f s (%.1f ns per thread and tile)\n", size, size, t1 - t0,
           (t1 - t0) / ((double)n * (size / TILE)) * 1e9);
    cudaFree(a), cudaFree(b), cudaFree(c);
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

    int size = argc > 2 ? atoi(argv[2]) : 1024;
    if (size >= TILE && size % TILE == 0)
        matmul_bench(size);
    return check_result();
}
