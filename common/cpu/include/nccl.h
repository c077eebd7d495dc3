/* nccl.h of the cpu backend: the part of NCCL's API that the kit's labs and
 * common learner programs use, with NCCL 2.x's names, types, enum values and
 * signatures, so that a program written for NCCL compiles unchanged.
 *
 * The work is done by common/cpu/src/nccl.cpp on the emulated devices:
 * every call finishes before it returns, device memory is host memory, and a
 * collective runs once every rank of its communicator has made its call.
 * What a GPU turns into a hang (mismatched collectives, a send without its
 * receive, one thread making every rank's calls outside a group) is an
 * error with a message here; see common/cpu/README.md. */
#ifndef CUDAEMU_NCCL_H
#define CUDAEMU_NCCL_H
/* NCCL's own guard for this header, which some programs test */
#ifndef NCCL_H_
#define NCCL_H_
#endif

#include "cuda_runtime.h"
#include "cuda_fp16.h"

/* The API of this version is what the emulation follows. */
#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 0
#define NCCL_SUFFIX ""
/* Versions up to 2.8 were numbered X*1000 + Y*100 + Z, later ones X*10000 + Y*100 + Z. */
#define NCCL_VERSION(X, Y, Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))
#define NCCL_VERSION_CODE NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ncclComm *ncclComm_t;
#define NCCL_COMM_NULL NULL

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

typedef enum {
    ncclSum = 0,
    ncclProd = 1,
    ncclMax = 2,
    ncclMin = 3,
    ncclAvg = 4,
    ncclNumOps = 5,
    ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

/* ncclBfloat16 and the 8-bit floats exist as values; the cpu backend refuses
 * them at the call (ncclInvalidArgument). */
typedef enum {
    ncclInt8 = 0, ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2, ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6, ncclHalf = 6,
    ncclFloat32 = 7, ncclFloat = 7,
    ncclFloat64 = 8, ncclDouble = 8,
    ncclBfloat16 = 9,
    ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11,
    ncclNumTypes = 12
} ncclDataType_t;

/* ---- version, errors ---- */
ncclResult_t ncclGetVersion(int *version);
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);

/* ---- communicators ---- */
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist);
ncclResult_t ncclCommFinalize(ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);

/* ---- collectives ---- */
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream);

/* ---- point to point ---- */
ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream);
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream);

/* ---- groups ---- */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDAEMU_NCCL_H */
