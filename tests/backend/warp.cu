/* warp.cu: shuffles with masks and widths, votes, __syncwarp, a partial
 * last warp, and shuffles in divergent code (warp 0 only). */
#include "check.h"

#define FULL 0xffffffffu

static __global__ void shuffles(int *out, int width)
{
    int t = threadIdx.x, v = 100 + t;
    int *o = out + 6 * t;
    o[0] = __shfl_sync(FULL, v, 3, width);
    o[1] = __shfl_up_sync(FULL, v, 2, width);
    o[2] = __shfl_down_sync(FULL, v, 2, width);
    o[3] = __shfl_xor_sync(FULL, v, 1, width);
    o[4] = (int)__shfl_down_sync(FULL, (double)v * 0.5, 1, width); /* 8-byte values too */
    __syncwarp();
    o[5] = __shfl_sync(FULL, v, t + 1, width); /* source lane wraps within its segment */
}

static __global__ void votes(unsigned *out)
{
    int t = threadIdx.x;
    unsigned *o = out + 4 * t; /* every lane's results, each in its own place */
    o[0] = __ballot_sync(FULL, t % 2);
    o[1] = __any_sync(FULL, t == 40);
    o[2] = __all_sync(FULL, t < 40);
    o[3] = __all_sync(FULL, t < 1000);
}

/* the usual last step of a reduction: warp 0 alone, partial masks */
static __global__ void warp0_sum(const int *in, int *out)
{
    __shared__ int partial[32];
    int t = threadIdx.x, v = in[t];
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(FULL, v, o);
    if (t % 32 == 0)
        partial[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < (int)blockDim.x / 32 ? partial[t] : 0;
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(FULL, v, o);
        if (t == 0)
            *out = v;
    }
}

/* 48 threads: the second warp has lanes 0-15 only, its masks say so */
static __global__ void partial_warp(int *out)
{
    int t = threadIdx.x;
    unsigned mask = t < 32 ? FULL : 0x0000ffffu;
    out[t] = __shfl_xor_sync(mask, t, 8);
    out[48 + t] = __ballot_sync(mask, 1);
}

/* sm_80's warp reductions and the warp matches: the whole warp, and the
 * lower half alone (the upper half does not call) */
static __global__ void reductions(unsigned *u, int *s)
{
    unsigned lane = threadIdx.x % 32;
    u[threadIdx.x] = __reduce_add_sync(0xffffffffu, lane) + __reduce_max_sync(0xffffffffu, lane * 7 % 32);
    s[threadIdx.x] = __reduce_min_sync(0xffffffffu, (int)lane - 5) * 1000 + __reduce_max_sync(0xffffffffu, -(int)lane);
    if (lane < 16)
        u[64 + threadIdx.x] = __reduce_or_sync(0x0000ffffu, 1u << lane) ^ __reduce_xor_sync(0x0000ffffu, lane) ^
                              __reduce_and_sync(0x0000ffffu, lane | 0x100u);
    u[128 + threadIdx.x] = __match_any_sync(0xffffffffu, (long long)(lane % 4) << 40);
    int all;
    u[192 + threadIdx.x] = __match_all_sync(0xffffffffu, lane < 32 ? 7.5f : 0.0f, &all) + (unsigned)all;
}

