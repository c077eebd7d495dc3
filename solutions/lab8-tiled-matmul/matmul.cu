/* matmul.cu: lab 8, tiled matrix multiply and occupancy.
 *
 * Read it top to bottom: the tile side in constant memory, the naive kernel
 * (provided), the tiled kernel (TODO 1 to 3), the shared memory it needs
 * (TODO 4), the host functions that launch both kernels (TODO 5), then the
 * occupancy of the tiled kernel (TODO 6 and 7) and the tile side that the
 * occupancy API suggests (TODO 8 and 9).  Going further, TODO 10: any
 * sizes.  lab8.h says what each function must do; the handout explains why.
 */
#include "kit.h"
#include "lab8.h"

/* The side of the square tiles, set by the host before each tiled launch.
 * Every thread reads the same value, which is what constant memory serves
 * best: one read, broadcast to the whole warp. */
static __constant__ int tile_side;

/* The naive kernel's blocks: 16 x 16 threads, x along the columns of C so
 * that neighbouring threads read neighbouring elements of B. */
#define NAIVE_SIDE 16

/* One thread per element C[row][col]: a dot product of row `row` of A with
 * column `col` of B, both read from global memory. */
static __global__ void matmul_naive_kernel(const float *a, const float *b, float *c, int m, int k, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
        sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
}

/* One block of t x t threads per t x t tile of C; thread (tx, ty) owns
 * C[row][col].  Step s of the loop brings two tiles into shared memory:
 *     the tile of A in the block's rows,    columns s*t .. s*t + t-1
 *     the tile of B in the block's columns, rows    s*t .. s*t + t-1
 * each thread loading one element of each, and then every thread reads
 * its row of the A tile and its column of the B tile from shared memory:
 * each element loaded from global memory is used t times. */
