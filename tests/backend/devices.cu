/* devices.cu: the cpu backend's emulated devices (CUDAEMU_DEVICES=N).
 *
 *   devices work      N devices (the count the environment asks for, 2 when
 *                     unset): memory, streams and events of each, a kernel per
 *                     device, peer access, peer copies, a pool's access, per-device
 *                     synchronization, reset and memory budget; results asserted
 *   devices threads   two host threads, each on a device of its own
 *   devices CASE      a planted mistake: its line carries "expect CASE: REGEX".
 *                     foreign, foreign_struct: a kernel handed another device's
 *                     memory without peer access fails at its launch line, on
 *                     stderr and as a sticky error (as a GPU's illegal address);
 *                     set_device, peer_copy, stream: the call fails with CUDA's
 *                     code, and the message printed matches REGEX.
 * tests/check-backend.sh runs them with 2 and 3 devices. */
#include <pthread.h>

#include "check.h"

static int expected_devices(void)
{
    const char *n = getenv("CUDAEMU_DEVICES");
    return n && *n ? atoi(n) : 2; /* (set but empty: as unset) */
}

/* out[i] = base + i, for n elements */
static __global__ void fill(int *out, int base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = base + i;
}
/* the sum of n ints into *sum (one block, whatever memory `in` is) */
static __global__ void sum(const int *in, int n, long long *sum)
{
    __shared__ long long part[128];
    long long s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += in[i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int t = 1; t < blockDim.x; t++)
            s += part[t];
        *sum = s;
    }
}
struct slice {
    int *data;
    int n;
};
static __global__ void fill_slice(slice s, int base) { fill(s.data, base, s.n); }

static int device_of(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess)
        return -99;
    return a.device;
}
/* Whether the last error's message has `text` (after the call that failed). */
static bool message_has(cudaError_t err, const char *text)
{
    const char *m = cudaGetErrorString(err);
    bool has = strstr(m, text) != 0;
    if (!has)
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", m, text);
    return has;
}

