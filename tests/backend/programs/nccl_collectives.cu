/* nccl_collectives.cu: NCCL's collectives over every device, driven by one
 * host thread as NCCL's single-process examples do (ncclCommInitAll, every
 * rank's call between ncclGroupStart and ncclGroupEnd).  Each result is
 * checked on the host against sums worked out there: integer-valued data,
 * so any order of summation gives the same exact result.
 *   - all-reduce of floats out of place and doubles in place (ncclSum), of
 *     ints (ncclMax, ncclProd), floats (ncclMin, ncclAvg); random floats,
 *     whose sum rounds, give bit-identical results on every device;
 *   - broadcast (out of place, and ncclBcast in place), reduce to a root;
 *   - all-gather and reduce-scatter, out of place and in place;
 *   - a ring of ncclSend/ncclRecv in one group, and a send to oneself.
 * Built with nvcc and -lnccl it runs on GPUs too. */
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#define N 100003 /* a prime: no chunk divides it */

static int devices;
static ncclComm_t comms[MAX_DEVICES];
static cudaStream_t streams[MAX_DEVICES];
static int wrong;

static void *device_array(int d, size_t bytes)
{
    void *p;
    CHECK(cudaSetDevice(d));
    CHECK(cudaMalloc(&p, bytes));
    return p;
}
static void to_device(int d, void *dst, const void *src, size_t bytes)
{
    CHECK(cudaSetDevice(d));
    CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
static void from_device(int d, void *dst, const void *src, size_t bytes)
{
    CHECK(cudaSetDevice(d));
    CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
static void synchronize_all(void)
{
    for (int d = 0; d < devices; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamSynchronize(streams[d]));
    }
}
static void verdict(const char *what, int bad)
{
    if (bad) {
        printf("%s: %d wrong\n", what, bad);
        wrong++;
    }
}

/* Device d's element i: integer-valued, different on every device. */
static float value(int d, int i) { return (float)((i * 7 + d * 13) % 101 - 50); }

static void all_reduce_sums(void)
{
    float *send[MAX_DEVICES], *recv[MAX_DEVICES];
    double *both[MAX_DEVICES];
    float *h = (float *)malloc(N * sizeof(float)), *got = (float *)malloc(N * sizeof(float));
    double *hd = (double *)malloc(N * sizeof(double)), *gotd = (double *)malloc(N * sizeof(double));
    for (int d = 0; d < devices; d++) {
        send[d] = (float *)device_array(d, N * sizeof(float));
        recv[d] = (float *)device_array(d, N * sizeof(float));
        both[d] = (double *)device_array(d, N * sizeof(double));
        for (int i = 0; i < N; i++) {
            h[i] = value(d, i);
            hd[i] = 1e6 * value(d, i) + i; /* integer-valued, beyond a float's 24 bits */
        }
        to_device(d, send[d], h, N * sizeof(float));
        to_device(d, both[d], hd, N * sizeof(double));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclAllReduce(send[d], recv[d], N, ncclFloat, ncclSum, comms[d], streams[d]));
        NCCL_CHECK(ncclAllReduce(both[d], both[d], N, ncclDouble, ncclSum, comms[d], streams[d]));
    }
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    int bad = 0, bad_double = 0;
    for (int d = 0; d < devices; d++) {
        from_device(d, got, recv[d], N * sizeof(float));
        from_device(d, gotd, both[d], N * sizeof(double));
        for (int i = 0; i < N; i++) {
            float want = 0;
            double want_double = 0;
            for (int e = 0; e < devices; e++) {
                want += value(e, i);
                want_double += 1e6 * value(e, i) + i;
            }
            bad += got[i] != want;
            bad_double += gotd[i] != want_double;
        }
    }
    verdict("all-reduce of floats, out of place", bad);
    verdict("all-reduce of doubles, in place", bad_double);
    for (int d = 0; d < devices; d++) {
        CHECK(cudaFree(send[d]));
        CHECK(cudaFree(recv[d]));
        CHECK(cudaFree(both[d]));
    }
    free(h), free(got), free(hd), free(gotd);
}

