/* grading/lab4-tournament/lab-calls.h: lab 4's entry points as the grader calls them
 * (see lab4.h for what each does, calls.h for this notation). */
#include "lab4.h"

CALL(int, tournament_sum_naive, 2, (IN, const int, a, n), (VAL, int, n))
CALL(int, tournament_sum_compact, 2, (IN, const int, a, n), (VAL, int, n))
CALL(int, tournament_invariant_holds, 4, (IN, const int, original, n), (IN, const int, state, n), (VAL, int, n),
     (VAL, int, round))
CALL(int, folding_sum_for_comparison, 2, (IN, const int, a, n), (VAL, int, n))
