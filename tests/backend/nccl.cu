/* nccl.cu: the cpu backend's NCCL where a program goes wrong: each mistake
 * gets NCCL's error code and a message naming the ranks, calls and values,
 * where a GPU would hang, fail later or corrupt memory.  (The results of
 * correct programs are checked by programs/nccl_collectives.cu and
 * programs/nccl_threads.cu.)
 *
 *   nccl [PART]      every part, or one; a part that needs more devices than
 *                    there are (CUDAEMU_DEVICES) says so and passes
 *
 * Parts with one device: basics, arguments, group_error, init_alone (only
 * by name: it needs a program with no other thread), init_group,
 * duplicate_device.  With two or more: one_thread, mismatch_count,
 * mismatch_root, mismatch_kind_threads, send_without_recv,
 * send_without_recv_threads, p2p_mismatch, wrong_device, devlist; with
 * three or more: rank_order. */
#include <nccl.h>
#include <pthread.h>

#include "check.h"

#define MAX_DEVICES 8
#define NCCL_OK(call)                                                                             \
    do {                                                                                          \
        ncclResult_t r_ = (call);                                                                 \
        EXPECT(r_ == ncclSuccess, "%s: %s", #call, ncclGetErrorString(r_));                       \
    } while (0)

static int devices;

/* `got` is `want`, and both the error string and the last error name `needle`. */
static void expect_error(int line, ncclResult_t got, ncclResult_t want, const char *needle)
{
    const char *text = ncclGetErrorString(got), *last = ncclGetLastError(NULL);
    EXPECT(got == want, "line %d: result %d (%s), not %d", line, (int)got, text, (int)want);
    EXPECT(strstr(text, needle) && strstr(last, needle), "line %d: '%s' lacks '%s' (last error '%s')", line, text,
           needle, last);
}
#define EXPECT_ERROR(call, want, needle) expect_error(__LINE__, (call), (want), (needle))

static bool need_devices(const char *part, int n)
{
    if (devices >= n)
        return true;
    printf("%s: skipped, it needs %d devices (CUDAEMU_DEVICES=%d)\n", part, n, n);
    return false;
}

static void *device_array(int d, size_t bytes)
{
    void *p = NULL;
    EXPECT_OK(cudaSetDevice(d));
    EXPECT_OK(cudaMalloc(&p, bytes));
    return p;
}

/* One communicator over the first n devices, and a float array of 16 on each. */
struct setup {
    int n;
    ncclComm_t comms[MAX_DEVICES];
    float *a[MAX_DEVICES], *b[MAX_DEVICES];
};
static void set_up(setup *s, int n)
{
    s->n = n;
    NCCL_OK(ncclCommInitAll(s->comms, n, NULL));
    for (int d = 0; d < n; d++) {
        s->a[d] = (float *)device_array(d, 16 * sizeof(float));
        s->b[d] = (float *)device_array(d, 16 * sizeof(float));
        EXPECT_OK(cudaMemset(s->a[d], 0, 16 * sizeof(float)));
        EXPECT_OK(cudaMemset(s->b[d], 0, 16 * sizeof(float)));
    }
}
static void tear_down(setup *s)
{
    for (int d = 0; d < s->n; d++) {
        NCCL_OK(ncclCommDestroy(s->comms[d]));
        EXPECT_OK(cudaSetDevice(d));
        EXPECT_OK(cudaFree(s->a[d]));
        EXPECT_OK(cudaFree(s->b[d]));
    }
    EXPECT_OK(cudaSetDevice(0));
}

/* ---- with one device ---- */

static void basics(void)
{
    int version = 0;
    NCCL_OK(ncclGetVersion(&version));
    EXPECT(version == NCCL_VERSION_CODE && version == NCCL_MAJOR * 10000 + NCCL_MINOR * 100 + NCCL_PATCH,
           "version %d", version);
    EXPECT(ncclSuccess == 0 && ncclUnhandledCudaError == 1 && ncclSystemError == 2 && ncclInternalError == 3 &&
           ncclInvalidArgument == 4 && ncclInvalidUsage == 5 && ncclRemoteError == 6 && ncclInProgress == 7,
           "NCCL's result codes");
    EXPECT(ncclInt8 == 0 && ncclUint8 == 1 && ncclInt == 2 && ncclUint32 == 3 && ncclInt64 == 4 &&
           ncclUint64 == 5 && ncclHalf == 6 && ncclFloat == 7 && ncclDouble == 8 && ncclBfloat16 == 9,
           "NCCL's data types");
    EXPECT(ncclSum == 0 && ncclProd == 1 && ncclMax == 2 && ncclMin == 3 && ncclAvg == 4, "NCCL's operations");
    EXPECT(!strcmp(ncclGetErrorString(ncclSuccess), "no error"), "%s", ncclGetErrorString(ncclSuccess));
    EXPECT(!strcmp(ncclGetErrorString(ncclInvalidUsage), "invalid usage"), "%s",
           ncclGetErrorString(ncclInvalidUsage));
    ncclUniqueId a, b;
    NCCL_OK(ncclGetUniqueId(&a));
    NCCL_OK(ncclGetUniqueId(&b));
    EXPECT(memcmp(&a, &b, sizeof a) != 0, "two unique ids are the same");
    NCCL_OK(ncclCommDestroy(NULL));
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidUsage, "ncclGroupEnd without an ncclGroupStart");
    /* nested groups: only the outermost end runs the calls */
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclGroupEnd());
    NCCL_OK(ncclGroupEnd());
}

