/* expect: runs
 * cucc writes a kernel of the simple shape a third time, as loops over a
 * block's threads cut at its barriers (cudaemu/split.h, SplitKernel.pm),
 * and the runtime runs that form.  Each kernel here runs split, then as
 * coroutines, in the schedules fwd, rev and rand:7: the results must be
 * right, and the same both ways, racy kernels included (the threads run
 * in the same order), and the launch counts say which way ran
 * (CUDAEMU_COROUTINES=1: coroutines at every launch, not fibers at some
 * while it measures which is faster).  The kernels: one barrier; a tree
 * reduction (barriers in a for loop over blockDim), and the same synced
 * through cooperative groups' thread_block (its sync() read as
 * __syncthreads()); a 2-D tiled matmul template (a sum kept across tiles,
 * a loop bounded by locals every thread sets alike); a return in the last
 * stretch; locals declared without a value, an array per thread and a
 * constexpr; printf in a stretch (a call into the runtime); a parameter
 * that changes (each thread's own); and a kernel that keeps its coroutine
 * twin: a loop whose header names a thread's own variable. */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "check.h"

namespace cg = cooperative_groups;

enum { N = 256 };

__global__ void mirror(const int *in, int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    out[i] = s[blockDim.x - 1 - t];
}

__global__ void block_sums(const int *in, int *sums)
{
    __shared__ int s[N];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0)
        sums[blockIdx.x] = s[0];
}

/* (first and last are the same in every thread: the loop's header reads the first thread's) */
/* the same, the block synced through cooperative groups (three forms) */
__global__ void group_sums(const int *in, int *sums)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ int s[N];
    unsigned t = cta.thread_rank();
    s[t] = in[blockIdx.x * cta.size() + t];
    cg::sync(cta);
    for (unsigned half = blockDim.x / 2; half > 1; half >>= 1) {
        if (t < half)
            s[t] += s[t + half];
        cta.sync();
    }
    if (t == 0)
        s[0] += s[1];
    cg::this_thread_block().sync();
    if (t == 0)
        sums[blockIdx.x] = s[0];
}

template <int W>
__global__ void matmul(const float *a, const float *b, float *c, int size)
{
    __shared__ float a_tile[W][W], b_tile[W][W];
    int row = blockIdx.y * W + threadIdx.y, col = blockIdx.x * W + threadIdx.x;
    int first = 0, last = size - 1;
    float sum = 0.0f;
    for (int k0 = first; k0 <= last; k0 += W) {
        a_tile[threadIdx.y][threadIdx.x] = a[row * size + k0 + threadIdx.x];
        b_tile[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * size + col];
        __syncthreads();
        for (int k = 0; k < W; k++)
            sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
        __syncthreads();
    }
    c[row * size + col] = sum;
}

__global__ void tail_return(const int *in, int *out, int n)
{
    __shared__ int s[N];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    if (i >= n)
        return;
    out[i] = s[threadIdx.x] + s[(threadIdx.x + 1) % blockDim.x];
}

__global__ void locals(int *out)
{
    __shared__ int s[N];
    constexpr int spread = 3;
    int t = threadIdx.x;
    int later;
    int parts[spread];
    for (int j = 0; j < spread; j++)
        parts[j] = t * (j + 1);
    s[t] = t;
    __syncthreads();
    later = s[(t + 1) % blockDim.x];
    __syncthreads();
    out[t] = parts[0] + parts[1] + parts[2] + later;
}

/* racy on purpose: each thread adds its left neighbour's value, which that
 * neighbour may have updated already; the outcome depends on the order */
__global__ void racy(int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    s[t] += s[(t + blockDim.x - 1) % blockDim.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t];
}

__global__ void talks(int *out)
{
    __shared__ int s[N];
    s[threadIdx.x] = (int)threadIdx.x;
    if (threadIdx.x == 5)
        printf("split: thread %d of block %d says hello\n", (int)threadIdx.x, (int)blockIdx.x);
    __syncthreads();
    out[threadIdx.x] = s[N - 1 - threadIdx.x];
}

/* not split: the loop's header names t, a thread's own */
__global__ void thread_loop_header(int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x, acc = 0;
    s[t] = 1;
    for (int k = 0; k < (t < 4 ? 2 : 2); k++) {
        __syncthreads();
        acc += s[(t + k) % N];
        __syncthreads();
    }
    out[t] = acc;
}

