/* cudaemu/types.h: CUDA's built-in vector types, dim3, and the error,
 * copy-kind and handle types of the runtime API, for the cpu backend. */
#ifndef CUDAEMU_TYPES_H
#define CUDAEMU_TYPES_H
/* CUDA's driver_types.h guard: helper headers such as the CUDA samples'
 * helper_cuda.h test it before using the types below. */
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif

#include <stddef.h>

/* ---- vector types: same members, sizes and alignments as CUDA's ---------- */
#define CUDAEMU_VEC1(T, N) struct __attribute__((aligned(sizeof(T)))) N##1 { T x; };
#define CUDAEMU_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; };
#define CUDAEMU_VEC3(T, N) struct N##3 { T x, y, z; };
#define CUDAEMU_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };
#define CUDAEMU_VECS(T, N, A2, A4) \
    CUDAEMU_VEC1(T, N) CUDAEMU_VEC2(T, N, A2) CUDAEMU_VEC3(T, N) CUDAEMU_VEC4(T, N, A4)
CUDAEMU_VECS(signed char, char, 2, 4)
CUDAEMU_VECS(unsigned char, uchar, 2, 4)
CUDAEMU_VECS(short, short, 4, 8)
CUDAEMU_VECS(unsigned short, ushort, 4, 8)
CUDAEMU_VECS(int, int, 8, 16)
CUDAEMU_VECS(unsigned int, uint, 8, 16)
CUDAEMU_VECS(long, long, 16, 16)
CUDAEMU_VECS(unsigned long, ulong, 16, 16)
CUDAEMU_VECS(long long, longlong, 16, 16)
CUDAEMU_VECS(unsigned long long, ulonglong, 16, 16)
CUDAEMU_VECS(float, float, 8, 16)
CUDAEMU_VECS(double, double, 16, 16)
#undef CUDAEMU_VEC1
#undef CUDAEMU_VEC2
#undef CUDAEMU_VEC3
#undef CUDAEMU_VEC4
#undef CUDAEMU_VECS

#define CUDAEMU_MAKE(N, T)                                                                        \
    static inline N##1 make_##N##1(T x) { N##1 v = {x}; return v; }                                 \
    static inline N##2 make_##N##2(T x, T y) { N##2 v = {x, y}; return v; }                         \
    static inline N##3 make_##N##3(T x, T y, T z) { N##3 v = {x, y, z}; return v; }                 \
    static inline N##4 make_##N##4(T x, T y, T z, T w) { N##4 v = {x, y, z, w}; return v; }
CUDAEMU_MAKE(char, signed char)
CUDAEMU_MAKE(uchar, unsigned char)
CUDAEMU_MAKE(short, short)
CUDAEMU_MAKE(ushort, unsigned short)
CUDAEMU_MAKE(int, int)
CUDAEMU_MAKE(uint, unsigned int)
CUDAEMU_MAKE(long, long)
CUDAEMU_MAKE(ulong, unsigned long)
CUDAEMU_MAKE(longlong, long long)
CUDAEMU_MAKE(ulonglong, unsigned long long)
CUDAEMU_MAKE(float, float)
CUDAEMU_MAKE(double, double)
#undef CUDAEMU_MAKE

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* ---- errors: CUDA's names and numbers ------------------------------------- */
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidTexture = 18,
    cudaErrorInvalidChannelDescriptor = 20,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidFilterSetting = 26,
    cudaErrorInvalidNormSetting = 27,
    cudaErrorMissingConfiguration = 52,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorUnsupportedLimit = 215,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorAssert = 710,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorGraphExecUpdateFailure = 910,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x0
#define cudaEventBlockingSync 0x1
#define cudaEventDisableTiming 0x2
#define cudaHostAllocDefault 0x0
#define cudaHostAllocPortable 0x1
#define cudaHostAllocMapped 0x2
#define cudaHostAllocWriteCombined 0x4
#define cudaHostRegisterDefault 0x0
#define cudaHostRegisterPortable 0x1
#define cudaHostRegisterMapped 0x2
#define cudaHostRegisterIoMemory 0x4
#define cudaHostRegisterReadOnly 0x8
#define cudaDeviceScheduleAuto 0x0
#define cudaDeviceScheduleSpin 0x1
#define cudaDeviceScheduleYield 0x2
#define cudaDeviceScheduleBlockingSync 0x4
#define cudaDeviceBlockingSync 0x4 /* the old name of cudaDeviceScheduleBlockingSync */
#define cudaDeviceScheduleMask 0x7
#define cudaDeviceMapHost 0x8
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff
#define cudaMemAttachGlobal 0x1
#define cudaMemAttachHost 0x2
#define cudaMemAttachSingle 0x4
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
#define cudaOccupancyDefault 0x0
#define cudaOccupancyDisableCachingOverride 0x1

