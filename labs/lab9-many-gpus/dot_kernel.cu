/* dot_kernel.cu: the kernels lab 9 is given (dot_kernel.h says what each
 * does).  Nothing to do here.
 * (dist: compiled only: the dot kernel is lab 7's answer, so a student copy
 * holds its object, prebuilt/<backend>/lab9-many-gpus/dot_kernel.o, not this
 * source.) */
#include "kit.h"
#include "dot_kernel.h"

#define DOT_BLOCK 256
#define DOT_MAX_BLOCKS 1024

/* Lab 7's kernel with a shared-memory tree: a grid-stride sum per thread in
 * a double, the block's tree, one atomicAdd per block. */
static __global__ void dot_kernel(const float *x, const float *y, int n, double *result)
{
    __shared__ double cache[DOT_BLOCK];
    double sum = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        sum += (double)x[i] * y[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(result, cache[0]);
}

/* One thread adds the values in order, so the total is the same on every
 * machine and for every schedule. */
static __global__ void add_doubles_kernel(const double *values, int count, double *total)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        double sum = 0.0;
        for (int i = 0; i < count; i++)
            sum += values[i];
        *total = sum;
    }
}

static __global__ void add_floats_kernel(float *into, const float *from, int count)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x)
        into[i] += from[i];
}

static int blocks_for(long long count)
{
    long long blocks = (count + DOT_BLOCK - 1) / DOT_BLOCK;
    return blocks < 1 ? 1 : blocks > DOT_MAX_BLOCKS ? DOT_MAX_BLOCKS : (int)blocks;
}

/* LAUNCH with a stream: the same record and check as kit.h's LAUNCH, the
 * kernel on `stream`. */
#define LAUNCH_ON_STREAM(stream, kernel, grid, block, ...)                                     \
    do {                                                                                         \
        kit_launch_begin(#kernel, dim3(grid), dim3(block), 0, __FILE__, __LINE__);              \
        kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__);                                  \
        kit_launch_end(__FILE__, __LINE__);                                                     \
    } while (0)

void launch_dot(const float *x, const float *y, int n, double *result, cudaStream_t stream)
{
    LAUNCH_ON_STREAM(stream, dot_kernel, blocks_for(n), DOT_BLOCK, x, y, n, result);
}

void launch_add_doubles(const double *values, int count, double *total, cudaStream_t stream)
{
    LAUNCH_ON_STREAM(stream, add_doubles_kernel, 1, 32, values, count, total);
}

void launch_add_floats(float *into, const float *from, int count, cudaStream_t stream)
{
    LAUNCH_ON_STREAM(stream, add_floats_kernel, blocks_for(count), DOT_BLOCK, into, from, count);
}