static void work(void)
{
    const int per = 1000;
    int n = 0;
    EXPECT_OK(cudaGetDeviceCount(&n));
    EXPECT(n == expected_devices(), "%d devices, not %d", n, expected_devices());
    if (n < 1 || n > 8)
        return;
    int current = -1;
    EXPECT_OK(cudaGetDevice(&current));
    EXPECT(current == 0, "the first current device is %d", current);

    /* properties and attributes of each device */
    for (int d = 0; d < n; d++) {
        cudaDeviceProp p;
        int sms = 0;
        char bus[32];
        EXPECT_OK(cudaGetDeviceProperties(&p, d));
        EXPECT_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
        EXPECT(p.multiProcessorCount == 8 && sms == 8 && p.pciBusID == d, "device %d: %d SMs, bus %d", d, sms,
               p.pciBusID);
        EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
        int back = -1;
        EXPECT_OK(cudaDeviceGetByPCIBusId(&back, bus));
        EXPECT(back == d, "device %d's PCI address %s gives device %d", d, bus, back);
    }
    cudaDeviceProp p;
    EXPECT(cudaGetDeviceProperties(&p, n) == cudaErrorInvalidDevice, "properties of device %d", n);
    EXPECT(cudaDeviceGetAttribute(&current, cudaDevAttrWarpSize, -1) == cudaErrorInvalidDevice, "attribute of -1");
    cudaGetLastError();

    /* peers: every two devices, a device not its own */
    for (int d = 0; d < n; d++)
        for (int q = 0; q < n; q++) {
            int can = -1;
            EXPECT_OK(cudaDeviceCanAccessPeer(&can, d, q));
            EXPECT(can == (d != q), "device %d can access %d: %d", d, q, can);
            int access = -1, atomics = -1, rank = -1;
            cudaError_t same = cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, d, q);
            if (d == q) {
                EXPECT(same == cudaErrorInvalidDevice, "device %d's link to itself: %s", d, cudaGetErrorName(same));
                cudaGetLastError();
                continue;
            }
            EXPECT_OK(same);
            EXPECT_OK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, d, q));
            EXPECT_OK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, d, q));
            EXPECT(access == 1 && atomics == 1 && rank == 0, "link %d to %d: access %d, atomics %d, rank %d", d, q,
                   access, atomics, rank);
        }

    /* a slice, a stream and an event per device; a kernel each, all issued before any wait */
    int *slices[8];
    long long *sums[8];
    cudaStream_t streams[8];
    cudaEvent_t done[8];
    for (int d = 0; d < n; d++) {
        EXPECT_OK(cudaSetDevice(d));
        EXPECT_OK(cudaMalloc(&slices[d], per * sizeof(int)));
        EXPECT_OK(cudaMalloc(&sums[d], sizeof(long long)));
        EXPECT_OK(cudaStreamCreate(&streams[d]));
        EXPECT_OK(cudaEventCreate(&done[d]));
        fill<<<(per + 127) / 128, 128, 0, streams[d]>>>(slices[d], d * per, per);
        EXPECT_OK(cudaGetLastError());
        sum<<<1, 128, 0, streams[d]>>>(slices[d], per, sums[d]);
        EXPECT_OK(cudaGetLastError());
        EXPECT_OK(cudaEventRecord(done[d], streams[d]));
        EXPECT(device_of(slices[d]) == d, "slice %d belongs to device %d", d, device_of(slices[d]));
        size_t free_bytes = 0, total = 0;
        EXPECT_OK(cudaMemGetInfo(&free_bytes, &total));
        EXPECT(total - free_bytes == per * sizeof(int) + sizeof(long long), "device %d uses %zu bytes", d,
               total - free_bytes);
    }
    EXPECT(cudaemuBytesInUse() == (long long)(n * (per * sizeof(int) + sizeof(long long))), "bytes in use: %lld",
           cudaemuBytesInUse());

    /* waiting for one device completes none of another's events */
    if (n > 1) {
        cudaEvent_t start;
        float ms;
        EXPECT_OK(cudaSetDevice(1));
        EXPECT_OK(cudaEventCreate(&start));
        EXPECT_OK(cudaEventRecord(start, streams[1]));
        EXPECT_OK(cudaEventRecord(done[1], streams[1]));
        EXPECT_OK(cudaSetDevice(0));
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(cudaEventElapsedTime(&ms, start, done[1]) == cudaErrorNotReady, "device 1's events complete after "
               "device 0's synchronization");
        EXPECT(cudaEventElapsedTime(&ms, done[0], done[1]) == cudaErrorInvalidResourceHandle, "time between devices");
        cudaGetLastError();
        EXPECT_OK(cudaStreamSynchronize(streams[1])); /* (a stream of another device: allowed) */
        EXPECT_OK(cudaEventElapsedTime(&ms, start, done[1]));
        EXPECT(cudaEventRecord(start, streams[0]) == cudaErrorInvalidResourceHandle, "an event of device 1 recorded "
               "into a stream of device 0");
        EXPECT(message_has(cudaGetLastError(), "the event belongs to device 1 and the stream to device 0"), "message");
        EXPECT_OK(cudaEventDestroy(start));
    }

    /* each device's partial on device 0: peer copies, then one kernel there */
    EXPECT_OK(cudaSetDevice(0));
    long long *gathered;
    EXPECT_OK(cudaMalloc(&gathered, n * sizeof(long long)));
    for (int d = 1; d < n; d++) {
        EXPECT_OK(cudaDeviceEnablePeerAccess(d, 0));
        EXPECT(cudaDeviceEnablePeerAccess(d, 0) == cudaErrorPeerAccessAlreadyEnabled, "peer access enabled twice");
        cudaGetLastError();
    }
    EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice, "peer access to itself");
    cudaGetLastError();
    for (int d = 0; d < n; d++)
        EXPECT_OK(cudaMemcpyPeerAsync(gathered + d, 0, sums[d], d, sizeof(long long), streams[0]));
    long long *total_dev, total = 0, partials[8];
    EXPECT_OK(cudaMalloc(&total_dev, sizeof(long long)));
    EXPECT_OK(cudaMemcpy(partials, gathered, n * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int d = 0; d < n; d++) {
        long long first = (long long)d * per, want = per * first + (long long)per * (per - 1) / 2;
        EXPECT(partials[d] == want, "device %d's partial %lld, not %lld", d, partials[d], want);
    }
    /* with peer access, a kernel on device 0 reads another device's memory itself */
    int last = n - 1;
    sum<<<1, 128>>>(slices[last], per, total_dev);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaMemcpy(&total, total_dev, sizeof total, cudaMemcpyDeviceToHost));
    EXPECT(total == partials[last], "device 0 summed device %d's slice to %lld, not %lld", last, total, partials[last]);

    /* copies between devices with cudaMemcpy (unified addressing), and on a stream of another device */
    if (n > 1) {
        EXPECT_OK(cudaMemcpy(slices[0], slices[1], per * sizeof(int), cudaMemcpyDeviceToDevice));
        EXPECT_OK(cudaMemcpyAsync(slices[1], slices[0], 10 * sizeof(int), cudaMemcpyDefault, streams[1]));
        int h[2];
        EXPECT_OK(cudaMemcpy(h, slices[0] + per - 2, sizeof h, cudaMemcpyDeviceToHost));
        EXPECT(h[0] == 2 * per - 2 && h[1] == 2 * per - 1, "copied from device 1: %d %d", h[0], h[1]);
        /* peer access disabled: a second time is refused */
        EXPECT_OK(cudaDeviceDisablePeerAccess(1));
        EXPECT(cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled, "disabled twice");
        cudaGetLastError();
        /* stream-ordered memory comes from the pool of the stream's device */
        int *pooled;
        cudaMemPool_t pool;
        EXPECT_OK(cudaMallocAsync(&pooled, 256, streams[1]));
        EXPECT(device_of(pooled) == 1, "cudaMallocAsync on device 1's stream gave memory of device %d",
               device_of(pooled));
        EXPECT_OK(cudaDeviceGetDefaultMemPool(&pool, 1));
        unsigned long long used = 0;
        EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
        EXPECT(used == per * sizeof(int) + sizeof(long long) + 256, "device 1's pool uses %llu bytes", used);
        /* device 0 (its peer access disabled above) reaches that memory once the pool lets it */
        cudaMemLocation zero = {cudaMemLocationTypeDevice, 0}, one = {cudaMemLocationTypeDevice, 1};
        cudaMemAccessFlags access;
        EXPECT_OK(cudaMemPoolGetAccess(&access, pool, &zero));
        EXPECT(access == cudaMemAccessFlagsProtNone, "device 0 reaches device 1's pool before it is let");
        EXPECT_OK(cudaMemPoolGetAccess(&access, pool, &one));
        EXPECT(access == cudaMemAccessFlagsProtReadWrite, "device 1 does not reach its own pool");
        cudaMemAccessDesc let = {zero, cudaMemAccessFlagsProtReadWrite};
        EXPECT_OK(cudaMemPoolSetAccess(pool, &let, 1));
        EXPECT_OK(cudaMemPoolGetAccess(&access, pool, &zero));
        EXPECT(access == cudaMemAccessFlagsProtReadWrite, "device 0 not let reach device 1's pool");
        cudaMemAccessDesc own = {one, cudaMemAccessFlagsProtNone};
        EXPECT(cudaMemPoolSetAccess(pool, &own, 1) == cudaErrorInvalidDevice, "device 1 shut out of its own pool");
        cudaGetLastError();
        EXPECT_OK(cudaStreamSynchronize(streams[1]));
        fill<<<1, 64>>>(pooled, 7, 64); /* (device 0 current) */
        EXPECT_OK(cudaGetLastError());
        int back[64];
        EXPECT_OK(cudaMemcpy(back, pooled, sizeof back, cudaMemcpyDeviceToHost));
        EXPECT(back[0] == 7 && back[63] == 70, "device 0 wrote %d .. %d into device 1's pooled memory", back[0], back[63]);
        EXPECT_OK(cudaFreeAsync(pooled, streams[1]));
        /* resetting device 1 frees its memory only */
        long long before = cudaemuBytesInUse();
        EXPECT_OK(cudaSetDevice(1));
        EXPECT_OK(cudaDeviceReset());
        EXPECT(cudaemuBytesInUse() == before - (long long)(per * sizeof(int) + sizeof(long long)),
               "bytes in use after resetting device 1: %lld (before %lld)", cudaemuBytesInUse(), before);
        EXPECT(device_of(slices[1]) == -2 && device_of(slices[0]) == 0, "memory after device 1's reset");
        slices[1] = 0;
        sums[1] = 0;
        EXPECT_OK(cudaSetDevice(0));
    }
    for (int d = 0; d < n; d++) {
        EXPECT_OK(cudaSetDevice(d));
        EXPECT_OK(cudaFree(slices[d]));
        EXPECT_OK(cudaFree(sums[d]));
        EXPECT_OK(cudaStreamDestroy(streams[d]));
        EXPECT_OK(cudaEventDestroy(done[d]));
    }
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaFree(gathered));
    EXPECT_OK(cudaFree(total_dev));
    EXPECT(cudaemuBytesInUse() == 0, "bytes in use at the end: %lld", cudaemuBytesInUse());
}

