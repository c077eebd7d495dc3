/* register_tiled.cu: going further in lab 8, a register-tiled matrix multiply.
 *
 * The lab's tiled kernel gives each thread ONE element of C.  For every
 * multiply-add it reads two floats from shared memory, so shared memory,
 * not arithmetic, sets its pace.  Here each thread computes an 8 x 8 piece
 * of C held in 64 registers: per step along k it reads 8 floats of A and 8
 * of B (four 16-byte loads) and does 64 multiply-adds with them, 16 for
 * every shared-memory load instead of one.  A block of 256 threads computes
 * a 128 x 128 tile of C, walking k 8 columns at a time:
 *
 *   - a 128 x 8 slab of A and an 8 x 128 slab of B come from global memory
 *     as float4s (one of each per thread), the A slab stored transposed so
 *     that a thread's 8 values of A for one k lie side by side;
 *   - two buffers of each slab: while the block computes on one, the next
 *     slab travels from global memory into registers, so one barrier per
 *     slab suffices and the loads' latency hides behind the arithmetic;
 *   - thread (tx, ty) of the 16 x 16 threads owns rows ty*4 .. ty*4+3 and
 *     64+ty*4 .. 64+ty*4+3 of the tile, and the same columns with tx: four
 *     4 x 4 pieces rather than one 8 x 8 square, so that the 16 threads of
 *     a half-warp read 16 consecutive float4s of B (no bank conflict) and
 *     store C in 256-byte runs.
 *
 * It is not part of the lab build (the Makefile builds only the files that
 * labs/lab8-tiled-matmul/ has); `make bench` builds it and times it beside
 * cuBLAS.  Sizes: m and n multiples of 128, k a multiple of 8.
 */
#include "kit.h"

#define TILE_ROWS 128   /* rows of C per block */
#define TILE_COLS 128   /* columns of C per block */
#define SLAB 8          /* k per step */
#define THREADS 256     /* 16 x 16 threads, each 8 x 8 elements of C */

#ifdef __cplusplus
extern "C" {
#endif
/* C = A B, row-major, every pointer HOST memory (as the functions of lab8.h). */
void matmul_register_tiled(const float *a, const float *b, float *c, int m, int k, int n);
#ifdef __cplusplus
}
#endif

/* At most 128 registers a thread, so that two blocks (16 warps) share an SM. */
static __global__ void __launch_bounds__(THREADS, 2)
matmul_register_tiled_kernel(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                             int m, int k, int n)
{
    __shared__ __align__(16) float a_slab[2][SLAB][TILE_ROWS]; /* transposed: [k][row] */
    __shared__ __align__(16) float b_slab[2][SLAB][TILE_COLS]; /* as in B:    [k][col] */
    (void)m;

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int tile_row = blockIdx.y * TILE_ROWS, tile_col = blockIdx.x * TILE_COLS;

    /* What this thread loads: 4 floats of one row of the A slab (two
     * threads a row: 32 bytes, one memory sector) and 4 of one row of the
     * B slab (32 threads a row: 512 contiguous bytes). */
    const int a_row = tid / 2, a_k = (tid % 2) * 4;
    const int b_k = tid / 32, b_col = (tid % 32) * 4;
    const float *a_next = a + (size_t)(tile_row + a_row) * k + a_k;
    const float *b_next = b + (size_t)b_k * n + tile_col + b_col;

    float sum[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            sum[i][j] = 0.0f;

    float4 a_load = *(const float4 *)a_next;
    float4 b_load = *(const float4 *)b_next;
    const int slabs = k / SLAB;

    for (int s = 0; s < slabs; s++) {
        const int buffer = s % 2;
        /* Slab s arrived in registers: store it (slab s - 1 used the other
         * buffer, and the barrier at the end of the last step means nobody
         * still reads this one). */
        a_slab[buffer][a_k + 0][a_row] = a_load.x;
        a_slab[buffer][a_k + 1][a_row] = a_load.y;
        a_slab[buffer][a_k + 2][a_row] = a_load.z;
        a_slab[buffer][a_k + 3][a_row] = a_load.w;
        *(float4 *)&b_slab[buffer][b_k][b_col] = b_load;
        __syncthreads();

        /* Start the next slab's loads now; they complete during the math. */
        if (s + 1 < slabs) {
            a_next += SLAB;
            b_next += (size_t)SLAB * n;
            a_load = *(const float4 *)a_next;
            b_load = *(const float4 *)b_next;
        }

#pragma unroll
        for (int kk = 0; kk < SLAB; kk++) {
            const float4 a_lo = *(const float4 *)&a_slab[buffer][kk][ty * 4];
            const float4 a_hi = *(const float4 *)&a_slab[buffer][kk][64 + ty * 4];
            const float4 b_lo = *(const float4 *)&b_slab[buffer][kk][tx * 4];
            const float4 b_hi = *(const float4 *)&b_slab[buffer][kk][64 + tx * 4];
            const float a_reg[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float b_reg[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    sum[i][j] = fmaf(a_reg[i], b_reg[j], sum[i][j]);
        }
        /* No barrier needed here: the next step writes the other buffer,
         * and its barrier comes before anyone reads it. */
    }

    /* Rows i < 4 are ty*4 + i, rows i >= 4 are 64 + ty*4 + (i - 4); the
     * same for columns with tx. */
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = tile_row + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        float *c_row = c + (size_t)row * n + tile_col;
        *(float4 *)&c_row[tx * 4] = make_float4(sum[i][0], sum[i][1], sum[i][2], sum[i][3]);
        *(float4 *)&c_row[64 + tx * 4] = make_float4(sum[i][4], sum[i][5], sum[i][6], sum[i][7]);
    }
}

static float *device_copy_of(const float *host, size_t count)
{
    float *device = NULL;
    CHECK(cudaMalloc(&device, count * sizeof(float)));
    if (host)
        CHECK(cudaMemcpy(device, host, count * sizeof(float), cudaMemcpyHostToDevice));
    return device;
}

void matmul_register_tiled(const float *a, const float *b, float *c, int m, int k, int n)
{
    if (m <= 0 || n <= 0 || k <= 0 || m % TILE_ROWS || n % TILE_COLS || k % SLAB)
        kit_fail(__FILE__, __LINE__, "matmul_register_tiled needs m and n multiples of %d and k a multiple of %d "
                 "(got m = %d, k = %d, n = %d)", TILE_ROWS, SLAB, m, k, n);
    float *d_a = device_copy_of(a, (size_t)m * k);
    float *d_b = device_copy_of(b, (size_t)k * n);
    float *d_c = device_copy_of(NULL, (size_t)m * n);

    dim3 grid(n / TILE_COLS, m / TILE_ROWS);
    LAUNCH(matmul_register_tiled_kernel, grid, THREADS, 0, d_a, d_b, d_c, m, k, n);

    CHECK(cudaMemcpy(c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
}