/* ncclMax and ncclProd of ints, ncclMin and ncclAvg of floats. */
static void all_reduce_operations(void)
{
    enum { M = 1000 };
    int *imax[MAX_DEVICES], *iprod[MAX_DEVICES];
    float *fmin_[MAX_DEVICES], *favg[MAX_DEVICES];
    int hi[M], hp[M];
    float hf[M], ha[M];
    for (int d = 0; d < devices; d++) {
        imax[d] = (int *)device_array(d, M * sizeof(int));
        iprod[d] = (int *)device_array(d, M * sizeof(int));
        fmin_[d] = (float *)device_array(d, M * sizeof(float));
        favg[d] = (float *)device_array(d, M * sizeof(float));
        for (int i = 0; i < M; i++) {
            hi[i] = (i * 31 + d * 17) % 1000 - 500;
            hp[i] = (i + d) % 3 - 1; /* -1, 0, 1 */
            hf[i] = value(d, i);
            ha[i] = (float)(devices * (i + d)); /* the average is an integer */
        }
        to_device(d, imax[d], hi, sizeof hi);
        to_device(d, iprod[d], hp, sizeof hp);
        to_device(d, fmin_[d], hf, sizeof hf);
        to_device(d, favg[d], ha, sizeof ha);
    }
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclAllReduce(imax[d], imax[d], M, ncclInt, ncclMax, comms[d], streams[d]));
        NCCL_CHECK(ncclAllReduce(iprod[d], iprod[d], M, ncclInt32, ncclProd, comms[d], streams[d]));
        NCCL_CHECK(ncclAllReduce(fmin_[d], fmin_[d], M, ncclFloat, ncclMin, comms[d], streams[d]));
        NCCL_CHECK(ncclAllReduce(favg[d], favg[d], M, ncclFloat, ncclAvg, comms[d], streams[d]));
    }
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    int bad = 0;
    for (int d = 0; d < devices; d++) {
        from_device(d, hi, imax[d], sizeof hi);
        from_device(d, hp, iprod[d], sizeof hp);
        from_device(d, hf, fmin_[d], sizeof hf);
        from_device(d, ha, favg[d], sizeof ha);
        for (int i = 0; i < M; i++) {
            int want_max = -1000000, want_prod = 1;
            float want_min = 1e30f, want_avg = 0;
            for (int e = 0; e < devices; e++) {
                int v = (i * 31 + e * 17) % 1000 - 500;
                want_max = v > want_max ? v : want_max;
                want_prod *= (i + e) % 3 - 1;
                want_min = value(e, i) < want_min ? value(e, i) : want_min;
                want_avg += (float)(i + e);
            }
            bad += hi[i] != want_max || hp[i] != want_prod || hf[i] != want_min || ha[i] != want_avg;
        }
    }
    verdict("all-reduce with ncclMax, ncclProd, ncclMin and ncclAvg", bad);
    for (int d = 0; d < devices; d++) {
        CHECK(cudaFree(imax[d]));
        CHECK(cudaFree(iprod[d]));
        CHECK(cudaFree(fmin_[d]));
        CHECK(cudaFree(favg[d]));
    }
}