static void arguments(void)
{
    setup s;
    set_up(&s, 1);
    ncclComm_t c = s.comms[0];
    float host[16];
    EXPECT_ERROR(ncclAllReduce(host, s.b[0], 16, ncclFloat, ncclSum, c, 0), ncclInvalidArgument,
                 "ncclAllReduce: rank 0's sendbuff");
    EXPECT_ERROR(ncclAllReduce(host, s.b[0], 16, ncclFloat, ncclSum, c, 0), ncclInvalidArgument,
                 "is not device memory");
    EXPECT_ERROR(ncclAllReduce(s.a[0], NULL, 16, ncclFloat, ncclSum, c, 0), ncclInvalidArgument,
                 "ncclAllReduce: rank 0's recvbuff is NULL");
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 17, ncclFloat, ncclSum, c, 0), ncclInvalidArgument,
                 "is smaller than the 68 bytes");
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclBfloat16, ncclSum, c, 0), ncclInvalidArgument,
                 "ncclBfloat16: the cpu backend does not emulate that type");
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, (ncclDataType_t)42, ncclSum, c, 0), ncclInvalidArgument,
                 "datatype 42");
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, (ncclRedOp_t)9, c, 0), ncclInvalidArgument,
                 "reduction operation 9");
    EXPECT_ERROR(ncclBroadcast(s.a[0], s.b[0], 16, ncclFloat, 1, c, 0), ncclInvalidArgument,
                 "root 1 is not a rank of the communicator (0 to 0)");
    EXPECT_ERROR(ncclSend(s.a[0], 16, ncclFloat, -1, c, 0), ncclInvalidArgument, "peer -1 is not a rank");
    int not_a_comm = 0;
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, (ncclComm_t)&not_a_comm, 0),
                 ncclInvalidArgument, "is not a communicator");
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, NULL, 0), ncclInvalidArgument,
                 "NULL communicator");
    /* a count of 0 moves nothing and needs no buffers */
    NCCL_OK(ncclAllReduce(NULL, NULL, 0, ncclFloat, ncclSum, c, 0));
    /* the right call works after all that, and so do managed and pinned host memory */
    NCCL_OK(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, c, 0));
    float *managed = NULL, *pinned = NULL;
    EXPECT_OK(cudaMallocManaged(&managed, 16 * sizeof(float)));
    EXPECT_OK(cudaMallocHost(&pinned, 16 * sizeof(float)));
    for (int i = 0; i < 16; i++)
        managed[i] = (float)i;
    NCCL_OK(ncclAllReduce(managed, pinned, 16, ncclFloat, ncclSum, c, 0));
    EXPECT(pinned[15] == 15.0f, "managed to pinned: %g", pinned[15]);
    EXPECT_OK(cudaFree(managed));
    EXPECT_OK(cudaFreeHost(pinned));
    ncclComm_t more[MAX_DEVICES + 1];
    EXPECT_ERROR(ncclCommInitAll(more, devices + 1, NULL), ncclInvalidArgument,
                 "CUDAEMU_DEVICES sets how many the cpu backend emulates");
    int bad_list[1] = {devices};
    EXPECT_ERROR(ncclCommInitAll(more, 1, bad_list), ncclInvalidArgument, "not a device (0 to");
    ncclUniqueId foreign;
    memset(&foreign, 7, sizeof foreign);
    EXPECT_ERROR(ncclCommInitRank(more, 1, foreign, 0), ncclInvalidArgument,
                 "the unique id does not come from ncclGetUniqueId");
    tear_down(&s);
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, c, 0), ncclInvalidArgument,
                 "which has been destroyed");
    EXPECT_ERROR(ncclCommDestroy(c), ncclInvalidArgument, "which has been destroyed");
}

