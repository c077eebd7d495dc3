/* compat.cu: what programs written for a GPU (the CUDA samples, "CUDA by
 * Example") use beyond the kit's labs: CUDA's header guards, the profiler
 * API, integer min/max, device choice and peers, stream priorities and
 * callbacks, mapped and registered host memory, scoped atomics; each with
 * its result checked. */
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include "check.h"

/* ---- the header guards, tested as the CUDA samples' helper_cuda.h tests them ---- */
#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_PROFILER_API_H__)
#error "CUDA's header guards are missing"
#endif
#ifdef __DRIVER_TYPES_H__
static const char *error_enum(cudaError_t error) { return cudaGetErrorName(error); }
#endif
#ifdef __CUDA_RUNTIME_H__
/* The best device that does not refuse work, as helper_cuda.h picks one. */
static int usable_device(void)
{
    int count = 0, best = -1;
    cudaGetDeviceCount(&count);
    for (int d = 0; d < count; d++) {
        int mode = -1;
        cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d);
        if (mode != cudaComputeModeProhibited && best < 0)
            best = d;
    }
    return best;
}
#endif

/* ---- kernels ---------------------------------------------------------------------- */
static __global__ void integer_min_max(long long *out)
{
    out[0] = umin(0xFFFFFFFFu, 7u);
    out[1] = umax(0x80000000u, 1u);
    out[2] = llmin(-5LL, 3LL);
    out[3] = llmax(-5LL, -3LL);
    out[4] = (long long)(ullmin(1ULL << 63, 9ULL));
    out[5] = (long long)(ullmax(1ULL << 40, 9ULL) >> 40);
    out[6] = min(-1, 2);
    out[7] = max(3u, 2u);
}

static __global__ void add_index(int *a) { a[threadIdx.x] += (int)threadIdx.x; }

struct scoped_counters {
    int add_system, add_block, sub_system, max_block, min_system, cas_block, exch_system;
    unsigned inc_system, inc_block, dec_block, dec_system, and_block, or_system, xor_block;
    unsigned long long add_ull_system;
    float add_float_system;
    double add_double_block;
};

static __global__ void scoped_atomics(scoped_counters *c)
{
    int t = (int)threadIdx.x;
    atomicAdd_system(&c->add_system, 1);
    atomicAdd_block(&c->add_block, 2);
    atomicSub_system(&c->sub_system, 1);
    atomicMax_block(&c->max_block, t);
    atomicMin_system(&c->min_system, t);
    int seen = c->cas_block, old;
    while ((old = atomicCAS_block(&c->cas_block, seen, seen + 1)) != seen) /* an increment by compare-and-swap */
        seen = old;
    atomicExch_system(&c->exch_system, 42);
    atomicInc_system(&c->inc_system, 9u);     /* wraps to 0 after 9 */
    atomicInc_block(&c->inc_block, 1000u);
    atomicDec_block(&c->dec_block, 9u);       /* 0 wraps to 9 */
    atomicDec_system(&c->dec_system, 1000u);
    atomicAnd_block(&c->and_block, ~(1u << (t % 32)));
    atomicOr_system(&c->or_system, 1u << (t % 32));
    atomicXor_block(&c->xor_block, 1u);
    atomicAdd_system(&c->add_ull_system, 1ULL << 33);
    atomicAdd_system(&c->add_float_system, 0.5f);
    atomicAdd_block(&c->add_double_block, 0.25);
}

static __global__ void trap(void) { __trap(); }

/* ---- a stream callback ------------------------------------------------------------- */
struct callback_record {
    int calls;
    cudaError_t status;
    cudaStream_t stream;
    const int *data;
    int seen;            /* data[5] when the callback ran */
};
static void CUDART_CB record_callback(cudaStream_t stream, cudaError_t status, void *user_data)
{
    callback_record *r = (callback_record *)user_data;
    r->calls++;
    r->status = status;
    r->stream = stream;
    r->seen = r->data[5];
}
static cudaStreamCallback_t typed_callback = record_callback;