/* A stream callback's calling convention: nothing special on Linux. */
#define CUDART_CB
typedef void(CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *user_data);
typedef void(CUDART_CB *cudaHostFn_t)(void *user_data);

enum cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};

enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
/* A pool's properties and an access grant: what a graph's memory node is given. */
enum cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0,
    cudaMemAllocationTypePinned = 1,
    cudaMemAllocationTypeMax = 0x7fffffff
};
enum cudaMemAllocationHandleType {
    cudaMemHandleTypeNone = 0,
    cudaMemHandleTypePosixFileDescriptor = 1,
    cudaMemHandleTypeWin32 = 2,
    cudaMemHandleTypeWin32Kmt = 4,
    cudaMemHandleTypeFabric = 8
};
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
enum cudaMemAccessFlags {
    cudaMemAccessFlagsProtNone = 0,
    cudaMemAccessFlagsProtRead = 1,
    cudaMemAccessFlagsProtReadWrite = 3
};
struct cudaMemAccessDesc {
    struct cudaMemLocation location;
    enum cudaMemAccessFlags flags;
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

enum cudaLimit {
    cudaLimitStackSize = 0,
    cudaLimitPrintfFifoSize = 1,
    cudaLimitMallocHeapSize = 2,
    cudaLimitDevRuntimeSyncDepth = 3,
    cudaLimitDevRuntimePendingLaunchCount = 4,
    cudaLimitMaxL2FetchGranularity = 5,
    cudaLimitPersistingL2CacheSize = 6
};

/* What a pointer points into (cudaPointerGetAttributes). */
enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};
enum cudaSharedMemConfig {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2
};
/* Stream-ordered allocation: one pool, the device's. */
typedef struct cudaemu_mem_pool *cudaMemPool_t;
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 1,
    cudaMemPoolReuseAllowOpportunistic = 2,
    cudaMemPoolReuseAllowInternalDependencies = 3,
    cudaMemPoolAttrReleaseThreshold = 4,
    cudaMemPoolAttrReservedMemCurrent = 5,
    cudaMemPoolAttrReservedMemHigh = 6,
    cudaMemPoolAttrUsedMemCurrent = 7,
    cudaMemPoolAttrUsedMemHigh = 8
};
typedef struct cudaIpcMemHandle_st {
    char reserved[64];
} cudaIpcMemHandle_t;
typedef struct cudaIpcEventHandle_st {
    char reserved[64];
} cudaIpcEventHandle_t;
#define cudaIpcMemLazyEnablePeerAccess 0x01
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01

/* L2 persistence hints: accepted and kept (a stream's attributes read back
 * what was set), with no effect, since there is no cache to steer. */
enum cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp, missProp;
};
enum cudaSynchronizationPolicy {
    cudaSyncPolicyAuto = 1,
    cudaSyncPolicySpin = 2,
    cudaSyncPolicyYield = 3,
    cudaSyncPolicyBlockingSync = 4
};
enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributePriority = 8
};
union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum cudaSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int priority;
};
/* cudaLaunchKernelEx's configuration (launch.h) */
typedef struct cudaLaunchAttribute_st {
    enum cudaLaunchAttributeID id;
    char pad[8 - sizeof(enum cudaLaunchAttributeID)];
    union cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef enum cudaLaunchAttributeID cudaStreamAttrID;
typedef union cudaLaunchAttributeValue cudaStreamAttrValue;
typedef enum cudaLaunchAttributeID cudaKernelNodeAttrID;
typedef union cudaLaunchAttributeValue cudaKernelNodeAttrValue;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};

/* The fields a CUDA 11-13 program commonly reads, with CUDA's names. */
struct cudaDeviceProp {
    char name[256];
    char uuid[16];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;               /* kHz */
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    /* The texture and surface limits, named as in CUDA's driver_types.h:
     * the backend has no textures, but programs print or check these
     * (deviceQuery does).  maxTexture1DLinear is CUDA 11/12's, deprecated
     * there and gone in 13; kept so that programs for those still compile. */
    size_t texturePitchAlignment;
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture1DLinear;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];   /* width, height, pitch */
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];  /* width, layers */
    int maxTexture2DLayered[3];  /* width, height, layers */
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;             /* an enum cudaComputeMode */
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;         /* kHz */
    int memoryBusWidth;          /* bits */
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int singleToDoublePrecisionPerfRatio;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    int cooperativeMultiDeviceLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrCooperativeMultiDeviceLaunch = 96,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrDirectManagedMemAccessFromHost = 101,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrMemoryPoolSupportedHandleTypes = 119
};
enum cudaDeviceP2PAttr {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4
};

#endif /* CUDAEMU_TYPES_H */
