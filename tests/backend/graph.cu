/* graph.cu: what the backend's graphs refuse, each with CUDA's error code
 * (programs/graphs.cu checks the work they do, against a GPU's output):
 * a capture of the legacy stream, a capture ended on a stream that only
 * joined it, a stream callback in a capture, a kernel node of a template
 * kernel (whose parameters only a launch knows), a memset node of 3-byte
 * elements, dependencies that form a cycle; and work issued to a stream
 * that does not capture still runs at once during another's capture. */
#include <cuda_runtime.h>

#include "check.h"

template <class T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
static void CUDART_CB callback(cudaStream_t, cudaError_t, void *) {}

int main(void)
{
    cudaStream_t s1, s2;
    EXPECT_OK(cudaStreamCreate(&s1));
    EXPECT_OK(cudaStreamCreate(&s2));
    cudaGraph_t graph = 0;
    EXPECT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureImplicit,
           "a capture of the legacy stream accepted");
    cudaGetLastError();

    int *x;
    EXPECT_OK(cudaMallocManaged(&x, 32 * sizeof(int)));
    cudaEvent_t e;
    EXPECT_OK(cudaEventCreate(&e));
    EXPECT_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamAddCallback(s1, callback, 0, 0) == cudaErrorStreamCaptureUnsupported,
           "a stream callback in a capture accepted");
    cudaGetLastError();
    fill<<<1, 32, 0, s1>>>(x, 5);
    fill<<<1, 32, 0, s2>>>(x, 7); /* s2 does not capture: runs now */
    EXPECT(x[31] == 7, "work on a stream outside the capture did not run at once: %d", x[31]);
    EXPECT_OK(cudaEventRecord(e, s1));
    EXPECT_OK(cudaStreamWaitEvent(s2, e, 0)); /* s2 joins */
    cudaStreamCaptureStatus status;
    unsigned long long id1 = 0, id2 = 0;
    EXPECT_OK(cudaStreamGetCaptureInfo(s2, &status, &id2));
    EXPECT_OK(cudaStreamGetCaptureInfo(s1, &status, &id1));
    EXPECT(status == cudaStreamCaptureStatusActive && id1 == id2 && id1 != 0, "s2 did not join s1's capture");
    EXPECT(cudaStreamEndCapture(s2, &graph) == cudaErrorStreamCaptureUnmatched,
           "a capture ended on the stream that joined it");
    cudaGetLastError();
    EXPECT_OK(cudaStreamEndCapture(s1, &graph));
    EXPECT(x[0] == 7, "the captured launch ran during the capture");
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
    EXPECT_OK(cudaGraphLaunch(exec, s1));
    EXPECT_OK(cudaStreamSynchronize(s1));
    EXPECT(x[0] == 5, "the captured launch gave %d, not 5", x[0]);
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(graph));

    EXPECT_OK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t node, a, b;
    int v = 1;
    void *args[] = {&x, &v};
    cudaKernelNodeParams p = {};
    p.func = (void *)fill<int>;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    EXPECT(cudaGraphAddKernelNode(&node, graph, NULL, 0, &p) == cudaErrorInvalidDeviceFunction,
           "a kernel node of a template kernel accepted");
    EXPECT(strstr(cudaGetErrorString(cudaErrorInvalidDeviceFunction), "invalid device function"), "the error's text");
    cudaGetLastError();
    cudaMemsetParams m = {};
    m.dst = x;
    m.elementSize = 3;
    m.width = 4;
    m.height = 1;
    EXPECT(cudaGraphAddMemsetNode(&node, graph, NULL, 0, &m) == cudaErrorInvalidValue, "3-byte elements accepted");
    cudaGetLastError();
    EXPECT_OK(cudaGraphAddEmptyNode(&a, graph, NULL, 0));
    EXPECT_OK(cudaGraphAddEmptyNode(&b, graph, &a, 1));
    EXPECT_OK(cudaGraphAddDependencies(graph, &b, &a, 1));
    EXPECT(cudaGraphInstantiate(&exec, graph, 0) == cudaErrorInvalidValue, "a cycle instantiated");
    cudaGetLastError();
    EXPECT_OK(cudaGraphDestroy(graph));
    EXPECT_OK(cudaEventDestroy(e));
    EXPECT_OK(cudaStreamDestroy(s1));
    EXPECT_OK(cudaStreamDestroy(s2));
    EXPECT_OK(cudaFree(x));
    return check_result();
}
