/* graph.cpp: CUDA graphs and stream capture.
 *
 * A node holds its work (graph_work, launch.h) through a shared pointer:
 * an instance copies the pointers in an order that keeps every dependency
 * (Kahn's, ties in the order the nodes were added), so it outlives its
 * graph, as CUDA allows, and a launch of it runs them one after another.
 *
 * A capture belongs to the stream it began on.  Each stream in it has its
 * tails, the nodes the next one captured there depends on (the last one,
 * or after a join the last of each stream joined).  An event recorded in
 * a capturing stream remembers its tails, and a stream that waits on it
 * joins the capture from there, or adds them to its own (the fork and join
 * of CUDA's multi-stream capture).  Ending the capture on its first stream
 * ends it for all. */
#include "internal.h"
/* (the functions themselves are defined here: graph.h's macros pass the caller's line) */
#undef cudaGraphAddKernelNode
#undef cudaGraphExecKernelNodeSetParams

#include <algorithm>
#include <map>
#include <memory>

struct cudaemu_graph_node {
    cudaGraphNodeType type;
    std::shared_ptr<cudaemu::graph_work> work; /* null for empty and event-wait nodes */
    std::vector<cudaemu_graph_node *> dependencies;
};
struct cudaemu_graph {
    std::vector<std::unique_ptr<cudaemu_graph_node>> nodes; /* in the order added */
};
struct cudaemu_graph_exec {
    std::vector<const void *> nodes;                     /* the graph's, in running order (identities only) */
    std::vector<std::shared_ptr<cudaemu::graph_work>> steps; /* the same order; null: nothing to do */
    bool auto_free; /* cudaGraphInstantiateFlagAutoFreeOnLaunch: a launch first frees what the last left in use */
};

