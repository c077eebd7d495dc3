/* graph.cu: what the backend's graphs refuse, each with the error code an
 * H100 gives (programs/graphs.cu checks the work they do, against a GPU's
 * output): a capture of the legacy stream, a capture's end where none
 * began, a stream callback in a capture and a capture ended on a stream
 * that only joined it (both invalidate the capture), a kernel node of a
 * template kernel (the backend only: its parameters only a launch knows),
 * a memset node of 3-byte elements, dependencies that form a cycle; and
 * work issued to a stream outside a capture runs during it. */
#include <cuda_runtime.h>

#include "check.h"

template <class T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
static void CUDART_CB callback(cudaStream_t, cudaError_t, void *) {}

int main(void)
{
    cudaStream_t s1, s2;
    EXPECT_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaGraph_t graph = 0;
    EXPECT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported,
           "a capture of the legacy stream accepted");
    EXPECT(cudaStreamEndCapture(s1, &graph) == cudaErrorIllegalState, "a capture ended that never began");
    cudaGetLastError();

    /* a stream callback in a capture: refused, and the capture gives no graph */
    EXPECT_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    EXPECT(cudaStreamAddCallback(s1, callback, 0, 0) == cudaErrorStreamCaptureUnsupported,
           "a stream callback in a capture accepted");
    EXPECT(cudaStreamEndCapture(s1, &graph) == cudaErrorStreamCaptureInvalidated && !graph,
           "the capture was not invalidated by the callback");
    cudaGetLastError();

    int *x;
    EXPECT_OK(cudaMallocManaged(&x, 32 * sizeof(int)));
    cudaEvent_t e;
    EXPECT_OK(cudaEventCreate(&e));
    EXPECT_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    fill<<<1, 32, 0, s1>>>(x, 5);
    fill<<<1, 32, 0, s2>>>(x, 7); /* s2 does not capture: it runs */
    EXPECT_OK(cudaStreamSynchronize(s2));
    EXPECT(x[31] == 7, "work on a stream outside the capture did not run: %d", x[31]);
    EXPECT_OK(cudaEventRecord(e, s1));
    EXPECT_OK(cudaStreamWaitEvent(s2, e, 0)); /* s2 joins */
    cudaStreamCaptureStatus status;
    unsigned long long id1 = 0, id2 = 0;
    EXPECT_OK(cudaStreamGetCaptureInfo(s2, &status, &id2));
    EXPECT_OK(cudaStreamGetCaptureInfo(s1, &status, &id1));
    EXPECT(status == cudaStreamCaptureStatusActive && id1 == id2 && id1 != 0, "s2 did not join s1's capture");
    EXPECT_OK(cudaStreamEndCapture(s1, &graph));
    EXPECT(x[0] == 7, "the captured launch ran during the capture");
    cudaGraphExec_t exec;
    EXPECT_OK(cudaGraphInstantiate(&exec, graph, 0));
    EXPECT_OK(cudaGraphLaunch(exec, s1));
    EXPECT_OK(cudaStreamSynchronize(s1));
    EXPECT(x[0] == 5, "the captured launch gave %d, not 5", x[0]);
    EXPECT_OK(cudaGraphExecDestroy(exec));
    EXPECT_OK(cudaGraphDestroy(graph));

    /* a capture ended on a stream that joined it: refused, and invalidated */
    EXPECT_OK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
    EXPECT_OK(cudaEventRecord(e, s1));
    EXPECT_OK(cudaStreamWaitEvent(s2, e, 0));
    EXPECT(cudaStreamEndCapture(s2, &graph) == cudaErrorStreamCaptureUnmatched,
           "a capture ended on the stream that joined it");
    EXPECT(cudaStreamEndCapture(s1, &graph) == cudaErrorStreamCaptureInvalidated,
           "the capture was not invalidated by the unmatched end");
    cudaGetLastError();

    EXPECT_OK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t node, a, b;
#ifdef __CUDAEMU__ /* (a GPU knows a template kernel's parameters; the backend knows only a launch's) */
    int v = 1;
    void *args[] = {&x, &v};
    cudaKernelNodeParams p = {};
    p.func = (void *)fill<int>;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    EXPECT(cudaGraphAddKernelNode(&node, graph, NULL, 0, &p) == cudaErrorInvalidDeviceFunction,
           "a kernel node of a template kernel accepted");
    cudaGetLastError();
#endif
    cudaMemsetParams m = {};
    m.dst = x;
    m.elementSize = 3;
    m.width = 4;
    m.height = 1;
    EXPECT(cudaGraphAddMemsetNode(&node, graph, NULL, 0, &m) == cudaErrorInvalidValue, "3-byte elements accepted");
    cudaGetLastError();
    EXPECT_OK(cudaGraphAddEmptyNode(&a, graph, NULL, 0));
    EXPECT_OK(cudaGraphAddEmptyNode(&b, graph, &a, 1));
#if CUDART_VERSION >= 13000
    EXPECT_OK(cudaGraphAddDependencies(graph, &b, &a, NULL, 1)); /* (CUDA 13's form) */
#else
    EXPECT_OK(cudaGraphAddDependencies(graph, &b, &a, 1));
#endif
    EXPECT(cudaGraphInstantiate(&exec, graph, 0) == cudaErrorInvalidValue, "a cycle instantiated");
    cudaGetLastError();
    EXPECT_OK(cudaGraphDestroy(graph));
    EXPECT_OK(cudaEventDestroy(e));
    EXPECT_OK(cudaStreamDestroy(s1));
    EXPECT_OK(cudaStreamDestroy(s2));
    EXPECT_OK(cudaFree(x));
    return check_result();
}
