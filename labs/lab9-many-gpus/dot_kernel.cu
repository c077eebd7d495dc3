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

void launch_dot(const float *x, const float *y, int n, double *result, cudaStream_t stream)
{
    LAUNCH_ON_STREAM(stream, dot_kernel, blocks_for(n), DOT_BLOCK, 0, x, y, n, result);
}

void launch_add_doubles(const double *values, int count, double *total, cudaStream_t stream)
{
    LAUNCH_ON_STREAM(stream, add_doubles_kernel, 1, 32, 0, values, count, total);
}

void launch_add_floats(float *into, const float *from, int count, cudaStream_t stream)
{
    LAUNCH_ON_STREAM(stream, add_floats_kernel, blocks_for(count), DOT_BLOCK, 0, into, from, count);
}

/* ---- The ring's timer and NCCL's all-reduce (lab9.h) ------------------------------ */

#include "lab9.h"

static double timer_started_ms, timer_took_ms = -1.0;

/* Waits until devices 0 .. devices-1 have finished everything queued on
 * them (every stream), then leaves device 0 current. */
static void wait_for_devices(int devices)
{
    for (int d = 0; d < devices; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaDeviceSynchronize());
    }
    CHECK(cudaSetDevice(0));
}

/* Inside the timed span, the kit's records of large copies keep no
 * checksum: summing 2 GB on the host would time the host, one device's
 * copies after another's.  (The harness's, kit_internal.h, which a
 * student's build does not see.) */
extern "C" void kit_set_copy_sums(int on);

void lab9_timer_begin(int devices)
{
    wait_for_devices(devices);
    kit_set_copy_sums(0);
    timer_started_ms = kit_wall_ms();
}

void lab9_timer_end(int devices)
{
    wait_for_devices(devices);
    timer_took_ms = kit_wall_ms() - timer_started_ms;
    kit_set_copy_sums(1);
}

double lab9_timed_ms(void) { return timer_took_ms; }

#if LAB9_NCCL
#include <nccl.h>

static void nccl_checked(ncclResult_t result, const char *what, int line)
{
    if (result != ncclSuccess)
        kit_fail(__FILE__, line, "%s failed: %s", what, ncclGetErrorString(result));
}
#define NCCL_CHECKED(call) nccl_checked((call), #call, __LINE__)

void nccl_allreduce(float *data, int count, int devices)
{
    ncclComm_t comms[LAB9_MAX_DEVICES];
    cudaStream_t streams[LAB9_MAX_DEVICES];
    float *buffers[LAB9_MAX_DEVICES], *spare[LAB9_MAX_DEVICES];
    int list[LAB9_MAX_DEVICES];
    size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(float);
    for (int r = 0; r < devices; r++) {
        list[r] = r;
        CHECK(cudaSetDevice(r));
        CHECK(cudaStreamCreate(&streams[r]));
        CHECK(cudaMalloc(&buffers[r], bytes));
        CHECK(cudaMalloc(&spare[r], bytes));
        CHECK(cudaMemcpyAsync(buffers[r], data + (size_t)r * count, (size_t)count * sizeof(float),
                              cudaMemcpyHostToDevice, streams[r]));
    }
    NCCL_CHECKED(ncclCommInitAll(comms, devices, list));
    /* NCCL connects the devices at a communicator's first all-reduce, in
     * some milliseconds: one untimed first, into a spare buffer (as the
     * ring's first_contact, many_gpus.cu) */
    NCCL_CHECKED(ncclGroupStart());
    for (int r = 0; r < devices; r++)
        NCCL_CHECKED(ncclAllReduce(buffers[r], spare[r], (size_t)count, ncclFloat, ncclSum, comms[r], streams[r]));
    NCCL_CHECKED(ncclGroupEnd());
    lab9_timer_begin(devices);
    NCCL_CHECKED(ncclGroupStart());
    for (int r = 0; r < devices; r++)
        NCCL_CHECKED(ncclAllReduce(buffers[r], buffers[r], (size_t)count, ncclFloat, ncclSum, comms[r], streams[r]));
    NCCL_CHECKED(ncclGroupEnd());
    lab9_timer_end(devices);
    for (int r = 0; r < devices; r++) {
        CHECK(cudaSetDevice(r));
        CHECK(cudaMemcpyAsync(data + (size_t)r * count, buffers[r], (size_t)count * sizeof(float),
                              cudaMemcpyDeviceToHost, streams[r]));
        CHECK(cudaStreamSynchronize(streams[r]));
        NCCL_CHECKED(ncclCommDestroy(comms[r]));
        CHECK(cudaFree(buffers[r]));
        CHECK(cudaFree(spare[r]));
        CHECK(cudaStreamDestroy(streams[r]));
    }
    CHECK(cudaSetDevice(0));
}
#else
void nccl_allreduce(float *data, int count, int devices)
{
    (void)data, (void)count, (void)devices;
    kit_fail(__FILE__, __LINE__, "nccl_allreduce needs NCCL, which this machine lacks (the build found no nccl.h and "
             "libnccl): `make doctor` says how to install it");
}
#endif
