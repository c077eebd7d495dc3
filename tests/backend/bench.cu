/* bench.cu: what the cpu backend's fibers cost (a measurement, not a test).
 *   bench [threads-log2 [matrix-size [runs [sample-launches]]]]   defaults 20, 1024, 7 and 301
 * Prints: the cost of one context switch (two threads passing a barrier back
 * and forth), the cost per thread per __syncthreads() in a block of 1024,
 * launches of 2^N threads in blocks of 256 with no barrier, one and 8
 * barriers each, and a GPU-sized program: a shared-memory tiled matrix
 * multiply of two size x size matrices (16 x 16 threads a block, two
 * barriers per tile), whose result is checked; and the shape of NVIDIA's
 * matrixMul sample at its default size (sample-launches launches of 20 x 10
 * blocks of 32 x 32 threads, A 320 x 320 times B 640 x 320, 10 tiles of two
 * barriers each per thread; 0 leaves it out), the whole run's time.  Each
 * launch of 2^N threads
 * is timed `runs` times, and the median is printed, in CPU time (the
 * process's, every core it used added up: what the launch cost, whatever
 * else the machine was doing) and on the clock.  make bench-cpu runs it
 * beside PoCL (bench_opencl.c: the same three launches in OpenCL). */
#include "bench_clock.h"
#include "check.h"

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

static __global__ void one_barrier(const float *in, float *out)
{
    __shared__ float cache[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    cache[t] = in[i];
    __syncthreads();
    out[i] = cache[blockDim.x - 1 - t];
}

enum { MAX_RUNS = 99 };
/* Runs launch() `runs` times; prints the median CPU and clock time per thread. */
static void time_launches(const char *what, int log2n, int runs, void (*launch)(int n, const float *in, float *out),
                          const float *in, float *out)
{
    int n = 1 << log2n;
    double cpu[MAX_RUNS], wall[MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        double c0 = cpu_s(), w0 = now_s();
        launch(n, in, out);
        EXPECT_OK(cudaDeviceSynchronize());
        cpu[r] = cpu_s() - c0;
        wall[r] = now_s() - w0;
    }
    double c = median(cpu, runs), w = median(wall, runs);
    printf("2^%d threads, %-13s %7.2f ns CPU per thread (%6.2f on the clock; median of %d)\n", log2n, what,
           c / n * 1e9, w / n * 1e9, runs);
}
static int block_of(int n) { return n < 256 ? n : 256; }
static void launch_no_barriers(int n, const float *in, float *out) { no_barriers<<<n / block_of(n), block_of(n)>>>(in, out); }
static void launch_one_barrier(int n, const float *in, float *out) { one_barrier<<<n / block_of(n), block_of(n)>>>(in, out); }
static void launch_eight(int n, const float *in, float *out) { eight_barriers<<<n / block_of(n), block_of(n)>>>(in, out); }

/* c = a b, a being rows x inner and b inner x cols: a block of W x W
 * threads makes a W x W tile of c, stepping through `inner` a tile at a
 * time, with two barriers a step. */
template <int W>
static __global__ void matmul_tiled(const float *a, const float *b, float *c, int inner, int cols)
{
    __shared__ float a_tile[W][W], b_tile[W][W];
    int row = blockIdx.y * W + threadIdx.y, col = blockIdx.x * W + threadIdx.x;
    float sum = 0.0f;
    for (int k0 = 0; k0 < inner; k0 += W) {
        a_tile[threadIdx.y][threadIdx.x] = a[row * inner + k0 + threadIdx.x];
        b_tile[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * cols + col];
        __syncthreads();
        for (int k = 0; k < W; k++)
            sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
        __syncthreads();
    }
    c[row * cols + col] = sum;
}
enum { TILE = 16, WIDE = 32 };

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
    double t0 = now_s(), c0 = cpu_s();
    matmul_tiled<TILE><<<dim3(size / TILE, size / TILE), dim3(TILE, TILE)>>>(a, b, c, size, size);
    EXPECT_OK(cudaDeviceSynchronize());
    double t1 = now_s(), c1 = cpu_s();
    int wrong = 0;
    for (int i = 0; i < size; i += 37)
        for (int j = 0; j < size; j += 41) {
            float want = 0.0f;
            for (int k = 0; k < size; k++)
                want += (float)((i + k) % 7) * (float)((k + 2 * j) % 5);
            wrong += c[(size_t)i * size + j] != want;
        }
    EXPECT(wrong == 0, "%d elements of the product are wrong", wrong);
    printf("tiled matmul %dx%d:               %6.3f s CPU, %.3f s on the clock (%.1f ns CPU per thread and tile)\n",
           size, size, c1 - c0, t1 - t0, (c1 - c0) / ((double)n * (size / TILE)) * 1e9);
    cudaFree(a), cudaFree(b), cudaFree(c);
}