namespace cudaemu {

int captures_active;

struct capture_state {
    cudaGraph_t graph;
    cudaStream_t origin;
    unsigned long long id;
    bool invalidated; /* by a call CUDA does not allow in a capture: its end gives no graph */
};
struct stream_capture {
    capture_state *capture;
    std::vector<cudaemu_graph_node *> tails;
};
static std::map<cudaStream_t, stream_capture> capturing_streams;
static std::map<cudaEvent_t, stream_capture> captured_events; /* recorded while capturing: where */
static unsigned long long capture_ids;

/* ---- graphs ------------------------------------------------------------------------------- */
static cudaemu_graph_node *add_node(cudaGraph_t graph, cudaGraphNodeType type, graph_work *work,
                                    const cudaGraphNode_t *dependencies, size_t count)
{
    cudaemu_graph_node *node = new cudaemu_graph_node{type, std::shared_ptr<graph_work>(work), {}};
    for (size_t i = 0; i < count; i++)
        node->dependencies.push_back(dependencies[i]);
    graph->nodes.emplace_back(node);
    return node;
}

static bool owns(cudaGraph_t graph, const cudaemu_graph_node *node)
{
    for (auto &n : graph->nodes)
        if (n.get() == node)
            return true;
    return false;
}

/* Checks an add call's arguments; api names the call. */
static cudaError_t check_add(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                             size_t count, const char *api)
{
    if (!node || !graph)
        return api_fail(cudaErrorInvalidValue, "%s with a NULL %s", api, node ? "graph" : "address for the node");
    if (count && !dependencies)
        return api_fail(cudaErrorInvalidValue, "%s: %zu dependencies but a NULL array of them", api, count);
    for (size_t i = 0; i < count; i++)
        if (!owns(graph, dependencies[i]))
            return api_fail(cudaErrorInvalidValue, "%s: dependency %zu is not a node of this graph", api, i);
    return cudaSuccess;
}

/* The add calls' common steps, under the lock: check the arguments
 * (check_add), make the node's work, add the node.  make_work(&err) runs
 * only once the arguments pass, so that a refused call makes no work; it
 * returns the work (null for a node that has none), or sets err to the
 * call's own refusal, as kernel_work does. */
template <class MakeWork>
static cudaError_t add_checked(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                               size_t count, const char *api, cudaGraphNodeType type, MakeWork make_work)
{
    device_lock locked;
    if (cudaError_t err = check_add(node, graph, dependencies, count, api))
        return err;
    cudaError_t err = cudaSuccess;
    graph_work *work = make_work(&err);
    if (err)
        return err;
    *node = add_node(graph, type, work, dependencies, count);
    return cudaSuccess;
}

/* cudaGraphDestroy and cudaGraphExecDestroy: CUDA calls a NULL handle an
 * invalid value. */
template <class Handle> static cudaError_t destroy_handle(Handle handle, const char *api)
{
    device_lock locked;
    if (!handle)
        return api_fail(cudaErrorInvalidValue, "%s(NULL)", api);
    delete handle;
    return cudaSuccess;
}

/* The graph's nodes in an order that keeps every dependency, or false if
 * they form a cycle. */
static bool running_order(cudaGraph_t graph, std::vector<cudaemu_graph_node *> &order)
{
    std::map<const cudaemu_graph_node *, size_t> waiting;
    for (auto &n : graph->nodes)
        waiting[n.get()] = n->dependencies.size();
    std::vector<bool> done(graph->nodes.size());
    while (order.size() < graph->nodes.size()) {
        bool progress = false;
        for (size_t i = 0; i < graph->nodes.size(); i++) {
            cudaemu_graph_node *n = graph->nodes[i].get();
            if (done[i] || waiting[n])
                continue;
            done[i] = progress = true;
            order.push_back(n);
            for (auto &m : graph->nodes)
                for (cudaemu_graph_node *d : m->dependencies)
                    if (d == n)
                        waiting[m.get()]--;
            break; /* from the first again: ties in the order added */
        }
        if (!progress)
            return false;
    }
    return true;
}

/* A child graph's work: its nodes' work, in running order. */
struct steps_work : graph_work {
    std::vector<std::shared_ptr<graph_work>> steps;
    cudaError_t run(void) override
    {
        for (auto &s : steps)
            if (s)
                if (cudaError_t err = s->run())
                    return err;
        return cudaSuccess;
    }
};

static cudaError_t instantiate(cudaGraphExec_t exec, cudaGraph_t graph)
{
    std::vector<cudaemu_graph_node *> order;
    if (!running_order(graph, order))
        return api_fail(cudaErrorInvalidValue, "cudaGraphInstantiate: the graph's dependencies form a cycle");
    exec->nodes.clear();
    exec->steps.clear();
    for (cudaemu_graph_node *n : order) {
        exec->nodes.push_back(n);
        exec->steps.push_back(n->work);
    }
    return cudaSuccess;
}

/* The node's work; its launches name file:line (where the node was made). */
static graph_work *kernel_work(const cudaKernelNodeParams *p, const char *api, cudaError_t *err, const char *file,
                               int line)
{
    *err = cudaSuccess;
    if (!p || !p->func) {
        *err = api_fail(cudaErrorInvalidValue, "%s with no kernel (params or params->func NULL)", api);
        return 0;
    }
    if (p->extra) {
        *err = api_fail(cudaErrorNotSupported, "%s: the cpu backend takes the arguments in kernelParams, not extra",
                        api);
        return 0;
    }
    kernel_info *info = kernel_lookup(p->func, false);
    if (!info || !info->recorder) {
        *err = api_fail(cudaErrorInvalidDeviceFunction, "%s: the cpu backend does not know this kernel's parameters "
                        "(a template kernel?); capture a launch of it on a stream instead", api);
        return 0;
    }
    launch_config cfg = config(p->gridDim, p->blockDim, p->sharedMemBytes, 0);
    return info->recorder(p->func, cfg, p->kernelParams, file, line);
}

/* A memset node's work: rows of `width` elements of 1, 2 or 4 bytes. */
static cudaError_t memset_elements(cudaMemsetParams p)
{
    size_t row = p.width * p.elementSize, pitch = p.height > 1 ? p.pitch : row;
    if (cudaError_t err = cudaMemset2D(p.dst, pitch, (int)(p.value & 0xFF), row, p.height))
        return err; /* (the bytes, checked as device memory; wider patterns written below) */
    if (p.elementSize == 1)
        return cudaSuccess;
    for (size_t y = 0; y < p.height; y++)
        for (size_t x = 0; x < p.width; x++) {
            char *at = (char *)p.dst + y * pitch + x * p.elementSize;
            if (p.elementSize == 2) {
                unsigned short v = (unsigned short)p.value;
                memcpy(at, &v, 2);
            } else {
                memcpy(at, &p.value, 4);
            }
        }
    return cudaSuccess;
}

/* ---- capture -------------------------------------------------------------------------------- */
bool stream_capturing(cudaStream_t stream)
{
    device_lock locked;
    return capturing_streams.count(stream) != 0;
}

cudaError_t capture(cudaStream_t stream, graph_work *work, int node_type)
{
    device_lock locked;
    auto it = capturing_streams.find(stream);
    if (it == capturing_streams.end()) { /* (it ended meanwhile, on another host thread) */
        delete work;
        return api_fail(cudaErrorStreamCaptureInvalidated, "the stream's capture ended while this was issued");
    }
    if (it->second.capture->invalidated) {
        delete work;
        return api_fail(cudaErrorStreamCaptureInvalidated, "the stream's capture was invalidated by an earlier call "
                        "that CUDA does not allow in a capture");
    }
    std::vector<cudaemu_graph_node *> &tails = it->second.tails;
    cudaemu_graph_node *node = add_node(it->second.capture->graph, (cudaGraphNodeType)node_type, work, tails.data(),
                                        tails.size());
    tails = {node};
    return cudaSuccess;
}

void capture_invalidate(cudaStream_t stream)
{
    device_lock locked;
    auto it = capturing_streams.find(stream);
    if (it != capturing_streams.end())
        it->second.capture->invalidated = true;
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream)
{
    device_lock locked;
    auto it = capturing_streams.find(stream);
    if (it == capturing_streams.end())
        return false;
    captured_events[event] = it->second;
    return true;
}

bool capture_stream_wait(cudaStream_t stream, cudaEvent_t event)
{
    device_lock locked;
    auto e = captured_events.find(event);
    if (e == captured_events.end())
        return false;
    auto s = capturing_streams.find(stream);
    if (s == capturing_streams.end()) {
        capturing_streams[stream] = e->second; /* joins the capture */
        captures_active = (int)capturing_streams.size();
    } else if (s->second.capture == e->second.capture) {
        for (cudaemu_graph_node *t : e->second.tails) /* a join: the next node waits for both */
            if (std::find(s->second.tails.begin(), s->second.tails.end(), t) == s->second.tails.end())
                s->second.tails.push_back(t);
    }
    return true;
}

cudaError_t copy_symbol_async(void *symbol, size_t symbol_size, size_t offset, const void *src, size_t count,
                              bool to_symbol, cudaStream_t stream, const char *file, int line)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemcpy, [=] {
        return copy_symbol(symbol, symbol_size, offset, src, count, to_symbol, file, line);
    });
}

