// mutant: vector_mult launches even when n == 0, and a grid of 0 blocks is refused
// replaces: vector_mult.cu
// must-fail: products_exact
/* vector_mult.cu: lab 2, moving data to the GPU and back.
 *
 * The GPU computes only on its own memory.  Every entry point here follows
 * the same five steps: allocate device memory, copy the inputs in, launch,
 * copy the results out, free.
 *   Part 1  element-wise products, one thread per element    (TODO 1 to TODO 4)
 *   Part 2  the same in place with a few blocks: grid-stride  (TODO 5, TODO 6)
 *   Part 3  a dot product, every phase timed, summed on the host (TODO 7, TODO 8)
 * The entry points are declared, with what each must do, in lab2.h.
 * Build and run with `make lab2`; grade with `./grader lab2`.
 */
#include <stdlib.h>

#include "kit.h"
#include "lab2.h"

#define THREADS LAB2_THREADS_PER_BLOCK

/* ---- Part 1: one thread per element ------------------------------------------------ */

static __global__ void multiply_kernel(const float *a, const float *b, float *c, int n)
{
    /* TODO 1: compute this thread's element i from blockIdx.x, blockDim.x and
     * threadIdx.x, and set c[i] = a[i] * b[i].  The last block usually has
     * threads past the end of the arrays: they must not touch them. */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] * b[i];
    /* END TODO 1 */
}

/* A new device array holding a copy of n floats of host memory. */
static float *copy_to_device(const float *host, int n)
{
    float *device = NULL;
    /* TODO 2: cudaMalloc room for n floats into `device`, then cudaMemcpy the
     * host array into it (cudaMemcpyHostToDevice); each call inside CHECK. */
    CHECK(cudaMalloc(&device, (size_t)n * sizeof(float)));
    CHECK(cudaMemcpy(device, host, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    /* END TODO 2 */
    return device;
}

/* Copies n floats of device memory into host memory. */
static void copy_to_host(float *host, const float *device, int n)
{
    /* TODO 3: the same cudaMemcpy, the other way (cudaMemcpyDeviceToHost). */
    CHECK(cudaMemcpy(host, device, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    /* END TODO 3 */
}

void vector_mult(const float *a, const float *b, float *c, int n)
{
    /* TODO 4: the five steps: copy a and b to the device, cudaMalloc the
     * device array for c, LAUNCH multiply_kernel with enough blocks of THREADS
     * threads to cover n elements, copy c back, cudaFree all three arrays.
     * With n == 0 there is nothing to do (and a launch of 0 blocks is an error). */
    float *d_a = copy_to_device(a, n);
    float *d_b = copy_to_device(b, n);
    float *d_c = NULL;
    CHECK(cudaMalloc(&d_c, (size_t)n * sizeof(float)));
    int blocks = (n + THREADS - 1) / THREADS;
    LAUNCH(multiply_kernel, blocks, THREADS, 0, d_a, d_b, d_c, n);
    copy_to_host(c, d_c, n); /* waits for the kernel: both are on the default stream */
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    /* END TODO 4 */
}

/* ---- Part 2: a few blocks, a grid-stride loop ------------------------------------------ */

static __global__ void multiply_in_place_kernel(float *a, const float *b, int n)
{
    /* TODO 5: a grid-stride loop: start at this thread's global index and step
     * by the number of threads in the whole grid (gridDim.x * blockDim.x) while
     * the index is below n, doing a[i] = a[i] * b[i] at each step. */
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        a[i] *= b[i];
    /* END TODO 5 */
}

void vector_mult_in_place(float *a, const float *b, int n, int blocks)
{
    if (n == 0)
        return;
    float *d_a = copy_to_device(a, n);
    float *d_b = copy_to_device(b, n);

    /* TODO 6: LAUNCH multiply_in_place_kernel with exactly `blocks` blocks of
     * THREADS threads, whatever n is. */
    LAUNCH(multiply_in_place_kernel, blocks, THREADS, 0, d_a, d_b, n);
    /* END TODO 6 */

    copy_to_host(a, d_a, n);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
}

/* ---- Part 3: the dot product, every phase timed ------------------------------------------- */

float dot_product(const float *a, const float *b, int n, lab2_phase_times *times)
{
    lab2_phase_times not_timed = {-1, -1, -1, -1};
    *times = not_timed;
    if (n == 0)
        return 0.0f; /* the empty sum */
    float *products = (float *)calloc((size_t)n, sizeof(float));
    float sum = 0.0f;

    /* TODO 7: the device part, timing each phase into *times:
     *   copy in   copy a and b to the device and cudaMalloc the products;
     *             cudaMemcpy returns when the copy is done, so kit_wall_ms()
     *             before and after measures it;
     *   kernel    LAUNCH multiply_kernel between two cudaEventRecord calls, then
     *             cudaEventSynchronize and cudaEventElapsedTime: a launch returns
     *             before its kernel has finished, so the host clock cannot time it;
     *   copy out  copy the products into `products`, timed like the copy in.
     * Then free the device arrays and destroy the events. */
    double started = kit_wall_ms();
    float *d_a = copy_to_device(a, n);
    float *d_b = copy_to_device(b, n);
    float *d_c = NULL;
    CHECK(cudaMalloc(&d_c, (size_t)n * sizeof(float)));
    times->copy_in_ms = kit_wall_ms() - started;

    cudaEvent_t kernel_started, kernel_finished;
    float kernel_ms = 0.0f;
    CHECK(cudaEventCreate(&kernel_started));
    CHECK(cudaEventCreate(&kernel_finished));
    CHECK(cudaEventRecord(kernel_started, 0));
    LAUNCH(multiply_kernel, (n + THREADS - 1) / THREADS, THREADS, 0, d_a, d_b, d_c, n);
    CHECK(cudaEventRecord(kernel_finished, 0));
    CHECK(cudaEventSynchronize(kernel_finished));
    CHECK(cudaEventElapsedTime(&kernel_ms, kernel_started, kernel_finished));
    times->kernel_ms = kernel_ms;

    started = kit_wall_ms();
    copy_to_host(products, d_c, n);
    times->copy_out_ms = kit_wall_ms() - started;

    CHECK(cudaEventDestroy(kernel_started));
    CHECK(cudaEventDestroy(kernel_finished));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    /* END TODO 7 */

    /* TODO 8: add up the n products on the host into `sum`, timed into
     * times->host_sum_ms.  A double accumulator keeps the rounding error
     * far below what float alone would give for millions of terms. */
    double sum_started = kit_wall_ms();
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += products[i];
    sum = (float)total;
    times->host_sum_ms = kit_wall_ms() - sum_started;
    /* END TODO 8 */

    free(products);
    return sum;
}