/* ---- two host threads, a device each ---- */
struct thread_work {
    int device, seen, owner, value;
};
/* Both threads have set their device before either reads it back or allocates. */
static pthread_barrier_t both_set;
static void *on_device(void *arg)
{
    thread_work *w = (thread_work *)arg;
    int *d;
    cudaError_t set = cudaSetDevice(w->device);
    pthread_barrier_wait(&both_set);
    if (set != cudaSuccess || cudaGetDevice(&w->seen) != cudaSuccess || cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess)
        return 0;
    w->owner = device_of(d);
    fill<<<1, 64>>>(d, 100 * w->device, 64);
    if (cudaMemcpy(&w->value, d + 63, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
        w->value = -1;
    cudaFree(d);
    return 0;
}
static void threads(void)
{
    thread_work w[2] = {{1, -1, -1, -1}, {0, -1, -1, -1}};
    pthread_t t[2];
    pthread_barrier_init(&both_set, 0, 2);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, on_device, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    for (int i = 0; i < 2; i++)
        EXPECT(w[i].seen == w[i].device && w[i].owner == w[i].device && w[i].value == 100 * w[i].device + 63,
               "thread %d on device %d: current %d, memory of %d, value %d", i, w[i].device, w[i].seen, w[i].owner,
               w[i].value);
    int mine = -1;
    EXPECT_OK(cudaGetDevice(&mine));
    EXPECT(mine == 0, "the main thread's device became %d", mine);
}

/* ---- planted mistakes ---- */
static void report(cudaError_t err) { printf("code: %s\nmessage: %s\n", cudaGetErrorName(err), cudaGetErrorString(err)); }

static void foreign(bool in_struct)
{
    int *mine, *theirs;
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMalloc(&theirs, 64 * sizeof(int)));
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaMalloc(&mine, 64 * sizeof(int)));
    slice s = {theirs, 64};
    if (in_struct)
        fill_slice<<<1, 64>>>(s, 0); /* expect foreign_struct: a kernel on device 0 is handed memory of device 1 \(argument 1, a pointer at byte 0 of it: 0x[0-9a-f]+\) without peer access; launch it with device 1 current, or first call cudaDeviceEnablePeerAccess\(1, 0\) with device 0 current */
    else
        fill<<<1, 64>>>(theirs, 0, 64); /* expect foreign: a kernel on device 0 is handed memory of device 1 \(argument 1: 0x[0-9a-f]+\) without peer access */
    cudaError_t err = cudaGetLastError();
    EXPECT(err == cudaErrorIllegalAddress, "the launch gave %s", cudaGetErrorName(err));
    EXPECT(cudaMemcpy(mine, mine, 4, cudaMemcpyDeviceToDevice) == cudaErrorIllegalAddress, "the error is not sticky");
    report(err);
}

