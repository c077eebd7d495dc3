/* expect: runs
 * A kernel's clock() counts the same cycles as clock64(), even where
 * <ctime> (included here after cuda_runtime.h) has #undef'd the backend's
 * clock macro; host code keeps the C library's clock(), and a member named
 * clock is left alone. */
#include <cuda_runtime.h>
#include <ctime>
#include <time.h>
#include "check.h"

struct timer {
    long long ticks;
    long long clock() const { return ticks; }
};

__global__ void spin(long long *o, int cycles, timer t)
{
    long long start64 = clock64();
    clock_t start = clock();
    while (clock() - start < cycles) {}
    o[0] = clock64() - start64;
    o[1] = (long long)(unsigned)std::clock() - (long long)(unsigned)clock64(); /* about 0 */
    o[2] = t.clock();
    unsigned begin = ::clock(); /* kept in 32 bits, as GPU code does */
    while ((unsigned)clock() - begin < (unsigned)cycles) {}
    o[3] = clock64() - start64;
}

int main(void)
{
    long long *d, h[4];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    clock_t host_before = clock();
    timer t = {42};
    spin<<<1, 4>>>(d, 10000000, t);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    clock_t host_after = std::clock();
    /* 4 threads one after another, each spinning 1e7 cycles twice: well under a second */
    EXPECT(h[0] >= 10000000 && h[0] < 1000000000, "spinning 1e7 cycles with clock() took %lld cycles of clock64()", h[0]);
    EXPECT(h[1] >= -1000000 && h[1] <= 1000000, "clock() is %lld cycles from clock64()", h[1]);
    EXPECT(h[2] == 42, "the member clock() gave %lld", h[2]);
    EXPECT(h[3] >= 20000000 && h[3] < 2000000000, "the 32-bit spin: %lld cycles", h[3]);
    EXPECT(host_after >= host_before && host_after - host_before < 10 * CLOCKS_PER_SEC,
           "host clock(): %ld then %ld", (long)host_before, (long)host_after);
    EXPECT_OK(cudaFree(d));
    return check_result();
}
