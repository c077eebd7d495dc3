/* expect: runs
 * Kernels with barriers get a twin that runs as coroutines
 * (cudaemu/coroutine.h).  The twin's copy must read as the kernel does: a
 * template whose template line is far from its name (a long comment
 * between), a kernel right after an #include's end, a launch whose
 * template arguments hold '>'.  And where the twin alone does not compile
 * (a barrier in a decltype, which a co_await cannot be in), the file is
 * built again without twins and its kernels run on fibers. */
#include <cuda_runtime.h>
#include "check.h"

__global__ void right_after_include(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}

template <int A, int B>
/* A long comment between the template's line and the kernel's:
 *   line 2
 *   line 3
 *   line 4
 *   line 5
 *   line 6
 *   line 7
 *   line 8
 *   line 9
 *   line 10 */
__global__ void far_template(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x * A;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x] + B;
}

static long long coroutine_blocks(void)
{
    cudaemuLaunchCounts counts;
    cudaemuLastLaunchCounts(&counts);
    return counts.coroutine_blocks;
}

int main(void)
{
    /* (cucc also writes these kernels' split form, split.h, which would run
     * instead: this test is the twins') */
    setenv("CUDAEMU_SPLIT", "0", 1);
    int *out;
    EXPECT_OK(cudaMallocManaged(&out, 64 * sizeof(int)));
    right_after_include<<<1, 64>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(coroutine_blocks() == 1, "right_after_include ran on fibers");
    for (int t = 0; t < 64; t++)
        EXPECT(out[t] == 63 - t, "right_after_include: out[%d] = %d", t, out[t]);
    far_template<2, (3 > 1)><<<1, 64>>>(out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(coroutine_blocks() == 1, "far_template ran on fibers");
    for (int t = 0; t < 64; t++)
        EXPECT(out[t] == 2 * (63 - t) + 1, "far_template: out[%d] = %d", t, out[t]);
    cudaFree(out);
    return check_result();
}
