/* shared_dot.cu: lab 6, the dot product with a shared-memory tree per block.
 *
 * Read lab6.h first: it says what each function must return, and the
 * ownership rule that ties a block to the elements it adds up.
 *
 * The path of the lab, by TODO:
 *   1-2  the products on the device, the sum on the host (the baseline);
 *   3-4  one kernel that leaves one partial per block: each thread sums the
 *        elements it owns, then the block adds its threads' sums in a
 *        shared-memory tree;
 *   5    how many blocks to launch, asked from the device;
 *   6-7  the partials finished on the host, with the invariant checked;
 *   8    the partials finished on the device.
 */
#include <math.h>
#include <stdlib.h>

#include "kit.h"
#include "lab6.h"

/* The products kernel of steps 1-2 runs one thread per element. */
#define PRODUCT_BLOCK_SIZE 256

/* ---- Steps 1 and 2: products on the device, sum on the host --------------- */

static __global__ void products_kernel(const float *x, const float *y, int n, float *products)
{
    /* TODO 1: one thread per element: thread i (counted over the whole grid)
     * stores x[i] * y[i] in products[i].  The last block may have threads
     * past the end of the arrays. */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        products[i] = x[i] * y[i];
    /* END TODO 1 */
}

float dot_sum_on_host(const float *x, const float *y, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *d_x, *d_y, *d_products;
    float *products = (float *)malloc(bytes);
    if (!products)
        kit_fail(__FILE__, __LINE__, "no host memory for %d products", n);
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_products, bytes));
    CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));

    int blocks = (n + PRODUCT_BLOCK_SIZE - 1) / PRODUCT_BLOCK_SIZE;
    LAUNCH(products_kernel, blocks, PRODUCT_BLOCK_SIZE, 0, d_x, d_y, n, d_products);
    CHECK(cudaMemcpy(products, d_products, bytes, cudaMemcpyDeviceToHost));

    double sum = 0.0;
    /* TODO 2: add up the n products in `sum`.  Why is `sum` a double and
     * not a float?  (Try a float with n = 2^24 in the lab program.) */
    for (int i = 0; i < n; i++)
        sum += products[i];
    /* END TODO 2 */

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_products));
    free(products);
    return (float)sum;
}

/* ---- Steps 3 and 4: one partial per block ------------------------------------ */

/* Launched with blockDim.x * sizeof(float) bytes of dynamic shared memory:
 * one slot per thread.  blockDim.x is a power of two. */
static __global__ void partials_kernel(const float *x, const float *y, int n, float *partials)
{
    extern __shared__ float cache[];

    float mine = 0.0f;
    /* TODO 3: add up in `mine` the products of the elements this thread owns:
     * start at blockIdx.x * blockDim.x + threadIdx.x and step by the number
     * of threads in the whole grid (the ownership rule of lab6.h). */
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        mine += x[i] * y[i];
    /* END TODO 3 */
    cache[threadIdx.x] = mine;

    /* TODO 4: add the block's blockDim.x sums into cache[0] with a tree in
     * shared memory: at each level the first half of the active threads add
     * the slot `half` places further on to their own, and the level is
     * halved.  Every thread must have written its slot before anyone reads
     * it, and each level must be finished before the next one starts. */
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    /* END TODO 4 */

    if (threadIdx.x == 0)
        partials[blockIdx.x] = cache[0];
}

/* ---- Step 5: how many blocks ------------------------------------------------------ */

int dot_choose_blocks(int n, int block_size)
{
    int blocks = 1;
    /* TODO 5: the number of SMs (cudaDeviceGetAttribute with
     * cudaDevAttrMultiProcessorCount) times the number of partials_kernel
     * blocks that fit on one SM at once
     * (cudaOccupancyMaxActiveBlocksPerMultiprocessor, with the kernel's
     * shared memory), but no more blocks than there are chunks of
     * block_size elements, and at least one. */
    int device, sms, per_sm;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, partials_kernel, block_size,
                                                         block_size * sizeof(float)));
    int chunks = (n + block_size - 1) / block_size;
    blocks = sms * per_sm;
    if (blocks > chunks)
        blocks = chunks;
    if (blocks < 1)
        blocks = 1;
    /* END TODO 5 */
    return blocks;
}

/* ---- Steps 6 and 7: the partials finished on the host ------------------------------ */

