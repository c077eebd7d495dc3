// mutant: hello() asks cudaPeekAtLastError, which leaves the error pending, so the next good launch is reported as failed too
// replaces: hello.cu
// must-fail: launch_error_reported
/* hello.cu: lab 1, your first kernels.
 *
 * Three parts, each a few lines of CUDA:
 *   Part 1  ask CUDA which GPU this is               (TODO 1)
 *   Part 2  a kernel in which every thread says hello (TODO 2, TODO 3)
 *   Part 3  every thread finds its own global index   (TODO 4, TODO 5)
 * The entry points are declared, with what each must do, in lab1.h.
 * Build and run with `make lab1`; grade with `./grader lab1`.
 */
#include <stdio.h>
#include <string.h>

#include "kit.h"
#include "lab1.h"

/* ---- Part 1: the device ------------------------------------------------------ */

void describe_device(lab1_device_info *info)
{
    memset(info, 0, sizeof *info);
    /* TODO 1: ask CUDA for the properties of the current device
     * (cudaGetDevice, then cudaGetDeviceProperties, each inside CHECK) and copy
     * the name, the number of multiprocessors, the compute capability, the warp
     * size, the largest block and the size of global memory into *info. */
    int device = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaGetDeviceProperties(&prop, device));
    strncpy(info->name, prop.name, sizeof info->name - 1);
    info->multiprocessor_count = prop.multiProcessorCount;
    info->major = prop.major;
    info->minor = prop.minor;
    info->warp_size = prop.warpSize;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    info->global_memory_bytes = (long long)prop.totalGlobalMem;
    /* END TODO 1 */
}

/* ---- Part 2: hello from every thread --------------------------------------- */

static __global__ void hello_kernel(void)
{
    /* TODO 2: print one line, "hello from block B, thread T", with this
     * thread's block number (blockIdx.x) and thread number (threadIdx.x). */
    printf("hello from block %d, thread %d\n", (int)blockIdx.x, (int)threadIdx.x);
    /* END TODO 2 */
}

int hello(int blocks, int threads_per_block)
{
    /* TODO 3: launch hello_kernel on `blocks` blocks of `threads_per_block`
     * threads, then check by hand what LAUNCH and CHECK do for you elsewhere:
     *   - cudaGetLastError() says whether CUDA accepted the launch;
     *   - cudaDeviceSynchronize() waits for the kernel (the lines appear
     *     then) and reports an error that happened while it ran.
     * On an error print a message that names it (cudaGetErrorString) on
     * stderr and return the error code; otherwise return 0. */
    hello_kernel<<<blocks, threads_per_block>>>();
    cudaError_t err = cudaPeekAtLastError(); /* reads the error but does not clear it */
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "hello: %d blocks of %d threads: %s (%s)\n", blocks, threads_per_block,
                cudaGetErrorString(err), cudaGetErrorName(err));
        return (int)err;
    }
    return 0;
    /* END TODO 3 */
}

/* ---- Part 3: global indices -------------------------------------------------- */

static __global__ void global_index_kernel(int *out, int n)
{
    /* TODO 4: compute this thread's global index g, as the handout defines it:
     * the block's number in the grid times the threads in one block, plus the
     * thread's number in its block, where both numbers count x first, then y,
     * then z.  Store g at out[g] only when g < n. */
    int block_number = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int thread_number = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
    int g = block_number * threads_per_block + thread_number;
    if (g < n)
        out[g] = g;
    /* END TODO 4 */
}

void fill_global_indices(int *out, int n, lab1_shape grid, lab1_shape block)
{
    size_t threads = (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    size_t bytes = threads * sizeof(int);
    int *d_out = NULL;
    /* The device copy starts as the host array, so what no thread writes keeps its old value. */
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_out, out, bytes, cudaMemcpyHostToDevice));

    /* TODO 5: launch global_index_kernel with exactly this grid and block:
     * make two dim3 from the shapes and use LAUNCH(kernel, grid, block, 0, args...). */
    dim3 grid_size(grid.x, grid.y, grid.z);
    dim3 block_size(block.x, block.y, block.z);
    LAUNCH(global_index_kernel, grid_size, block_size, 0, d_out, n);
    /* END TODO 5 */

    CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
}
