/* nccl_threads.cu: one host thread per device, in the style of NCCL's
 * examples for one thread per GPU: the main thread makes the unique id,
 * each thread sets its device, joins the communicator with
 * ncclCommInitRank and makes its own rank's calls, each call outside any
 * group waiting for the other ranks' as a GPU kernel waits.  Checked: an
 * all-reduce of ints, an all-gather, a broadcast, and a ring of
 * ncclSend/ncclRecv in a group per thread, repeated so that the threads
 * arrive in varied orders.  Built with nvcc and -lnccl it runs on GPUs too. */
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define NCCL_CHECK(call)                                                                        \
    do {                                                                                        \
        ncclResult_t r_ = (call);                                                               \
        if (r_ != ncclSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_));          \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

#define MAX_DEVICES 8
#define N 4099
#define ROUNDS 20

static int devices;
static ncclUniqueId id;

struct rank_work {
    int rank, wrong;
};

static void *run_rank(void *arg)
{
    struct rank_work *w = (struct rank_work *)arg;
    int r = w->rank, next = (r + 1) % devices, previous = (r + devices - 1) % devices;
    CHECK(cudaSetDevice(r));
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, devices, id, r));
    int rank = -1, device = -1;
    NCCL_CHECK(ncclCommUserRank(comm, &rank));
    NCCL_CHECK(ncclCommCuDevice(comm, &device));
    w->wrong += rank != r || device != r;

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    int *sum, *gathered, *token, *passed;
    int *h = (int *)malloc(devices * N * sizeof(int));
    CHECK(cudaMalloc((void **)&sum, N * sizeof(int)));
    CHECK(cudaMalloc((void **)&gathered, devices * N * sizeof(int)));
    CHECK(cudaMalloc((void **)&token, N * sizeof(int)));
    CHECK(cudaMalloc((void **)&passed, N * sizeof(int)));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++)
            h[i] = (r + 1) * i + round;
        CHECK(cudaMemcpy(sum, h, N * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(token, h, N * sizeof(int), cudaMemcpyHostToDevice));
        NCCL_CHECK(ncclAllGather(sum, gathered, N, ncclInt, comm, stream));
        NCCL_CHECK(ncclAllReduce(sum, sum, N, ncclInt, ncclSum, comm, stream));
        NCCL_CHECK(ncclGroupStart());
        NCCL_CHECK(ncclSend(token, N, ncclInt, next, comm, stream));
        NCCL_CHECK(ncclRecv(passed, N, ncclInt, previous, comm, stream));
        NCCL_CHECK(ncclGroupEnd());
        NCCL_CHECK(ncclBroadcast(sum, sum, N, ncclInt, round % devices, comm, stream));
        CHECK(cudaStreamSynchronize(stream));

        CHECK(cudaMemcpy(h, sum, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            w->wrong += h[i] != devices * (devices + 1) / 2 * i + devices * round;
        CHECK(cudaMemcpy(h, passed, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            w->wrong += h[i] != (previous + 1) * i + round;
        CHECK(cudaMemcpy(h, gathered, devices * N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int e = 0; e < devices; e++)
            for (int i = 0; i < N; i++)
                w->wrong += h[e * N + i] != (e + 1) * i + round;
    }
    CHECK(cudaFree(sum));
    CHECK(cudaFree(gathered));
    CHECK(cudaFree(token));
    CHECK(cudaFree(passed));
    CHECK(cudaStreamDestroy(stream));
    free(h);
    NCCL_CHECK(ncclCommDestroy(comm));
    return NULL;
}

int main(void)
{
    CHECK(cudaGetDeviceCount(&devices));
    if (devices > MAX_DEVICES)
        devices = MAX_DEVICES;
    NCCL_CHECK(ncclGetUniqueId(&id));
    pthread_t threads[MAX_DEVICES];
    struct rank_work work[MAX_DEVICES];
    for (int r = 0; r < devices; r++) {
        work[r].rank = r;
        work[r].wrong = 0;
        if (pthread_create(&threads[r], NULL, run_rank, &work[r]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    int wrong = 0;
    for (int r = 0; r < devices; r++) {
        pthread_join(threads[r], NULL);
        wrong += work[r].wrong;
    }
    if (wrong) {
        printf("%d wrong\n", wrong);
        return 1;
    }
    printf("%d host threads, one rank each, %d rounds of all-gather, all-reduce, a ring and a broadcast: every "
           "result right\n", devices, ROUNDS);
    return 0;
}
