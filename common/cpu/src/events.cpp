/* events.cpp: events and streams.  Work runs when it is issued, so a
 * stream is only a handle and an event records the wall clock
 * (CLOCK_MONOTONIC): its times measure the emulator, not a GPU.
 *
 * One thing of a GPU's order is kept: an event is complete for the host
 * only once the host has waited for it (cudaEventSynchronize or
 * cudaEventQuery of it or of a later event, a stream's or the device's
 * synchronization, a blocking cudaMemcpy, cudaFree).  cudaEventElapsedTime
 * of an event not yet waited for fails with cudaErrorNotReady, as it does
 * on a GPU whose kernel is still running; otherwise a program that times a
 * kernel without waiting for it would be right here and wrong there.
 * Each device counts for itself: waiting for device 0 completes none of
 * device 1's events.
 *
 * A stream or an event belongs to the device current when it is made.  As
 * in CUDA, a kernel launched into a stream of another device fails (the
 * scheduler asks stream_device()), and so does recording an event into a
 * stream of another device, or timing two events of different devices;
 * copies into a stream of another device, waits for an event of another
 * device, and synchronizing with one, are allowed. */
#include "internal.h"

#include <stdlib.h>
#include <time.h>

struct CUevent_st {
    double ms;
    bool recorded;
    unsigned long long recorded_as; /* its place among every recording: the host waited for it when <= waited_for */
    unsigned flags;
    unsigned magic;
    CUevent_st *next_live;
    int device;
};
struct CUstream_st {
    unsigned flags;
    unsigned magic;
    int priority;   /* always 0: see cudaDeviceGetStreamPriorityRange */
    CUstream_st *next_live;
    cudaAccessPolicyWindow window; /* as set, for cudaStreamGetAttribute */
    cudaSynchronizationPolicy sync_policy;
    int device;
};

namespace {
const unsigned EVENT_MAGIC = 0xe7e47e57u, STREAM_MAGIC = 0x57ea3a11u;

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
/* Every event and stream not destroyed, listed from a global so that
 * LeakSanitizer finds them reachable at exit: CUDA frees them with the
 * context, and no CUDA tool calls one a program never destroys a leak. */
CUevent_st *live_events;
unsigned long long recordings;                     /* every event recorded so far, on every device */
unsigned long long waited_for[cudaemu::MAX_DEVICES]; /* the last recording the host waited for, per device */
CUstream_st *live_streams;
template <class T> T *live(T *&list, T *x)
{
    cudaemu::device_lock locked;
    x->next_live = list;
    return list = x;
}
template <class T> void unlist(T *&list, T *x)
{
    cudaemu::device_lock locked;
    for (T **p = &list; *p; p = &(*p)->next_live)
        if (*p == x) {
            *p = x->next_live;
            return;
        }
}
bool valid_event(cudaEvent_t e) { return e && e->magic == EVENT_MAGIC; }
} // namespace
bool cudaemu::valid_stream(cudaStream_t s)
{
    return !s || s == cudaStreamLegacy || s == cudaStreamPerThread || s->magic == STREAM_MAGIC;
}
static bool created_stream(cudaStream_t s) { return s && s != cudaStreamLegacy && s != cudaStreamPerThread; }
int cudaemu::stream_device(cudaStream_t s)
{
    return created_stream(s) && s->magic == STREAM_MAGIC ? s->device : current_device();
}

/* The host waited for event e, so for every event of its device recorded
 * up to it (an event completes after the work before it, which includes
 * earlier events). */
static void host_waited_for(cudaEvent_t e)
{
    cudaemu::device_lock locked;
    if (e->recorded_as > waited_for[e->device])
        waited_for[e->device] = e->recorded_as;
}
void cudaemu::host_waited_for_device(int device)
{
    device_lock locked;
    waited_for[device] = recordings;
}
static bool waited(cudaEvent_t e) { return e->recorded_as <= waited_for[e->device]; }

using namespace cudaemu;