/* `launches` launches of the sample's default size, as its timing loop makes
 * them (one to warm up, then 300); a = 1, b = 0.01 as the sample fills
 * them, so every element of c is inner * 0.01. */
static void sample_shape(int launches)
{
    const int rows = 320, inner = 320, cols = 640;
    float *a, *b, *c;
    EXPECT_OK(cudaMallocManaged(&a, (size_t)rows * inner * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&b, (size_t)inner * cols * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&c, (size_t)rows * cols * sizeof(float)));
    for (int i = 0; i < rows * inner; i++)
        a[i] = 1.0f;
    for (int i = 0; i < inner * cols; i++)
        b[i] = 0.01f;
    double t0 = now_s(), c0 = cpu_s();
    for (int i = 0; i < launches; i++)
        matmul_tiled<WIDE><<<dim3(cols / WIDE, rows / WIDE), dim3(WIDE, WIDE)>>>(a, b, c, inner, cols);
    EXPECT_OK(cudaDeviceSynchronize());
    double t1 = now_s(), c1 = cpu_s();
    int wrong = 0;
    for (int i = 0; i < rows * cols; i++)
        wrong += fabsf(c[i] - inner * 0.01f) > 1e-3f;
    EXPECT(wrong == 0, "%d elements of the sample-shaped product are wrong", wrong);
    printf("matrixMul's shape, %d launches:     %6.3f s CPU, %.3f s on the clock (200 blocks of 1024 threads, 20 barriers each)\n",
           launches, c1 - c0, t1 - t0);
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

    double t0 = cpu_s();
    ping_pong<<<1, 2>>>(rounds, d);
    double t1 = cpu_s();
    /* per round: each of the 2 threads is switched to once */
    printf("context switch:                     %6.1f ns CPU\n", (t1 - t0) / (2.0 * rounds) * 1e9);

    int brounds = rounds / 100;
    t0 = cpu_s();
    ping_pong<<<1, 1024>>>(brounds, d);
    t1 = cpu_s();
    printf("__syncthreads, per thread:          %6.1f ns CPU (block of 1024)\n", (t1 - t0) / (1024.0 * brounds) * 1e9);

    int runs = argc > 3 ? atoi(argv[3]) : 7;
    runs = runs < 1 ? 1 : runs > MAX_RUNS ? MAX_RUNS : runs;
    time_launches("no barrier:", log2n, runs, launch_no_barriers, in, out);
    time_launches("1 barrier:", log2n, runs, launch_one_barrier, in, out);
    time_launches("8 barriers:", log2n, runs, launch_eight, in, out);
    EXPECT_OK(cudaDeviceSynchronize());
    cudaFree(in), cudaFree(out), cudaFree(d);

    int size = argc > 2 ? atoi(argv[2]) : 1024;
    if (size >= TILE && size % TILE == 0)
        matmul_bench(size);
    int launches = argc > 4 ? atoi(argv[4]) : 301;
    if (launches > 0)
        sample_shape(launches);
    return check_result();
}