/* the parameter n changes: each thread's own copy of it */
__global__ void changes_parameter(int *out, int n)
{
    __shared__ int s[N];
    s[threadIdx.x] = n;
    n += (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[N - 1 - threadIdx.x] + n;
}

static long long last(long long cudaemuLaunchCounts::*field)
{
    cudaemuLaunchCounts counts;
    cudaemuLastLaunchCounts(&counts);
    return counts.*field;
}

/* Runs launch() split and as coroutines in each schedule; checks that both
 * give the same `count` ints at out, that check() holds, and which way ran. */
static void both_ways(const char *name, void (*launch)(void), const int *out, int count, bool split, long long blocks,
                      bool (*check)(const int *))
{
    static int first[1 << 16];
    const char *schedules[] = {"fwd", "rev", "rand:7"};
    for (const char *schedule : schedules) {
        cudaemuSetSchedule(schedule);
        unsetenv("CUDAEMU_COROUTINES");
        launch();
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(last(&cudaemuLaunchCounts::split_blocks) == (split ? blocks : 0), "%s (%s): %lld blocks split, want %lld",
               name, schedule, last(&cudaemuLaunchCounts::split_blocks), split ? blocks : 0);
        EXPECT(check(out), "%s (%s, split): wrong result", name, schedule);
        memcpy(first, out, count * sizeof(int));
        setenv("CUDAEMU_COROUTINES", "1", 1);
        cudaemuSetSchedule(schedule); /* (rand:7 from its start again) */
        launch();
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(last(&cudaemuLaunchCounts::split_blocks) == 0, "%s (%s): split with CUDAEMU_COROUTINES=1", name, schedule);
        EXPECT(last(&cudaemuLaunchCounts::coroutine_blocks) == blocks, "%s (%s): %lld blocks as coroutines, want %lld",
               name, schedule, last(&cudaemuLaunchCounts::coroutine_blocks), blocks);
        EXPECT(!memcmp(first, out, count * sizeof(int)), "%s (%s): split and coroutines differ", name, schedule);
    }
    cudaemuSetSchedule("fwd");
    unsetenv("CUDAEMU_COROUTINES");
}

static int *in, *out;
static float *fa, *fb, *fc;
enum { BLOCKS = 8, SIZE = 64 };

static void launch_mirror(void) { mirror<<<BLOCKS, N>>>(in, out); }
static bool mirrored(const int *o)
{
    for (int i = 0; i < BLOCKS * N; i++)
        if (o[i] != in[i / N * N + N - 1 - i % N])
            return false;
    return true;
}
static void launch_sums(void) { block_sums<<<BLOCKS, N>>>(in, out); }
static void launch_group_sums(void) { group_sums<<<BLOCKS, N>>>(in, out); }
static bool summed(const int *o)
{
    for (int b = 0; b < BLOCKS; b++) {
        int want = 0;
        for (int t = 0; t < N; t++)
            want += in[b * N + t];
        if (o[b] != want)
            return false;
    }
    return true;
}
static void launch_matmul(void) { matmul<16><<<dim3(SIZE / 16, SIZE / 16), dim3(16, 16)>>>(fa, fb, fc, SIZE); }
static bool multiplied(const int *)
{
    for (int i = 0; i < SIZE; i++)
        for (int j = 0; j < SIZE; j++) {
            float want = 0.0f;
            for (int k = 0; k < SIZE; k++)
                want += fa[i * SIZE + k] * fb[k * SIZE + j];
            if (fc[i * SIZE + j] != want)
                return false;
        }
    return true;
}
enum { TAIL = BLOCKS * N - 37 };
static void launch_tail(void) { tail_return<<<BLOCKS, N>>>(in, out, TAIL); }
static bool tailed(const int *o)
{
    for (int i = 0; i < TAIL; i++) {
        int next = i / N * N + (i + 1) % N;
        if (o[i] != in[i] + (next < TAIL ? in[next] : 0))
            return false;
    }
    return true;
}
static void launch_locals(void) { locals<<<1, N>>>(out); }
static bool locals_right(const int *o)
{
    for (int t = 0; t < N; t++)
        if (o[t] != 6 * t + (t + 1) % N)
            return false;
    return true;
}
static void launch_racy(void) { racy<<<2, N>>>(out); }
static bool anything(const int *) { return true; }
static void launch_talks(void) { talks<<<2, N>>>(out); }
static bool talked(const int *o)
{
    for (int t = 0; t < N; t++)
        if (o[t] != N - 1 - t)
            return false;
    return true;
}
static void launch_header(void) { thread_loop_header<<<1, N>>>(out); }
static bool header_right(const int *o)
{
    for (int t = 0; t < N; t++)
        if (o[t] != 2)
            return false;
    return true;
}
static void launch_changes(void) { changes_parameter<<<1, N>>>(out, 5); }
static bool changes_right(const int *o)
{
    for (int t = 0; t < N; t++)
        if (o[t] != 5 + 5 + t)
            return false;
    return true;
}

int main(void)
{
    EXPECT_OK(cudaMallocManaged(&in, BLOCKS * N * sizeof(int)));
    EXPECT_OK(cudaMallocManaged(&out, BLOCKS * N * sizeof(int)));
    EXPECT_OK(cudaMallocManaged(&fa, SIZE * SIZE * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&fb, SIZE * SIZE * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&fc, SIZE * SIZE * sizeof(float)));
    for (int i = 0; i < BLOCKS * N; i++)
        in[i] = (i * 7919) % 1000 - 500;
    for (int i = 0; i < SIZE * SIZE; i++) {
        fa[i] = (float)(i % 7);
        fb[i] = (float)(i % 5);
    }
    both_ways("mirror", launch_mirror, out, BLOCKS * N, true, BLOCKS, mirrored);
    both_ways("block_sums", launch_sums, out, BLOCKS, true, BLOCKS, summed);
    both_ways("group_sums", launch_group_sums, out, BLOCKS, true, BLOCKS, summed);
    both_ways("matmul", launch_matmul, (const int *)fc, SIZE * SIZE, true, (SIZE / 16) * (SIZE / 16), multiplied);
    both_ways("tail_return", launch_tail, out, TAIL, true, BLOCKS, tailed);
    both_ways("locals", launch_locals, out, N, true, 1, locals_right);
    both_ways("racy", launch_racy, out, 2 * N, true, 2, anything);
    both_ways("talks", launch_talks, out, N, true, 2, talked);
    both_ways("thread_loop_header", launch_header, out, N, false, 1, header_right);
    both_ways("changes_parameter", launch_changes, out, N, true, 1, changes_right);
    cudaFree(in), cudaFree(out), cudaFree(fa), cudaFree(fb), cudaFree(fc);
    return check_result();
}
