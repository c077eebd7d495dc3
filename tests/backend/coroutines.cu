/* coroutines.cu: kernels whose threads run as coroutines split at their
 * barriers (common/cpu/include/cudaemu/coroutine.h), and those that must
 * not.  Each result is checked, and so is the way the launch ran
 * (cudaemuLastLaunchCounts' coroutine_blocks): with CUDAEMU_COROUTINES=1, a
 * kernel with barriers only in its own body runs as coroutines in every
 * schedule order, with the barriers' results and counts of the fibers; one
 * that calls a function with a barrier or uses a warp operation, and any
 * with CUDAEMU_COROUTINES=0, runs on fibers, with the same results.  Left
 * unset, a kernel's launches run both ways in turn, then all one way. */
#include <stdlib.h>

#include "check.h"

/* The ASan and TSan builds run every kernel on fibers (their fiber hooks).
 * (Their runtimes' entry points are defined only there; the build
 * preprocesses without the sanitizer's flags, so no macro tells.) */
extern "C" void __asan_init(void) __attribute__((weak));
extern "C" void __tsan_init(void) __attribute__((weak));
static bool coroutines_here(void) { return !__asan_init && !__tsan_init; }

enum { N = 1000, BLOCK = 128 };

/* A reversal within each block, a tail that returns early (every thread of
 * the last block that reaches the barrier waits there), and the three
 * barriers that return a value. */
