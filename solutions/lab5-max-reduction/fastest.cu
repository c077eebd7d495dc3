/* fastest.cu: going further in lab 5, the maximum at the memory's speed.
 *
 * The lab's block_max (TODOs 4 to 7) reads one float per load and finishes
 * each block with a tree in shared memory.  Reading at the memory's full
 * speed needs more bytes in flight for each thread; this version
 *   - launches only as many blocks as the GPU holds at once (its SMs times
 *     the blocks of this kernel that fit on one), each thread walking the
 *     array with a grid-stride loop;
 *   - loads float4s, two independent ones per turn of the loop, so that
 *     each thread has 32 bytes on their way before it needs the first,
 *     from the end of the array backwards (its end is still in L2 after
 *     the upload);
 *   - finishes a block with warp shuffles (__shfl_xor_sync), no shared
 *     memory tree: each warp's 32 values in five steps, then the first warp
 *     over the warps' results, and one atomicMax per block as in the lab.
 * cudaMalloc aligns the array to 256 bytes, so the float4s are aligned; the
 * last n % 4 floats are read one at a time.
 *
 * It is not part of the lab build (the Makefile builds only the files that
 * labs/lab5-max-reduction/ has); `make bench` builds it and times it beside
 * CUB's DeviceReduce::Max.
 */
#include <math.h>
#include <string.h>

#include "kit.h"
#include "kit_program.h"

#define THREADS 256
#define WARPS (THREADS / 32)

#ifdef __cplusplus
extern "C" {
#endif
/* The largest of a[0..n-1], a in HOST memory, n >= 1 (as block_max of lab5.h). */
float block_max_fastest(const float *a, int n);
#ifdef __cplusplus
}
#endif

/* Floats ordered as ints (the lab's float_to_key): atomicMax compares ints. */
static __device__ int float_to_key(float x)
{
    int bits = __float_as_int(x);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

static int host_float_to_key(float x)
{
    int bits;
    memcpy(&bits, &x, sizeof bits);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

static float host_key_to_float(int key)
{
    int bits = key >= 0 ? key : key ^ 0x7fffffff;
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static __device__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

static __device__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

static __global__ void __launch_bounds__(THREADS) max4_kernel(const float *a, int n, int *result_key)
{
    __shared__ float warp_best[WARPS];
    int quads = n / 4, stride = gridDim.x * THREADS;
    /* Counted from the end: the array's last part was copied to the device
     * last and is still in L2, so it is read before the stream through the
     * rest pushes it out. */
    const float4 *end4 = (const float4 *)a + quads - 1;
    int i = blockIdx.x * THREADS + threadIdx.x;
    float mine = -INFINITY;
    for (; i + stride < quads; i += 2 * stride) {
        float4 first = end4[-i], second = end4[-(i + stride)]; /* both loads leave before either is used */
        mine = fmaxf(mine, fmaxf(max4(first), max4(second)));
    }
    if (i < quads)
        mine = fmaxf(mine, max4(end4[-i]));
    for (int j = 4 * quads + blockIdx.x * THREADS + threadIdx.x; j < n; j += stride)
        mine = fmaxf(mine, a[j]);

    mine = warp_max(mine);
    if (threadIdx.x % 32 == 0)
        warp_best[threadIdx.x / 32] = mine;
    __syncthreads();
    if (threadIdx.x < 32) {
        mine = warp_max(threadIdx.x < WARPS ? warp_best[threadIdx.x] : -INFINITY);
        if (threadIdx.x == 0)
            atomicMax(result_key, float_to_key(mine));
    }
}

float block_max_fastest(const float *a, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    int needed = (n / 4 + THREADS) / THREADS; /* no more blocks than there is work for */
    int blocks = kit_device_blocks_at_once((const void *)max4_kernel, THREADS, 0);
    if (blocks > needed)
        blocks = needed;

    float *d_a;
    int *d_key;
    int key = host_float_to_key(-INFINITY); /* the identity: any value beats it */
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_key, sizeof key));
    CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_key, &key, sizeof key, cudaMemcpyHostToDevice));
    LAUNCH(max4_kernel, blocks, THREADS, 0, d_a, n, d_key);
    CHECK(cudaMemcpy(&key, d_key, sizeof key, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_key));
    return host_key_to_float(key);
}
