/* grading/lab9-many-gpus/lab-calls.h: lab 9's entry points as the grader calls them
 * (see lab9.h for what each does, calls.h for this notation). */
#include "lab9.h"

CALL_VOID(split_slices, 3, (VAL, int, n), (VAL, int, devices), (OUT, int, first, devices + 1))
CALL(int, dot_partials, 4, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n),
     (OUT, double, partials, LAB9_MAX_DEVICES))
CALL(double, dot_peer, 3, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n))
CALL(int, dot_nccl, 4, (IN, const float, x, n), (IN, const float, y, n), (VAL, int, n),
     (OUT, double, totals, LAB9_MAX_DEVICES))
CALL_VOID(ring_allreduce, 4, (INOUT, float, data, (long long)devices * count), (VAL, int, count), (VAL, int, devices),
          (VAL, int, steps))
CALL(int, ring_state_holds, 5, (IN, const float, original, (long long)devices * count),
     (IN, const float, state, (long long)devices * count), (VAL, int, count), (VAL, int, devices), (VAL, int, step))
CALL_VOID(nccl_allreduce, 3, (INOUT, float, data, (long long)devices * count), (VAL, int, count), (VAL, int, devices))
CALL(double, lab9_timed_ms, 0)
