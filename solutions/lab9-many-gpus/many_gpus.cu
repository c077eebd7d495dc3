/* many_gpus.cu: lab 9, one dot product over several GPUs.
 *
 * Read lab9.h first.  The kernels are given (dot_kernel.h): everything here
 * runs on the host and tells the devices what to do:
 *   TODO 1  split the n elements in one slice per device;
 *   TODO 2  start every device on its slice, then collect the partials;
 *   TODO 3  combine the partials on device 0 with peer copies;
 *   TODO 4  combine them on every device with NCCL's all-reduce;
 *   TODO 5  (going further) an all-reduce of your own: the ring;
 *   TODO 6  your predicate on the ring's states.
 * CUDA remembers a current device per host thread: cudaSetDevice(d) before
 * any call that allocates, copies or launches for device d.
 */
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "dot_kernel.h"
#include "lab9.h"

/* NCCL is a library of its own: where it is missing (make doctor says how
 * to install it) the NCCL steps stop with one message and the rest works.
 * The build says whether it is there (LAB9_NCCL, labs/lab9-many-gpus/lab.mk). */
#if LAB9_NCCL
#include <nccl.h>
#define LAB9_HAVE_NCCL 1
/* CHECK for NCCL's calls, which return an ncclResult_t. */
#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)
static void nccl_check(ncclResult_t result, const char *what, const char *file, int line)
{
    if (result != ncclSuccess)
        kit_fail(file, line, "%s failed: %s", what, ncclGetErrorString(result));
}
#else
#define LAB9_HAVE_NCCL 0
static void no_nccl(const char *what)
{
    kit_fail(__FILE__, __LINE__, "%s needs NCCL, which this machine lacks (the build found no nccl.h and libnccl): `make doctor` "
             "says how to install it; the other steps work without it", what);
}
#endif

/* The devices the lab uses: min(cudaGetDeviceCount, LAB9_MAX_DEVICES). */
static int device_count(void)
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    return count < LAB9_MAX_DEVICES ? count : LAB9_MAX_DEVICES;
}

/* i mod m, for i of any sign: the ring's device and chunk numbers. */
static int mod(int i, int m) { return ((i % m) + m) % m; }

/* ---- TODO 1: the split ---------------------------------------------------------- */

void split_slices(int n, int devices, int *first)
{
    /* TODO 1: first[d] for d = 0 .. devices (lab9.h): n / devices elements
     * each, and one more for each of the first n % devices slices. */
    int base = n / devices, extra = n % devices;
    first[0] = 0;
    for (int d = 0; d < devices; d++)
        first[d + 1] = first[d] + base + (d < extra ? 1 : 0);
    /* END TODO 1 */
}

/* ---- TODO 2: one partial per device --------------------------------------------- */

/* What each device holds: its slice of x and y, its partial, its stream. */
typedef struct {
    int devices;
    int first[LAB9_MAX_DEVICES + 1];
    cudaStream_t stream[LAB9_MAX_DEVICES];
    float *x[LAB9_MAX_DEVICES], *y[LAB9_MAX_DEVICES];
    double *partial[LAB9_MAX_DEVICES];
} slices;

/* Starts every device on its slice and returns WITHOUT waiting for any:
 * when it returns, s->partial[d] (device d's memory) will hold device d's
 * partial once device d's stream has finished. */
static void start_partials(const float *x, const float *y, int n, slices *s)
{
    s->devices = device_count();
    split_slices(n, s->devices, s->first);
    /* TODO 2: for each device d: make it current, create its stream, allocate
     * its slice of x and y (at least one element each, for an empty slice)
     * on its stream (cudaMallocAsync) and its partial (cudaMalloc), copy the
     * slice in and set the partial to 0 (cudaMemcpyAsync, cudaMemsetAsync on
     * its stream), and launch the dot kernel on its stream (launch_dot).
     * Nothing here may wait for a device.  (Why cudaMallocAsync: once peer
     * access is on, a cudaMalloc is mapped into every peer as it is made, a
     * host wait of milliseconds per large array that keeps the next device
     * from starting; memory from a stream's pool is not.) */
    for (int d = 0; d < s->devices; d++) {
        int len = s->first[d + 1] - s->first[d];
        size_t bytes = (size_t)(len > 0 ? len : 1) * sizeof(float);
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreate(&s->stream[d]));
        CHECK(cudaMallocAsync(&s->x[d], bytes, s->stream[d]));
        CHECK(cudaMallocAsync(&s->y[d], bytes, s->stream[d]));
        CHECK(cudaMalloc(&s->partial[d], sizeof(double)));
        CHECK(cudaMemcpyAsync(s->x[d], x + s->first[d], (size_t)len * sizeof(float), cudaMemcpyHostToDevice,
                              s->stream[d]));
        CHECK(cudaMemcpyAsync(s->y[d], y + s->first[d], (size_t)len * sizeof(float), cudaMemcpyHostToDevice,
                              s->stream[d]));
        CHECK(cudaMemsetAsync(s->partial[d], 0, sizeof(double), s->stream[d]));
        launch_dot(s->x[d], s->y[d], len, s->partial[d], s->stream[d]);
    }
    /* END TODO 2 */
}