int dot_partials_hold(const float *x, const float *y, int n, int block_size, int blocks, const float *partials)
{
    double *owned_dot = (double *)calloc((size_t)blocks, sizeof(double));
    double *owned_abs = (double *)calloc((size_t)blocks, sizeof(double));
    if (!owned_dot || !owned_abs)
        kit_fail(__FILE__, __LINE__, "no host memory to check %d partials", blocks);
    int holds = 1;
    /* TODO 6: for every element i, add x[i]*y[i] (in double) to the
     * owned_dot of the block that owns it, and its absolute value to
     * owned_abs.  Then compare each partial with kit_within_tolerance;
     * for the first block that breaks the invariant print what was
     * expected and what is there, and set holds to 0. */
    for (int i = 0; i < n; i++) {
        int owner = (i / block_size) % blocks;
        double product = (double)x[i] * (double)y[i];
        owned_dot[owner] += product;
        owned_abs[owner] += fabs(product);
    }
    for (int b = 0; b < blocks && holds; b++) {
        if (!kit_within_tolerance(partials[b], owned_dot[b], owned_abs[b], DOT_TOLERANCE_C)) {
            fprintf(stderr, "invariant broken: partial[%d] = %.9g but the elements block %d owns add up to %.9g\n",
                    b, partials[b], b, owned_dot[b]);
            holds = 0;
        }
    }
    /* END TODO 6 */
    free(owned_dot);
    free(owned_abs);
    return holds;
}

float dot_host_finish(const float *x, const float *y, int n, int block_size, int blocks, float *partials_out)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *d_x, *d_y, *d_partials;
    float *partials = (float *)malloc((size_t)blocks * sizeof(float));
    if (!partials)
        kit_fail(__FILE__, __LINE__, "no host memory for %d partials", blocks);
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_partials, (size_t)blocks * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));

    /* The third number of the launch is the dynamic shared memory of each
     * block: the `cache` of partials_kernel, one float per thread. */
    LAUNCH(partials_kernel, blocks, block_size, block_size * sizeof(float), d_x, d_y, n, d_partials);
    SNAPSHOT(d_partials, blocks, 1);
    CHECK(cudaMemcpy(partials, d_partials, (size_t)blocks * sizeof(float), cudaMemcpyDeviceToHost));

    double sum = 0.0;
    /* TODO 7: between the two passes, check the invariant: stop with
     * kit_fail when dot_partials_hold says it is broken.  Then add the
     * partials up in `sum`. */
    if (!dot_partials_hold(x, y, n, block_size, blocks, partials))
        kit_fail(__FILE__, __LINE__,
                 "after the first pass (n = %d, %d blocks of %d threads) the partials break the invariant "
                 "(dot_partials_hold printed which one)",
                 n, blocks, block_size);
    for (int b = 0; b < blocks; b++)
        sum += partials[b];
    /* END TODO 7 */

    if (partials_out)
        for (int b = 0; b < blocks; b++)
            partials_out[b] = partials[b];
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_partials));
    free(partials);
    return (float)sum;
}

/* ---- Step 8: the partials finished on the device ------------------------------------ */

/* TODO 8: finish on the device.  Either a second kernel, launched as one
 * block, whose threads each add up a stride of the partials and then
 * combine their sums with the same tree; or partials_kernel's idea with one
 * atomicAdd per block into a single float.  Then write dot_device_finish:
 * only one float comes back to the host. */
static __global__ void finish_kernel(const float *partials, int count, float *result)
{
    extern __shared__ float cache[];
    float mine = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        mine += partials[i];
    cache[threadIdx.x] = mine;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *result = cache[0];
}

float dot_device_finish(const float *x, const float *y, int n, int block_size, int blocks)
{
    size_t bytes = (size_t)n * sizeof(float);
    size_t shared = block_size * sizeof(float);
    float *d_x, *d_y, *d_partials, *d_result;
    float result = 0.0f;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_partials, (size_t)blocks * sizeof(float)));
    CHECK(cudaMalloc(&d_result, sizeof(float)));
    CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));
    LAUNCH(partials_kernel, blocks, block_size, shared, d_x, d_y, n, d_partials);
    SNAPSHOT(d_partials, blocks, 1);
    LAUNCH(finish_kernel, 1, block_size, shared, d_partials, blocks, d_result);
    CHECK(cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_partials));
    CHECK(cudaFree(d_result));
    return result;
}
/* END TODO 8 */