static __global__ void matmul_tiled_kernel(const float *a, const float *b, float *c, int m, int k, int n)
{
    extern __shared__ float tiles[]; /* one dynamic buffer, sized by the launch */
    const int t = tile_side;
    /* TODO 1: declare float pointers a_tile and b_tile into `tiles`: the
     * two tiles, t * t floats each, one after the other. */
    float *a_tile = tiles;
    float *b_tile = tiles + t * t;
    /* END TODO 1 */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * t + ty;
    const int col = blockIdx.x * t + tx;
    float sum = 0.0f;

    for (int step = 0; step * t < k; step++) {
        /* TODO 2: load this step's tile of A (the block's rows, the step's
         * columns) and of B (the step's rows, the block's columns), one
         * element of each per thread, at the thread's own place in the
         * tile (the tiles are row-major t x t arrays); no thread may read
         * a tile before the whole block has loaded it. */
        int a_col = step * t + tx;
        int b_row = step * t + ty;
        /* Going further: an element outside A or B loads as 0, which adds
         * nothing to any sum, so sides need not be multiples of t. */
        a_tile[ty * t + tx] = (row < m && a_col < k) ? a[row * k + a_col] : 0.0f;
        b_tile[ty * t + tx] = (b_row < k && col < n) ? b[b_row * n + col] : 0.0f;
        __syncthreads();
        /* END TODO 2 */

        /* TODO 3: add this step's part of the thread's element of C to sum
         * (its row of the A tile times its column of the B tile); the next
         * step overwrites the tiles, so no thread may go on before the whole
         * block has finished reading them. */
        const float *a_row = a_tile + ty * t; /* row ty of the A tile */
        const float *b_col = b_tile + tx;     /* column tx of the B tile: t floats apart */
        for (int i = 0; i < t; i++)
            sum += a_row[i] * b_col[i * t];
        __syncthreads();
        /* END TODO 3 */
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}

size_t matmul_shared_bytes(int threads_per_block)
{
    /* TODO 4: the bytes of two tiles of threads_per_block floats each. */
    return 2 * (size_t)threads_per_block * sizeof(float);
    /* END TODO 4 */
}

/* ---- The host side: copies in, one launch, the copy out ----------------- */

/* A new device array of `count` floats, filled from `host` unless NULL. */
static float *device_copy_of(const float *host, size_t count)
{
    float *device = NULL;
    CHECK(cudaMalloc(&device, count * sizeof(float)));
    if (host)
        CHECK(cudaMemcpy(device, host, count * sizeof(float), cudaMemcpyHostToDevice));
    return device;
}

void matmul_naive(const float *a, const float *b, float *c, int m, int k, int n)
{
    float *d_a = device_copy_of(a, (size_t)m * k);
    float *d_b = device_copy_of(b, (size_t)k * n);
    float *d_c = device_copy_of(NULL, (size_t)m * n);

    dim3 block(NAIVE_SIDE, NAIVE_SIDE);
    dim3 grid((n + NAIVE_SIDE - 1) / NAIVE_SIDE, (m + NAIVE_SIDE - 1) / NAIVE_SIDE);
    LAUNCH(matmul_naive_kernel, grid, block, 0, d_a, d_b, d_c, m, k, n);

    CHECK(cudaMemcpy(c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
}

static void any_size_attempted(void); /* going further, TODO 10 (at the end of the file) */

void matmul_tiled(const float *a, const float *b, float *c, int m, int k, int n, int tile)
{
    if (m % tile || k % tile || n % tile)
        any_size_attempted();
    float *d_a = device_copy_of(a, (size_t)m * k);
    float *d_b = device_copy_of(b, (size_t)k * n);
    float *d_c = device_copy_of(NULL, (size_t)m * n);

    /* TODO 5: copy `tile` into tile_side with cudaMemcpyToSymbol, then
     * launch matmul_tiled_kernel with blocks of tile x tile threads, one
     * block per tile of C (x along its columns, y along its rows), and
     * matmul_shared_bytes(tile * tile) bytes of dynamic shared memory. */
    CHECK(cudaMemcpyToSymbol(tile_side, &tile, sizeof tile));
    dim3 block(tile, tile);
    dim3 grid((n + tile - 1) / tile, (m + tile - 1) / tile);
    LAUNCH(matmul_tiled_kernel, grid, block, matmul_shared_bytes(tile * tile), d_a, d_b, d_c, m, k, n);
    /* END TODO 5 */

    CHECK(cudaMemcpy(c, d_c, (size_t)m * n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
}

/* ---- Occupancy ---------------------------------------------------------- */

int matmul_kernel_registers(void)
{
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, matmul_tiled_kernel));
    return attributes.numRegs;
}

double occupancy_from_blocks(int blocks_per_sm, int threads_per_block)
{
    /* TODO 6: read the device's limits, the warp size and the most threads
     * one SM holds (cudaDeviceGetAttribute with cudaDevAttrWarpSize and
     * cudaDevAttrMaxThreadsPerMultiProcessor, or the fields warpSize and
     * maxThreadsPerMultiProcessor of cudaGetDeviceProperties, which is
     * slower), and return the warps the resident blocks occupy over the
     * most warps one SM holds.  A block occupies whole warps, even when its
     * last warp is not full. */
    int device = 0, warp_size = 0, threads_per_sm = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, device));
    CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    int warps_per_block = (threads_per_block + warp_size - 1) / warp_size;
    int warps_per_sm = threads_per_sm / warp_size;
    return (double)blocks_per_sm * warps_per_block / warps_per_sm;
    /* END TODO 6 */
}

double matmul_occupancy(int tile)
{
    /* TODO 7: ask cudaOccupancyMaxActiveBlocksPerMultiprocessor how many
     * blocks of matmul_tiled_kernel fit on one SM (tile * tile threads,
     * matmul_shared_bytes of them), and turn that into an occupancy. */
    int threads = tile * tile;
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, matmul_tiled_kernel, threads,
                                                        matmul_shared_bytes(threads)));
    return occupancy_from_blocks(blocks, threads);
    /* END TODO 7 */
}

/* ---- The block size the occupancy API suggests --------------------------- */

int tile_for_block_size(int threads_per_block)
{
    /* TODO 8: the largest power of two t with t * t <= threads_per_block
     * (that is, the square root of the largest power of four not above
     * it), or 0 when there is none.  A loop on whole numbers is the
     * simplest way: no logarithm, no rounding to think about. */
    if (threads_per_block < 1)
        return 0;
    int tile = 1;
    while (4 * tile * tile <= threads_per_block) /* (2 tile)^2 fits too */
        tile *= 2;
    return tile;
    /* END TODO 8 */
}

int matmul_choose_tile(void)
{
    /* TODO 9: call cudaOccupancyMaxPotentialBlockSizeVariableSMem for
     * matmul_tiled_kernel, passing matmul_shared_bytes so that it knows
     * the shared memory of every block size it tries, and return the tile
     * side tile_for_block_size gives for the block size it suggests. */
    int min_grid_size = 0, block_size = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid_size, &block_size, matmul_tiled_kernel,
                                                         matmul_shared_bytes, 0));
    return tile_for_block_size(block_size);
    /* END TODO 9 */
}

/* ---- Going further: any sizes -------------------------------------------- */

/* matmul_tiled calls this for sides that are not multiples of the tile. */
static void any_size_attempted(void)
{
    /* TODO 10 (going further): make matmul_tiled_kernel right for any m,
     * k and n (the handout's "Any size"), then delete the line below: until
     * then the grader skips its any-size item, and the lab program says
     * the results of such sizes are not meant to be right yet. */
    /* attempted: matmul_tiled_kernel reads 0 past the edges of A and B */
    /* END TODO 10 */
}
