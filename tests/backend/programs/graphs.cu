/* graphs.cu: CUDA graphs in the style of the vendor's samples.  First a
 * capture over two streams that fork and join through events (a copy in,
 * two kernels side by side, one after both, a copy out, a host function):
 * nothing runs while it is captured, and each launch of the instance runs
 * it all again.  Then the same work built node by node (a memset, kernel
 * nodes with their arguments copied when added, copies, a host node, a
 * child graph), a clone of it, and an instance whose kernel node is given
 * new arguments.  The host checks every value. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define N 1024

__global__ void scale(float *x, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= factor;
}

__global__ void add_into(float *sum, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        sum[i] = a[i] + b[i];
}

static int host_calls;
static void CUDART_CB count_call(void *data)
{
    int *calls = (int *)data;
    ++*calls;
}

static int failures;
static void expect_value(const char *what, const float *got, float want)
{
    for (int i = 0; i < N; i++)
        if (got[i] != want * (float)(i % 10)) {
            printf("wrong: %s[%d] = %g, expected %g\n", what, i, got[i], want * (float)(i % 10));
            failures++;
            return;
        }
    printf("%s: every value right (x[7] = %g)\n", what, got[7]);
}

int main(void)
{
    float *host_in, *host_out;
    CHECK(cudaMallocHost(&host_in, N * sizeof(float)));
    CHECK(cudaMallocHost(&host_out, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        host_in[i] = (float)(i % 10), host_out[i] = -1;
    float *a, *b, *sum;
    CHECK(cudaMalloc(&a, N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * sizeof(float)));
    CHECK(cudaMalloc(&sum, N * sizeof(float)));

    /* ---- capture: s1 forks to s2 and joins it again ---- */
    cudaStream_t s1, s2;
    cudaEvent_t forked, joined;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    cudaGraph_t captured;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(s1, &status));
    printf("capturing: %s\n", status == cudaStreamCaptureStatusActive ? "yes" : "no");
    CHECK(cudaMemcpyAsync(a, host_in, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(forked, s1));
    CHECK(cudaStreamWaitEvent(s2, forked, 0));
    CHECK(cudaMemcpyAsync(b, a, N * sizeof(float), cudaMemcpyDeviceToDevice, s2));
    scale<<<N / 256, 256, 0, s2>>>(b, 2.0f, N); /* b = 2a, beside */
    scale<<<N / 256, 256, 0, s1>>>(a, 3.0f, N); /* a = 3a */
    CHECK(cudaEventRecord(joined, s2));
    CHECK(cudaStreamWaitEvent(s1, joined, 0));
    add_into<<<N / 256, 256, 0, s1>>>(sum, a, b, N); /* 5 times the input */
    CHECK(cudaMemcpyAsync(host_out, sum, N * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaLaunchHostFunc(s1, count_call, &host_calls));
    CHECK(cudaStreamEndCapture(s1, &captured));
    CHECK(cudaStreamIsCapturing(s1, &status));
    printf("after the capture: capturing %s, host function called %d times, output %g\n",
           status == cudaStreamCaptureStatusActive ? "yes" : "no", host_calls, host_out[7]);
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(captured, NULL, &nodes));
    printf("captured graph: %zu nodes\n", nodes);
    cudaGraphExec_t captured_exec;
    CHECK(cudaGraphInstantiate(&captured_exec, captured, 0));
    for (int launch = 0; launch < 3; launch++) {
        for (int i = 0; i < N; i++)
            host_out[i] = -1;
        CHECK(cudaGraphLaunch(captured_exec, s1));
        CHECK(cudaStreamSynchronize(s1));
        expect_value("captured graph, launch", host_out, 5.0f);
    }
    printf("host function called %d times\n", host_calls);

    /* ---- by hand: memset b, copy in, scale, add, copy out, host node ---- */
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t clear, copy_in, scale_node, add_node, copy_out, host_node;
    cudaMemsetParams memset_params = {};
    memset_params.dst = b;
    memset_params.value = 0x40400000u; /* 3.0f */
    memset_params.elementSize = 4;
    memset_params.width = N;
    memset_params.height = 1;
    CHECK(cudaGraphAddMemsetNode(&clear, graph, NULL, 0, &memset_params));
    CHECK(cudaGraphAddMemcpyNode1D(&copy_in, graph, NULL, 0, a, host_in, N * sizeof(float), cudaMemcpyHostToDevice));
    float factor = 4.0f;
    int n = N;
    void *scale_args[] = {&a, &factor, &n};
    cudaKernelNodeParams kernel = {};
    kernel.func = (void *)scale;
    kernel.gridDim = dim3(N / 256);
    kernel.blockDim = dim3(256);
    kernel.kernelParams = scale_args;
    CHECK(cudaGraphAddKernelNode(&scale_node, graph, &copy_in, 1, &kernel));
    factor = 100.0f; /* too late: the node copied 4 */
    void *add_args[] = {&sum, &a, &a, &n};
    cudaKernelNodeParams add = kernel;
    add.func = (void *)add_into;
    add.kernelParams = add_args;
    cudaGraphNode_t before_add[2] = {scale_node, clear};
    CHECK(cudaGraphAddKernelNode(&add_node, graph, before_add, 2, &add)); /* 8 times the input */
    cudaMemcpy3DParms out = {};
    out.srcPtr = make_cudaPitchedPtr(sum, N * sizeof(float), N, 1);
    out.dstPtr = make_cudaPitchedPtr(host_out, N * sizeof(float), N, 1);
    out.extent = make_cudaExtent(N * sizeof(float), 1, 1);
    out.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddMemcpyNode(&copy_out, graph, &add_node, 1, &out));
    cudaHostNodeParams host = {count_call, &host_calls};
    CHECK(cudaGraphAddHostNode(&host_node, graph, &copy_out, 1, &host));
    CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
    size_t roots = 0;
    CHECK(cudaGraphGetRootNodes(graph, NULL, &roots));
    printf("graph by hand: %zu nodes, %zu roots\n", nodes, roots);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    expect_value("graph by hand", host_out, 8.0f);
    float *b_host = (float *)malloc(N * sizeof(float));
    CHECK(cudaMemcpy(b_host, b, N * sizeof(float), cudaMemcpyDeviceToHost));
    printf("memset node: b[5] = %g\n", b_host[5]);
    if (b_host[5] != 3.0f || b_host[N - 1] != 3.0f)
        failures++;

    /* a clone runs the same */
    cudaGraph_t clone;
    cudaGraphExec_t clone_exec;
    CHECK(cudaGraphClone(&clone, graph));
    CHECK(cudaGraphInstantiate(&clone_exec, clone, 0));
    CHECK(cudaGraphLaunch(clone_exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    expect_value("clone", host_out, 8.0f);

    /* the instance's scale node with a new factor: 2 * 0.5 = 1 times the input */
    factor = 0.5f;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, scale_node, &kernel));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    expect_value("instance with new arguments", host_out, 1.0f);

    /* the graph as a child of another, after an empty node */
    cudaGraph_t parent;
    cudaGraphNode_t start, child;
    cudaGraphExec_t parent_exec;
    CHECK(cudaGraphCreate(&parent, 0));
    CHECK(cudaGraphAddEmptyNode(&start, parent, NULL, 0));
    CHECK(cudaGraphAddChildGraphNode(&child, parent, &start, 1, graph));
    CHECK(cudaGraphInstantiate(&parent_exec, parent, 0));
    CHECK(cudaGraphLaunch(parent_exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    expect_value("child graph", host_out, 8.0f);
    printf("host function called %d times\n", host_calls);
    if (host_calls != 7)
        failures++;

    CHECK(cudaGraphExecDestroy(parent_exec));
    CHECK(cudaGraphExecDestroy(clone_exec));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphExecDestroy(captured_exec));
    CHECK(cudaGraphDestroy(parent));
    CHECK(cudaGraphDestroy(clone));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(captured));
    CHECK(cudaEventDestroy(forked));
    CHECK(cudaEventDestroy(joined));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(sum));
    CHECK(cudaFreeHost(host_in));
    CHECK(cudaFreeHost(host_out));
    free(b_host);
    if (failures) {
        printf("graphs: %d checks failed\n", failures);
        return 1;
    }
    printf("graphs: every value right\n");
    return 0;
}