/* ---- memory nodes ------------------------------------------------------------------------------
 * An alloc node's memory is made with the node and keeps its address: each
 * launch of the graph starts its use (`live`), and a free node, cudaFree or
 * cudaFreeAsync ends it.  A launch that would start it again while it is
 * in use fails, as on a GPU.  The memory goes back once its use has ended
 * and no graph or instance holds the node (alloc_work's end): a graph
 * destroyed while its allocation is in use leaves it to a later cudaFree. */
struct graph_allocation {
    size_t bytes;
    int device;
    bool live;      /* a launch made it, nothing has freed it since */
    bool node_held; /* a graph or an instance still holds its alloc node */
};
static std::map<void *, graph_allocation> graph_allocations;
static unsigned long long graph_used_high[MAX_DEVICES], graph_reserved_high[MAX_DEVICES];

/* What a device's graphs hold: every allocation a node holds or that is
 * still in use (a GPU, too, counts what it keeps for an instance as used). */
static unsigned long long graph_bytes(int device)
{
    unsigned long long n = 0;
    for (auto &a : graph_allocations)
        if (a.second.device == device)
            n += a.second.bytes;
    return n;
}
static void note_highs(int device)
{
    graph_used_high[device] = std::max(graph_used_high[device], graph_bytes(device));
    graph_reserved_high[device] = std::max(graph_reserved_high[device], graph_bytes(device));
}
/* Its use has ended; gives it back if no node holds it either. */
static cudaError_t end_use(std::map<void *, graph_allocation>::iterator it, const char *api)
{
    it->second.live = false;
    if (it->second.node_held)
        return cudaSuccess;
    void *p = it->first;
    graph_allocations.erase(it);
    return release_device_memory(p, api);
}

