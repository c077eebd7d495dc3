/* basics.cu: the cpu backend's built-ins, memory API, errors, events and
 * device, each with its result checked. */
#include "check.h"

__constant__ float scale[4];
__device__ int device_counter;

static __global__ void write_indices(int *out)
{
    int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    int thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int threads = blockDim.x * blockDim.y * blockDim.z;
    out[block * threads + thread] = block * 1000 + thread;
}

static __global__ void use_constant(float *out)
{
    out[threadIdx.x] = scale[threadIdx.x % 4] * threadIdx.x;
    atomicAdd(&device_counter, 1);
}

static __global__ void nothing(void) {}

static __global__ void big_shared(float *out)
{
    extern __shared__ float dynamic[];
    dynamic[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) /* one writer: no race for the TSan build to report */
        out[0] = dynamic[blockDim.x - 1];
}

template <int K> static __global__ void add_constant(int *a) { a[threadIdx.x] += K; }
template <class T> static __global__ void fill(T *a, T v) { a[threadIdx.x] = v; }

int main(void)
{
    /* indices over a 3D grid of 3D blocks */
    dim3 grid(3, 2, 2), block(4, 2, 3);
    int n = 12 * 24;
    int *d_out, *h_out = (int *)malloc(n * sizeof(int));
    EXPECT_OK(cudaMalloc(&d_out, n * sizeof(int)));
    EXPECT(cudaemuBytesInUse() == (long long)(n * sizeof(int)), "bytes in use %lld", cudaemuBytesInUse());
    write_indices<<<grid, block>>>(d_out);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < 12; b++)
        for (int t = 0; t < 24; t++)
            EXPECT(h_out[b * 24 + t] == b * 1000 + t, "out[%d] = %d", b * 24 + t, h_out[b * 24 + t]);

    /* launch configurations CUDA refuses, with its codes */
    nothing<<<1, 2048>>>();
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "2048 threads per block accepted (CUDA 13 gives cudaErrorInvalidValue)");
    EXPECT(cudaGetLastError() == cudaSuccess, "a configuration error is not sticky");
    nothing<<<0, 32>>>();
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "an empty grid accepted");
    nothing<<<dim3(1, 65536), 32>>>();
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "grid.y of 65536 accepted");
    nothing<<<1, dim3(1, 1, 65)>>>();
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "block.z of 65 accepted");
    EXPECT(strstr(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument"),
           "message: %s", cudaGetErrorString(cudaErrorInvalidConfiguration));
    EXPECT(!strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration"), "name");

    /* dynamic shared memory above 48 KB needs the kernel's permission */
    float *d_f;
    EXPECT_OK(cudaMalloc(&d_f, 1024 * sizeof(float)));
    big_shared<<<1, 32, 64 * 1024>>>(d_f);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "64 KB of dynamic shared memory accepted");
    EXPECT_OK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    big_shared<<<1, 32, 64 * 1024>>>(d_f);
    EXPECT_OK(cudaGetLastError());
    EXPECT(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 20) ==
           cudaErrorInvalidValue, "1 MB of shared memory allowed");
    cudaGetLastError();

    /* __constant__ and __device__ variables */
    float h_scale[4] = {1, 2, 3, 4}, back[4];
    EXPECT_OK(cudaMemcpyToSymbol(scale, h_scale, sizeof h_scale));
    EXPECT_OK(cudaMemcpyFromSymbol(back, scale, sizeof back));
    EXPECT(back[3] == 4.0f, "symbol round trip");
    EXPECT(cudaMemcpyToSymbol(scale, h_scale, sizeof h_scale, 4) == cudaErrorInvalidValue, "copy past a symbol");
    cudaGetLastError();
    int zero = 0, count = 0;
    EXPECT_OK(cudaMemcpyToSymbol(device_counter, &zero, sizeof zero));
    use_constant<<<2, 8>>>(d_f);
    float h_f[8];
    EXPECT_OK(cudaMemcpy(h_f, d_f, sizeof h_f, cudaMemcpyDeviceToHost));
    EXPECT(h_f[7] == 4.0f * 7, "scale[3] * 7 = %f", h_f[7]);
    EXPECT_OK(cudaMemcpyFromSymbol(&count, device_counter, sizeof count));
    EXPECT(count == 16, "device counter %d", count);

    /* templates, explicit and deduced */
    int h_a[4] = {1, 2, 3, 4}, *d_a;
    EXPECT_OK(cudaMalloc(&d_a, sizeof h_a));
    EXPECT_OK(cudaMemcpy(d_a, h_a, sizeof h_a, cudaMemcpyHostToDevice));
    add_constant<10><<<1, 4>>>(d_a);
    fill<<<1, 2>>>(d_a, 7);
    EXPECT_OK(cudaMemcpy(h_a, d_a, sizeof h_a, cudaMemcpyDeviceToHost));
    EXPECT(h_a[0] == 7 && h_a[1] == 7 && h_a[2] == 13 && h_a[3] == 14, "%d %d %d %d", h_a[0], h_a[1], h_a[2], h_a[3]);

    /* copies are checked as CUDA checks them */
    EXPECT(cudaMemcpy(d_a, h_a, sizeof h_a, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue, "swapped copy accepted");
    EXPECT(cudaMemcpy(h_a, d_a, 2 * sizeof h_a, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue,
           "copy past the end accepted");
    EXPECT(cudaFree(h_a) == cudaErrorInvalidValue, "cudaFree of a host array accepted");
    cudaGetLastError();
    EXPECT_OK(cudaMemset(d_a, 0xFF, sizeof h_a));
    EXPECT_OK(cudaMemcpy(h_a, d_a, sizeof h_a, cudaMemcpyDeviceToHost));
    EXPECT(h_a[2] == -1, "memset");

    /* managed and pinned memory, hints */
    float *m;
    EXPECT_OK(cudaMallocManaged(&m, 256 * sizeof(float)));
    EXPECT_OK(cudaMemPrefetchAsync(m, 256 * sizeof(float), 0, 0));
    EXPECT_OK(cudaMemAdvise(m, 256 * sizeof(float), cudaMemAdviseSetReadMostly, 0));
    EXPECT(cudaMemPrefetchAsync(m, 512 * sizeof(float), 0, 0) == cudaErrorInvalidValue, "prefetch past the end");
    EXPECT(cudaMemPrefetchAsync(m, 256 * sizeof(float), 3, 0) == cudaErrorInvalidDevice, "prefetch to device 3");
    EXPECT(cudaMemPrefetchAsync(d_f, 16, 0, 0) == cudaErrorInvalidValue, "prefetch of cudaMalloc memory");
    cudaGetLastError();
    use_constant<<<1, 4>>>(m);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(m[2] == 6.0f, "managed memory read on the host: %f", m[2]);
    float *pinned;
    EXPECT_OK(cudaMallocHost(&pinned, 64));
    EXPECT_OK(cudaFreeHost(pinned));
    EXPECT_OK(cudaFree(m));

    /* events, streams */
    cudaEvent_t start, stop;
    cudaStream_t stream;
    EXPECT_OK(cudaEventCreate(&start));
    EXPECT_OK(cudaEventCreate(&stop));
    EXPECT_OK(cudaStreamCreate(&stream));
    EXPECT_OK(cudaEventRecord(start, stream));
    write_indices<<<grid, block, 0, stream>>>(d_out);
    EXPECT_OK(cudaEventRecord(stop, stream));
    EXPECT_OK(cudaStreamSynchronize(stream));
    float ms = -1;
    EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0, "elapsed %f ms", ms);
    /* an event the host has not waited for is not complete, as on a GPU whose
     * kernel still runs: no elapsed time until a wait (here a query) */
    EXPECT_OK(cudaEventRecord(start, stream));
    write_indices<<<grid, block, 0, stream>>>(d_out);
    EXPECT_OK(cudaEventRecord(stop, stream));
    EXPECT(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady, "elapsed time before any wait");
    cudaGetLastError();
    EXPECT_OK(cudaEventSynchronize(start));
    EXPECT(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady, "elapsed time after a wait for the start only");
    cudaGetLastError();
    EXPECT_OK(cudaEventQuery(stop));
    EXPECT_OK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT_OK(cudaEventDestroy(start));
    EXPECT_OK(cudaEventDestroy(stop));
    EXPECT_OK(cudaStreamDestroy(stream));

    /* the device */
    int devices = 0, device = -1, attr = 0;
    cudaDeviceProp p;
    EXPECT_OK(cudaGetDeviceCount(&devices));
    EXPECT_OK(cudaGetDevice(&device));
    EXPECT_OK(cudaGetDeviceProperties(&p, 0));
    EXPECT(devices == 1 && device == 0, "devices");
    EXPECT(!strcmp(p.name, "CUDA Labs emulated GPU (cpu backend)"), "name %s", p.name);
    EXPECT(p.warpSize == 32 && p.maxThreadsPerBlock == 1024 && p.multiProcessorCount == 8, "shape");
    EXPECT(p.sharedMemPerBlock == 48 * 1024 && p.sharedMemPerBlockOptin <= p.sharedMemPerMultiprocessor,
           "shared memory sizes");
    EXPECT(p.maxThreadsPerMultiProcessor == 2048 && p.maxBlocksPerMultiProcessor == 32 &&
           p.regsPerMultiprocessor == 65536, "SM limits");
    EXPECT(p.cooperativeLaunch == 1 && p.concurrentManagedAccess == 1 && p.clockRate > 0 && p.memoryClockRate > 0,
           "flags and clocks");
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(attr == p.multiProcessorCount, "attribute and property agree");
    EXPECT(cudaSetDevice(1) == cudaErrorInvalidDevice, "device 1 exists");
    cudaGetLastError();

    EXPECT_OK(cudaFree(d_out));
    EXPECT_OK(cudaFree(d_f));
    EXPECT_OK(cudaFree(d_a));
    EXPECT(cudaemuBytesInUse() == 0, "bytes in use after freeing everything: %lld", cudaemuBytesInUse());
    EXPECT(cudaFree(d_a) == cudaErrorInvalidValue, "double free accepted");
    free(h_out);
    return check_result();
}
