/* diagnostics.cu: one planted bug per case (`diagnostics CASE`).  Each bug's
 * line carries an "expect CASE: REGEX" comment: tests/check-backend.sh checks
 * that stderr says "diagnostics.cu:LINE: error: ..." matching REGEX, and this
 * program checks the CUDA side: the launch fails, later calls keep failing
 * (a sticky error, as on a GPU), and cudaGetErrorString names the line. */
#include <assert.h>
#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;
#define FULL 0xffffffffu

static __global__ void divergence(int *out)
{
    if (threadIdx.x < 32)
        __syncthreads(); /* expect divergence: barrier divergence in block 0: threads 0-31 wait */
    else
        __syncthreads();
    out[threadIdx.x] = 1;
}

static __global__ void exited(int *out)
{
    if (threadIdx.x >= 40)
        return;
    __syncthreads(); /* expect exited: barrier can never complete.*threads 40-63 have already exited */
    out[threadIdx.x] = 1;
}

static __global__ void mask_lanes_exited(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x >= 16)
        return;
    v = __shfl_down_sync(FULL, v, 1); /* expect mask_exited: can never complete.*lanes 16-31 named in the mask have already exited */
    out[threadIdx.x] = v;
}

static __global__ void mask_without_caller(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x < 16)
        v = __shfl_sync(0x0000ff00u, v, 8); /* expect mask_caller: does not include */
    out[threadIdx.x] = v;
}

static __global__ void mask_absent_lanes(int *out)
{
    int v = __shfl_xor_sync(FULL, (int)threadIdx.x, 1); /* expect mask_absent: names lanes that do not exist */
    out[threadIdx.x] = v;
}

static __global__ void read_outside_mask(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x < 16)
        v = __shfl_sync(0x0000ffffu, v, 20, 32); /* expect read_outside: reads lane 20, which the mask does not name */
    out[threadIdx.x] = v;
}

static __global__ void bad_width(int *out)
{
    out[threadIdx.x] = __shfl_sync(FULL, (int)threadIdx.x, 0, 12); /* expect width: power of two */
}

static __global__ void different_calls(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x < 16)
        v = __ballot_sync(FULL, 1);
    else
        v = __shfl_sync(FULL, v, 0); /* expect mixed: must make the same call */
    out[threadIdx.x] = v;
}

static __global__ void warp_deadlock(int *out)
{
    if (threadIdx.x < 16)
        __syncwarp(); /* expect deadlock: __syncwarp.*can never complete.*wait elsewhere \(__syncthreads */
    else
        __syncthreads();
    out[threadIdx.x] = 1;
}

/* tiles of 64: the second warp of each leaves before its tile's sync */
static __global__ void tile_exited(int *out)
{
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    if (tile.thread_rank() >= 32)
        return;
    tile.sync(); /* expect tile_exited: thread_block_tile::sync.*can never complete.*tile of threads 0-63: threads 32-63 of the tile have already exited */
    out[threadIdx.x] = 1;
}

/* a tile's first warp at the tile's sync, its second at the block's barrier */
static __global__ void tile_elsewhere(int *out)
{
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    if (tile.thread_rank() < 32)
        tile.sync(); /* expect tile_elsewhere: thread_block_tile::sync.*can never complete.*threads 32-63 of the tile wait elsewhere \(__syncthreads */
    else
        __syncthreads();
    out[threadIdx.x] = 1;
}

static __global__ void tile_uneven(int *out)
{
    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(cg::this_thread_block()); /* expect tile_uneven: a block of 96 threads does not split into tiles of 128 */
    out[threadIdx.x] = (int)tile.thread_rank();
}

static __global__ void plain_grid_sync(int *out)
{
    cg::this_grid().sync(); /* expect grid_sync: needs cudaLaunchCooperativeKernel */
    out[threadIdx.x] = 1;
}

static __global__ void device_assert(int *out)
{
    assert(threadIdx.x < 20); /* expect assert: device-side assert.*Assertion `threadIdx.x < 20' failed */
    out[threadIdx.x] = 1;
}

static __global__ void write_past_end(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) /* one thread too many */
        out[i] = i;
}

