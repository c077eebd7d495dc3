/* grading/lab1-hello/lab-calls.h: lab 1's entry points as the grader calls them (see
 * lab1.h for what each does, calls.h for this notation). */
#include "lab1.h"

CALL_VOID(describe_device, 1, (OUT, lab1_device_info, info, 1))
CALL(int, hello, 2, (VAL, int, blocks), (VAL, int, threads_per_block))
/* out has room for one int per thread of the launch, whatever n is */
CALL_VOID(fill_global_indices, 4, (INOUT, int, out, (long long)grid.x * grid.y * grid.z * block.x * block.y * block.z),
          (VAL, int, n), (VAL, lab1_shape, grid), (VAL, lab1_shape, block))
