/* grading/lab8-tiled-matmul/lab-calls.h: lab 8's entry points as the grader calls them
 * (see lab8.h for what each does, calls.h for this notation). */
#include "lab8.h"

CALL_VOID(matmul_naive, 6, (IN, const float, a, (long long)m * k), (IN, const float, b, (long long)k * n),
          (OUT, float, c, (long long)m * n), (VAL, int, m), (VAL, int, k), (VAL, int, n))
CALL_VOID(matmul_tiled, 7, (IN, const float, a, (long long)m * k), (IN, const float, b, (long long)k * n),
          (OUT, float, c, (long long)m * n), (VAL, int, m), (VAL, int, k), (VAL, int, n), (VAL, int, tile))
CALL(size_t, matmul_shared_bytes, 1, (VAL, int, threads_per_block))
CALL(int, matmul_kernel_registers, 0)
CALL(double, occupancy_from_blocks, 2, (VAL, int, blocks_per_sm), (VAL, int, threads_per_block))
CALL(double, matmul_occupancy, 1, (VAL, int, tile))
CALL(int, tile_for_block_size, 1, (VAL, int, threads_per_block))
CALL(int, matmul_choose_tile, 0)
