/* cudaemu/graph.h: CUDA graphs and stream capture on the cpu backend, with
 * CUDA's names and signatures.
 *
 * A graph is a list of nodes (kernel launches, copies, memsets, host
 * functions, child graphs, empty and event nodes) with dependencies.  An
 * instance runs its nodes one after another in an order that keeps every
 * dependency, as work runs on this backend anyway.  Capturing a stream
 * records the launches, copies, memsets and host functions issued to it
 * (and to streams that wait on its events) instead of running them; a
 * recorded launch keeps its own copy of the arguments, as a GPU's does.
 * A kernel node needs a kernel the build registered (not a template one:
 * capture a launch of that instead).  A memory node's allocation is made
 * when the node is (cudaMallocAsync in a capture makes one too) and keeps
 * its address for every launch; a free node, cudaFree or cudaFreeAsync
 * ends its use (as does the next launch of an instance made with
 * cudaGraphInstantiateFlagAutoFreeOnLaunch), and it is given back once no
 * graph or instance holds its node.  Not provided: conditional nodes, device-side graph launch,
 * changing a node of a graph in place (an instance's kernel node can be
 * changed). */
#ifndef CUDAEMU_GRAPH_H
#define CUDAEMU_GRAPH_H

#include "launch.h"
#include "texture.h"

typedef struct cudaemu_graph *cudaGraph_t;
typedef struct cudaemu_graph_exec *cudaGraphExec_t;
typedef struct cudaemu_graph_node *cudaGraphNode_t;

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0,
    cudaGraphNodeTypeMemcpy = 1,
    cudaGraphNodeTypeMemset = 2,
    cudaGraphNodeTypeHost = 3,
    cudaGraphNodeTypeGraph = 4,
    cudaGraphNodeTypeEmpty = 5,
    cudaGraphNodeTypeWaitEvent = 6,
    cudaGraphNodeTypeEventRecord = 7,
    cudaGraphNodeTypeMemAlloc = 10,
    cudaGraphNodeTypeMemFree = 11
};
enum cudaGraphInstantiateFlags {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8
};
enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0,
    cudaGraphExecUpdateError = 1,
    cudaGraphExecUpdateErrorTopologyChanged = 2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 3
};
struct cudaGraphExecUpdateResultInfo {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
};
struct cudaKernelNodeParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize; /* 1, 2 or 4 bytes */
    size_t width;             /* elements */
    size_t height;
};
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};
struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps; /* pinned memory of a device */
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr; /* set by cudaGraphAddMemAllocNode */
};
enum cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent = 0,
    cudaGraphMemAttrUsedMemHigh = 1,
    cudaGraphMemAttrReservedMemCurrent = 2,
    cudaGraphMemAttrReservedMemHigh = 3
};

extern "C" {
cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t original);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const struct cudaKernelNodeParams *params);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const struct cudaMemcpy3DParms *params);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const struct cudaMemsetParams *params);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                 size_t count, const struct cudaHostNodeParams *params);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                       size_t count, cudaGraph_t child);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                  size_t count);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                        size_t count, cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                      size_t count, cudaEvent_t event);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, struct cudaMemAllocNodeParams *params);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                    size_t count, void *dptr);
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params);
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value);
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t count);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *params);
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
}

/* The forms of CUDA 12 and of CUDA 11 (error node and log), both. */
extern "C++" cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags = 0);
extern "C++" cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, cudaGraphNode_t *error_node,
                                              char *log, size_t log_size);
/* CUDA 13's form, with data on each edge (only the default, NULL, here). */
struct cudaGraphEdgeData {
    unsigned char from_port, to_port, type, reserved[5];
};
extern "C++" cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const struct cudaGraphEdgeData *edges,
                                                  size_t count);
extern "C++" cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                             struct cudaGraphExecUpdateResultInfo *info);
extern "C++" cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphNode_t *error_node,
                                             enum cudaGraphExecUpdateResult *result);
extern "C++" cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                                  unsigned long long *id = 0, cudaGraph_t *graph = 0,
                                                  const cudaGraphNode_t **dependencies = 0, size_t *count = 0);

/* A kernel node's launches name the line that made or changed the node in
 * their messages ("[kernel k launched at prog.cu:41]"), as a launch names
 * its own line: these two calls pass it (the functions stay, for a
 * program that takes their address). */
extern "C" cudaError_t cudaemu_graph_add_kernel_node(const char *file, int line, cudaGraphNode_t *node,
                                                     cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                                     size_t count, const struct cudaKernelNodeParams *params);
extern "C" cudaError_t cudaemu_graph_exec_kernel_node_set_params(const char *file, int line, cudaGraphExec_t exec,
                                                                 cudaGraphNode_t node,
                                                                 const struct cudaKernelNodeParams *params);
#define cudaGraphAddKernelNode(...) cudaemu_graph_add_kernel_node(__FILE__, __LINE__, __VA_ARGS__)
#define cudaGraphExecKernelNodeSetParams(...) cudaemu_graph_exec_kernel_node_set_params(__FILE__, __LINE__, __VA_ARGS__)

#endif /* CUDAEMU_GRAPH_H */
