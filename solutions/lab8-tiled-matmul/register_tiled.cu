/* register_tiled.cu: going further in lab 8, a register-tiled matrix multiply.
 *
 * The lab's tiled kernel gives each thread ONE element of C.  For every
 * multiply-add it reads two floats from shared memory, so shared memory,
 * not arithmetic, sets its pace.  Here each thread computes an 8 x 16 piece
 * of C held in 128 registers: per step along k it reads 8 floats of A and
 * 16 of B (six 16-byte loads) and does 128 multiply-adds with them, more
 * than 20 for every shared-memory load instead of one.  A block of 128
 * threads (4 warps) computes a 128 x 128 tile of C, walking k 16 columns at
 * a time.  Five techniques:
 *
 *   1. Warp tiles.  Each warp owns a 64 x 64 quarter of the tile, its 32
 *      threads arranged 8 (rows) x 4 (columns).  A thread's rows are
 *      row0 .. row0+3 and row0+32 .. row0+35, its columns col0 + 16q ..
 *      col0 + 16q + 3 for q = 0..3: 4-wide pieces, so that every value
 *      comes with a 16-byte load, and a warp's 32 threads read only 8 (A)
 *      or 4 (B) distinct, adjacent float4s per load.  The hardware serves
 *      the duplicates as broadcasts: each load costs one pass of shared
 *      memory.
 *   2. A stored transposed.  A thread needs, for one k, 4 consecutive ROWS
 *      of A: stored as [k][row], they lie side by side.  Each row of that
 *      array is padded by 4 floats, which spreads the transposing 4-byte
 *      stores over the memory banks (2-way conflicts instead of 16-way).
 *   3. Asynchronous copies (cp.async, compute capability 8.0 and newer,
 *      through CUDA's pipeline functions).  Global memory goes straight
 *      into shared memory, with no registers in between and no waiting by
 *      the thread that asked: B's rows 16 bytes a copy, A 4 bytes a copy,
 *      each landing at its transposed place.  On older GPUs (and the cpu
 *      backend) the same helper functions copy at once.
 *   4. A ring of 3 stages.  Shared memory holds 3 slabs of A and B
 *      (49,920 bytes: more than the default 48 KB, so the host raises
 *      the kernel's limit).  While the block multiplies slab s, the next
 *      two slabs are on their way (or already there).  Each thread
 *      commits its copies as one group per slab; "wait until no more than
 *      1 of my groups is pending" then means "my part of slab s+1 is
 *      here", and one barrier per slab makes every thread's copies visible
 *      to all and frees the stage just used for the next fetch.
 *   5. Fragments a step ahead.  The registers holding A's and B's values
 *      come in two sets: while the multiply-adds of step kk use one, the
 *      loads of step kk+1 (of the next slab, after the barrier, when kk is
 *      the last step) fill the other, so shared memory's latency hides
 *      behind arithmetic.
 *
 * Registers: 128 accumulators, 48 fragment values, addresses: ptxas (CUDA
 * 13.0, sm_90) uses 237 of the 255 that __launch_bounds__(128, 2) allows,
 * with no spills, and two blocks (8 warps) share each SM.
 *
 * It is not part of the lab build (the Makefile builds only the files that
 * labs/lab8-tiled-matmul/ has); `make bench` builds it and times it beside
 * cuBLAS.  Sizes: m and n multiples of 128, k a multiple of 16 (the bench's
 * square sides are multiples of 128).
 */
#include "kit.h"
#include "kit_program.h"

#define TILE 128        /* rows and columns of C per block */
#define SLAB 16         /* k per step */
#define STAGES 3        /* slabs held in shared memory at once */
#define THREADS 128     /* 4 warps, each a 64 x 64 quarter of the tile */
#define A_PITCH (TILE + 4)                      /* a row of the transposed A slab, padded */
#define STAGE_FLOATS (SLAB * A_PITCH + SLAB * TILE)
#define SHARED_BYTES (STAGES * STAGE_FLOATS * (int)sizeof(float))

#ifdef __cplusplus
extern "C" {
#endif
/* C = A B, row-major, every pointer HOST memory (as the functions of lab8.h). */
void matmul_register_tiled(const float *a, const float *b, float *c, int m, int k, int n);
#ifdef __cplusplus
}
#endif