struct alloc_work : graph_work {
    void *ptr;
    explicit alloc_work(void *p) : ptr(p) {}
    cudaError_t run(void) override
    {
        device_lock locked;
        graph_allocation &a = graph_allocations.at(ptr);
        if (a.live)
            return api_fail(cudaErrorInvalidValue, "cudaGraphLaunch: the graph allocates %p (%zu bytes) again, but "
                            "its last launch's allocation is still in use: free it first (a free node, cudaFree or "
                            "cudaFreeAsync)", ptr, a.bytes);
        a.live = true;
        return cudaSuccess;
    }
    /* (before a launch of an instance made with cudaGraphInstantiateFlagAutoFreeOnLaunch) */
    void free_if_in_use(void)
    {
        device_lock locked;
        auto it = graph_allocations.find(ptr);
        if (it->second.live)
            end_use(it, "cudaGraphLaunch");
    }
    ~alloc_work() override
    {
        device_lock locked;
        auto it = graph_allocations.find(ptr);
        it->second.node_held = false;
        if (!it->second.live)
            end_use(it, "cudaGraphDestroy");
    }
};
struct free_work : graph_work {
    void *ptr;
    explicit free_work(void *p) : ptr(p) {}
    cudaError_t run(void) override
    {
        device_lock locked;
        auto it = graph_allocations.find(ptr);
        if (it == graph_allocations.end() || !it->second.live)
            return api_fail(cudaErrorInvalidValue, "cudaGraphLaunch: a free node frees %p, which no launch has "
                            "allocated since it was last freed", ptr);
        return end_use(it, "cudaGraphLaunch");
    }
};

/* The memory of a new alloc node, or an error (api names the call). */
static cudaError_t new_graph_allocation(void **ptr, size_t bytes, int device, const char *api)
{
    if (cudaError_t err = allocate_device_memory(ptr, bytes, api, device))
        return err;
    graph_allocations[*ptr] = graph_allocation{bytes, device, false, true};
    note_highs(device);
    return cudaSuccess;
}
static cudaError_t check_free(void *ptr, const char *api)
{
    if (!graph_allocations.count(ptr))
        return api_fail(cudaErrorInvalidValue, "%s(%p): not memory a graph's alloc node (or cudaMallocAsync in a "
                        "capture) made; a free node frees only such memory", api, ptr);
    return cudaSuccess;
}

/* What memory.cpp asks (internal.h): cudaFree of a graph's memory, and
 * cudaMallocAsync and cudaFreeAsync in a capture. */
bool graph_memory_freed(void *ptr, const char *api, cudaError_t *result)
{
    device_lock locked;
    auto it = graph_allocations.find(ptr);
    if (it == graph_allocations.end())
        return false;
    *result = it->second.live ? end_use(it, api)
                              : api_fail(cudaErrorInvalidValue, "%s(%p): a graph's allocation that is not in use "
                                         "(freed since the graph's last launch, or never launched)", api, ptr);
    return true;
}
cudaError_t capture_graph_alloc(cudaStream_t stream, void **ptr, size_t size, int device)
{
    device_lock locked;
    if (!ptr || !size)
        return api_fail(cudaErrorInvalidValue, "cudaMallocAsync in a capture: %s", ptr ? "0 bytes" : "a NULL address");
    if (cudaError_t err = new_graph_allocation(ptr, size, device, "cudaMallocAsync"))
        return err;
    return capture(stream, new alloc_work(*ptr), cudaGraphNodeTypeMemAlloc);
}
cudaError_t capture_graph_free(cudaStream_t stream, void *ptr)
{
    device_lock locked;
    if (cudaError_t err = check_free(ptr, "cudaFreeAsync"))
        return err;
    return capture(stream, new free_work(ptr), cudaGraphNodeTypeMemFree);
}

} // namespace cudaemu

using namespace cudaemu;

extern "C" {
cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags)
{
    device_lock locked;
    if (!graph || flags)
        return api_fail(cudaErrorInvalidValue, "cudaGraphCreate with %s", graph ? "flags other than 0" : "NULL");
    *graph = new cudaemu_graph;
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    return destroy_handle(graph, "cudaGraphDestroy");
}
cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t original)
{
    device_lock locked;
    if (!clone || !original)
        return api_fail(cudaErrorInvalidValue, "cudaGraphClone with a NULL argument");
    cudaGraph_t g = new cudaemu_graph;
    std::map<const cudaemu_graph_node *, cudaemu_graph_node *> copy_of;
    for (auto &n : original->nodes) {
        cudaemu_graph_node *c = new cudaemu_graph_node{n->type, n->work, {}};
        copy_of[n.get()] = c;
        g->nodes.emplace_back(c);
    }
    for (auto &n : original->nodes)
        for (cudaemu_graph_node *d : n->dependencies)
            copy_of[n.get()]->dependencies.push_back(copy_of[d]);
    *clone = g;
    return cudaSuccess;
}

