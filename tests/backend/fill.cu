/* fill.cu: device and managed memory start zeroed in every build (plain,
 * ASan, TSan), so that a program that forgets to zero a counter behaves
 * the same in each.  (ASan's heap once gave 0xbe in a block's first 4 KB,
 * and the plain build gave a freed block's old bytes back to the next
 * allocation of its size.)  A kernel counts into memory nobody zeroed, as
 * such a program does; the host then reads every byte of each kind. */
#include "check.h"

static __global__ void count_into(unsigned *counter, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(counter, 1u);
}

static __global__ void scribble(unsigned char *p, size_t n)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 0xab;
}

/* Every byte of d (n bytes of device or managed memory) is zero. */
static bool all_zero(const void *d, size_t n, bool managed)
{
    unsigned char *h = (unsigned char *)malloc(n);
    if (managed)
        memcpy(h, d, n);
    else
        EXPECT_OK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
    size_t i = 0;
    while (i < n && h[i] == 0)
        i++;
    free(h);
    return i == n;
}

/* One allocation of n bytes of each kind: zeroed when new, and again when
 * its place is taken back after the program filled it and freed it (before
 * a launch and after one). */
static void check_size(size_t n)
{
    for (int managed = 0; managed < 2; managed++) {
        const char *kind = managed ? "cudaMallocManaged" : "cudaMalloc";
        for (int round = 0; round < 3; round++) {
            unsigned char *p;
            EXPECT_OK(managed ? cudaMallocManaged(&p, n) : cudaMalloc(&p, n));
            EXPECT(all_zero(p, n, managed), "%s of %zu bytes (round %d) is not all zeros", kind, n, round);
            scribble<<<4, 256>>>(p, n);
            EXPECT_OK(cudaDeviceSynchronize());
            EXPECT_OK(cudaFree(p));
            if (round == 1)
                count_into<<<1, 1>>>(0, 0); /* a launch between: freed blocks are put away */
        }
    }
}

int main(void)
{
    const int n = 1000;
    for (int managed = 0; managed < 2; managed++) {
        unsigned *counter;
        EXPECT_OK(managed ? cudaMallocManaged(&counter, sizeof *counter) : cudaMalloc(&counter, sizeof *counter));
        count_into<<<(n + 255) / 256, 256>>>(counter, n); /* no cudaMemset: a bug a fresh GPU allocation hides */
        unsigned got = 0;
        EXPECT_OK(cudaMemcpy(&got, counter, sizeof got, cudaMemcpyDeviceToHost));
        EXPECT(got == (unsigned)n, "a counter from %s, never zeroed, counted %u, not %d",
               managed ? "cudaMallocManaged" : "cudaMalloc", got, n);
        EXPECT_OK(cudaFree(counter));
    }
    check_size(100);
    check_size(10000);           /* past ASan's 4 KB of 0xbe */
    check_size((size_t)3 << 20); /* a large block, given back to the system when freed */
    return check_result();
}