/* ---- asynchronous copies, global -> shared ------------------------------
 * CUDA's pipeline functions (cuda_pipeline.h) issue cp.async on compute
 * capability 8.0 and newer and copy at once on older GPUs; the cpu backend
 * makes each copy when its group is waited for, as a GPU completes it. */
#include <cuda_pipeline.h>
static __device__ __forceinline__ void copy_4_bytes(float *shared, const float *global)
{
    __pipeline_memcpy_async(shared, global, 4);
}
static __device__ __forceinline__ void copy_16_bytes(float *shared, const float *global)
{
    __pipeline_memcpy_async(shared, global, 16);
}
/* Closes the group of copies this thread started since the last call. */
static __device__ __forceinline__ void copies_commit(void) { __pipeline_commit(); }
/* Waits until at most STAGES - 2 of this thread's groups are still pending. */
static __device__ __forceinline__ void copies_wait(void) { __pipeline_wait_prior(STAGES - 2); }

/* Starts the copies of slab `slab` into a stage: this thread's 16 floats of
 * A (column a_k of rows a_row, a_row + 8, ...) and 4 float4s of B (row b_k,
 * b_k + 4, ... at column b_col); a_tile and b_tile point at the tile's
 * first row of A and first column of B. */
static __device__ __forceinline__ void fetch_slab(float *stage, const float *a_tile, const float *b_tile, int slab,
                                                  int k, int n)
{
    const int a_k = threadIdx.x % SLAB, a_row = threadIdx.x / SLAB;
    const int b_k = threadIdx.x / 32, b_col = (threadIdx.x % 32) * 4;
    const float *a = a_tile + (size_t)slab * SLAB, *b = b_tile + (size_t)slab * SLAB * n;
    float *a_slab = stage, *b_slab = stage + SLAB * A_PITCH;
#pragma unroll
    for (int i = 0; i < TILE * SLAB / THREADS; i++)
        copy_4_bytes(&a_slab[a_k * A_PITCH + a_row + i * (THREADS / SLAB)],
                     &a[(size_t)(a_row + i * (THREADS / SLAB)) * k + a_k]);
#pragma unroll
    for (int i = 0; i < SLAB * TILE / 4 / THREADS; i++)
        copy_16_bytes(&b_slab[(b_k + i * (THREADS / 32)) * TILE + b_col],
                      &b[(size_t)(b_k + i * (THREADS / 32)) * n + b_col]);
}

/* Loads this thread's 8 values of A and 16 of B for step kk of a stage. */
static __device__ __forceinline__ void load_fragments(float4 a_frag[2], float4 b_frag[4], const float *stage, int kk,
                                                      int row0, int col0)
{
    const float *a_slab = stage, *b_slab = stage + SLAB * A_PITCH;
    a_frag[0] = *(const float4 *)&a_slab[kk * A_PITCH + row0];
    a_frag[1] = *(const float4 *)&a_slab[kk * A_PITCH + row0 + 32];
#pragma unroll
    for (int q = 0; q < 4; q++)
        b_frag[q] = *(const float4 *)&b_slab[kk * TILE + col0 + 16 * q];
}

/* sum[i][j] += a[i] * b[j]: the 128 multiply-adds of one step. */
static __device__ __forceinline__ void multiply_add(float sum[8][16], const float4 a_frag[2], const float4 b_frag[4])
{
    const float a_reg[8] = {a_frag[0].x, a_frag[0].y, a_frag[0].z, a_frag[0].w,
                            a_frag[1].x, a_frag[1].y, a_frag[1].z, a_frag[1].w};
    float b_reg[16];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        b_reg[4 * q + 0] = b_frag[q].x;
        b_reg[4 * q + 1] = b_frag[q].y;
        b_reg[4 * q + 2] = b_frag[q].z;
        b_reg[4 * q + 3] = b_frag[q].w;
    }
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 16; j++)
            sum[i][j] = fmaf(a_reg[i], b_reg[j], sum[i][j]);
}

