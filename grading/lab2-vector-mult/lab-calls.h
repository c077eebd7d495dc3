/* grading/lab2-vector-mult/lab-calls.h: lab 2's entry points as the grader calls them
 * (see lab2.h for what each does, calls.h for this notation). */
#include "lab2.h"

CALL_VOID(vector_mult, 4, (IN, const float, a, n), (IN, const float, b, n), (OUT, float, c, n), (VAL, int, n))
CALL_VOID(vector_mult_in_place, 4, (INOUT, float, a, n), (IN, const float, b, n), (VAL, int, n), (VAL, int, blocks))
CALL(float, dot_product, 4, (IN, const float, a, n), (IN, const float, b, n), (VAL, int, n),
     (OUT, lab2_phase_times, times, 1))
