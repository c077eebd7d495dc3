/* graph_memory.cu: graphs that allocate and free device memory, as nodes
 * made by hand and as cudaMallocAsync and cudaFreeAsync in a capture.  Each
 * launch reads fresh input, so a result that a launch did not compute
 * shows; an allocation keeps its address from launch to launch.  The
 * refusals give the error code an H100 gives: a launch that would allocate
 * again what its last launch left in use, a free node (or cudaFreeAsync in
 * a capture) of memory no graph allocated.  An instance may free its own at each launch
 * (cudaGraphInstantiateFlagAutoFreeOnLaunch).  Runs as it is with nvcc too. */
#include <cuda_runtime.h>

#include "check.h"

enum { N = 1000 };

static __global__ void square(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * in[i];
}

static void fill(float *host, float first)
{
    for (int i = 0; i < N; i++)
        host[i] = first + (float)i;
}
static int wrong(const float *host, float first)
{
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += host[i] != (first + (float)i) * (first + (float)i);
    return bad;
}

static cudaMemAllocNodeParams alloc_params(void)
{
    cudaMemAllocNodeParams p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    p.bytesize = N * sizeof(float);
    return p;
}

/* alloc in, alloc out, copy in, square, copy out, free in, free out */
static void by_hand(float *host_in, float *host_out)
{
    cudaGraph_t graph;
    cudaGraphNode_t alloc_in, alloc_out, copy_in, kernel, copy_out, free_in, free_out;
    EXPECT_OK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams p = alloc_params();
    EXPECT_OK(cudaGraphAddMemAllocNode(&alloc_in, graph, NULL, 0, &p));
    float *in = (float *)p.dptr;
    EXPECT_OK(cudaGraphAddMemAllocNode(&alloc_out, graph, &alloc_in, 1, &p));
    float *out = (float *)p.dptr;
    EXPECT(in && out && in != out, "the alloc nodes gave %p and %p", (void *)in, (void *)out);
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&copy_in, graph, &alloc_out, 1, in, host_in, N * sizeof(float),
                                       cudaMemcpyHostToDevice));
    int n = N;
    void *args[] = {&in, &out, &n};
    cudaKernelNodeParams k;
    memset(&k, 0, sizeof k);
    k.func = (void *)square;
    k.gridDim = dim3((N + 255) / 256);
    k.blockDim = dim3(256);
    k.kernelParams = args;
    EXPECT_OK(cudaGraphAddKernelNode(&kernel, graph, &copy_in, 1, &k));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&copy_out, graph, &kernel, 1, host_out, out, N * sizeof(float),
                                       cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaGraphAddMemFreeNode(&free_in, graph, &kernel, 1, in));
    EXPECT_OK(cudaGraphAddMemFreeNode(&free_out, graph, &copy_out, 1, out));

    cudaGraphNodeType type;
    EXPECT_OK(cudaGraphNodeGetType(alloc_in, &type));
    EXPECT(type == cudaGraphNodeTypeMemAlloc, "an alloc node's type is %d", (int)type);
    EXPECT_OK(cudaGraphNodeGetType(free_out, &type));
    EXPECT(type == cudaGraphNodeTypeMemFree, "a free node's type is %d", (int)type);
    cudaMemAllocNodeParams got;
    EXPECT_OK(cudaGraphMemAllocNodeGetParams(alloc_out, &got));
    EXPECT(got.dptr == out && got.bytesize == N * sizeof(float), "the alloc node's parameters: %p, %zu bytes",
           got.dptr, got.bytesize);
    void *freed = 0;
    EXPECT_OK(cudaGraphMemFreeNodeGetParams(free_in, &freed));
    EXPECT(freed == in, "the free node frees %p, not %p", freed, (void *)in);

    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 3; launch++) {
        fill(host_in, 10.0f * (float)launch);
        EXPECT_OK(cudaGraphLaunch(exec, 0));
        EXPECT_OK(cudaStreamSynchronize(0));
        EXPECT(wrong(host_out, 10.0f * (float)launch) == 0, "launch %d: %d wrong squares", launch,
               wrong(host_out, 10.0f * (float)launch));
    }
    /* (a GPU counts what it keeps for the instance: 32 MB on an H100 here) */
    unsigned long long used = 0, used_high = 0, reserved = 0, reserved_high = 0;
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &used_high));
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &reserved_high));
    EXPECT(used >= 2 * N * sizeof(float) && used_high >= used && reserved >= used && reserved_high >= reserved,
           "graph memory: %llu bytes used (%llu at most), %llu reserved (%llu at most)", used, used_high, reserved,
           reserved_high);
    unsigned long long zero = 0;
    EXPECT_OK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    EXPECT_OK(cudaDeviceGraphMemTrim(0));
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(graph));
}

/* A graph that leaves its allocation in use: it cannot be launched again
 * until cudaFree, or another graph's free node, has freed it. */
