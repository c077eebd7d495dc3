/* exposure.cu: student bugs the backend once hid, each now shown, with its
 * result checked: a shared memory slot no thread wrote (its fill differs
 * between schedule orders, so the result does too), a kernel that never ends
 * (the watchdog stops it and says where its threads are), and a write far
 * past a device array (reported, the runtime's bookkeeping intact).
 * `exposure` runs all of them, `exposure PART` one: poison, watchdog or
 * far_write. */
#include <math.h>
#include <time.h>

#include "check.h"

/* ---- shared memory poison: 32 of 64 slots written, all 64 read ---- */
struct poison_result {
    float max, sum;
    long long isum;
    unsigned bits, dynamic_bits;
};
static __global__ void read_unwritten(poison_result *out)
{
    __shared__ float values[64];
    __shared__ int counts[64];
    extern __shared__ unsigned dynamic[];
    if (threadIdx.x < 32) {
        values[threadIdx.x] = (float)threadIdx.x;
        counts[threadIdx.x] = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float m = 0, s = 0;
        long long n = 0;
        for (int i = 0; i < 64; i++) {
            m = fmaxf(m, values[i]);
            s += values[i];
            n += counts[i];
        }
        unsigned bits;
        memcpy(&bits, &values[63], sizeof bits);
        out->max = m;
        out->sum = s;
        out->isum = n;
        out->bits = bits;
        out->dynamic_bits = dynamic[5];
    }
}