/* Random floats: their sum rounds, yet every device receives the same bits. */
static void all_reduce_identical(void)
{
    float *buf[MAX_DEVICES];
    float *h = (float *)malloc(N * sizeof(float)), *first = (float *)malloc(N * sizeof(float));
    srand(7);
    for (int d = 0; d < devices; d++) {
        buf[d] = (float *)device_array(d, N * sizeof(float));
        for (int i = 0; i < N; i++)
            h[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
        to_device(d, buf[d], h, N * sizeof(float));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_CHECK(ncclAllReduce(buf[d], buf[d], N, ncclFloat, ncclSum, comms[d], streams[d]));
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    int bad = 0;
    from_device(0, first, buf[0], N * sizeof(float));
    for (int d = 1; d < devices; d++) {
        from_device(d, h, buf[d], N * sizeof(float));
        bad += memcmp(h, first, N * sizeof(float)) != 0;
    }
    verdict("all-reduce of random floats, the same bits on every device", bad);
    for (int d = 0; d < devices; d++)
        CHECK(cudaFree(buf[d]));
    free(h), free(first);
}

static void broadcast_and_reduce(void)
{
    int *send[MAX_DEVICES], *recv[MAX_DEVICES], *inplace[MAX_DEVICES];
    int *h = (int *)malloc(N * sizeof(int));
    int broadcast_root = devices - 1, reduce_root = devices / 2;
    for (int d = 0; d < devices; d++) {
        send[d] = (int *)device_array(d, N * sizeof(int));
        recv[d] = (int *)device_array(d, N * sizeof(int));
        inplace[d] = (int *)device_array(d, N * sizeof(int));
        for (int i = 0; i < N; i++)
            h[i] = i * (d + 1);
        to_device(d, send[d], h, N * sizeof(int));
        to_device(d, inplace[d], h, N * sizeof(int));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclBroadcast(send[d], recv[d], N, ncclInt, broadcast_root, comms[d], streams[d]));
        NCCL_CHECK(ncclBcast(inplace[d], N, ncclInt, 0, comms[d], streams[d]));
    }
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    int bad = 0, bad_bcast = 0;
    for (int d = 0; d < devices; d++) {
        from_device(d, h, recv[d], N * sizeof(int));
        for (int i = 0; i < N; i++)
            bad += h[i] != i * (broadcast_root + 1);
        from_device(d, h, inplace[d], N * sizeof(int));
        for (int i = 0; i < N; i++)
            bad_bcast += h[i] != i;
    }
    verdict("broadcast from the last device", bad);
    verdict("ncclBcast in place from device 0", bad_bcast);

    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_CHECK(ncclReduce(send[d], recv[d], N, ncclInt, ncclSum, reduce_root, comms[d], streams[d]));
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    from_device(reduce_root, h, recv[reduce_root], N * sizeof(int));
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += h[i] != i * (devices * (devices + 1) / 2);
    verdict("reduce to a root", bad);
    for (int d = 0; d < devices; d++) {
        CHECK(cudaFree(send[d]));
        CHECK(cudaFree(recv[d]));
        CHECK(cudaFree(inplace[d]));
    }
    free(h);
}

/* All-gather of 37 per device, reduce-scatter of 41 per device, each out of
 * place and in place (the device's part of the larger buffer). */
static void gather_and_scatter(void)
{
    enum { G = 37, R = 41 };
    float *gsend[MAX_DEVICES], *grecv[MAX_DEVICES], *gin[MAX_DEVICES];
    float *rsend[MAX_DEVICES], *rrecv[MAX_DEVICES], *rin[MAX_DEVICES];
    float h[MAX_DEVICES * R], got[MAX_DEVICES * R];
    for (int d = 0; d < devices; d++) {
        gsend[d] = (float *)device_array(d, G * sizeof(float));
        grecv[d] = (float *)device_array(d, devices * G * sizeof(float));
        gin[d] = (float *)device_array(d, devices * G * sizeof(float));
        rsend[d] = (float *)device_array(d, devices * R * sizeof(float));
        rrecv[d] = (float *)device_array(d, R * sizeof(float));
        rin[d] = (float *)device_array(d, devices * R * sizeof(float));
        for (int i = 0; i < G; i++)
            h[i] = (float)(d * 1000 + i);
        to_device(d, gsend[d], h, G * sizeof(float));
        to_device(d, gin[d] + d * G, h, G * sizeof(float));
        for (int i = 0; i < devices * R; i++)
            h[i] = value(d, i);
        to_device(d, rsend[d], h, devices * R * sizeof(float));
        to_device(d, rin[d], h, devices * R * sizeof(float));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclAllGather(gsend[d], grecv[d], G, ncclFloat, comms[d], streams[d]));
        NCCL_CHECK(ncclAllGather(gin[d] + d * G, gin[d], G, ncclFloat, comms[d], streams[d]));
        NCCL_CHECK(ncclReduceScatter(rsend[d], rrecv[d], R, ncclFloat, ncclSum, comms[d], streams[d]));
        NCCL_CHECK(ncclReduceScatter(rin[d], rin[d] + d * R, R, ncclFloat, ncclSum, comms[d], streams[d]));
    }
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    int bad_gather = 0, bad_scatter = 0;
    for (int d = 0; d < devices; d++) {
        float *gathered[2] = {grecv[d], gin[d]};
        for (int k = 0; k < 2; k++) {
            from_device(d, got, gathered[k], devices * G * sizeof(float));
            for (int e = 0; e < devices; e++)
                for (int i = 0; i < G; i++)
                    bad_gather += got[e * G + i] != (float)(e * 1000 + i);
        }
        float *scattered[2] = {rrecv[d], rin[d] + d * R};
        for (int k = 0; k < 2; k++) {
            from_device(d, got, scattered[k], R * sizeof(float));
            for (int i = 0; i < R; i++) {
                float want = 0;
                for (int e = 0; e < devices; e++)
                    want += value(e, d * R + i);
                bad_scatter += got[i] != want;
            }
        }
    }
    verdict("all-gather, out of place and in place", bad_gather);
    verdict("reduce-scatter, out of place and in place", bad_scatter);
    for (int d = 0; d < devices; d++) {
        CHECK(cudaFree(gsend[d]));
        CHECK(cudaFree(grecv[d]));
        CHECK(cudaFree(gin[d]));
        CHECK(cudaFree(rsend[d]));
        CHECK(cudaFree(rrecv[d]));
        CHECK(cudaFree(rin[d]));
    }
}