static void left_in_use(float *host_out)
{
    cudaGraph_t graph, freeing;
    cudaGraphNode_t alloc, memset_node, copy, free_node;
    EXPECT_OK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams p = alloc_params();
    EXPECT_OK(cudaGraphAddMemAllocNode(&alloc, graph, NULL, 0, &p));
    float *mem = (float *)p.dptr;
    cudaMemsetParams m;
    memset(&m, 0, sizeof m);
    m.dst = mem;
    m.value = 0x3f800000; /* 1.0f */
    m.elementSize = 4;
    m.width = N;
    m.height = 1;
    EXPECT_OK(cudaGraphAddMemsetNode(&memset_node, graph, &alloc, 1, &m));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&copy, graph, &memset_node, 1, host_out, mem, N * sizeof(float),
                                       cudaMemcpyDeviceToHost));
    cudaGraphExec_t exec, free_exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));

    EXPECT_OK(cudaGraphLaunch(exec, 0));
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT(host_out[0] == 1.0f && host_out[N - 1] == 1.0f, "the memset node's memory reads %g", host_out[0]);
    cudaError_t again = cudaGraphLaunch(exec, 0);
    if (again == cudaSuccess)
        again = cudaStreamSynchronize(0);
    EXPECT(again == cudaErrorInvalidValue, "a launch while its allocation is in use gave %s", cudaGetErrorName(again));
    cudaGetLastError();
    EXPECT_OK(cudaFree(mem)); /* ends its use: the graph may run again */
    EXPECT_OK(cudaGraphLaunch(exec, 0));
    EXPECT_OK(cudaStreamSynchronize(0));

    /* another graph's free node ends it too */
    EXPECT_OK(cudaGraphCreate(&freeing, 0));
    EXPECT_OK(cudaGraphAddMemFreeNode(&free_node, freeing, NULL, 0, mem));
    EXPECT_OK(cudaGraphInstantiate(&free_exec, freeing, 0));
    EXPECT_OK(cudaGraphLaunch(free_exec, 0));
    EXPECT_OK(cudaGraphLaunch(exec, 0));
    EXPECT_OK(cudaStreamSynchronize(0));

    /* destroyed while in use: the memory outlives the graph until cudaFree */
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(graph));
    EXPECT_OK(cudaMemcpy(host_out, mem, sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT(host_out[0] == 1.0f, "memory left in use by a destroyed graph reads %g", host_out[0]);
    EXPECT_OK(cudaFree(mem));
    EXPECT_OK(cudaGraphExecDestroy(free_exec));
    EXPECT_OK(cudaGraphDestroy(freeing));

    /* a free node of memory no graph allocated */
    float *plain;
    EXPECT_OK(cudaMalloc(&plain, sizeof(float)));
    EXPECT_OK(cudaGraphCreate(&freeing, 0));
    cudaError_t err = cudaGraphAddMemFreeNode(&free_node, freeing, NULL, 0, plain);
    EXPECT(err == cudaErrorInvalidValue, "a free node of cudaMalloc's memory gave %s", cudaGetErrorName(err));
    cudaGetLastError();
    EXPECT_OK(cudaGraphDestroy(freeing));
    /* ... nor in a capture, which goes on without it */
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    err = cudaFreeAsync(plain, s);
    EXPECT(err == cudaErrorInvalidValue, "cudaFreeAsync of cudaMalloc's memory in a capture gave %s",
           cudaGetErrorName(err));
    cudaGetLastError();
    EXPECT_OK(cudaStreamEndCapture(s, &freeing));
    size_t count = 1;
    EXPECT_OK(cudaGraphGetNodes(freeing, NULL, &count));
    EXPECT(count == 0, "the refused free made %zu nodes", count);
    EXPECT_OK(cudaGraphDestroy(freeing));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(plain));
}

/* An instance made with cudaGraphInstantiateFlagAutoFreeOnLaunch frees
 * what its last launch left in use before it runs again. */
static void auto_freed(void)
{
    cudaGraph_t graph;
    cudaGraphNode_t alloc;
    EXPECT_OK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams p = alloc_params();
    EXPECT_OK(cudaGraphAddMemAllocNode(&alloc, graph, NULL, 0, &p));
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiateWithFlags(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    for (int launch = 0; launch < 3; launch++)
        EXPECT_OK(cudaGraphLaunch(exec, 0));
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT_OK(cudaFree(p.dptr));
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(graph));
}

/* The same work captured: cudaMallocAsync and cudaFreeAsync become nodes,
 * so nothing is freed before the graph runs. */
static void captured(float *host_in, float *host_out)
{
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph;
    float *in, *out;
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaMallocAsync(&in, N * sizeof(float), s));
    EXPECT_OK(cudaMallocAsync(&out, N * sizeof(float), s));
    EXPECT_OK(cudaMemcpyAsync(in, host_in, N * sizeof(float), cudaMemcpyHostToDevice, s));
    square<<<(N + 255) / 256, 256, 0, s>>>(in, out, N);
    EXPECT_OK(cudaMemcpyAsync(host_out, out, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    EXPECT_OK(cudaFreeAsync(in, s));
    EXPECT_OK(cudaFreeAsync(out, s));
    EXPECT_OK(cudaStreamEndCapture(s, &graph));
    size_t count = 0;
    EXPECT_OK(cudaGraphGetNodes(graph, NULL, &count));
    EXPECT(count == 7, "the capture made %zu nodes, not 7", count);
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; launch++) {
        fill(host_in, -5.0f * (float)launch);
        EXPECT_OK(cudaGraphLaunch(exec, s));
        EXPECT_OK(cudaStreamSynchronize(s));
        EXPECT(wrong(host_out, -5.0f * (float)launch) == 0, "captured, launch %d: %d wrong squares", launch,
               wrong(host_out, -5.0f * (float)launch));
    }
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(graph));
    EXPECT_OK(cudaStreamDestroy(s));
}

int main(void)
{
    float *host_in, *host_out;
    EXPECT_OK(cudaMallocHost(&host_in, N * sizeof(float)));
    EXPECT_OK(cudaMallocHost(&host_out, N * sizeof(float)));
    by_hand(host_in, host_out);
    left_in_use(host_out);
    auto_freed();
    captured(host_in, host_out);
    EXPECT_OK(cudaFreeHost(host_in));
    EXPECT_OK(cudaFreeHost(host_out));
    return check_result();
}