static poison_result poison_in(const char *order, poison_result *d)
{
    poison_result h;
    memset(&h, 0, sizeof h);
    cudaemuSetSchedule(order);
    read_unwritten<<<1, 64, 64 * sizeof(unsigned)>>>(d);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

/* ---- the watchdog ---- */
static __global__ void spin_forever(int *flag)
{
    while (*(volatile int *)flag == 0) {} /* nobody sets it */
}
/* Only thread 2 of block 1 spins: block 0's threads and threads 0 and 1 of
 * block 1 end without ever calling the runtime, so their records are never
 * written (scheduler.cpp's worker_main), and the census must still count
 * them as exited, and thread 3 as not started, in records block 0 used. */
static __global__ void spin_late(int *flag)
{
    if (blockIdx.x == 1 && threadIdx.x == 2)
        while (*(volatile int *)flag == 0) {}
}

enum { BARRIER_LINE = __LINE__ + 5 };
static __global__ void wait_for_the_others(int *flag)
{
    if (threadIdx.x == blockDim.x - 1)
        while (*(volatile int *)flag == 0) {} /* the others set it only after the barrier */
    __syncthreads(); /* the barrier the others wait at */
    if (threadIdx.x == 0)
        *flag = 1;
}

/* Thread 3 spins after the first barrier: 0-2 wait at the second, and 4-7,
 * released from the first, have not run since (ready: "running"). */
enum { SECOND_BARRIER_LINE = __LINE__ + 6 };
static __global__ void spin_between_barriers(int *flag)
{
    __syncthreads();
    if (threadIdx.x == 3)
        while (*(volatile int *)flag == 0) {}
    __syncthreads();
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Checks that the last launch, which started at `start`, timed out after
 * about a second with a message holding each of `needles`. */
static void expect_timeout(double start, int launch_line, const char *const *needles, int n)
{
    double took = seconds() - start;
    cudaError_t err = cudaGetLastError();
    const char *message = cudaGetErrorString(err);
    printf("message: %s\n", message);
    EXPECT(err == cudaErrorLaunchTimeout, "the endless launch gave %s, want cudaErrorLaunchTimeout",
           cudaGetErrorName(err));
    EXPECT(took >= 0.9 && took < 10, "the watchdog of 1 s stopped the launch after %.1f s", took);
    char at[64];
    snprintf(at, sizeof at, "exposure.cu:%d", launch_line);
    EXPECT(strstr(message, at), "the message does not name the launch's line %s: %s", at, message);
    for (int i = 0; i < n; i++)
        EXPECT(strstr(message, needles[i]), "the message lacks \"%s\": %s", needles[i], message);
    EXPECT(cudaDeviceSynchronize() == cudaErrorLaunchTimeout, "the error is not sticky");
    EXPECT(cudaDeviceReset() == cudaSuccess && cudaGetLastError() == cudaSuccess, "cudaDeviceReset clears it");
}

/* ---- a write far past a small device array ---- */
static __global__ void write_far(int *a, int n, int past)
{
    if (threadIdx.x == 0)
        a[n + past] = 42; /* `past` ints after the end */
}
enum { WRITE_FAR_LINE = __LINE__ - 2 }; /* the write's line, which the report names */

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
#define PART(name) (!strcmp(part, "all") || !strcmp(part, name))
    if (PART("poison")) {
        /* NaN under fwd hides from fmaxf, and -1 is small; the other orders'
         * fills are not, so an unwritten slot changes the result */
        poison_result *d;
        EXPECT_OK(cudaMalloc(&d, sizeof(poison_result)));
        poison_result fwd = poison_in("fwd", d), rev = poison_in("rev", d);
        poison_result r2 = poison_in("rand:2", d), r3 = poison_in("rand:3", d);
        EXPECT(fwd.bits == 0xFFFFFFFFu && fwd.dynamic_bits == 0xFFFFFFFFu, "fwd fills with 0x%08x, dynamic 0x%08x",
               fwd.bits, fwd.dynamic_bits);
        EXPECT(rev.bits == 0x7F7F7F7Fu && rev.dynamic_bits == 0x7F7F7F7Fu, "rev fills with 0x%08x, dynamic 0x%08x",
               rev.bits, rev.dynamic_bits);
        EXPECT(r2.bits == 0xFEFEFEFEu && r3.bits == 0xFFFFFFFFu, "rand:2 fills with 0x%08x, rand:3 with 0x%08x",
               r2.bits, r3.bits);
        EXPECT(fwd.max == 31 && rev.max > 1e38f, "fmaxf over unwritten slots: %g under fwd, %g under rev", fwd.max,
               rev.max);
        EXPECT(isnan(fwd.sum) && !isnan(rev.sum) && rev.sum > 1e38f, "float sum: %g under fwd, %g under rev", fwd.sum,
               rev.sum);
        EXPECT(fwd.isum == 0 && rev.isum == 32 + 32 * 2139062143LL, "int sum: %lld under fwd, %lld under rev",
               fwd.isum, rev.isum);
        EXPECT(r2.max == 31 && r2.isum == 32 - 32 * 16843010LL, "rand:2: max %g, int sum %lld", r2.max, r2.isum);
        EXPECT_OK(cudaFree(d));
        cudaemuSetSchedule("fwd");
    }

    if (PART("watchdog")) {
        /* a limit of a second: an endless loop, then a barrier one thread
         * never reaches */
        setenv("CUDAEMU_WATCHDOG_SECONDS", "1", 1);
        cudaemuSetSchedule("fwd");
        int *flag;
        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
        double start = seconds();
        spin_forever<<<2, 4>>>(flag); int spin_line = __LINE__;
        const char *spinning[] = {"spin_forever", "ran for more than 1 s", "in block 0, 1 thread still running (0:",
                                  "0 exited, 3 not started yet", "stopped (CUDAEMU_WATCHDOG_SECONDS; a GPU's watchdog "
                                  "stops it too): 0 of 2 blocks had finished; in block 0"};
        expect_timeout(start, spin_line, spinning, 5);

        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
        start = seconds();
        spin_late<<<2, 4>>>(flag); int late_line = __LINE__;
        const char *late[] = {"spin_late", "1 of 2 blocks had finished", "in block 1, 1 thread still running (2:",
                              "2 exited, 1 not started yet"};
        expect_timeout(start, late_line, late, 4);

        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
        start = seconds();
        wait_for_the_others<<<1, 32>>>(flag); int wait_line = __LINE__;
        char barrier[128];
        snprintf(barrier, sizeof barrier, "31 waiting at __syncthreads() at tests/backend/exposure.cu:%d (0-30)",
                 (int)BARRIER_LINE);
        const char *waiting[] = {"wait_for_the_others", "1 thread still running (31:", barrier};
        expect_timeout(start, wait_line, waiting, 3);

        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 0, sizeof(int)));
        start = seconds();
        spin_between_barriers<<<1, 8>>>(flag); int between_line = __LINE__;
        snprintf(barrier, sizeof barrier, "3 waiting at __syncthreads() at tests/backend/exposure.cu:%d (0-2)",
                 (int)SECOND_BARRIER_LINE);
        const char *between[] = {"spin_between_barriers", "5 threads still running (3-7:", barrier};
        expect_timeout(start, between_line, between, 3);

        /* the backend runs kernels again after a reset */
        EXPECT_OK(cudaMalloc(&flag, sizeof(int)));
        EXPECT_OK(cudaMemset(flag, 1, sizeof(int)));
        spin_forever<<<1, 1>>>(flag);
        EXPECT_OK(cudaGetLastError());
        EXPECT_OK(cudaFree(flag));
        unsetenv("CUDAEMU_WATCHDOG_SECONDS");
    }

    if (PART("far_write")) {
        /* 4096 bytes past an array of 16 ints, then 1 MB past: reported, and
         * the runtime's table and its neighbours intact */
        for (int past : {1024, 256 * 1024}) {
            int *before, *small, *after, h[16];
            EXPECT_OK(cudaMalloc(&before, sizeof h));
            EXPECT_OK(cudaMalloc(&small, sizeof h));
            EXPECT_OK(cudaMalloc(&after, sizeof h));
            for (int i = 0; i < 16; i++)
                h[i] = i;
            EXPECT_OK(cudaMemcpy(before, h, sizeof h, cudaMemcpyHostToDevice));
            EXPECT_OK(cudaMemcpy(after, h, sizeof h, cudaMemcpyHostToDevice));
            write_far<<<1, 32>>>(small, 16, past);
            cudaError_t err = cudaGetLastError();
            const char *message = cudaGetErrorString(err);
            printf("message: %s\n", message);
            EXPECT(err == cudaErrorIllegalAddress, "a write %d bytes past the end gave %s, want "
                   "cudaErrorIllegalAddress", 4 * past, cudaGetErrorName(err));
            EXPECT(strstr(message, "exposure.cu:") && strstr(message, "out-of-bounds") &&
                   strstr(message, "device array of 64 bytes"), "the message: %s", message);
            /* 1 MB past, the write faults: the report names its line (addr2line, where it can be run);
             * 4 KB past, it lands in the guard bytes, seen after the launch, with no line */
            char at_line[64];
            snprintf(at_line, sizeof at_line, "exposure.cu:%d: out-of-bounds", (int)WRITE_FAR_LINE);
            EXPECT(past < 256 * 1024 || strstr(message, at_line) || strstr(message, "its line is not known here"),
                   "the message names neither the line of the write (%s) nor why not: %s", at_line, message);
            EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress, "the error is not sticky");
            /* host memory is device memory here: the neighbours read directly */
            EXPECT(!memcmp(before, h, sizeof h) && !memcmp(after, h, sizeof h), "a neighbouring array changed");
            EXPECT(cudaDeviceReset() == cudaSuccess, "cudaDeviceReset");
            /* the table works: new arrays, copies, frees */
            EXPECT_OK(cudaMalloc(&small, sizeof h));
            EXPECT_OK(cudaMemcpy(small, h, sizeof h, cudaMemcpyHostToDevice));
            EXPECT(cudaMemcpy(small, h, 2 * sizeof h, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
                   "a copy past the end of a new array is not refused");
            cudaGetLastError();
            EXPECT_OK(cudaFree(small));
        }
    }
    if (PART("wild")) {
        /* a NULL pointer, and an address far from every array: each a launch
         * failure with its reason, the program going on (as on a GPU) */
        int *wild[2] = {0, (int *)(1ull << 46)};
        const char *why[2] = {"next to address 0: is a pointer NULL", "outside all device memory"};
        for (int k = 0; k < 2; k++) {
            write_far<<<1, 32>>>(wild[k], 0, 0);
            cudaError_t err = cudaGetLastError();
            const char *message = cudaGetErrorString(err);
            printf("message: %s\n", message);
            EXPECT(err == cudaErrorIllegalAddress, "a write through %p gave %s, want cudaErrorIllegalAddress",
                   (void *)wild[k], cudaGetErrorName(err));
            EXPECT(strstr(message, "out-of-bounds access") && strstr(message, why[k]), "the message: %s", message);
            EXPECT(cudaDeviceReset() == cudaSuccess, "cudaDeviceReset");
        }
    }
    if (PART("use_after_free")) {
        /* a kernel given an array freed just before (freed small arrays wait,
         * still mapped, until the next launch or allocation) faults; one freed
         * and allocated again at once is usable */
        int *gone, *again, h[16] = {0};
        EXPECT_OK(cudaMalloc(&gone, sizeof h));
        EXPECT_OK(cudaFree(gone));
        write_far<<<1, 32>>>(gone, 0, 0);
        cudaError_t err = cudaGetLastError();
        const char *message = cudaGetErrorString(err);
        printf("message: %s\n", message);
        EXPECT(err == cudaErrorIllegalAddress, "a kernel writing a freed array gave %s, want cudaErrorIllegalAddress",
               cudaGetErrorName(err));
        EXPECT(strstr(message, "exposure.cu:") && strstr(message, "freed"), "the message: %s", message);
        EXPECT(cudaDeviceReset() == cudaSuccess, "cudaDeviceReset");
        EXPECT_OK(cudaMalloc(&gone, sizeof h));
        EXPECT_OK(cudaFree(gone));
        EXPECT_OK(cudaMalloc(&again, sizeof h));
        write_far<<<1, 32>>>(again, 0, 0);
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT_OK(cudaMemcpy(h, again, sizeof h, cudaMemcpyDeviceToHost));
        EXPECT(h[0] == 42, "the array allocated again holds %d, want 42", h[0]);
        EXPECT_OK(cudaFree(again));
    }
    printf("exposure: done\n");
    return check_result();
}