cudaError_t cudaemu_graph_add_kernel_node(const char *file, int line, cudaGraphNode_t *node, cudaGraph_t graph,
                                          const cudaGraphNode_t *dependencies, size_t count,
                                          const cudaKernelNodeParams *params)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddKernelNode", cudaGraphNodeTypeKernel,
                       [&](cudaError_t *err) { return kernel_work(params, "cudaGraphAddKernelNode", err, file, line); });
}
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaKernelNodeParams *params)
{
    return cudaemu_graph_add_kernel_node("(a kernel node of a CUDA graph)", 0, node, graph, dependencies, count, params);
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaMemcpy3DParms *params)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddMemcpyNode", cudaGraphNodeTypeMemcpy,
                       [&](cudaError_t *err) -> graph_work * {
                           if (!params) {
                               *err = api_fail(cudaErrorInvalidValue, "cudaGraphAddMemcpyNode with NULL parameters");
                               return 0;
                           }
                           cudaMemcpy3DParms p = *params;
                           return work_of([p] { return cudaMemcpy3D(&p); });
                       });
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddMemcpyNode1D", cudaGraphNodeTypeMemcpy,
                       [=](cudaError_t *) { return work_of([=] { return cudaMemcpy(dst, src, bytes, kind); }); });
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaMemsetParams *params)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddMemsetNode", cudaGraphNodeTypeMemset,
                       [&](cudaError_t *err) -> graph_work * {
                           if (!params || (params->elementSize != 1 && params->elementSize != 2 &&
                                           params->elementSize != 4) || !params->height) {
                               *err = api_fail(cudaErrorInvalidValue, "cudaGraphAddMemsetNode: elementSize must be "
                                               "1, 2 or 4 and height at least 1");
                               return 0;
                           }
                           cudaMemsetParams p = *params;
                           return work_of([p] { return memset_elements(p); });
                       });
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                 size_t count, const cudaHostNodeParams *params)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddHostNode", cudaGraphNodeTypeHost,
                       [&](cudaError_t *err) -> graph_work * {
                           if (!params || !params->fn) {
                               *err = api_fail(cudaErrorInvalidValue, "cudaGraphAddHostNode with no function");
                               return 0;
                           }
                           cudaHostNodeParams p = *params;
                           return work_of([p] {
                               p.fn(p.userData);
                               return cudaSuccess;
                           });
                       });
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                       size_t count, cudaGraph_t child)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddChildGraphNode", cudaGraphNodeTypeGraph,
                       [&](cudaError_t *err) -> graph_work * {
                           std::vector<cudaemu_graph_node *> order;
                           if (!child || !running_order(child, order)) {
                               *err = api_fail(cudaErrorInvalidValue, "cudaGraphAddChildGraphNode: %s",
                                               child ? "the child's dependencies form a cycle" : "no child graph");
                               return 0;
                           }
                           steps_work *work = new steps_work; /* the child as it is now: CUDA clones it */
                           for (cudaemu_graph_node *n : order)
                               work->steps.push_back(n->work);
                           return work;
                       });
}
/* Empty and event-wait nodes have no work: an event's wait is done when it is issued. */
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                  size_t count)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddEmptyNode", cudaGraphNodeTypeEmpty,
                       [](cudaError_t *) -> graph_work * { return 0; });
}
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                        size_t count, cudaEvent_t event)
{
    return add_checked(node, graph, dependencies, count, "cudaGraphAddEventRecordNode", cudaGraphNodeTypeEventRecord,
                       [=](cudaError_t *) { return work_of([event] { return cudaEventRecord(event, 0); }); });
}
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                      size_t count, cudaEvent_t event)
{
    (void)event;
    return add_checked(node, graph, dependencies, count, "cudaGraphAddEventWaitNode", cudaGraphNodeTypeWaitEvent,
                       [](cudaError_t *) -> graph_work * { return 0; });
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t count)
{
    device_lock locked;
    if (!graph || (count && (!from || !to)))
        return api_fail(cudaErrorInvalidValue, "cudaGraphAddDependencies with a NULL argument");
    for (size_t i = 0; i < count; i++)
        if (!owns(graph, from[i]) || !owns(graph, to[i]))
            return api_fail(cudaErrorInvalidValue, "cudaGraphAddDependencies: edge %zu joins a node of another graph",
                            i);
    for (size_t i = 0; i < count; i++)
        to[i]->dependencies.push_back(from[i]);
    return cudaSuccess;
}
/* ---- memory nodes' calls (their account: graph_allocations, above) ---- */
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, struct cudaMemAllocNodeParams *params)
{
    const char *api = "cudaGraphAddMemAllocNode";
    auto make = [&](cudaError_t *err) -> graph_work * {
        if (!params || !params->bytesize) {
            *err = api_fail(cudaErrorInvalidValue, "%s: %s", api, params ? "a size of 0 bytes" : "NULL parameters");
            return 0;
        }
        const cudaMemLocation &at = params->poolProps.location;
        if (params->poolProps.allocType != cudaMemAllocationTypePinned || at.type != cudaMemLocationTypeDevice ||
            !valid_device(at.id)) {
            *err = api_fail(cudaErrorInvalidValue, "%s: the pool must be pinned memory of a device (allocType "
                            "cudaMemAllocationTypePinned, location cudaMemLocationTypeDevice and a device's id; "
                            "the cpu backend emulates %s)", api, devices_there());
            return 0;
        }
        if ((*err = new_graph_allocation(&params->dptr, params->bytesize, at.id, api)))
            return 0;
        return new alloc_work(params->dptr);
    };
    return add_checked(node, graph, dependencies, count, api, cudaGraphNodeTypeMemAlloc, make);
}
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                    size_t count, void *dptr)
{
    const char *api = "cudaGraphAddMemFreeNode";
    auto make = [&](cudaError_t *err) -> graph_work * {
        if ((*err = check_free(dptr, api)))
            return 0;
        return new free_work(dptr);
    };
    return add_checked(node, graph, dependencies, count, api, cudaGraphNodeTypeMemFree, make);
}
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params)
{
    device_lock locked;
    if (!node || !params || node->type != cudaGraphNodeTypeMemAlloc)
        return api_fail(cudaErrorInvalidValue, "cudaGraphMemAllocNodeGetParams: %s",
                        !params ? "NULL parameters" : "not an alloc node");
    void *p = static_cast<alloc_work *>(node->work.get())->ptr;
    const graph_allocation &a = graph_allocations.at(p);
    memset(params, 0, sizeof *params);
    params->poolProps.allocType = cudaMemAllocationTypePinned;
    params->poolProps.location = cudaMemLocation{cudaMemLocationTypeDevice, a.device};
    params->bytesize = a.bytes;
    params->dptr = p;
    return cudaSuccess;
}
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    device_lock locked;
    if (!node || !dptr_out || node->type != cudaGraphNodeTypeMemFree)
        return api_fail(cudaErrorInvalidValue, "cudaGraphMemFreeNodeGetParams: %s",
                        !dptr_out ? "a NULL address" : "not a free node");
    *(void **)dptr_out = static_cast<free_work *>(node->work.get())->ptr;
    return cudaSuccess;
}

