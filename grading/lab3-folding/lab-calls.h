/* grading/lab3-folding/lab-calls.h: lab 3's entry points as the grader calls them (see
 * lab3.h for what each does, calls.h for this notation). */
#include "lab3.h"

CALL(int, fold_sum, 2, (IN, const int, a, n), (VAL, int, n))
CALL(int, fold_invariant_holds, 4, (IN, const int, original, n), (IN, const int, state, n), (VAL, int, n),
     (VAL, int, round))
CALL_VOID(fold_unfold, 2, (INOUT, int, a, n), (VAL, int, n))