/* Every device sends its array to the next and receives the previous one's,
 * all in one group; then each sends a copy to itself. */
static void ring(void)
{
    double *mine[MAX_DEVICES], *from_previous[MAX_DEVICES], *self[MAX_DEVICES];
    double *h = (double *)malloc(N * sizeof(double));
    for (int d = 0; d < devices; d++) {
        mine[d] = (double *)device_array(d, N * sizeof(double));
        from_previous[d] = (double *)device_array(d, N * sizeof(double));
        self[d] = (double *)device_array(d, N * sizeof(double));
        for (int i = 0; i < N; i++)
            h[i] = d * 1e7 + i;
        to_device(d, mine[d], h, N * sizeof(double));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclSend(mine[d], N, ncclDouble, (d + 1) % devices, comms[d], streams[d]));
        NCCL_CHECK(ncclRecv(from_previous[d], N, ncclDouble, (d + devices - 1) % devices, comms[d], streams[d]));
    }
    NCCL_CHECK(ncclGroupEnd());
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclRecv(self[d], N, ncclDouble, d, comms[d], streams[d]));
        NCCL_CHECK(ncclSend(mine[d], N, ncclDouble, d, comms[d], streams[d]));
    }
    NCCL_CHECK(ncclGroupEnd());
    synchronize_all();
    int bad = 0, bad_self = 0;
    for (int d = 0; d < devices; d++) {
        int previous = (d + devices - 1) % devices;
        from_device(d, h, from_previous[d], N * sizeof(double));
        for (int i = 0; i < N; i++)
            bad += h[i] != previous * 1e7 + i;
        from_device(d, h, self[d], N * sizeof(double));
        for (int i = 0; i < N; i++)
            bad_self += h[i] != d * 1e7 + i;
    }
    verdict("a ring of sends and receives in one group", bad);
    verdict("a send to oneself", bad_self);
    for (int d = 0; d < devices; d++) {
        CHECK(cudaFree(mine[d]));
        CHECK(cudaFree(from_previous[d]));
        CHECK(cudaFree(self[d]));
    }
    free(h);
}

int main(void)
{
    CHECK(cudaGetDeviceCount(&devices));
    if (devices > MAX_DEVICES)
        devices = MAX_DEVICES;
    NCCL_CHECK(ncclCommInitAll(comms, devices, NULL));
    for (int d = 0; d < devices; d++) {
        int rank = -1, count = -1, device = -1;
        NCCL_CHECK(ncclCommUserRank(comms[d], &rank));
        NCCL_CHECK(ncclCommCount(comms[d], &count));
        NCCL_CHECK(ncclCommCuDevice(comms[d], &device));
        if (rank != d || count != devices || device != d) {
            printf("communicator %d: rank %d of %d on device %d\n", d, rank, count, device);
            wrong++;
        }
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreate(&streams[d]));
    }
    all_reduce_sums();
    all_reduce_operations();
    all_reduce_identical();
    broadcast_and_reduce();
    gather_and_scatter();
    ring();
    for (int d = 0; d < devices; d++) {
        NCCL_CHECK(ncclCommDestroy(comms[d]));
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamDestroy(streams[d]));
    }
    if (wrong)
        return 1;
    printf("NCCL over %d device%s: all-reduce, broadcast, reduce, all-gather, reduce-scatter and a ring: every "
           "result right\n", devices, devices == 1 ? "" : "s");
    return 0;
}