static void set_device(void)
{
    int n = 0;
    cudaGetDeviceCount(&n);
    cudaError_t err = cudaSetDevice(n); /* expect set_device: cudaSetDevice: there is no device [0-9]+; the cpu backend emulates [0-9]+ devices, 0 (and|to) [0-9]+ \(CUDAEMU_DEVICES sets how many\) */
    EXPECT(err == cudaErrorInvalidDevice, "cudaSetDevice(%d) gave %s", n, cudaGetErrorName(err));
    int d = -1;
    EXPECT(cudaGetDevice(&d) == cudaSuccess && d == 0, "the device after a refused cudaSetDevice: %d", d);
    report(err);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDevice && cudaGetLastError() == cudaSuccess, "not sticky");
}

static void peer_copy(void)
{
    int *zero, *one;
    EXPECT_OK(cudaMalloc(&zero, 64));
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMalloc(&one, 64));
    /* the source named as device 0's while it is device 1's */
    cudaError_t err = cudaMemcpyPeer(zero, 0, one, 0, 64); /* expect peer_copy: cudaMemcpyPeer: the source 0x[0-9a-f]+ is memory of device 1, but srcDevice says device 0 */
    EXPECT(err == cudaErrorInvalidValue, "cudaMemcpyPeer gave %s", cudaGetErrorName(err));
    report(err);
    EXPECT_OK(cudaMemcpyPeer(zero, 0, one, 1, 64));
}

static void stream(void)
{
    cudaStream_t s;
    int *d;
    EXPECT_OK(cudaMalloc(&d, 64 * sizeof(int)));
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaSetDevice(1));
    fill<<<1, 64, 0, s>>>(d, 0, 64); /* expect stream: devices.cu:[0-9]+: launch of fill into a stream of device 0 while device 1 is current */
    cudaError_t err = cudaGetLastError();
    EXPECT(err == cudaErrorInvalidResourceHandle, "the launch gave %s", cudaGetErrorName(err));
    report(err);
    EXPECT_OK(cudaSetDevice(0));
    fill<<<1, 64, 0, s>>>(d, 0, 64);
    EXPECT_OK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "work";
    if (!strcmp(what, "work"))
        work();
    else if (!strcmp(what, "threads"))
        threads();
    else if (!strcmp(what, "foreign") || !strcmp(what, "foreign_struct"))
        foreign(!strcmp(what, "foreign_struct"));
    else if (!strcmp(what, "set_device"))
        set_device();
    else if (!strcmp(what, "peer_copy"))
        peer_copy();
    else if (!strcmp(what, "stream"))
        stream();
    else {
        fprintf(stderr, "devices: no case %s\n", what);
        return 2;
    }
    return check_result();
}