/* Frees what start_partials allocated, device by device (cudaFree takes
 * memory from cudaMallocAsync too: it waits for the device first). */
static void free_slices(slices *s)
{
    for (int d = 0; d < s->devices; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(s->x[d]));
        CHECK(cudaFree(s->y[d]));
        CHECK(cudaFree(s->partial[d]));
        if (s->stream[d]) /* (none where TODO 2 made none) */
            CHECK(cudaStreamDestroy(s->stream[d]));
    }
    CHECK(cudaSetDevice(0));
}

/* Each device's pool of stream-ordered memory (cudaMallocAsync) keeps
 * what is freed for the next call, as a long-running program's would,
 * instead of giving it back to the system at every wait.  Given. */
static void keep_pool_memory(int devices)
{
    unsigned long long keep_all = ~0ULL;
    for (int d = 0; d < devices; d++) {
        cudaMemPool_t pool;
        CHECK(cudaDeviceGetDefaultMemPool(&pool, d));
        CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
    }
}

int dot_partials(const float *x, const float *y, int n, double *partials)
{
    slices s;
    memset(&s, 0, sizeof s);
    keep_pool_memory(device_count());
    lab9_timer_begin(device_count()); /* the devices' work alone is timed (lab9.h) */
    start_partials(x, y, n, &s);
    lab9_timer_end(s.devices);
    /* Only now wait: each device's partial back (a copy on its stream waits for it). */
    for (int d = 0; d < s.devices; d++) {
        CHECK(cudaSetDevice(d));
        if (s.partial[d])
            CHECK(cudaMemcpyAsync(&partials[d], s.partial[d], sizeof(double), cudaMemcpyDeviceToHost, s.stream[d]));
        else
            partials[d] = 0.0; /* (nothing was started: TODO 2 is not done) */
    }
    free_slices(&s);
    return s.devices;
}

/* ---- TODO 3: combining with peer copies ------------------------------------------ */

double dot_peer(const float *x, const float *y, int n)
{
    slices s;
    memset(&s, 0, sizeof s);
    start_partials(x, y, n, &s);
    double total = 0.0;
    /* TODO 3: on device 0, an array of one double per device; for each
     * device d: its partial goes into element d, from device d's memory to
     * device 0's (cudaMemcpyPeerAsync on device 0's stream, once device d's
     * stream is done and peer access is on: cudaDeviceCanAccessPeer, then
     * cudaDeviceEnablePeerAccess, once per process (a second call fails with
     * cudaErrorPeerAccessAlreadyEnabled); through a host double where device 0
     * cannot reach device d).  Then launch_add_doubles on device 0's stream, and copy
     * the total back. */
    double *gathered = NULL, *d_total = NULL;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&gathered, s.devices * sizeof(double)));
    CHECK(cudaMalloc(&d_total, sizeof(double)));
    for (int d = 0; d < s.devices; d++) {
        int reachable = d == 0;
        if (d > 0)
            CHECK(cudaDeviceCanAccessPeer(&reachable, 0, d));
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamSynchronize(s.stream[d]));
        CHECK(cudaSetDevice(0));
        if (reachable) {
            static int peer_on[LAB9_MAX_DEVICES]; /* device 0's access to device d: turned on once */
            if (d > 0 && !peer_on[d]) {
                CHECK(cudaDeviceEnablePeerAccess(d, 0));
                peer_on[d] = 1;
            }
            CHECK(cudaMemcpyPeerAsync(gathered + d, 0, s.partial[d], d, sizeof(double), s.stream[0]));
        } else {
            double partial;
            CHECK(cudaSetDevice(d));
            CHECK(cudaMemcpy(&partial, s.partial[d], sizeof(double), cudaMemcpyDeviceToHost));
            CHECK(cudaSetDevice(0));
            CHECK(cudaMemcpyAsync(gathered + d, &partial, sizeof(double), cudaMemcpyHostToDevice, s.stream[0]));
            CHECK(cudaStreamSynchronize(s.stream[0]));
        }
    }
    launch_add_doubles(gathered, s.devices, d_total, s.stream[0]);
    CHECK(cudaMemcpyAsync(&total, d_total, sizeof(double), cudaMemcpyDeviceToHost, s.stream[0]));
    CHECK(cudaFree(gathered));
    CHECK(cudaFree(d_total));
    /* END TODO 3 */
    free_slices(&s);
    return total;
}