/* 128 KB of local variables: more than a thread's 64 KB stack */
static __global__ void big_locals(int *out, int n)
{
    volatile int local[32 * 1024];
    for (int i = 0; i < n; i++)
        local[i] = i + (int)threadIdx.x;
    int s = 0;
    for (int i = 0; i < n; i++)
        s += local[i];
    out[threadIdx.x] = s;
}
int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: diagnostics CASE\n");
        return 2;
    }
    const char *c = argv[1];
    int *d;
    cudaError_t want = cudaErrorLaunchFailure;
    EXPECT_OK(cudaMalloc(&d, 1024 * sizeof(int)));
    if (!strcmp(c, "divergence"))
        divergence<<<1, 64>>>(d);
    else if (!strcmp(c, "exited"))
        exited<<<1, 64>>>(d);
    else if (!strcmp(c, "mask_exited"))
        mask_lanes_exited<<<1, 32>>>(d);
    else if (!strcmp(c, "mask_caller"))
        mask_without_caller<<<1, 32>>>(d);
    else if (!strcmp(c, "mask_absent"))
        mask_absent_lanes<<<1, 16>>>(d);
    else if (!strcmp(c, "read_outside"))
        read_outside_mask<<<1, 32>>>(d);
    else if (!strcmp(c, "width"))
        bad_width<<<1, 32>>>(d);
    else if (!strcmp(c, "mixed"))
        different_calls<<<1, 32>>>(d);
    else if (!strcmp(c, "deadlock"))
        warp_deadlock<<<1, 64>>>(d);
    else if (!strcmp(c, "tile_exited"))
        tile_exited<<<1, 128>>>(d);
    else if (!strcmp(c, "tile_elsewhere"))
        tile_elsewhere<<<1, 64>>>(d);
    else if (!strcmp(c, "tile_uneven"))
        tile_uneven<<<1, 96>>>(d);
    else if (!strcmp(c, "grid_sync"))
        plain_grid_sync<<<2, 32>>>(d);
    else if (!strcmp(c, "out_of_bounds"))
        write_past_end<<<5, 256>>>(d, 1024), want = cudaErrorIllegalAddress; /* expect out_of_bounds: out-of-bounds write: a thread wrote past the end of a device array of 4096 bytes */
    else if (!strcmp(c, "stack"))
        big_locals<<<1, 32>>>(d, 32 * 1024), want = cudaErrorIllegalAddress; /* expect stack: kernel big_locals: thread \(0,0,0\) of block 0 overflowed its stack of 64 KB.*cudaLimitStackSize */
    else if (!strcmp(c, "assert"))
        device_assert<<<1, 32>>>(d), want = cudaErrorAssert;
    else if (!strcmp(c, "graph_node")) {
        /* a graph's kernel node: its launch is named by the line that made the node */
        int n = 1024;
        void *args[] = {&d, &n};
        cudaKernelNodeParams p = {};
        p.func = (void *)write_past_end;
        p.gridDim = dim3(5);
        p.blockDim = dim3(256);
        p.kernelParams = args;
        cudaGraph_t graph;
        cudaGraphNode_t node;
        cudaGraphExec_t exec;
        EXPECT_OK(cudaGraphCreate(&graph, 0));
        EXPECT_OK(cudaGraphAddKernelNode(&node, graph, NULL, 0, &p)); /* expect graph_node: out-of-bounds write: .*\[kernel write_past_end launched at tests/backend/diagnostics.cu:[0-9]+\] */
        EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
        cudaGraphLaunch(exec, 0);
        want = cudaErrorIllegalAddress;
    }
    else {
        fprintf(stderr, "diagnostics: no case %s\n", c);
        return 2;
    }
    cudaError_t err = cudaGetLastError();
    printf("code: %s\nmessage: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
    EXPECT(err == want, "the launch gave %s, want %s", cudaGetErrorName(err), cudaGetErrorName(want));
    EXPECT(strstr(cudaGetErrorString(err), "diagnostics.cu:"), "the message does not name the file: %s",
           cudaGetErrorString(err));
    EXPECT(cudaDeviceSynchronize() == want, "the error is not sticky");
    int h;
    EXPECT(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == want, "a copy after the failure succeeded");
    EXPECT(cudaDeviceReset() == cudaSuccess && cudaGetLastError() == cudaSuccess, "cudaDeviceReset clears it");
    return check_result();
}