/* A failed call in a group fails its ncclGroupEnd, and nothing of the group runs. */
static void group_error(void)
{
    setup s;
    set_up(&s, 1);
    float one[16];
    for (int i = 0; i < 16; i++)
        one[i] = 1;
    EXPECT_OK(cudaMemcpy(s.a[0], one, sizeof one, cudaMemcpyHostToDevice));
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, s.comms[0], 0));
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, NULL, 0), ncclInvalidArgument,
                 "NULL communicator");
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidArgument, "NULL communicator");
    float got[16];
    EXPECT_OK(cudaMemcpy(got, s.b[0], sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got[0] == 0, "the group's all-reduce ran: %g", got[0]);
    tear_down(&s);
}

/* ncclCommInitRank for rank 0 of 2 in a program with one thread: nobody can
 * ever make rank 1's call. */
static void init_alone(void)
{
    ncclUniqueId id;
    ncclComm_t comm;
    NCCL_OK(ncclGetUniqueId(&id));
    EXPECT_ERROR(ncclCommInitRank(&comm, 2, id, 0), ncclInvalidUsage,
                 "ncclCommInitRank for rank 0 of 2 waits for rank 1's ncclCommInitRank, and no other thread of this "
                 "program can make it");
}

struct joiner {
    ncclUniqueId id;
    int rank, device;
    ncclResult_t result;
    char message[1024];
};
static void *join(void *arg)
{
    joiner *j = (joiner *)arg;
    ncclComm_t comm;
    cudaSetDevice(j->device);
    j->result = ncclCommInitRank(&comm, 2, j->id, j->rank);
    snprintf(j->message, sizeof j->message, "%s", ncclGetLastError(NULL));
    return NULL;
}
/* Two ranks on device 0: refused, as NCCL refuses them. */
static void duplicate_device(void)
{
    ncclUniqueId id;
    NCCL_OK(ncclGetUniqueId(&id));
    joiner j[2];
    pthread_t t[2];
    for (int r = 0; r < 2; r++) {
        j[r].id = id, j[r].rank = r, j[r].device = 0;
        pthread_create(&t[r], NULL, join, &j[r]);
    }
    for (int r = 0; r < 2; r++) {
        pthread_join(t[r], NULL);
        EXPECT(j[r].result == ncclInvalidUsage && strstr(j[r].message, "ranks 0 and 1 are both on device 0"),
               "rank %d: %d, %s", r, (int)j[r].result, j[r].message);
    }
}

/* NCCL's pattern for one thread and many devices with ncclCommInitRank:
 * every rank's call in one group, each after cudaSetDevice; then an
 * all-reduce over all of them. */
