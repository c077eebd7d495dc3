/* fidelity.cu: places where the cpu backend once differed from a GPU, each
 * with its result checked: meta_group_rank/size of a tile of a tile, a
 * kernel's clock() beside clock64(), and, for the sanitizer builds, the
 * backend's own atomics and warp votes (no TSan report on a correct
 * program) and streams and events a program never destroys (no leak report,
 * its output kept).  `fidelity` runs all of them, `fidelity PART` one:
 * meta, clock, atomics, votes, locals, cas_loop or streams.  The TSan
 * checks hold at -O0 too (tests/check-backend.sh builds this file so),
 * where every local lives on the thread's stack. */
#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

/* ---- meta groups: the rank of a tile within its parent, tile or block ---- */
static __global__ void meta_groups(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> sixteen = cg::tiled_partition<16>(block);
    cg::thread_block_tile<4> four = cg::tiled_partition<4>(sixteen);
    cg::thread_block_tile<4> of_block = cg::tiled_partition<4>(block);
    int *o = out + 6 * threadIdx.x;
    o[0] = (int)four.meta_group_rank();
    o[1] = (int)four.meta_group_size();
    o[2] = (int)sixteen.meta_group_rank();
    o[3] = (int)sixteen.meta_group_size();
    o[4] = (int)of_block.meta_group_rank();
    cg::thread_block_tile<2> two = cg::tiled_partition<2>(four);
    o[5] = (int)two.meta_group_rank() * 100 + (int)two.meta_group_size();
}

/* ---- clock(): clock64()'s count (tests/backend/rewrite/clock_ctime.cu: with <ctime>) ---- */
static __global__ void spin(long long cycles, long long *out)
{
    long long start64 = clock64();
    clock_t start = clock();
    while (clock() - start < cycles) {}
    out[0] = clock64() - start64;
    out[1] = (long long)(unsigned)clock() - (long long)(unsigned)clock64(); /* about 0, unless it wraps */
}

/* ---- the backend's atomics and votes, correct: TSan must stay silent ---- */
static __global__ void atomics(float *f, int *i, double *d, unsigned *u)
{
    atomicAdd(f, 1.0f);
    atomicMax(i, (int)threadIdx.x);
    atomicMin(i + 1, -(int)threadIdx.x);
    atomicAdd(d, 0.5);
    atomicInc(u, 1000u);
    atomicCAS(u + 1, 0u, 7u);
}
static __global__ void votes(int *out)
{
    int all = __all_sync(0xffffffffu, threadIdx.x < 1000);
    int any = __any_sync(0xffffffffu, threadIdx.x == 3);
    unsigned ballot = __ballot_sync(0xffffffffu, threadIdx.x % 2);
    float next = __shfl_down_sync(0xffffffffu, (float)threadIdx.x, 1);
    cg::thread_block_tile<8> eight = cg::tiled_partition<8>(cg::this_thread_block());
    int tile = eight.all(1) + eight.any(0) + (eight.ballot(1) == 0xffu);
    if (threadIdx.x % 32 == 0)
        atomicAdd(out + threadIdx.x / 32, all + any + (ballot == 0xaaaaaaaau) + tile + (next == 1.0f));
}

/* ---- a kernel's own locals (on the stack at -O0), no barrier: TSan must stay silent ---- */
static __global__ void locals(int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, square[4];
    for (int i = 0; i < 4; i++)
        square[i] = (t + i) * (t + i);
    out[t] = square[3] - square[0];
}