int main(void)
{
    /* helper_cuda.h-style code, compiled thanks to the guards */
    EXPECT(!strcmp(error_enum(cudaErrorInvalidDevice), "cudaErrorInvalidDevice"), "%s", error_enum(cudaErrorInvalidDevice));
    EXPECT(usable_device() == 0, "usable device %d", usable_device());
    EXPECT_OK(cudaProfilerStart());
    EXPECT_OK(cudaProfilerStop());

    /* compute mode: CUDA's values, and the device's is Default */
    EXPECT(cudaComputeModeDefault == 0 && cudaComputeModeExclusive == 1 && cudaComputeModeProhibited == 2 &&
           cudaComputeModeExclusiveProcess == 3, "compute mode values");
    cudaDeviceProp p;
    int attr = -1;
    EXPECT_OK(cudaGetDeviceProperties(&p, 0));
    EXPECT(p.computeMode == cudaComputeModeDefault, "computeMode %d", p.computeMode);
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrComputeMode, 0));
    EXPECT(attr == cudaComputeModeDefault, "cudaDevAttrComputeMode %d", attr);

    /* integer min and max, in a kernel and on the host */
    long long *d_mm, h_mm[8];
    EXPECT_OK(cudaMalloc(&d_mm, sizeof h_mm));
    integer_min_max<<<1, 1>>>(d_mm);
    EXPECT_OK(cudaMemcpy(h_mm, d_mm, sizeof h_mm, cudaMemcpyDeviceToHost));
    const long long want_mm[8] = {7, 0x80000000LL, -5, -3, 9, 1, -1, 3};
    for (int i = 0; i < 8; i++)
        EXPECT(h_mm[i] == want_mm[i], "kernel min/max %d: %lld, want %lld", i, h_mm[i], want_mm[i]);
    EXPECT(umin(0xFFFFFFFFu, 7u) == 7u && umax(0x80000000u, 1u) == 0x80000000u, "umin/umax on the host");
    EXPECT(llmin(-5LL, 3LL) == -5 && llmax(-5LL, -3LL) == -3, "llmin/llmax on the host");
    EXPECT(ullmin(1ULL << 63, 9ULL) == 9 && ullmax(1ULL << 63, 9ULL) == 1ULL << 63, "ullmin/ullmax on the host");
    EXPECT(min(-1, 2) == -1 && max(2.5f, 1.0f) == 2.5f && min(1ULL << 40, 3ULL) == 3, "min/max overloads");
    EXPECT_OK(cudaFree(d_mm));

    /* choosing a device, peers */
    int device = -1, can = -1;
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    want.major = 9;
    EXPECT_OK(cudaChooseDevice(&device, &want));
    EXPECT(device == 0, "cudaChooseDevice gave %d", device);
    EXPECT(cudaChooseDevice(&device, 0) == cudaErrorInvalidValue, "cudaChooseDevice with no properties");
    EXPECT_OK(cudaDeviceCanAccessPeer(&can, 0, 0));
    EXPECT(can == 0, "a device is its own peer: %d", can);
    EXPECT(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice, "peer 1 exists");
    EXPECT(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorInvalidDevice, "peer access to device 1 enabled");
    EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice, "peer access to itself enabled");
    EXPECT(cudaDeviceEnablePeerAccess(1, 1) == cudaErrorInvalidValue, "peer access with flags 1");
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "the last error is the last failure");
    EXPECT(cudaGetLastError() == cudaSuccess, "a refused call leaves no sticky error");

    /* stream priorities: one, 0 */
    int least = -7, greatest = 7, priority = -7;
    unsigned stream_flags = 99;
    EXPECT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EXPECT(least == 0 && greatest == 0, "priority range [%d, %d]", least, greatest);
    EXPECT_OK(cudaDeviceGetStreamPriorityRange(0, &greatest));
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrStreamPrioritiesSupported, 0));
    EXPECT(attr == p.streamPrioritiesSupported && attr == 0, "stream priorities supported: %d", attr);
    cudaStream_t high;
    EXPECT_OK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, -1));
    EXPECT_OK(cudaStreamGetPriority(high, &priority));
    EXPECT(priority == 0, "priority -1 clamped to %d", priority);
    EXPECT_OK(cudaStreamGetFlags(high, &stream_flags));
    EXPECT(stream_flags == cudaStreamNonBlocking, "stream flags %u", stream_flags);

    /* a callback runs after the stream's earlier work, once, with cudaSuccess */
    int h_a[8] = {0}, *d_a;
    EXPECT_OK(cudaMalloc(&d_a, sizeof h_a));
    EXPECT_OK(cudaMemcpy(d_a, h_a, sizeof h_a, cudaMemcpyHostToDevice));
    add_index<<<1, 8, 0, high>>>(d_a);
    callback_record record = {0, cudaErrorUnknown, 0, d_a, -1};
    EXPECT_OK(cudaStreamAddCallback(high, typed_callback, &record, 0));
    EXPECT_OK(cudaStreamSynchronize(high));
    EXPECT(record.calls == 1 && record.status == cudaSuccess && record.stream == high,
           "callback: %d calls, status %d", record.calls, (int)record.status);
    EXPECT(record.seen == 5, "the callback saw %d, not the kernel's 5", record.seen);
    EXPECT(cudaStreamAddCallback(high, record_callback, &record, 1) == cudaErrorInvalidValue, "flags 1 accepted");
    EXPECT(cudaStreamAddCallback(high, 0, &record, 0) == cudaErrorInvalidValue, "a NULL callback accepted");
    EXPECT_OK(cudaStreamAddCallback(0, record_callback, &record, 0));
    EXPECT(record.calls == 2 && record.stream == 0, "callback on the default stream (refused ones not called): %d calls",
           record.calls);
    cudaGetLastError();
    EXPECT_OK(cudaStreamDestroy(high));
    EXPECT_OK(cudaFree(d_a));

    /* device flags: the scheduling ones, one at a time, and mapped host memory */
    unsigned flags = 0;
    const unsigned schedules[] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                                  cudaDeviceScheduleBlockingSync, cudaDeviceBlockingSync};
    for (unsigned s : schedules) {
        EXPECT_OK(cudaSetDeviceFlags(s | cudaDeviceMapHost));
        EXPECT_OK(cudaGetDeviceFlags(&flags));
        EXPECT(flags == (s | cudaDeviceMapHost), "flags %#x after setting %#x", flags, s | cudaDeviceMapHost);
    }
    EXPECT_OK(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
    EXPECT_OK(cudaGetDeviceFlags(&flags));
    EXPECT(flags & cudaDeviceMapHost, "cudaDeviceMapHost is implicit");
    EXPECT(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue,
           "two scheduling flags accepted");
    EXPECT(cudaSetDeviceFlags(0x100) == cudaErrorInvalidValue, "an unknown device flag accepted");
    EXPECT_OK(cudaSetDeviceFlags(cudaDeviceMapHost));

    /* mapped host memory: the kernel writes it through the device pointer, the host reads it directly */
    const unsigned alloc_flags[] = {cudaHostAllocDefault, cudaHostAllocPortable, cudaHostAllocMapped,
                                    cudaHostAllocWriteCombined, cudaHostAllocMapped | cudaHostAllocPortable};
    for (unsigned f : alloc_flags) {
        int *h = 0, *d = 0;
        EXPECT_OK(cudaHostAlloc(&h, 8 * sizeof(int), f));
        EXPECT_OK(cudaHostGetDevicePointer(&d, h, 0));
        EXPECT(d == h, "flags %#x: device pointer %p for host %p", f, (void *)d, (void *)h);
        for (int i = 0; i < 8; i++)
            h[i] = 100;
        add_index<<<1, 8>>>(d);
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(h[0] == 100 && h[7] == 107, "flags %#x: the kernel wrote %d %d", f, h[0], h[7]);
        void *inside = 0;
        EXPECT_OK(cudaHostGetDevicePointer(&inside, h + 3, 0));
        EXPECT(inside == (void *)(h + 3), "a pointer inside the allocation");
        EXPECT_OK(cudaFreeHost(h));
    }
    int *pinned = 0, *dp = 0;
    EXPECT(cudaHostAlloc(&pinned, 64, 0x100) == cudaErrorInvalidValue, "an unknown cudaHostAlloc flag accepted");
    EXPECT_OK(cudaMallocHost(&pinned, 64));
    EXPECT(cudaHostGetDevicePointer(&dp, pinned, 1) == cudaErrorInvalidValue, "flags 1 accepted");
    EXPECT_OK(cudaFreeHost(pinned));
    int *plain = (int *)malloc(64 * sizeof(int));
    EXPECT(cudaHostGetDevicePointer(&dp, plain, 0) == cudaErrorInvalidValue, "pageable memory has a device pointer");

    /* registered host memory */
    const unsigned register_flags[] = {cudaHostRegisterDefault, cudaHostRegisterMapped, cudaHostRegisterPortable,
                                       cudaHostRegisterMapped | cudaHostRegisterPortable};
    for (unsigned f : register_flags) {
        EXPECT_OK(cudaHostRegister(plain, 64 * sizeof(int), f));
        EXPECT(cudaHostRegister(plain, 64 * sizeof(int), f) == cudaErrorHostMemoryAlreadyRegistered,
               "flags %#x: registered twice", f);
        EXPECT(cudaHostRegister(plain + 32, 8 * sizeof(int), f) == cudaErrorHostMemoryAlreadyRegistered,
               "flags %#x: an overlapping range registered", f);
        EXPECT_OK(cudaHostGetDevicePointer(&dp, plain + 56, 0));
        EXPECT(dp == plain + 56, "flags %#x: device pointer %p for host %p", f, (void *)dp, (void *)(plain + 56));
        for (int i = 0; i < 8; i++)
            plain[56 + i] = 1;
        add_index<<<1, 8>>>(dp);
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(plain[56] == 1 && plain[63] == 8, "flags %#x: the kernel wrote %d %d", f, plain[56], plain[63]);
        EXPECT(cudaHostUnregister(plain + 1) == cudaErrorHostMemoryNotRegistered, "unregistered from the middle");
        EXPECT_OK(cudaHostUnregister(plain));
    }
    EXPECT(cudaHostUnregister(plain) == cudaErrorHostMemoryNotRegistered, "unregistered twice");
    EXPECT(cudaHostGetDevicePointer(&dp, plain, 0) == cudaErrorInvalidValue, "unregistered memory is still mapped");
    EXPECT(cudaHostRegister(plain, 64, 0x100) == cudaErrorInvalidValue, "an unknown cudaHostRegister flag accepted");
    EXPECT(cudaHostRegister(plain, 0, 0) == cudaErrorInvalidValue, "an empty range registered");
    EXPECT_OK(cudaMallocHost(&pinned, 64));
    EXPECT(cudaHostRegister(pinned, 64, 0) == cudaErrorHostMemoryAlreadyRegistered, "pinned memory registered again");
    EXPECT_OK(cudaFreeHost(pinned));
    int *device_memory;
    EXPECT_OK(cudaMalloc(&device_memory, 64));
    EXPECT(cudaHostRegister(device_memory, 64, 0) == cudaErrorInvalidValue, "device memory registered");
    EXPECT_OK(cudaFree(device_memory));
    free(plain);
    cudaGetLastError();

    /* _system and _block atomics: the plain ones' results */
    scoped_counters h_c, *d_c;
    memset(&h_c, 0, sizeof h_c);
    h_c.max_block = -1;
    h_c.min_system = 1000;
    h_c.and_block = ~0u;
    EXPECT_OK(cudaMalloc(&d_c, sizeof h_c));
    EXPECT_OK(cudaMemcpy(d_c, &h_c, sizeof h_c, cudaMemcpyHostToDevice));
    scoped_atomics<<<1, 64>>>(d_c);
    EXPECT_OK(cudaMemcpy(&h_c, d_c, sizeof h_c, cudaMemcpyDeviceToHost));
    EXPECT(h_c.add_system == 64 && h_c.add_block == 128 && h_c.sub_system == -64, "add/sub: %d %d %d", h_c.add_system,
           h_c.add_block, h_c.sub_system);
    EXPECT(h_c.max_block == 63 && h_c.min_system == 0, "max/min: %d %d", h_c.max_block, h_c.min_system);
    EXPECT(h_c.cas_block == 64 && h_c.exch_system == 42, "cas/exch: %d %d", h_c.cas_block, h_c.exch_system);
    EXPECT(h_c.inc_system == 64 % 10 && h_c.inc_block == 64, "inc: %u %u", h_c.inc_system, h_c.inc_block);
    EXPECT(h_c.dec_block == 6 && h_c.dec_system == 1000 - 63, "dec: %u %u (0 wraps to the limit)", h_c.dec_block,
           h_c.dec_system);
    EXPECT(h_c.and_block == 0 && h_c.or_system == ~0u && h_c.xor_block == 0, "and/or/xor: %#x %#x %#x", h_c.and_block,
           h_c.or_system, h_c.xor_block);
    EXPECT(h_c.add_ull_system == 64ULL << 33, "unsigned long long add: %llu", h_c.add_ull_system);
    EXPECT(h_c.add_float_system == 32.0f && h_c.add_double_block == 16.0, "float/double add: %f %f",
           h_c.add_float_system, h_c.add_double_block);
    EXPECT_OK(cudaFree(d_c));

    /* after a failed kernel, a callback is refused with the sticky error, and not called */
    trap<<<1, 1>>>();
    EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchFailure, "the trap did not fail the launch");
    record.calls = 0;
    EXPECT(cudaStreamAddCallback(0, record_callback, &record, 0) == cudaErrorLaunchFailure, "callback after a failure");
    EXPECT(record.calls == 0, "the callback ran after a failure");
    EXPECT_OK(cudaDeviceReset());
    EXPECT(cudaemuBytesInUse() == 0, "bytes in use at the end: %lld", cudaemuBytesInUse());
    return check_result();
}