static void init_group(void)
{
    ncclUniqueId id;
    ncclComm_t comms[MAX_DEVICES];
    int *x[MAX_DEVICES];
    NCCL_OK(ncclGetUniqueId(&id));
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++) {
        EXPECT_OK(cudaSetDevice(d));
        NCCL_OK(ncclCommInitRank(&comms[d], devices, id, d));
    }
    NCCL_OK(ncclGroupEnd());
    for (int d = 0; d < devices; d++) {
        int one[4] = {d + 1, d + 1, d + 1, d + 1}, device = -1;
        NCCL_OK(ncclCommCuDevice(comms[d], &device));
        EXPECT(device == d, "rank %d is on device %d", d, device);
        x[d] = (int *)device_array(d, sizeof one);
        EXPECT_OK(cudaMemcpy(x[d], one, sizeof one, cudaMemcpyHostToDevice));
    }
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_OK(ncclAllReduce(x[d], x[d], 4, ncclInt, ncclSum, comms[d], 0));
    NCCL_OK(ncclGroupEnd());
    for (int d = 0; d < devices; d++) {
        int got[4];
        EXPECT_OK(cudaSetDevice(d));
        EXPECT_OK(cudaMemcpy(got, x[d], sizeof got, cudaMemcpyDeviceToHost));
        EXPECT(got[0] == devices * (devices + 1) / 2 && got[3] == got[0], "device %d: %d", d, got[0]);
        EXPECT_OK(cudaFree(x[d]));
        NCCL_OK(ncclCommDestroy(comms[d]));
    }
    EXPECT_OK(cudaSetDevice(0));
}

/* ---- with two devices or more ---- */

/* The classic mistake: one thread calls rank 0's all-reduce outside a group. */
static void one_thread(void)
{
    if (!need_devices("one_thread", 2))
        return;
    setup s;
    set_up(&s, devices);
    static const char *const others[] = {"", "", "rank 1's call", "the calls of ranks 1 and 2",
                                         "the calls of ranks 1, 2 and 3"};
    char want[256];
    snprintf(want, sizeof want, "ncclAllReduce for rank 0 of %d waits for %s, and this thread makes every rank's "
             "calls: put them between ncclGroupStart and ncclGroupEnd", devices, devices <= 4 ? others[devices] : "");
    EXPECT_ERROR(ncclAllReduce(s.a[0], s.b[0], 16, ncclFloat, ncclSum, s.comms[0], 0), ncclInvalidUsage, want);
    /* the same between ncclGroupStart and ncclGroupEnd works */
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_OK(ncclAllReduce(s.a[d], s.b[d], 16, ncclFloat, ncclSum, s.comms[d], 0));
    NCCL_OK(ncclGroupEnd());
    tear_down(&s);
}

static void mismatch_count(void)
{
    if (!need_devices("mismatch_count", 2))
        return;
    setup s;
    set_up(&s, devices);
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_OK(ncclAllReduce(s.a[d], s.b[d], d == 0 ? 16 : 15, ncclFloat, ncclSum, s.comms[d], 0));
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidArgument,
                 "ncclAllReduce (collective call 1): the ranks pass different counts: rank 0 16, rank 1 15");
    /* the communicator goes on: the next call is call 2 */
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_OK(ncclAllReduce(s.a[d], s.b[d], 16, d == 1 ? ncclInt : ncclFloat, ncclSum, s.comms[d], 0));
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidArgument,
                 "ncclAllReduce (collective call 2): the ranks pass different datatypes: rank 0 ncclFloat, rank 1 "
                 "ncclInt32");
    tear_down(&s);
}

static void mismatch_root(void)
{
    if (!need_devices("mismatch_root", 2))
        return;
    setup s;
    set_up(&s, devices);
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_OK(ncclBroadcast(s.a[d], s.b[d], 16, ncclFloat, d == 0 ? 0 : 1, s.comms[d], 0));
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidArgument, "the ranks pass different roots: rank 0 0, rank 1 1");
    tear_down(&s);
}