/* Bytes of graphs' memory on a device (graph_bytes), now and at most. */
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    device_lock locked;
    if (!valid_device(device))
        return invalid_device("cudaDeviceGetGraphMemAttribute", device);
    if (!value)
        return api_fail(cudaErrorInvalidValue, "cudaDeviceGetGraphMemAttribute with a NULL address");
    unsigned long long *v = (unsigned long long *)value;
    switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent:
    case cudaGraphMemAttrReservedMemCurrent: *v = graph_bytes(device); break;
    case cudaGraphMemAttrUsedMemHigh: *v = graph_used_high[device]; break;
    case cudaGraphMemAttrReservedMemHigh: *v = graph_reserved_high[device]; break;
    default: return api_fail(cudaErrorInvalidValue, "cudaDeviceGetGraphMemAttribute: no attribute %d", (int)attr);
    }
    return cudaSuccess;
}
/* Only the high marks may be set, and only to 0 (CUDA's rule): back to now's. */
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    device_lock locked;
    if (!valid_device(device))
        return invalid_device("cudaDeviceSetGraphMemAttribute", device);
    if (!value || *(unsigned long long *)value != 0 ||
        (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return api_fail(cudaErrorInvalidValue, "cudaDeviceSetGraphMemAttribute: only the high marks may be set, "
                        "and only to 0");
    if (attr == cudaGraphMemAttrUsedMemHigh)
        graph_used_high[device] = graph_bytes(device);
    else
        graph_reserved_high[device] = graph_bytes(device);
    return cudaSuccess;
}
/* Nothing is cached beyond what the nodes hold: nothing to give back. */
cudaError_t cudaDeviceGraphMemTrim(int device)
{
    return valid_device(device) ? cudaSuccess : invalid_device("cudaDeviceGraphMemTrim", device);
}

static cudaError_t list_nodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count, bool roots_only,
                              const char *api)
{
    device_lock locked;
    if (!graph || !count)
        return api_fail(cudaErrorInvalidValue, "%s with a NULL argument", api);
    size_t n = 0;
    for (auto &node : graph->nodes) {
        if (roots_only && !node->dependencies.empty())
            continue;
        if (nodes && n < *count)
            nodes[n] = node.get();
        n++;
    }
    *count = nodes && n > *count ? *count : n;
    return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    return list_nodes(graph, nodes, count, false, "cudaGraphGetNodes");
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    return list_nodes(graph, nodes, count, true, "cudaGraphGetRootNodes");
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type)
{
    if (!node || !type)
        return api_fail(cudaErrorInvalidValue, "cudaGraphNodeGetType with a NULL argument");
    *type = node->type;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    /* (uploads and priorities: nothing to do here) */
    device_lock locked;
    if (!exec || !graph)
        return api_fail(cudaErrorInvalidValue, "cudaGraphInstantiate with a NULL argument");
    cudaGraphExec_t e = new cudaemu_graph_exec;
    e->auto_free = (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0;
    if (cudaError_t err = instantiate(e, graph)) {
        delete e;
        return err;
    }
    *exec = e;
    return cudaSuccess;
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *params)
{
    return cudaemu_graph_exec_kernel_node_set_params("(a kernel node of a CUDA graph)", 0, exec, node, params);
}
cudaError_t cudaemu_graph_exec_kernel_node_set_params(const char *file, int line, cudaGraphExec_t exec,
                                                      cudaGraphNode_t node, const cudaKernelNodeParams *params)
{
    device_lock locked;
    for (size_t i = 0; exec && i < exec->nodes.size(); i++)
        if (exec->nodes[i] == node) {
            cudaError_t err;
            graph_work *work = kernel_work(params, "cudaGraphExecKernelNodeSetParams", &err, file, line);
            if (work)
                exec->steps[i].reset(work);
            return err;
        }
    return api_fail(cudaErrorInvalidValue, "cudaGraphExecKernelNodeSetParams: the node is not one of the graph this "
                    "instance was made from");
}
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream)
{
    (void)stream;
    return exec ? cudaSuccess : api_fail(cudaErrorInvalidValue, "cudaGraphUpload(NULL)");
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    if (!exec)
        return api_fail(cudaErrorInvalidValue, "cudaGraphLaunch(NULL)");
    std::vector<std::shared_ptr<graph_work>> steps;
    {
        device_lock locked;
        steps = exec->steps; /* (the lock is not held while the steps run: a host node may call CUDA) */
        if (exec->auto_free)
            for (auto &s : steps)
                if (alloc_work *a = dynamic_cast<alloc_work *>(s.get()))
                    a->free_if_in_use();
    }
    if (capturing(stream)) { /* a graph launched into a capture: a child graph there */
        steps_work *work = new steps_work;
        work->steps = steps;
        return capture(stream, work, cudaGraphNodeTypeGraph);
    }
    for (auto &s : steps)
        if (s)
            if (cudaError_t err = s->run())
                return err;
    return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    return destroy_handle(exec, "cudaGraphExecDestroy");
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    (void)mode; /* one host thread's work at a time anyway */
    device_lock locked;
    if (!stream || stream == cudaStreamLegacy)
        return api_fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture on the legacy default stream, "
                        "which CUDA cannot capture; create a stream for it");
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaStreamBeginCapture of an invalid stream");
    if (capturing_streams.count(stream))
        return api_fail(cudaErrorIllegalState, "cudaStreamBeginCapture: the stream is capturing already");
    capture_state *c = new capture_state{new cudaemu_graph, stream, ++capture_ids, false};
    capturing_streams[stream] = stream_capture{c, {}};
    captures_active = (int)capturing_streams.size();
    return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    device_lock locked;
    if (!graph)
        return api_fail(cudaErrorInvalidValue, "cudaStreamEndCapture with a NULL address for the graph");
    auto it = capturing_streams.find(stream);
    if (it == capturing_streams.end())
        return api_fail(cudaErrorIllegalState, "cudaStreamEndCapture: the stream is not capturing");
    capture_state *c = it->second.capture;
    if (c->origin != stream) {
        c->invalidated = true; /* (as CUDA does) */
        return api_fail(cudaErrorStreamCaptureUnmatched, "cudaStreamEndCapture on a stream that joined the capture; "
                        "end it on the stream it began on");
    }
    for (auto s = capturing_streams.begin(); s != capturing_streams.end();)
        s = s->second.capture == c ? capturing_streams.erase(s) : std::next(s);
    for (auto e = captured_events.begin(); e != captured_events.end();)
        e = e->second.capture == c ? captured_events.erase(e) : std::next(e);
    captures_active = (int)capturing_streams.size();
    bool invalidated = c->invalidated;
    *graph = invalidated ? 0 : c->graph;
    if (invalidated)
        delete c->graph;
    delete c;
    if (invalidated)
        return api_fail(cudaErrorStreamCaptureInvalidated, "cudaStreamEndCapture: the capture was invalidated by an "
                        "earlier call that CUDA does not allow in a capture, and gives no graph");
    return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status)
{
    device_lock locked;
    if (!status)
        return api_fail(cudaErrorInvalidValue, "cudaStreamIsCapturing with a NULL status");
    *status = capturing_streams.count(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode)
{
    static cudaStreamCaptureMode current = cudaStreamCaptureModeGlobal;
    if (!mode)
        return api_fail(cudaErrorInvalidValue, "cudaThreadExchangeStreamCaptureMode(NULL)");
    std::swap(current, *mode);
    return cudaSuccess;
}
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(exec, graph, flags);
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, cudaGraphNode_t *error_node, char *log,
                                 size_t log_size)
{
    if (error_node)
        *error_node = 0;
    if (log && log_size)
        log[0] = 0;
    return cudaGraphInstantiateWithFlags(exec, graph, 0);
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edges, size_t count)
{
    for (size_t i = 0; edges && i < count; i++)
        if (edges[i].from_port || edges[i].to_port || edges[i].type)
            return api_fail(cudaErrorNotSupported, "cudaGraphAddDependencies: edge data other than the default");
    return cudaGraphAddDependencies(graph, from, to, count);
}
/* The instance takes the graph's nodes as they are now. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info)
{
    device_lock locked;
    if (!exec || !graph)
        return api_fail(cudaErrorInvalidValue, "cudaGraphExecUpdate with a NULL argument");
    bool same_size = exec->nodes.size() == graph->nodes.size();
    cudaError_t err = same_size ? instantiate(exec, graph) : cudaErrorGraphExecUpdateFailure;
    if (info)
        *info = cudaGraphExecUpdateResultInfo{same_size && !err ? cudaGraphExecUpdateSuccess
                                                                 : cudaGraphExecUpdateErrorTopologyChanged, 0, 0};
    return err ? api_result(err) : cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphNode_t *error_node,
                                cudaGraphExecUpdateResult *result)
{
    cudaGraphExecUpdateResultInfo info;
    cudaError_t err = cudaGraphExecUpdate(exec, graph, &info);
    if (error_node)
        *error_node = 0;
    if (result)
        *result = info.result;
    return err;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *status, unsigned long long *id,
                                     cudaGraph_t *graph, const cudaGraphNode_t **dependencies, size_t *count)
{
    device_lock locked;
    if (!status)
        return api_fail(cudaErrorInvalidValue, "cudaStreamGetCaptureInfo with a NULL status");
    auto it = capturing_streams.find(stream);
    bool active = it != capturing_streams.end();
    *status = active ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id && active)
        *id = it->second.capture->id;
    if (graph)
        *graph = active ? it->second.capture->graph : 0;
    static thread_local std::vector<cudaGraphNode_t> tails;
    tails = active ? it->second.tails : std::vector<cudaGraphNode_t>();
    if (dependencies)
        *dependencies = tails.empty() ? 0 : tails.data();
    if (count)
        *count = tails.size();
    return cudaSuccess;
}