static __global__ void reverse_and_vote(const int *in, int *out, int *votes, int n)
{
    __shared__ int tile[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    tile[t] = i < n ? in[i] : -1;
    __syncthreads();
    int mirrored = tile[BLOCK - 1 - t];
    int odd = __syncthreads_count(mirrored & 1);
    int all_small = __syncthreads_and(mirrored < 64);
    int any_big = __syncthreads_or(mirrored >= 960);
    if (i >= n)
        return;
    out[i] = mirrored;
    if (t == 0) {
        votes[3 * blockIdx.x] = odd;
        votes[3 * blockIdx.x + 1] = all_small;
        votes[3 * blockIdx.x + 2] = any_big;
    }
}

/* A template kernel with a 2-D block and a barrier in a loop: the sum of
 * each column of a W x W tile, halving the rows each round. */
template <int W> static __global__ void column_sums(const int *in, int *out)
{
    __shared__ int tile[W][W];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[(blockIdx.x * W + y) * W + x];
    for (int rows = W / 2; rows > 0; rows /= 2) {
        __syncthreads();
        if (y < rows)
            tile[y][x] += tile[y + rows][x];
    }
    __syncthreads();
    if (y == 0)
        out[blockIdx.x * W + x] = tile[0][x];
}

/* A barrier in a function the kernel calls: the kernel runs on fibers. */
static __device__ int neighbour(int *tile, int t)
{
    __syncthreads();
    return tile[(t + 1) % BLOCK];
}
static __global__ void calls_a_barrier(const int *in, int *out)
{
    __shared__ int tile[BLOCK];
    tile[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = neighbour(tile, threadIdx.x);
}

/* A warp operation beside the barrier: fibers too. */
static __global__ void shuffles_too(const int *in, int *out)
{
    __shared__ int tile[BLOCK];
    int v = __shfl_xor_sync(0xffffffffu, in[threadIdx.x], 1);
    tile[threadIdx.x] = v;
    __syncthreads();
    out[threadIdx.x] = tile[BLOCK - 1 - threadIdx.x];
}

/* A thread that calls into the runtime (printf writes its record) before
 * and between barriers, and is resumed after them like the others. */
static __global__ void prints_between(int *out)
{
    __shared__ int tile[BLOCK];
    tile[threadIdx.x] = (int)threadIdx.x;
    if (threadIdx.x == 5)
        printf("thread %d before the barrier\n", (int)threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 5)
        printf("thread %d between\n", (int)threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % BLOCK];
}

/* A barrier the build cannot see: reached through a function pointer, from
 * a kernel with a barrier of its own.  As coroutines it cannot wait there,
 * and the launch stops with a message that says how to run it. */
static __device__ void barrier_of_a_callee(void) { __syncthreads(); }
static __device__ void (*hidden_barrier)(void) = barrier_of_a_callee;
static __global__ void through_a_pointer(int *out)
{
    __syncthreads();
    hidden_barrier();
    out[threadIdx.x] = 1;
}

static long long coroutine_blocks(void)
{
    cudaemuLaunchCounts counts;
    cudaemuLastLaunchCounts(&counts);
    return counts.coroutine_blocks;
}
static long long barriers(void)
{
    cudaemuLaunchCounts counts;
    cudaemuLastLaunchCounts(&counts);
    return counts.barriers;
}

static void reversal(const char *order, bool coroutines, int *in, int *out, int *votes, bool either_way = false)
{
    cudaemuSetSchedule(order);
    int blocks = (N + BLOCK - 1) / BLOCK;
    reverse_and_vote<<<blocks, BLOCK>>>(in, out, votes, N);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(either_way || coroutine_blocks() == (coroutines ? blocks : 0), "%s: %lld blocks ran as coroutines", order,
           coroutine_blocks());
    EXPECT(barriers() == 4LL * blocks * BLOCK, "%s: %lld barriers counted", order, barriers());
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        int b = i / BLOCK, j = b * BLOCK + BLOCK - 1 - i % BLOCK;
        wrong += out[i] != (j < N ? j : -1);
    }
    EXPECT(wrong == 0, "%s: %d elements reversed wrong", order, wrong);
    for (int b = 0; b < blocks; b++) {
        int odd = 0, all_small = 1, any_big = 0;
        for (int t = 0; t < BLOCK; t++) {
            int j = b * BLOCK + t, v = j < N ? j : -1;
            odd += v & 1;
            all_small = all_small && v < 64;
            any_big = any_big || v >= 960;
        }
        EXPECT(votes[3 * b] == odd && votes[3 * b + 1] == all_small && votes[3 * b + 2] == any_big,
               "%s: block %d's barriers returned %d %d %d, not %d %d %d", order, b, votes[3 * b], votes[3 * b + 1],
               votes[3 * b + 2], odd, all_small, any_big);
    }
}

int main(void)
{
    int *in, *out, *votes;
    EXPECT_OK(cudaMallocManaged(&in, 4096 * sizeof(int)));
    EXPECT_OK(cudaMallocManaged(&out, 4096 * sizeof(int)));
    EXPECT_OK(cudaMallocManaged(&votes, 64 * sizeof(int)));
    for (int i = 0; i < 4096; i++)
        in[i] = i;

    /* left unset: the first launch as coroutines, the second on fibers
     * (each with 8 blocks, more than the 4 that decide), then one way; the
     * same results every time */
    for (int launch = 0; launch < 4; launch++) {
        reversal("fwd", false, in, out, votes, true);
        long long co = coroutine_blocks(), all = (N + BLOCK - 1) / BLOCK;
        long long want = !coroutines_here() || launch == 1 ? 0 : all;
        if (launch < 2)
            EXPECT(co == want, "launch %d: %lld of %lld blocks as coroutines, want %lld", launch, co, all, want);
        else
            EXPECT(co == 0 || (coroutines_here() && co == all), "launch %d: %lld of %lld blocks as coroutines", launch,
                   co, all);
    }

    setenv("CUDAEMU_COROUTINES", "1", 1);
    const char *orders[] = {"fwd", "rev", "rand:1", "rand:2"};
    for (const char *order : orders)
        reversal(order, coroutines_here(), in, out, votes);
    setenv("CUDAEMU_COROUTINES", "0", 1);
    reversal("fwd", false, in, out, votes);
    reversal("rand:3", false, in, out, votes);
    setenv("CUDAEMU_COROUTINES", "1", 1);
    cudaemuSetSchedule("fwd");

    column_sums<16><<<4, dim3(16, 16)>>>(in, out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(coroutine_blocks() == (coroutines_here() ? 4 : 0), "column_sums: %lld blocks ran as coroutines", coroutine_blocks());
    for (int b = 0; b < 4; b++)
        for (int x = 0; x < 16; x++) {
            int want = 0;
            for (int y = 0; y < 16; y++)
                want += (b * 16 + y) * 16 + x;
            EXPECT(out[b * 16 + x] == want, "column_sums: block %d column %d is %d, not %d", b, x, out[b * 16 + x],
                   want);
        }

    calls_a_barrier<<<1, BLOCK>>>(in, out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(coroutine_blocks() == 0, "calls_a_barrier: %lld blocks ran as coroutines", coroutine_blocks());
    for (int t = 0; t < BLOCK; t++)
        EXPECT(out[t] == (t + 1) % BLOCK, "calls_a_barrier: out[%d] = %d", t, out[t]);

    shuffles_too<<<1, BLOCK>>>(in, out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(coroutine_blocks() == 0, "shuffles_too: %lld blocks ran as coroutines", coroutine_blocks());
    for (int t = 0; t < BLOCK; t++)
        EXPECT(out[t] == ((BLOCK - 1 - t) ^ 1), "shuffles_too: out[%d] = %d", t, out[t]);

    prints_between<<<2, BLOCK>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(coroutine_blocks() == (coroutines_here() ? 2 : 0), "prints_between: %lld blocks ran as coroutines", coroutine_blocks());
    for (int t = 0; t < BLOCK; t++)
        EXPECT(out[t] == (t + 1) % BLOCK, "prints_between: out[%d] = %d", t, out[t]);

    through_a_pointer<<<1, 32>>>(out);
    cudaError_t err = cudaDeviceSynchronize();
    if (coroutines_here())
        EXPECT(err == cudaErrorNotSupported && strstr(cudaGetErrorString(err), "CUDAEMU_COROUTINES=0"),
               "through_a_pointer gave %s: %s", cudaGetErrorName(err), cudaGetErrorString(err));
    else
        EXPECT(err == cudaSuccess, "through_a_pointer on fibers gave %s", cudaGetErrorName(err));

    cudaFree(in), cudaFree(out), cudaFree(votes);
    return check_result();
}