/* ---- the CUDA programming guide's compare-and-swap loop: a plain read first ---- */
static __device__ float atomic_max_float(float *address, float value)
{
    int *as_int = (int *)address, old = *as_int, assumed;
    do {
        assumed = old;
        old = atomicCAS(as_int, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
    } while (assumed != old);
    return __int_as_float(old);
}
static __global__ void cas_loop(float *max, const float *values)
{
    atomic_max_float(max, values[blockIdx.x * blockDim.x + threadIdx.x]);
}

/* A stream and an event never destroyed, as many programs leave them, their
 * handles gone with this frame: no leak for LeakSanitizer. */
static __attribute__((noinline)) void leave_open(void)
{
    cudaStream_t stream;
    cudaEvent_t event;
    EXPECT_OK(cudaStreamCreate(&stream));
    EXPECT_OK(cudaEventCreate(&event));
    EXPECT_OK(cudaEventRecord(event, stream));
    EXPECT_OK(cudaStreamSynchronize(stream));
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
#define PART(name) (!strcmp(part, "all") || !strcmp(part, name))
    if (PART("meta")) {
        /* meta groups, 64 threads */
        int *out, h[64 * 6];
        EXPECT_OK(cudaMalloc(&out, sizeof h));
        meta_groups<<<1, 64>>>(out);
        EXPECT_OK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 64; t++) {
            const int *o = h + 6 * t;
            EXPECT(o[0] == t % 16 / 4 && o[1] == 4, "thread %d: tile<4> of tile<16>: meta_group_rank %d size %d, "
                   "CUDA gives %d 4", t, o[0], o[1], t % 16 / 4);
            EXPECT(o[2] == t / 16 && o[3] == 4, "thread %d: tile<16> of the block: %d %d", t, o[2], o[3]);
            EXPECT(o[4] == t / 4, "thread %d: tile<4> of the block: meta_group_rank %d", t, o[4]);
            EXPECT(o[5] == t % 4 / 2 * 100 + 2, "thread %d: tile<2> of tile<4>: %d", t, o[5]);
        }
        EXPECT_OK(cudaFree(out));
    }

    if (PART("clock")) {
        /* clock(): a million cycles is well under a second; as the C library's
         * processor time (microseconds) it was a second */
        long long *spun, hs[2];
        EXPECT_OK(cudaMalloc(&spun, sizeof hs));
        spin<<<1, 1>>>(1000000, spun);
        EXPECT_OK(cudaMemcpy(hs, spun, sizeof hs, cudaMemcpyDeviceToHost));
        EXPECT(hs[0] >= 1000000 && hs[0] < 100000000, "spinning 1e6 cycles with clock() took %lld cycles of clock64()",
               hs[0]);
        EXPECT(hs[1] >= -1000000 && hs[1] <= 1000000, "clock() is %lld cycles from clock64()'s low 32 bits", hs[1]);
        EXPECT_OK(cudaFree(spun));
    }

    if (PART("atomics")) {
        /* atomics, then votes: their results (and, in the TSan build, no report) */
        struct counters {
            float f;
            int i[2];
            double d;
            unsigned u[2];
        } hc = {0, {-1, 0}, 0, {0, 0}}, *c;
        EXPECT_OK(cudaMalloc(&c, sizeof hc));
        EXPECT_OK(cudaMemcpy(c, &hc, sizeof hc, cudaMemcpyHostToDevice));
        atomics<<<4, 64>>>(&c->f, c->i, &c->d, c->u);
        EXPECT_OK(cudaMemcpy(&hc, c, sizeof hc, cudaMemcpyDeviceToHost));
        EXPECT(hc.f == 256.0f && hc.i[0] == 63 && hc.i[1] == -63 && hc.d == 128.0 && hc.u[0] == 256 && hc.u[1] == 7,
               "atomics: %g %d %d %g %u %u", hc.f, hc.i[0], hc.i[1], hc.d, hc.u[0], hc.u[1]);
        EXPECT_OK(cudaFree(c));
    }

    if (PART("votes")) {
        int *v, hv[4 * 4];
        EXPECT_OK(cudaMalloc(&v, sizeof hv));
        EXPECT_OK(cudaMemset(v, 0, sizeof hv));
        votes<<<4, 128>>>(v);
        EXPECT_OK(cudaMemcpy(hv, v, sizeof hv, cudaMemcpyDeviceToHost));
        for (int w = 0; w < 4; w++)
            EXPECT(hv[w] == 4 * (4 + 2 * (w == 0)), "votes of warp %d of every block: %d", w, hv[w]);
        EXPECT_OK(cudaFree(v));
    }

    if (PART("locals")) {
        /* 512 threads: more than one chunk of stacks (64), made while the kernel runs */
        int *d, h[512];
        EXPECT_OK(cudaMalloc(&d, sizeof h));
        locals<<<2, 256>>>(d);
        EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 512; t++)
            EXPECT(h[t] == 6 * t + 9, "locals: thread %d computed %d", t, h[t]);
        EXPECT_OK(cudaFree(d));
    }

    if (PART("cas_loop")) {
        float *d, h[2 * 64], max = -1.0f;
        for (int i = 0; i < 2 * 64; i++)
            h[i] = (float)(i * 37 % 101);
        EXPECT_OK(cudaMalloc(&d, sizeof h + sizeof max));
        EXPECT_OK(cudaMemcpy(d, &max, sizeof max, cudaMemcpyHostToDevice));
        EXPECT_OK(cudaMemcpy(d + 1, h, sizeof h, cudaMemcpyHostToDevice));
        cas_loop<<<2, 64>>>(d, d + 1);
        EXPECT_OK(cudaMemcpy(&max, d, sizeof max, cudaMemcpyDeviceToHost));
        EXPECT(max == 100.0f, "atomicCAS loop: max %g, want 100", max);
        EXPECT_OK(cudaFree(d));
    }

    if (PART("streams"))
        leave_open();
    printf("fidelity: done\n"); /* buffered: must not be lost to a leak report */
    return check_result();
}