/* One thread per rank: rank 0 all-reduces while the others broadcast. */
struct ranker {
    ncclComm_t comm;
    float *a, *b;
    int rank;
    int plan;            /* what the rank does, by the part */
    ncclResult_t result;
    char message[2048];
};
enum { PLAN_KIND, PLAN_SEND_THEN_ALLREDUCE };
static void *rank_thread(void *arg)
{
    ranker *k = (ranker *)arg;
    cudaSetDevice(k->rank);
    if (k->plan == PLAN_KIND) {
        k->result = k->rank == 0 ? ncclAllReduce(k->a, k->b, 16, ncclFloat, ncclSum, k->comm, 0)
                                 : ncclBroadcast(k->a, k->b, 16, ncclFloat, 0, k->comm, 0);
    } else if (k->rank == 0) {
        /* a send whose receive rank 1 never posts */
        ncclGroupStart();
        ncclSend(k->a, 16, ncclFloat, 1, k->comm, 0);
        k->result = ncclGroupEnd();
    } else {
        k->result = k->rank == 1 ? ncclAllReduce(k->a, k->b, 16, ncclFloat, ncclSum, k->comm, 0) : ncclSuccess;
    }
    snprintf(k->message, sizeof k->message, "%s", ncclGetLastError(k->comm));
    return NULL;
}
static void run_ranks(setup *s, int plan, ranker *k, int n)
{
    pthread_t t[MAX_DEVICES];
    for (int r = 0; r < n; r++) {
        k[r].comm = s->comms[r], k[r].a = s->a[r], k[r].b = s->b[r], k[r].rank = r, k[r].plan = plan;
        k[r].result = ncclSuccess, k[r].message[0] = 0;
        pthread_create(&t[r], NULL, rank_thread, &k[r]);
    }
    for (int r = 0; r < n; r++)
        pthread_join(t[r], NULL);
}

static void mismatch_kind_threads(void)
{
    if (!need_devices("mismatch_kind_threads", 2))
        return;
    setup s;
    set_up(&s, 2);
    ranker k[2];
    run_ranks(&s, PLAN_KIND, k, 2);
    for (int r = 0; r < 2; r++)
        EXPECT(k[r].result == ncclInvalidUsage &&
                   strstr(k[r].message, "collective call 1 differs between the ranks: rank 0 calls ncclAllReduce, "
                                        "rank 1 calls ncclBroadcast"),
               "rank %d: %d, %s", r, (int)k[r].result, k[r].message);
    tear_down(&s);
}

static void send_without_recv(void)
{
    if (!need_devices("send_without_recv", 2))
        return;
    setup s;
    set_up(&s, 2);
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclSend(s.a[0], 16, ncclFloat, 1, s.comms[0], 0));
    NCCL_OK(ncclRecv(s.b[0], 16, ncclFloat, 1, s.comms[0], 0));
    NCCL_OK(ncclSend(s.a[1], 16, ncclFloat, 0, s.comms[1], 0)); /* rank 1 forgets its receive */
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidUsage,
                 "ncclGroupEnd for rank 0 of 2 can never complete: rank 0 waits in ncclSend to rank 1 (16 x "
                 "ncclFloat), which rank 1 has no ncclRecv for; rank 1 has made no matching call");
    tear_down(&s);
}

/* Threads: rank 0's send has no receive while rank 1 waits in an all-reduce
 * that rank 0 never makes: both wait forever on a GPU. */
static void send_without_recv_threads(void)
{
    if (!need_devices("send_without_recv_threads", 2))
        return;
    setup s;
    set_up(&s, 2);
    ranker k[2];
    run_ranks(&s, PLAN_SEND_THEN_ALLREDUCE, k, 2);
    for (int r = 0; r < 2; r++)
        EXPECT(k[r].result == ncclInvalidUsage &&
                   strstr(k[r].message, "rank 0 waits in ncclSend to rank 1 (16 x ncclFloat), which rank 1 has no "
                                        "ncclRecv for; rank 1 waits in ncclAllReduce (its collective call 1)"),
               "rank %d: %d, %s", r, (int)k[r].result, k[r].message);
    tear_down(&s);
}

static void p2p_mismatch(void)
{
    if (!need_devices("p2p_mismatch", 2))
        return;
    setup s;
    set_up(&s, 2);
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclSend(s.a[0], 16, ncclFloat, 1, s.comms[0], 0));
    NCCL_OK(ncclRecv(s.b[1], 12, ncclFloat, 0, s.comms[1], 0));
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidArgument,
                 "ncclSend from rank 0 to rank 1 sends 16 x ncclFloat, but the matching ncclRecv on rank 1 receives "
                 "12 x ncclFloat");
    tear_down(&s);
}