extern "C" {
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (!event)
        return api_result(cudaErrorInvalidValue);
    *event = live(live_events, new CUevent_st{0, false, 0, flags, EVENT_MAGIC, 0, current_device()});
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!valid_event(event))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy of something that is not a live event");
    event->magic = 0;
    unlist(live_events, event);
    delete event;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!valid_event(event) || !valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventRecord with an invalid %s",
                        valid_event(event) ? "stream" : "event");
    if (event->device != stream_device(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: the event belongs to device %d and the "
                        "stream to device %d (an event is recorded into a stream of its own device)", event->device,
                        stream_device(stream));
    if (captures_active && capture_event_record(event, stream))
        return cudaSuccess; /* a point in the capture, for streams that wait on it */
    event->ms = now_ms();
    event->recorded = true;
    device_lock locked;
    event->recorded_as = ++recordings;
    return cudaSuccess;
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    if (flags & ~(unsigned)cudaEventRecordExternal)
        return api_fail(cudaErrorInvalidValue, "cudaEventRecordWithFlags with flags %#x", flags);
    return cudaEventRecord(event, stream);
}
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (!valid_event(event))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize of an invalid event");
    printf_flush();
    host_waited_for(event);
    return api_result(sticky_error());
}
/* The work before it is done (it ran when issued), so the event is complete. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (!valid_event(event))
        return api_result(cudaErrorInvalidResourceHandle);
    host_waited_for(event);
    return api_result(sticky_error());
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms || !valid_event(start) || !valid_event(end))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime with an invalid event");
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime of an event made with "
                        "cudaEventDisableTiming");
    if (!start->recorded || !end->recorded)
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime of an event never recorded");
    if (start->device != end->device)
        return api_fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime of two events of different devices "
                        "(%d and %d): each device has a clock of its own", start->device, end->device);
    if (!waited(end) || !waited(start))
        return api_fail(cudaErrorNotReady, "cudaEventElapsedTime of an event the host has not waited for: on a GPU "
                        "the work before it may still be running (cudaEventSynchronize(%s event) first)",
                        !waited(end) ? "the end" : "the start");
    *ms = (float)(end->ms - start->ms);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    if (!stream)
        return api_result(cudaErrorInvalidValue);
    *stream = live(live_streams, new CUstream_st{flags, STREAM_MAGIC, 0, 0, {}, cudaSyncPolicyAuto, current_device()});
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, 0); }
/* CUDA clamps a priority to the device's range, here [0, 0]. */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    (void)priority;
    return cudaStreamCreateWithFlags(stream, flags);
}
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority)
{
    if (!priority)
        return api_result(cudaErrorInvalidValue);
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaStreamGetPriority of an invalid stream");
    *priority = 0;
    return cudaSuccess;
}
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags)
{
    if (!flags)
        return api_result(cudaErrorInvalidValue);
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaStreamGetFlags of an invalid stream");
    *flags = stream && stream != cudaStreamLegacy && stream != cudaStreamPerThread ? stream->flags : 0;
    return cudaSuccess;
}
/* The attributes of the default stream (0, legacy, per-thread). */
static cudaAccessPolicyWindow default_window;
static cudaSynchronizationPolicy default_sync_policy = cudaSyncPolicyAuto;
static cudaError_t stream_attribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value, bool set,
                                    const char *api)
{
    device_lock locked;
    if (!value)
        return api_fail(cudaErrorInvalidValue, "%s with a NULL value", api);
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "%s of an invalid stream", api);
    bool created = stream && stream != cudaStreamLegacy && stream != cudaStreamPerThread;
    cudaAccessPolicyWindow *window = created ? &stream->window : &default_window;
    cudaSynchronizationPolicy *policy = created ? &stream->sync_policy : &default_sync_policy;
    switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow:
        if (set && (value->accessPolicyWindow.hitRatio < 0 || value->accessPolicyWindow.hitRatio > 1 ||
                    value->accessPolicyWindow.num_bytes > (size_t)device_properties().accessPolicyMaxWindowSize))
            return api_fail(cudaErrorInvalidValue, "%s: an access policy window needs a hitRatio in [0, 1] and at "
                            "most accessPolicyMaxWindowSize (%d) bytes", api, device_properties().accessPolicyMaxWindowSize);
        if (set)
            *window = value->accessPolicyWindow;
        else
            value->accessPolicyWindow = *window;
        return cudaSuccess;
    case cudaLaunchAttributeSynchronizationPolicy:
        if (set)
            *policy = value->syncPolicy;
        else
            value->syncPolicy = *policy;
        return cudaSuccess;
    case cudaLaunchAttributePriority:
        if (!set)
            value->priority = 0; /* (one priority: see cudaDeviceGetStreamPriorityRange) */
        return cudaSuccess;
    default:
        return api_fail(cudaErrorInvalidValue, "%s: attribute %d is not one a stream has", api, (int)attr);
    }
}
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value)
{
    return stream_attribute(stream, attr, (cudaStreamAttrValue *)value, true, "cudaStreamSetAttribute");
}
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value)
{
    return stream_attribute(stream, attr, value, false, "cudaStreamGetAttribute");
}
cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream || !valid_stream(stream) || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return api_fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy of something that is not a created stream");
    stream->magic = 0;
    unlist(live_streams, stream);
    delete stream;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize of an invalid stream");
    printf_flush();
    host_waited_for_device(stream_device(stream)); /* (every stream of a device: its work ran in issue order) */
    return api_result(sticky_error());
}
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return valid_stream(stream) ? api_result(sticky_error()) : api_result(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    if (!valid_stream(stream) || !valid_event(event))
        return api_result(cudaErrorInvalidResourceHandle);
    if (captures_active)
        capture_stream_wait(stream, event); /* a captured event: the stream joins its capture */
    return cudaSuccess;
}
/* The stream's earlier work is already done when this is called, so the
 * callback runs now, on the calling thread, after the kernels' printf
 * output (as cudaStreamSynchronize shows it).  After a failed kernel, CUDA
 * refuses new work with the sticky error; so does this, without calling. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *user_data,
                                  unsigned int flags)
{
    if (!callback || flags)
        return api_fail(cudaErrorInvalidValue, "cudaStreamAddCallback with %s", callback ? "flags other than 0"
                        : "a NULL callback");
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaStreamAddCallback on an invalid stream");
    if (capturing(stream)) {
        capture_invalidate(stream);
        return api_fail(cudaErrorStreamCaptureUnsupported, "cudaStreamAddCallback on a capturing stream, which CUDA "
                        "does not allow (the capture is invalidated); use cudaLaunchHostFunc");
    }
    if (cudaError_t s = sticky_error())
        return api_result(s);
    printf_flush();
    callback(stream, cudaSuccess, user_data);
    return cudaSuccess;
}
/* The same for a host function: it runs now, the stream's work being done. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data)
{
    if (!fn)
        return api_fail(cudaErrorInvalidValue, "cudaLaunchHostFunc with a NULL function");
    if (!valid_stream(stream))
        return api_fail(cudaErrorInvalidResourceHandle, "cudaLaunchHostFunc on an invalid stream");
    if (capturing(stream))
        return capture(stream, work_of([fn, user_data] {
                           fn(user_data);
                           return cudaSuccess;
                       }), 3 /* cudaGraphNodeTypeHost */);
    if (cudaError_t s = sticky_error())
        return api_result(s);
    printf_flush();
    fn(user_data);
    return cudaSuccess;
}
}
