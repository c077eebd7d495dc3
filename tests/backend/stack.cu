/* stack.cu: a kernel with more local variables than a thread's default
 * stack (64 KB) runs once the program raises cudaLimitStackSize, which
 * cudaDeviceGetLimit then reports; the overflow without it is a diagnostic
 * (diagnostics.cu, case stack). */
#include "check.h"

enum { LOCALS = 40 * 1024 }; /* ints: 160 KB */

static __global__ void big_locals(int *out, int n)
{
    volatile int local[LOCALS];
    for (int i = 0; i < n; i++)
        local[i] = i % 100 + (int)threadIdx.x;
    __syncthreads(); /* every thread's array is live at once */
    int s = 0;
    for (int i = 0; i < n; i++)
        s += local[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* recursion, each level with a frame of its own */
static __device__ int depth(int n)
{
    volatile char frame[512];
    frame[n % 512] = 1;
    if (n == 0)
        return 0;
    int below = depth(n - 1);
    return below + frame[n % 512]; /* read after the call: each level keeps its frame */
}
static __global__ void recurse(int *out, int n) { out[threadIdx.x] = depth(n); }

int main(void)
{
    size_t limit = 0;
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    EXPECT(limit == 1024, "the default stack limit is %zu, not a GPU's 1024", limit);

    int *out;
    EXPECT_OK(cudaMallocManaged(&out, 2 * 64 * sizeof(int)));
    /* 160 KB of locals, and 300 frames of over 512 bytes: ask for 256 KB more */
    EXPECT_OK(cudaDeviceSetLimit(cudaLimitStackSize, 256 * 1024));
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    EXPECT(limit == 256 * 1024, "cudaDeviceGetLimit gives %zu after setting 262144", limit);
    big_locals<<<2, 64>>>(out, LOCALS);
    EXPECT_OK(cudaDeviceSynchronize());
    long long per_pass = 0;
    for (int i = 0; i < LOCALS; i++)
        per_pass += i % 100;
    for (int t = 0; t < 128; t++)
        EXPECT(out[t] == (int)(per_pass + (long long)(t % 64) * LOCALS), "thread %d: %d", t, out[t]);
    recurse<<<1, 64>>>(out, 300);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(out[0] == 300 && out[63] == 300, "recursion gave %d", out[0]);

    /* back to the default: kernels that fit still run */
    EXPECT_OK(cudaDeviceSetLimit(cudaLimitStackSize, 1024));
    recurse<<<1, 64>>>(out, 10);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(out[5] == 10, "after lowering the limit: %d", out[5]);
    EXPECT_OK(cudaFree(out));
    return check_result();
}