/* ---- TODO 4: combining with NCCL ---------------------------------------------------- */

#if LAB9_HAVE_NCCL
/* A communicator over devices 0 .. devices-1, one per device. */
static void make_comms(int devices, ncclComm_t *comms)
{
    int list[LAB9_MAX_DEVICES];
    for (int d = 0; d < devices; d++)
        list[d] = d;
    NCCL_CHECK(ncclCommInitAll(comms, devices, list));
}

static void free_comms(int devices, ncclComm_t *comms)
{
    for (int d = 0; d < devices; d++)
        NCCL_CHECK(ncclCommDestroy(comms[d]));
}

int dot_nccl(const float *x, const float *y, int n, double *totals)
{
    slices s;
    memset(&s, 0, sizeof s);
    start_partials(x, y, n, &s);
    ncclComm_t comms[LAB9_MAX_DEVICES];
    make_comms(s.devices, comms);
    /* TODO 4: between ncclGroupStart and ncclGroupEnd, for each device d:
     * ncclAllReduce of its one partial, in place (send and receive buffer
     * the same), ncclSum of ncclDouble, on comms[d] and its stream.  Then
     * copy each device's result back into totals[d]. */
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < s.devices; d++)
        NCCL_CHECK(ncclAllReduce(s.partial[d], s.partial[d], 1, ncclDouble, ncclSum, comms[d], s.stream[d]));
    NCCL_CHECK(ncclGroupEnd());
    for (int d = 0; d < s.devices; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpyAsync(&totals[d], s.partial[d], sizeof(double), cudaMemcpyDeviceToHost, s.stream[d]));
    }
    /* END TODO 4 */
    free_comms(s.devices, comms);
    free_slices(&s);
    return s.devices;
}
#else
int dot_nccl(const float *x, const float *y, int n, double *totals)
{
    (void)x, (void)y, (void)n, (void)totals;
    no_nccl("dot_nccl (TODO 4)");
    return 0;
}
#endif

/* ---- TODO 5, going further: the ring --------------------------------------------------- */

#if LAB9_HAVE_NCCL
/* Device r's buffer, the scratch buffer it receives a chunk into, its stream. */
typedef struct {
    int devices, count;
    int first[LAB9_MAX_DEVICES + 1]; /* the chunks */
    ncclComm_t comms[LAB9_MAX_DEVICES];
    cudaStream_t stream[LAB9_MAX_DEVICES];
    float *buffer[LAB9_MAX_DEVICES], *scratch[LAB9_MAX_DEVICES];
} ring;

static int chunk_size(const ring *g, int c) { return g->first[c + 1] - g->first[c]; }

/* NCCL connects two devices at their first transfer, which costs some
 * milliseconds: every device sends a chunk's worth to the next once, into
 * the next one's scratch buffer (which the ring overwrites before it reads
 * it), before the ring's steps are timed.  Given. */
static void first_contact(ring *g)
{
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < g->devices; r++) {
        NCCL_CHECK(ncclSend(g->buffer[r], chunk_size(g, 0), ncclFloat, mod(r + 1, g->devices), g->comms[r],
                            g->stream[r]));
        NCCL_CHECK(ncclRecv(g->scratch[r], chunk_size(g, 0), ncclFloat, mod(r - 1, g->devices), g->comms[r],
                            g->stream[r]));
    }
    NCCL_CHECK(ncclGroupEnd());
}