int main(void)
{
    int *d, h[6 * 64];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    int widths[] = {32, 16, 8};
    for (int w = 0; w < 3; w++) {
        int width = widths[w];
        shuffles<<<1, 64>>>(d, width);
        EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 64; t++) {
            int seg = t / width * width, lt = t - seg, *o = h + 6 * t;
            EXPECT(o[0] == 100 + seg + 3 % width, "width %d: shfl at %d = %d", width, t, o[0]);
            EXPECT(o[1] == 100 + (lt >= 2 ? t - 2 : t), "width %d: shfl_up at %d = %d", width, t, o[1]);
            EXPECT(o[2] == 100 + (lt + 2 < width ? t + 2 : t), "width %d: shfl_down at %d = %d", width, t, o[2]);
            EXPECT(o[3] == 100 + (t ^ 1), "width %d: shfl_xor at %d = %d", width, t, o[3]);
            EXPECT(o[4] == (100 + (lt + 1 < width ? t + 1 : t)) / 2, "width %d: double shfl_down at %d = %d", width,
                   t, o[4]);
            EXPECT(o[5] == 100 + seg + (lt + 1) % width, "width %d: wrapped shfl at %d = %d", width, t, o[5]);
        }
    }

    unsigned v[4 * 64];
    votes<<<1, 64>>>((unsigned *)d);
    EXPECT_OK(cudaMemcpy(v, d, sizeof v, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++) {
        const unsigned *o = v + 4 * t;
        int warp = t / 32;
        EXPECT(o[0] == 0xaaaaaaaau, "lane %d: ballot %x", t, o[0]);
        EXPECT(o[1] == (warp == 1), "lane %d: any %u", t, o[1]);
        EXPECT(o[2] == (warp == 0) && o[3] == 1, "lane %d: all %u %u", t, o[2], o[3]);
    }

    int in[1024], *d_in, sum = 0;
    for (int i = 0; i < 1024; i++)
        in[i] = i % 13 - 5;
    EXPECT_OK(cudaMalloc(&d_in, sizeof in));
    EXPECT_OK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    const char *orders[] = {"fwd", "rev", "rand:7"};
    for (int o = 0; o < 3; o++) {
        cudaemuSetSchedule(orders[o]);
        for (int threads = 32; threads <= 1024; threads *= 2) {
            int want = 0;
            for (int i = 0; i < threads; i++)
                want += in[i];
            warp0_sum<<<1, threads>>>(d_in, d);
            EXPECT_OK(cudaMemcpy(&sum, d, sizeof sum, cudaMemcpyDeviceToHost));
            EXPECT(sum == want, "%s, %d threads: warp sum %d, want %d", orders[o], threads, sum, want);
        }
    }
    cudaemuSetSchedule("fwd");

    partial_warp<<<1, 48>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, 96 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 8 && h[40] == 32 && h[47] == 39, "partial warp xor: %d %d %d", h[0], h[40], h[47]);
    EXPECT((unsigned)h[48] == FULL && (unsigned)h[48 + 40] == 0xffffu, "partial warp ballot %x %x", h[48], h[88]);
    cudaFree(d), cudaFree(d_in);
    unsigned *u;
    int *si;
    EXPECT_OK(cudaMallocManaged(&u, 256 * sizeof(unsigned)));
    EXPECT_OK(cudaMallocManaged(&si, 64 * sizeof(int)));
    reductions<<<1, 64>>>(u, si);
    EXPECT_OK(cudaDeviceSynchronize());
    for (int t = 0; t < 64; t++) {
        EXPECT(u[t] == 496 + 31, "__reduce_add_sync + __reduce_max_sync at %d: %u", t, u[t]);
        EXPECT(si[t] == -5 * 1000 + 0, "__reduce_min_sync/__reduce_max_sync (int) at %d: %d", t, si[t]);
        if (t % 32 < 16) /* or of 1 << lane, xor of 0..15 (0), and of lane | 0x100 (0x100) */
            EXPECT(u[64 + t] == (0xffffu ^ 0u ^ 0x100u), "half-warp reductions at %d: %#x", t, u[64 + t]);
        EXPECT(u[128 + t] == 0x11111111u << (t % 4), "__match_any_sync at %d: %#x", t, u[128 + t]);
        EXPECT(u[192 + t] == 0xffffffffu + 1u, "__match_all_sync at %d: %#x", t, u[192 + t]);
    }
    EXPECT_OK(cudaFree(u));
    EXPECT_OK(cudaFree(si));
    return check_result();
}
