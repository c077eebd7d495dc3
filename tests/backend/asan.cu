/* asan.cu: out-of-bounds accesses and a leak, for the ASan build of the
 * cpu backend (`asan CASE`).  The planted bug's line carries an
 * "expect CASE: REGEX" comment that tests/check-backend.sh looks for in
 * ASan's report. */
#include "check.h"

static __global__ void no_bound_check(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i]; /* expect global: heap-buffer-overflow */
    (void)n;
}

static __global__ void shared_past_end(float *out)
{
    __shared__ float before[32];
    __shared__ float cache[64];
    cache[threadIdx.x] = threadIdx.x;
    before[threadIdx.x % 32] = 0;
    __syncthreads();
    out[threadIdx.x] = cache[threadIdx.x + 1]; /* expect shared: use-after-poison */
}

static __global__ void dynamic_past_end(float *out)
{
    extern __shared__ float dynamic[];
    dynamic[threadIdx.x] = 1.0f; /* expect dynamic: use-after-poison */
    out[threadIdx.x] = dynamic[threadIdx.x];
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int n = 1000;
    float *in, *out;
    EXPECT_OK(cudaMalloc(&in, n * sizeof(float)));
    EXPECT_OK(cudaMalloc(&out, n * sizeof(float)));
    EXPECT_OK(cudaMemset(in, 0, n * sizeof(float)));
    if (!strcmp(c, "global")) {
        no_bound_check<<<(n + 255) / 256, 256>>>(in, out, n);
    } else if (!strcmp(c, "shared")) {
        shared_past_end<<<1, 64>>>(out);
    } else if (!strcmp(c, "dynamic")) {
        dynamic_past_end<<<1, 64, 32 * sizeof(float)>>>(out);
    } else if (!strcmp(c, "leak")) {
        float *forgotten;
        EXPECT_OK(cudaMalloc(&forgotten, 4096)); /* expect leak: detected memory leaks */
        printf("before the leak\n");               /* buffered: must come out before the report */
    } else if (!strcmp(c, "clean")) {
        no_bound_check<<<n / 256, 256>>>(in, out, n);
        shared_past_end<<<1, 63>>>(out);
        dynamic_past_end<<<1, 64, 64 * sizeof(float)>>>(out);
    } else {
        fprintf(stderr, "usage: asan global|shared|dynamic|leak|clean\n");
        return 2;
    }
    EXPECT_OK(cudaDeviceSynchronize());
    cudaFree(in), cudaFree(out);
    return check_result();
}