/* Rank 0 handed an array of device 1. */
static void wrong_device(void)
{
    if (!need_devices("wrong_device", 2))
        return;
    setup s;
    set_up(&s, 2);
    char want[256];
    snprintf(want, sizeof want, "ncclAllReduce: rank 0's sendbuff (%p) is memory of device 1, but rank 0's "
             "communicator is on device 0", (void *)s.a[1]);
    NCCL_OK(ncclGroupStart());
    EXPECT_ERROR(ncclAllReduce(s.a[1], s.b[0], 16, ncclFloat, ncclSum, s.comms[0], 0), ncclInvalidArgument, want);
    NCCL_OK(ncclAllReduce(s.a[1], s.b[1], 16, ncclFloat, ncclSum, s.comms[1], 0));
    EXPECT_ERROR(ncclGroupEnd(), ncclInvalidArgument, want);
    tear_down(&s);
}

/* Sums in rank order, ((1 + 1e8) - 1e8) = 0 in float, where another order
 * ((-1e8 + 1e8) + 1, or 1 + (1e8 - 1e8)) gives 1: the same on every rank. */
static void rank_order(void)
{
    if (!need_devices("rank_order", 3))
        return;
    setup s;
    set_up(&s, devices);
    for (int d = 0; d < devices; d++) {
        float v = d == 0 ? 1.0f : d == 1 ? 1e8f : d == 2 ? -1e8f : 0.0f;
        EXPECT_OK(cudaSetDevice(d));
        EXPECT_OK(cudaMemcpy(s.a[d], &v, sizeof v, cudaMemcpyHostToDevice));
    }
    NCCL_OK(ncclGroupStart());
    for (int d = 0; d < devices; d++)
        NCCL_OK(ncclAllReduce(s.a[d], s.b[d], 1, ncclFloat, ncclSum, s.comms[d], 0));
    NCCL_OK(ncclGroupEnd());
    for (int d = 0; d < devices; d++) {
        float got = -1;
        EXPECT_OK(cudaSetDevice(d));
        EXPECT_OK(cudaMemcpy(&got, s.b[d], sizeof got, cudaMemcpyDeviceToHost));
        EXPECT(got == 0.0f, "device %d: %g, not ((1 + 1e8) - 1e8) = 0 in float", d, got);
    }
    tear_down(&s);
}

static void devlist(void)
{
    if (!need_devices("devlist", 2))
        return;
    ncclComm_t comms[2];
    int twice[2] = {1, 1};
    EXPECT_ERROR(ncclCommInitAll(comms, 2, twice), ncclInvalidUsage, "device 1 is in devlist twice");
    int reversed[2] = {1, 0};
    NCCL_OK(ncclCommInitAll(comms, 2, reversed));
    int device = -1;
    NCCL_OK(ncclCommCuDevice(comms[0], &device));
    EXPECT(device == 1, "rank 0 of devlist {1, 0} is on device %d", device);
    NCCL_OK(ncclCommDestroy(comms[0]));
    NCCL_OK(ncclCommDestroy(comms[1]));
}

static const struct {
    const char *name;
    void (*run)(void);
} parts[] = {
    {"basics", basics},
    {"arguments", arguments},
    {"group_error", group_error},
    {"init_alone", init_alone},
    {"init_group", init_group},
    {"duplicate_device", duplicate_device},
    {"one_thread", one_thread},
    {"mismatch_count", mismatch_count},
    {"mismatch_root", mismatch_root},
    {"mismatch_kind_threads", mismatch_kind_threads},
    {"send_without_recv", send_without_recv},
    {"send_without_recv_threads", send_without_recv_threads},
    {"p2p_mismatch", p2p_mismatch},
    {"wrong_device", wrong_device},
    {"rank_order", rank_order},
    {"devlist", devlist},
};

int main(int argc, char **argv)
{
    EXPECT_OK(cudaGetDeviceCount(&devices));
    if (devices > MAX_DEVICES)
        devices = MAX_DEVICES;
    bool found = false;
    for (const auto &p : parts)
        if (argc < 2 || !strcmp(argv[1], p.name)) {
            /* init_alone needs a program with no other thread: only asked for by name */
            if (argc < 2 && !strcmp(p.name, "init_alone"))
                continue;
            p.run();
            found = true;
        }
    if (!found) {
        fprintf(stderr, "nccl: no part '%s'\n", argv[1]);
        return 2;
    }
    return check_result();
}
