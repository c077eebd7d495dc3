/* grading/lab7-coop-groups/lab-calls.h: lab 7's entry points as the grader calls them
 * (see lab7.h for what each does, calls.h for this notation). */
#include "lab7.h"

CALL(float, dot_block_sync, 4, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n), (VAL, int, block_size))
CALL(float, dot_tile_shuffle, 4, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n), (VAL, int, block_size))
CALL(float, dot_cg_reduce, 4, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n), (VAL, int, block_size))
CALL(float, dot_vectorized, 5, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n),
     (VAL, int, block_size), (VAL, int, offset))
CALL(float, dot_grid_sync, 4, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n), (VAL, int, block_size))
