/* fastest.cu: going further in lab 2, element-wise products at the memory's speed.
 *
 * The lab's kernel gives each thread one float of each array: 4-byte loads
 * and stores.  Here each thread takes four neighbouring floats as one
 * float4 (a 16-byte load of a, one of b, a 16-byte store of c), so a warp
 * moves 512 bytes per instruction instead of 128 and a quarter as many
 * threads keep the same bytes in flight.  cudaMalloc returns addresses
 * aligned to 256 bytes, so every float4 starts on a multiple of 16 bytes;
 * the last n % 4 floats are left to the first threads of the grid.
 *
 * It is not part of the lab build (the Makefile builds only the files that
 * labs/lab2-vector-mult/ has); `make bench` builds it and times it beside
 * the device's copy rate.
 */
#include "kit.h"

#define THREADS 256

#ifdef __cplusplus
extern "C" {
#endif
/* c[i] = a[i] * b[i] for i < n, every pointer HOST memory (as vector_mult of lab2.h). */
void vector_mult_fastest(const float *a, const float *b, float *c, int n);
/* The same on arrays already in DEVICE memory (from cudaMalloc): the launch alone. */
void vector_mult_fastest_on_device(const float *d_a, const float *d_b, float *d_c, int n);
#ifdef __cplusplus
}
#endif

static __global__ void multiply4_kernel(const float4 *a, const float4 *b, float4 *c, int quads,
                                        const float *a_tail, const float *b_tail, float *c_tail, int tail)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < quads) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x * y.x, x.y * y.y, x.z * y.z, x.w * y.w);
    }
    if (i < tail)
        c_tail[i] = a_tail[i] * b_tail[i];
}

void vector_mult_fastest_on_device(const float *d_a, const float *d_b, float *d_c, int n)
{
    int quads = n / 4, tail = n % 4, done = 4 * quads;
    int threads = quads > tail ? quads : tail;
    LAUNCH(multiply4_kernel, (threads + THREADS - 1) / THREADS, THREADS, 0, (const float4 *)d_a,
           (const float4 *)d_b, (float4 *)d_c, quads, d_a + done, d_b + done, d_c + done, tail);
}

void vector_mult_fastest(const float *a, const float *b, float *c, int n)
{
    if (n == 0)
        return;
    size_t bytes = (size_t)n * sizeof(float);
    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
    vector_mult_fastest_on_device(d_a, d_b, d_c, n);
    CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
}
