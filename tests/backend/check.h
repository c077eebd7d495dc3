/* check.h: the backend tests' one assertion.  EXPECT(cond, ...) prints
 * what went wrong and makes the program exit 1 at the end. */
#ifndef BACKEND_CHECK_H
#define BACKEND_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                \
            fprintf(stderr, "\n");                                                       \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)
#define EXPECT_OK(call) EXPECT((call) == cudaSuccess, "%s", cudaGetErrorString(cudaGetLastError()))
static inline int check_result(void)
{
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}
#endif
