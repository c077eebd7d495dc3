/* expect: runs
 * The alignment asked of __shared__ memory is kept: __align__(N) before the
 * type, __attribute__((aligned(N))) after the declarator, alignas(N), and at
 * namespace scope; the kernel's registered shared memory counts it. */
#include <cuda_runtime.h>
#include <stdint.h>
#include "check.h"

__shared__ __align__(128) float ns_aligned[3];

__global__ void aligned(unsigned long long *o)
{
    __shared__ __align__(64) char buf[10];
    __shared__ char pad[3];
    __shared__ __align__(64) float f[3];
    __shared__ float g[3] __attribute__((aligned(128)));
    __shared__ alignas(32) char h[5], i[7];
    __shared__ __align__(8) double small[2]; /* an alignment below 16 keeps the usual 16 */
    buf[0] = pad[0] = h[0] = i[0] = 1;
    f[0] = g[0] = ns_aligned[0] = 1;
    small[0] = 1;
    o[0] = (uintptr_t)buf % 64;
    o[1] = (uintptr_t)f % 64;
    o[2] = (uintptr_t)g % 128;
    o[3] = (uintptr_t)h % 32 + (uintptr_t)i % 32;
    o[4] = (uintptr_t)&ns_aligned[0] % 128;
    o[5] = (uintptr_t)small % 16;
}

int main(void)
{
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, aligned));
    /* buf 0..10, pad 10..13, f 64..76, g 128..140, h 160..165, i 192..199, small 200..216 */
    EXPECT(attr.sharedSizeBytes >= 216, "sharedSizeBytes %zu: alignment not counted", attr.sharedSizeBytes);
    unsigned long long *d, h[6];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    for (int run = 0; run < 2; run++) {
        aligned<<<2, 1>>>(d);
        EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int k = 0; k < 6; k++)
            EXPECT(h[k] == 0, "variable %d is %llu bytes past its alignment", k, h[k]);
    }
    EXPECT_OK(cudaFree(d));
    return check_result();
}