/* Step `step` (1 .. 2(D-1)) of the ring, as lab9.h defines it. */
static void ring_step(ring *g, int step)
{
    /* TODO 5: which chunk device r sends to device r + 1 (and so which one
     * it receives from r - 1: the one r - 1 sends), then ONE group with
     * every device's ncclSend and ncclRecv.  In the reduce-scatter, receive
     * into the scratch buffer and then add it into the chunk
     * (launch_add_floats on the device's stream); in the all-gather receive
     * straight into the chunk. */
    int devices = g->devices;
    int reduce = step <= devices - 1;
    int shift = reduce ? step - 1 : step - (devices - 1) - 2; /* chunk sent = r - shift */
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < devices; r++) {
        int send = mod(r - shift, devices), recv = mod(r - 1 - shift, devices);
        float *into = reduce ? g->scratch[r] : g->buffer[r] + g->first[recv];
        NCCL_CHECK(ncclSend(g->buffer[r] + g->first[send], chunk_size(g, send), ncclFloat, mod(r + 1, devices),
                            g->comms[r], g->stream[r]));
        NCCL_CHECK(ncclRecv(into, chunk_size(g, recv), ncclFloat, mod(r - 1, devices), g->comms[r], g->stream[r]));
    }
    NCCL_CHECK(ncclGroupEnd());
    if (reduce)
        for (int r = 0; r < devices; r++) {
            int recv = mod(r - 1 - shift, devices);
            CHECK(cudaSetDevice(r));
            launch_add_floats(g->buffer[r] + g->first[recv], g->scratch[r], chunk_size(g, recv), g->stream[r]);
        }
    /* END TODO 5 */
}

void ring_allreduce(float *data, int count, int devices, int steps)
{
    ring g;
    memset(&g, 0, sizeof g);
    g.devices = devices;
    g.count = count;
    split_slices(count, devices, g.first);
    size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(float);
    for (int r = 0; r < devices; r++) {
        CHECK(cudaSetDevice(r));
        CHECK(cudaStreamCreate(&g.stream[r]));
        CHECK(cudaMalloc(&g.buffer[r], bytes));
        CHECK(cudaMalloc(&g.scratch[r], bytes));
        CHECK(cudaMemcpyAsync(g.buffer[r], data + (size_t)r * count, (size_t)count * sizeof(float),
                              cudaMemcpyHostToDevice, g.stream[r]));
    }
    make_comms(devices, g.comms);
    first_contact(&g);
    lab9_timer_begin(devices); /* the steps alone are timed (lab9.h) */
    for (int step = 1; step <= steps; step++)
        ring_step(&g, step);
    lab9_timer_end(devices);
    for (int r = 0; r < devices; r++) {
        CHECK(cudaSetDevice(r));
        CHECK(cudaMemcpyAsync(data + (size_t)r * count, g.buffer[r], (size_t)count * sizeof(float),
                              cudaMemcpyDeviceToHost, g.stream[r]));
    }
    free_comms(devices, g.comms);
    for (int r = 0; r < devices; r++) {
        CHECK(cudaSetDevice(r));
        CHECK(cudaFree(g.buffer[r]));
        CHECK(cudaFree(g.scratch[r]));
        CHECK(cudaStreamDestroy(g.stream[r]));
    }
    CHECK(cudaSetDevice(0));
}
#else
void ring_allreduce(float *data, int count, int devices, int steps)
{
    (void)data, (void)count, (void)devices, (void)steps;
    no_nccl("ring_allreduce (TODO 5)");
}
#endif

/* ---- TODO 6: your predicate ------------------------------------------------------------- */

int ring_state_holds(const float *original, const float *state, int count, int devices, int step)
{
    /* TODO 6: for every device r and chunk c, work out from lab9.h which
     * devices' chunk c device r must hold the sum of after `step` steps (one
     * device, itself, when the chunk is as it started), add up original's
     * chunk c over those devices, and compare every element. */
    int first[LAB9_MAX_DEVICES + 1];
    split_slices(count, devices, first);
    int reduce_steps = step < devices - 1 ? step : devices - 1; /* steps of the reduce-scatter done */
    int gather_steps = step - reduce_steps;                      /* steps of the all-gather done */
    for (int r = 0; r < devices; r++)
        for (int c = 0; c < devices; c++) {
            /* the reduce-scatter: c = r - j holds devices r - j .. r once j <= its steps */
            int j = mod(r - c, devices);
            int summed = j <= reduce_steps ? j + 1 : 1;
            /* the all-gather: c = r + 1 - j holds every device's once j <= its steps */
            if (gather_steps > 0 && mod(r + 1 - c, devices) <= gather_steps)
                summed = devices;
            for (int i = first[c]; i < first[c + 1]; i++) {
                float sum = 0.0f;
                for (int k = 0; k < summed; k++)
                    sum += original[(size_t)mod(r - k, devices) * count + i];
                if (state[(size_t)r * count + i] != sum)
                    return 0;
            }
        }
    return 1;
    /* END TODO 6 */
}
