/* batch.cu: a barrier-free kernel's 1-D blocks start their threads as a
 * batch (launch.h's thread_loop): the block's counts and the note of the
 * running thread are written at the batch's end, or from threadIdx.x when
 * a thread calls into the runtime.  Threads in the middle of a batch that
 * print, wait at a shuffle or are stopped by the watchdog must be the
 * threads they are: the results, a later launch with no call into the
 * runtime, and the watchdog's census (check-backend reads it) are checked.
 *   batch            results (printf and shuffles mid-batch, then none)
 *   batch endless    thread 37 of block 1 never ends: the census is printed */
#include "check.h"

/* Threads 5 and 200 print, every thread then reads lane 4 of its warp. */
static __global__ void print_then_shuffle(int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 5 || threadIdx.x == 200)
        printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
    int lane4 = __shfl_sync(0xffffffffu, i, 4);
    out[i] = 3 * i + lane4;
}

static __global__ void twice(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] *= 2; }

static __global__ void spin_at_37(volatile int *flag, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 1 && threadIdx.x == 37)
        while (*flag != 12345) {
        }
    out[i] = i;
}

int main(int argc, char **argv)
{
    const int blocks = 4, threads = 256, n = blocks * threads;
    int *out;
    EXPECT_OK(cudaMallocManaged(&out, n * sizeof(int)));
    if (argc > 1 && strcmp(argv[1], "endless") == 0) {
        int *flag;
        EXPECT_OK(cudaMallocManaged(&flag, sizeof(int)));
        spin_at_37<<<blocks, threads>>>(flag, out);
        EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchTimeout, "the watchdog stops the launch");
        return check_result();
    }
    print_then_shuffle<<<blocks, threads>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += out[i] != 3 * i + (i / 32 * 32 + 4);
    EXPECT(wrong == 0, "%d of %d threads wrong after printf and a shuffle mid-batch", wrong, n);
    twice<<<blocks, threads>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += out[i] != 2 * (3 * i + (i / 32 * 32 + 4));
    EXPECT(wrong == 0, "%d of %d threads wrong in a batch with no call into the runtime", wrong, n);
    EXPECT_OK(cudaFree(out));
    return check_result();
}
