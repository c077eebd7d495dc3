/* compat.cu: what programs written for a GPU (the CUDA samples, "CUDA by
 * Example") use beyond the kit's labs: CUDA's header guards, the profiler
 * API, nvcc's macros for a .cu file, integer min/max, device choice and peers, stream priorities and
 * callbacks, mapped and registered host memory, scoped atomics; each with
 * its result checked; half precision (cuda_fp16.h) on the device and the host;
 * kernels with default arguments. */
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cuda_fp16.h>
#include <cuComplex.h>
#include <driver_types.h>
#include <math_constants.h>
#include <nvtx3/nvToolsExt.h>
#include <vector_functions.h>

#include "check.h"

/* ---- nvcc's macros: a header's host stand-ins for CUDA's functions, kept
 * out by __CUDACC__ (as helper_math.h keeps its min, max and rsqrtf), must
 * not clash with the backend's; CUDA's version as the runtime gives it ---- */
#ifndef __CUDACC__
inline int max(int a, int b) { return a > b ? a : b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
#endif
#if !defined(__NVCC__) || __CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 != CUDART_VERSION
#error "nvcc's macros for a .cu file are missing or disagree with CUDART_VERSION"
#endif

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

/* ---- kernels with default arguments, launched with fewer arguments ---------------- */
static __global__ void fill_default(int *a, int value = 7, int count = 4)
{
    if ((int)threadIdx.x < count)
        a[threadIdx.x] = value;
}
/* the default on the prototype, the definition without it */
static __global__ void scale_default(float *a, float by = 2.0f);
static __global__ void scale_default(float *a, float by) { a[threadIdx.x] *= by; }
template <class T> static __global__ void set_default(T *a, T value = T(5)) { a[threadIdx.x] = value; }

/* ---- half precision: each float, its half's bits and the half back as a float ---- */
struct half_case {
    float value;
    unsigned short bits; /* rounded to nearest, ties to even */
};
static half_case half_cases[] = {
    {1.0f, 0x3C00},
    {1.0f + 0x1p-11f, 0x3C00},            /* halfway between 1 and the next half: to the even, 1 */
    {1.0f + 0x3p-11f, 0x3C02},            /* halfway again: up to the even one */
    {1.0f + 0x1p-11f + 0x1p-20f, 0x3C01}, /* just past halfway: up */
    {65504.0f, 0x7BFF},                   /* the largest half */
    {65519.0f, 0x7BFF},
    {65520.0f, 0x7C00},                   /* halfway to 65536: to the even, infinity */
    {1e6f, 0x7C00},
    {-INFINITY, 0xFC00},
    {NAN, 0x7FFF},                        /* CUDA's canonical NaN */
    {0x1p-24f, 0x0001},                   /* the smallest subnormal */
    {0x1p-25f, 0x0000},                   /* halfway to it: to the even, 0 */
    {0x3p-26f, 0x0001},
    {0x3p-25f, 0x0002},                   /* 1.5 units: to the even, 2 */
    {0x5p-25f, 0x0002},                   /* 2.5 units: to the even, 2 */
    {0x1p-14f - 0x1p-25f, 0x0400},        /* the largest subnormal and a half: the smallest normal */
    {-2.0f, 0xC000},
    {0.1f, 0x2E66},
    {-0.0f, 0x8000},
    {1e-30f, 0x0000},
    {FLT_MIN / 4, 0x0000},                /* a float subnormal */
};
enum { HALF_CASES = sizeof half_cases / sizeof half_cases[0] };

static __global__ void half_convert(const float *in, unsigned short *bits, float *back, int n)
{
    int i = (int)threadIdx.x;
    if (i < n) {
        __half h = __float2half(in[i]);
        bits[i] = __half_as_ushort(h);
        back[i] = __half2float(h);
    }
}
static __global__ void half_arithmetic(__half *out)
{
    __half a = __float2half(0.1f), b = __float2half(1.0f / 3);
    out[0] = __hadd(a, b);
    out[1] = __hsub(b, a);
    out[2] = __hmul(a, b);
    out[3] = __hdiv(b, a);
    out[4] = __hmul(a, __float2half(3.0f));
    out[5] = __hadd(__ushort_as_half(0x3C01), __float2half(0x1p-11f)); /* a tie: to the even */
    out[6] = a + b * b;                                                /* two roundings */
    __half c = 1.5f;
    float f = c;
    out[7] = f == 1.5f ? -c : c;
}
/* a + b, b - a, a * b, b / a, 3a, (1 + 2^-10) + 2^-11, a + b * b (rounded twice), -1.5 */
static const unsigned short half_arithmetic_bits[8] = {0x36EE, 0x3377, 0x2844, 0x42AB, 0x34CC, 0x3C02, 0x32C1, 0xBE00};

/* Two halves at once: p * p + q fused (one rounding: 6 * 2^-10 + 2^-17 in
 * lane x) and not (6 * 2^-10: __hmul2_rn, which nvcc does not fuse with
 * the add either), a sum, and the conversions. */
static __global__ void half2_arithmetic(__half2 *out, float *lanes)
{
    __half2 p = __halves2half2(__ushort_as_half(0x3C03), __float2half(2.0f)); /* 1 + 3 * 2^-10, 2 */
    __half2 q = __floats2half2_rn(-1.0f, 0.5f);
    out[0] = __hfma2(p, p, q);
    out[1] = __hadd2(__hmul2_rn(p, p), q);
    out[2] = __half2(1.5f, 2.0f) + __half2(0.25f, -1.0f);
    __half2 r = __floats2half2_rn(0.1f, 3.0f);
    lanes[0] = __low2float(r);
    lanes[1] = __high2float(r);
}

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

    /* the texture and surface limits deviceQuery prints: filled in, and
     * consistent with each other as on a GPU */
    EXPECT(p.textureAlignment == 512 && p.texturePitchAlignment == 32 && p.surfaceAlignment == 512,
           "alignments %zu %zu %zu", p.textureAlignment, p.texturePitchAlignment, p.surfaceAlignment);
    EXPECT(p.maxTexture1D == 131072 && p.maxTexture2D[0] == 131072 && p.maxTexture2D[1] == 65536,
           "1D/2D textures %d (%d, %d)", p.maxTexture1D, p.maxTexture2D[0], p.maxTexture2D[1]);
    EXPECT(p.maxTexture3D[0] == 16384 && p.maxTexture3D[1] == 16384 && p.maxTexture3D[2] == 16384,
           "3D textures (%d, %d, %d)", p.maxTexture3D[0], p.maxTexture3D[1], p.maxTexture3D[2]);
    EXPECT(p.maxTexture1DLayered[1] == 2048 && p.maxTexture2DLayered[2] == 2048 && p.maxTextureCubemap > 0 &&
           p.maxTextureCubemapLayered[1] > 0, "layered textures");
    EXPECT(p.maxTexture1DMipmap > 0 && p.maxTexture1DMipmap <= p.maxTexture1D && p.maxTexture1DLinear > 0 &&
           p.maxTexture2DMipmap[1] > 0 && p.maxTexture2DGather[1] > 0 && p.maxTexture3DAlt[2] > 0 &&
           p.maxTexture2DLinear[2] > 0, "mipmapped, linear, gather and alternate 3D textures");
    EXPECT(p.maxSurface1D > 0 && p.maxSurface2D[1] > 0 && p.maxSurface3D[2] > 0 && p.maxSurface1DLayered[1] > 0 &&
           p.maxSurface2DLayered[2] > 0 && p.maxSurfaceCubemap > 0 && p.maxSurfaceCubemapLayered[1] > 0,
           "surfaces");
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrTextureAlignment, 0));
    EXPECT(attr == (int)p.textureAlignment, "cudaDevAttrTextureAlignment %d", attr);

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
    /* memory pools: cudaMallocAsync works, a pool shared with another process does not */
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrMemoryPoolsSupported, 0));
    EXPECT(attr == 1, "memory pools supported: %d", attr);
    EXPECT_OK(cudaDeviceGetAttribute(&attr, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
    EXPECT(attr == 0, "pool handle types: %d", attr);
    cudaStream_t high;
    EXPECT_OK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, -1));
    EXPECT_OK(cudaStreamGetPriority(high, &priority));
    EXPECT(priority == 0, "priority -1 clamped to %d", priority);
    EXPECT_OK(cudaStreamGetFlags(high, &stream_flags));
    EXPECT(stream_flags == cudaStreamNonBlocking, "stream flags %u", stream_flags);

    /* cuComplex.h, math_constants.h and NVTX, on the host (they are the same functions in kernels) */
    cuFloatComplex z = cuCmulf(make_cuFloatComplex(1, 2), make_cuFloatComplex(3, -1)); /* 5 + 5i */
    cuDoubleComplex q = cuCdiv(make_cuDoubleComplex(5, 5), make_cuDoubleComplex(3, -1)); /* 1 + 2i */
    EXPECT(cuCrealf(z) == 5 && cuCimagf(z) == 5 && fabs(cuCreal(q) - 1) < 1e-15 && fabs(cuCimag(q) - 2) < 1e-15 &&
           cuCabsf(make_cuFloatComplex(3, 4)) == 5, "complex arithmetic: (%g, %g), (%g, %g)", cuCrealf(z), cuCimagf(z),
           cuCreal(q), cuCimag(q));
    EXPECT(CUDART_PI_F == (float)M_PI && CUDART_PI == M_PI && isinf(CUDART_INF_F), "math constants");
    EXPECT(nvtxRangePushA("outer") == 0 && nvtxRangePushA("inner") == 1 && nvtxRangePop() == 1 && nvtxRangePop() == 0,
           "NVTX ranges nest");

    /* pointer attributes, host flags, peer copies, stream-ordered allocation, PCI address, IPC refused */
    {
        int *dev, *managed, *pinned, local = 0;
        EXPECT_OK(cudaMallocAsync(&dev, 256, high));
        EXPECT_OK(cudaMallocManaged(&managed, 256));
        EXPECT_OK(cudaHostAlloc(&pinned, 256, cudaHostAllocMapped));
        cudaPointerAttributes pa;
        EXPECT_OK(cudaPointerGetAttributes(&pa, dev + 3));
        EXPECT(pa.type == cudaMemoryTypeDevice && pa.device == 0 && pa.devicePointer == dev + 3 && !pa.hostPointer,
               "attributes of device memory");
        EXPECT_OK(cudaPointerGetAttributes(&pa, managed));
        EXPECT(pa.type == cudaMemoryTypeManaged && pa.hostPointer == managed, "attributes of managed memory");
        EXPECT_OK(cudaPointerGetAttributes(&pa, &local));
        EXPECT(pa.type == cudaMemoryTypeUnregistered && pa.device == -2 && pa.hostPointer == &local,
               "attributes of host memory");
        unsigned host_flags = 0;
        EXPECT_OK(cudaHostGetFlags(&host_flags, pinned));
        EXPECT(host_flags == cudaHostAllocMapped, "cudaHostGetFlags: %#x", host_flags);
        EXPECT_OK(cudaStreamAttachMemAsync(high, managed, 0, cudaMemAttachSingle));
        EXPECT_OK(cudaMemset(dev, 7, 256));
        EXPECT_OK(cudaMemcpyPeer(managed, 0, dev, 0, 256));
        EXPECT(managed[63] == 0x07070707, "cudaMemcpyPeer: %#x", managed[63]);
        EXPECT(cudaMemcpyPeer(managed, 1, dev, 0, 256) == cudaErrorInvalidDevice, "a peer copy to device 1");
        cudaGetLastError();
        cudaMemPool_t pool;
        unsigned long long threshold = 1 << 20, used = 0;
        EXPECT_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
        EXPECT_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
        threshold = 0;
        EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
        EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
        EXPECT(threshold == 1 << 20 && used >= 512, "pool attributes: threshold %llu, used %llu", threshold, used);
        EXPECT_OK(cudaFreeAsync(dev, high));
        EXPECT_OK(cudaFree(managed));
        EXPECT_OK(cudaFreeHost(pinned));
        char bus[32];
        int found = -1;
        EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
        EXPECT_OK(cudaDeviceGetByPCIBusId(&found, bus));
        EXPECT(found == 0 && strlen(bus) == 12, "PCI address %s gives device %d", bus, found);
        cudaIpcMemHandle_t handle;
        EXPECT(cudaIpcGetMemHandle(&handle, managed) == cudaErrorNotSupported, "IPC accepted");
        cudaGetLastError();
        cudaEvent_t event;
        EXPECT_OK(cudaEventCreate(&event));
        EXPECT_OK(cudaEventRecordWithFlags(event, high, cudaEventRecordDefault));
        EXPECT_OK(cudaEventDestroy(event));
    }

    /* cudaLaunchKernelEx: arguments converted as in a call, attributes read; clusters refused */
    {
        int *d;
        EXPECT_OK(cudaMallocManaged(&d, 8 * sizeof(int)));
        memset(d, 0, 8 * sizeof(int));
        cudaLaunchAttribute attributes[2];
        attributes[0].id = cudaLaunchAttributeCooperative;
        attributes[0].val.cooperative = 1;
        attributes[1].id = cudaLaunchAttributeClusterDimension;
        attributes[1].val.clusterDim.x = attributes[1].val.clusterDim.y = attributes[1].val.clusterDim.z = 1;
        cudaLaunchConfig_t launch = {};
        launch.gridDim = dim3(1);
        launch.blockDim = dim3(8);
        launch.stream = high;
        launch.attrs = attributes;
        launch.numAttrs = 2;
        EXPECT_OK(cudaLaunchKernelEx(&launch, add_index, d));
        EXPECT_OK(cudaStreamSynchronize(high));
        EXPECT(d[7] == 7, "cudaLaunchKernelEx: d[7] = %d", d[7]);
        attributes[1].val.clusterDim.x = 2;
        EXPECT(cudaLaunchKernelEx(&launch, add_index, d) == cudaErrorNotSupported, "a cluster of 2 accepted");
        cudaGetLastError();
        EXPECT_OK(cudaFree(d));
    }

    /* L2 persistence hints: accepted, read back, no effect (NVIDIA's simpleAttributes) */
    EXPECT(p.persistingL2CacheMaxSize > 0 && p.accessPolicyMaxWindowSize > 0, "no persisting L2 to set aside");
    size_t persisting = 0;
    EXPECT_OK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)p.persistingL2CacheMaxSize * 2));
    EXPECT_OK(cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize));
    EXPECT(persisting == (size_t)p.persistingL2CacheMaxSize, "the persisting L2 limit reads %zu", persisting);
    cudaStreamAttrValue window = {}, back = {};
    window.accessPolicyWindow.base_ptr = &persisting;
    window.accessPolicyWindow.num_bytes = 4096;
    window.accessPolicyWindow.hitRatio = 0.6f;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    EXPECT_OK(cudaStreamSetAttribute(high, cudaStreamAttributeAccessPolicyWindow, &window));
    EXPECT_OK(cudaStreamGetAttribute(high, cudaStreamAttributeAccessPolicyWindow, &back));
    EXPECT(back.accessPolicyWindow.num_bytes == 4096 && back.accessPolicyWindow.hitRatio == 0.6f &&
           back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting, "the access policy window reads back wrong");
    window.accessPolicyWindow.hitRatio = 1.5f;
    EXPECT(cudaStreamSetAttribute(high, cudaStreamAttributeAccessPolicyWindow, &window) == cudaErrorInvalidValue,
           "a hit ratio of 1.5 accepted");
    EXPECT_OK(cudaCtxResetPersistingL2Cache());
    EXPECT(cudaDeviceSetLimit((cudaLimit)99, 1) == cudaErrorUnsupportedLimit, "limit 99 accepted");

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

    /* default arguments of kernels: the launch gives some, the kernel's declaration the rest */
    int *d_def, h_def[8];
    EXPECT_OK(cudaMalloc(&d_def, sizeof h_def));
    EXPECT_OK(cudaMemset(d_def, 0, sizeof h_def));
    fill_default<<<1, 8>>>(d_def);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(h_def, d_def, sizeof h_def, cudaMemcpyDeviceToHost));
    EXPECT(h_def[0] == 7 && h_def[3] == 7 && h_def[4] == 0 && h_def[7] == 0, "k(a): %d %d %d %d", h_def[0], h_def[3],
           h_def[4], h_def[7]);
    fill_default<<<1, 8>>>(d_def, 3);
    EXPECT_OK(cudaMemcpy(h_def, d_def, sizeof h_def, cudaMemcpyDeviceToHost));
    EXPECT(h_def[0] == 3 && h_def[3] == 3 && h_def[4] == 0, "k(a, 3): %d %d %d", h_def[0], h_def[3], h_def[4]);
    fill_default<<<1, 8>>>(d_def, 9, 8);
    EXPECT_OK(cudaMemcpy(h_def, d_def, sizeof h_def, cudaMemcpyDeviceToHost));
    EXPECT(h_def[0] == 9 && h_def[7] == 9, "k(a, 9, 8): %d %d", h_def[0], h_def[7]);
    set_default<int><<<1, 2>>>(d_def);
    set_default<<<dim3(1), dim3(1), 0, 0>>>(d_def + 1, 6);
    EXPECT_OK(cudaMemcpy(h_def, d_def, sizeof h_def, cudaMemcpyDeviceToHost));
    EXPECT(h_def[0] == 5 && h_def[1] == 6, "template kernel with a default: %d %d", h_def[0], h_def[1]);
    float *d_scale, h_scale[4] = {1, 2, 3, 4};
    EXPECT_OK(cudaMalloc(&d_scale, sizeof h_scale));
    EXPECT_OK(cudaMemcpy(d_scale, h_scale, sizeof h_scale, cudaMemcpyHostToDevice));
    scale_default<<<1, 4>>>(d_scale);
    scale_default<<<1, 4>>>(d_scale, 0.5f);
    scale_default<<<1, 4>>>(d_scale);
    EXPECT_OK(cudaMemcpy(h_scale, d_scale, sizeof h_scale, cudaMemcpyDeviceToHost));
    EXPECT(h_scale[0] == 2 && h_scale[3] == 8, "default on the prototype: %g %g", h_scale[0], h_scale[3]);
    /* the launch still knows which kernel it runs: its own shared memory limit applies */
    EXPECT_OK(cudaFuncSetAttribute(fill_default, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
    fill_default<<<1, 1, 64 * 1024>>>(d_def);
    EXPECT_OK(cudaGetLastError());
    fill_default<<<1, 1, 97 * 1024>>>(d_def);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "97 KiB of dynamic shared memory over a 96 KiB limit");
    EXPECT_OK(cudaFree(d_def));
    EXPECT_OK(cudaFree(d_scale));

    /* half precision: float to half rounds to nearest even, on the device and the host */
    float h_in[HALF_CASES], h_back[HALF_CASES], *d_in, *d_back;
    unsigned short h_bits[HALF_CASES], *d_bits;
    for (int i = 0; i < HALF_CASES; i++)
        h_in[i] = half_cases[i].value;
    EXPECT_OK(cudaMalloc(&d_in, sizeof h_in));
    EXPECT_OK(cudaMalloc(&d_back, sizeof h_back));
    EXPECT_OK(cudaMalloc(&d_bits, sizeof h_bits));
    EXPECT_OK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    half_convert<<<1, 32>>>(d_in, d_bits, d_back, HALF_CASES);
    EXPECT_OK(cudaMemcpy(h_bits, d_bits, sizeof h_bits, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(h_back, d_back, sizeof h_back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < HALF_CASES; i++) {
        half_case c = half_cases[i];
        unsigned short host = __half_as_ushort(__float2half(c.value));
        float want_back = __half2float(__ushort_as_half(c.bits));
        EXPECT(h_bits[i] == c.bits, "kernel __float2half(%a) = %#06x, want %#06x", c.value, h_bits[i], c.bits);
        EXPECT(host == c.bits, "host __float2half(%a) = %#06x, want %#06x", c.value, host, c.bits);
        EXPECT(h_back[i] == want_back || (isnan(h_back[i]) && isnan(want_back)), "kernel __half2float(%#06x) = %a",
               c.bits, h_back[i]);
    }
    EXPECT(__half2float(__ushort_as_half(0x3C01)) == 1.0f + 0x1p-10f && __half2float(__ushort_as_half(0x0001)) == 0x1p-24f &&
           __half2float(__ushort_as_half(0x7BFF)) == 65504.0f && __half2float(__ushort_as_half(0xFC00)) == -INFINITY &&
           __half2float(__ushort_as_half(0x2E66)) == 0.0999755859375f && isnan(__half2float(__ushort_as_half(0x7FFF))) &&
           signbit(__half2float(__ushort_as_half(0x8000))), "__half2float: exact, signs kept");
    EXPECT(sizeof(__half) == 2 && alignof(__half) == 2, "sizeof(__half) %zu", sizeof(__half));
    __half *d_half, h_half[8];
    EXPECT_OK(cudaMalloc(&d_half, sizeof h_half));
    half_arithmetic<<<1, 1>>>(d_half);
    EXPECT_OK(cudaMemcpy(h_half, d_half, sizeof h_half, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; i++)
        EXPECT(__half_as_ushort(h_half[i]) == half_arithmetic_bits[i], "half arithmetic %d: %#06x, want %#06x", i,
               __half_as_ushort(h_half[i]), half_arithmetic_bits[i]);
    __half a = __float2half(0.1f), b = __float2half(1.0f / 3);
    EXPECT(__half_as_ushort(__hadd(a, b)) == 0x36EE && __half_as_ushort(__hmul(a, b)) == 0x2844 &&
           __half_as_ushort(__hsub(b, a)) == 0x3377 && __half_as_ushort(__hdiv(b, a)) == 0x42AB,
           "half arithmetic on the host");
    EXPECT_OK(cudaFree(d_in));
    EXPECT_OK(cudaFree(d_back));
    EXPECT_OK(cudaFree(d_bits));
    EXPECT_OK(cudaFree(d_half));
    __half2 *d_half2, h_half2[3];
    float *lanes;
    EXPECT_OK(cudaMalloc(&d_half2, sizeof h_half2));
    EXPECT_OK(cudaMallocManaged(&lanes, 2 * sizeof(float)));
    half2_arithmetic<<<1, 1>>>(d_half2, lanes);
    EXPECT_OK(cudaMemcpy(h_half2, d_half2, sizeof h_half2, cudaMemcpyDeviceToHost));
    unsigned short want2[3][2] = {{0x1E02, 0x4480}, {0x1E00, 0x4480}, {0x3F00, 0x3C00}};
    for (int i = 0; i < 3; i++)
        EXPECT(__half_as_ushort(h_half2[i].x) == want2[i][0] && __half_as_ushort(h_half2[i].y) == want2[i][1],
               "half2 arithmetic %d: %#06x %#06x, want %#06x %#06x", i, __half_as_ushort(h_half2[i].x),
               __half_as_ushort(h_half2[i].y), want2[i][0], want2[i][1]);
    EXPECT(lanes[0] == 0.0999755859375f && lanes[1] == 3.0f, "__low2float, __high2float: %a %a", lanes[0], lanes[1]);
    EXPECT(sizeof(half2) == 4 && alignof(half2) == 4 && sizeof(half) == 2, "sizeof(half2) %zu", sizeof(half2));
    EXPECT_OK(cudaFree(d_half2));
    EXPECT_OK(cudaFree(lanes));

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
