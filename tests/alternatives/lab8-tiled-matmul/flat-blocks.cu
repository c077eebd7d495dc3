// alternative: one-dimensional blocks and grid, the k loop counted in elements; other arithmetic for the shared bytes, the occupancy and the tile rule
// replaces: matmul.cu
/* matmul.cu: lab 8, tiled matrix multiply and occupancy.
 *
 * Read it top to bottom: the tile side in constant memory, the naive kernel
 * (provided), the tiled kernel (TODO 1 to 3), the shared memory it needs
 * (TODO 4), the host functions that launch both kernels (TODO 5), then the
 * occupancy of the tiled kernel (TODO 6 and 7) and the tile side that the
 * occupancy API suggests (TODO 8 and 9).  lab8.h says what each function
 * must do; the handout explains why.
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
    /* A flat block: thread i of the block owns row i / t, column i % t of its tile of C. */
    const int tx = threadIdx.x % t, ty = threadIdx.x / t;
    const int tiles_across = (n + t - 1) / t;
    const int row = (blockIdx.x / tiles_across) * t + ty;
    const int col = (blockIdx.x % tiles_across) * t + tx;
    float sum = 0.0f;

    for (int base = 0; base < k; base += t) {
        /* TODO 2: ... */
        a_tile[ty * t + tx] = (row < m && base + tx < k) ? a[row * k + base + tx] : 0.0f;
        b_tile[ty * t + tx] = (base + ty < k && col < n) ? b[(base + ty) * n + col] : 0.0f;
        __syncthreads();
        /* END TODO 2 */

        /* TODO 3: ... */
        for (int i = 0; i < t; i++)
            sum += a_tile[ty * t + i] * b_tile[i * t + tx];
        __syncthreads();
        /* END TODO 3 */
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}

size_t matmul_shared_bytes(int threads_per_block)
{
    /* TODO 4: the bytes of two tiles of threads_per_block floats each. */
    return sizeof(float[2]) * threads_per_block;
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

void matmul_tiled(const float *a, const float *b, float *c, int m, int k, int n, int tile)
{
    float *d_a = device_copy_of(a, (size_t)m * k);
    float *d_b = device_copy_of(b, (size_t)k * n);
    float *d_c = device_copy_of(NULL, (size_t)m * n);

    /* TODO 5: copy `tile` into tile_side with cudaMemcpyToSymbol, then
     * launch matmul_tiled_kernel with blocks of tile x tile threads, one
     * block per tile of C (x along its columns, y along its rows), and
     * matmul_shared_bytes(tile * tile) bytes of dynamic shared memory. */
    CHECK(cudaMemcpyToSymbol(tile_side, &tile, sizeof tile));
    int tiles_of_c = ((m + tile - 1) / tile) * ((n + tile - 1) / tile);
    LAUNCH(matmul_tiled_kernel, tiles_of_c, tile * tile, matmul_shared_bytes(tile * tile), d_a, d_b, d_c, m, k, n);
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
    /* TODO 6: read the device's limits (cudaGetDeviceProperties: warpSize,
     * maxThreadsPerMultiProcessor) and return the warps the resident
     * blocks occupy over the most warps one SM holds.  A block occupies
     * whole warps, even when its last warp is not full. */
    int device = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaGetDeviceProperties(&prop, device));
    int threads_rounded_to_warps = ((threads_per_block + prop.warpSize - 1) / prop.warpSize) * prop.warpSize;
    return (double)(blocks_per_sm * threads_rounded_to_warps) / prop.maxThreadsPerMultiProcessor;
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
    int tile = 0;
    for (int power = 0; power <= 15 && (1 << (2 * power)) <= threads_per_block; power++)
        tile = 1 << power;
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