/* At most 255 registers a thread, so that two blocks (8 warps) share an SM. */
static __global__ void __launch_bounds__(THREADS, 2)
matmul_register_tiled_kernel(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                             int m, int k, int n)
{
    extern __shared__ __align__(16) float stages[]; /* STAGES x (A slab [k][row], B slab [k][col]) */
    (void)m;

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    /* This thread's first row and column inside the tile (technique 1). */
    const int row0 = (warp / 2) * 64 + (lane / 4) * 4;
    const int col0 = (warp % 2) * 64 + (lane % 4) * 4;
    const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    const float *a_tile = a + (size_t)tile_row * k, *b_tile = b + tile_col;

    float sum[8][16];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 16; j++)
            sum[i][j] = 0.0f;

    const int slabs = k / SLAB;
    /* Fill all stages but one: slabs 0 .. STAGES-2, one group each (a group
     * may be empty when k is short, so that the counting stays the same). */
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < slabs) {
            fetch_slab(stages + s * STAGE_FLOATS, a_tile, b_tile, s, k, n);
        }
        copies_commit();
    }
    copies_wait();   /* slab 0 is here (this thread's part) */
    __syncthreads(); /* ... and everyone's */

    float4 a_frag[2][2], b_frag[2][4]; /* two sets of fragments (technique 5) */
    load_fragments(a_frag[0], b_frag[0], stages, 0, row0, col0);
    int read = 0, write = STAGES - 1; /* the stages of slab s and of slab s + STAGES - 1 */

    for (int s = 0; s < slabs; s++) {
        /* The stage of slab s - 1 is free (the last barrier came after
         * every read of it): fetch slab s + STAGES - 1 into it. */
        if (s + STAGES - 1 < slabs) {
            fetch_slab(stages + write * STAGE_FLOATS, a_tile, b_tile, s + STAGES - 1, k, n);
        }
        copies_commit();
        write = write + 1 == STAGES ? 0 : write + 1;
        const int next = read + 1 == STAGES ? 0 : read + 1;
        const float *stage = stages + read * STAGE_FLOATS;

#pragma unroll
        for (int kk = 0; kk < SLAB; kk++) {
            if (kk + 1 < SLAB) {
                load_fragments(a_frag[(kk + 1) % 2], b_frag[(kk + 1) % 2], stage, kk + 1, row0, col0);
            } else {
                /* Last step: wait for slab s + 1, then read its first step
                 * (SLAB is even, so that lands in set 0, where step 0 is
                 * read).  After the last slab this reads a stage that holds
                 * no slab and uses none of it: cheaper than a branch. */
                copies_wait();
                __syncthreads();
                load_fragments(a_frag[0], b_frag[0], stages + next * STAGE_FLOATS, 0, row0, col0);
            }
            multiply_add(sum, a_frag[kk % 2], b_frag[kk % 2]);
        }
        read = next;
    }

    /* Row i of sum is row0 + i (i < 4) or row0 + 32 + i - 4; column j is
     * col0 + 16 (j / 4) + j % 4. */
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = tile_row + row0 + (i < 4 ? i : 32 + i - 4);
        float *c_row = c + (size_t)row * n + tile_col + col0;
#pragma unroll
        for (int q = 0; q < 4; q++)
            *(float4 *)&c_row[16 * q] = make_float4(sum[i][4 * q], sum[i][4 * q + 1], sum[i][4 * q + 2], sum[i][4 * q + 3]);
    }
}

void matmul_register_tiled(const float *a, const float *b, float *c, int m, int k, int n)
{
    if (m <= 0 || n <= 0 || k <= 0 || m % TILE || n % TILE || k % SLAB)
        kit_fail(__FILE__, __LINE__, "matmul_register_tiled needs m and n multiples of %d and k a multiple of %d "
                 "(got m = %d, k = %d, n = %d)", TILE, SLAB, m, k, n);
    float *d_a = kit_device_floats(a, (size_t)m * k);
    float *d_b = kit_device_floats(b, (size_t)k * n);
    float *d_c = kit_device_floats(NULL, (size_t)m * n);

    /* More than 48 KB of dynamic shared memory needs the kernel's consent. */
    CHECK(cudaFuncSetAttribute(matmul_register_tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_BYTES));
    dim3 grid(n / TILE, m / TILE);
    LAUNCH(matmul_register_tiled_kernel, grid, THREADS, SHARED_BYTES, d_a, d_b, d_c, m, k, n);

    CHECK(cudaMemcpy(c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
}
