/* grading/lab6-shared-dot/lab-calls.h: lab 6's entry points as the grader calls them
 * (see lab6.h for what each does, calls.h for this notation). */
#include "lab6.h"

CALL(float, dot_sum_on_host, 3, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n))
CALL(int, dot_choose_blocks, 2, (VAL, int, n), (VAL, int, block_size))
CALL(float, dot_host_finish, 6, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n),
     (VAL, int, block_size), (VAL, int, blocks), (OUT, float, partials_out, blocks))
CALL(int, dot_partials_hold, 6, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n),
     (VAL, int, block_size), (VAL, int, blocks), (IN, const float, partials, blocks))
CALL(float, dot_device_finish, 5, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n),
     (VAL, int, block_size), (VAL, int, blocks))
