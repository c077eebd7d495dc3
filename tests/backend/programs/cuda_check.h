/* cuda_check.h: CHECK(call) for the test programs that check CUDA calls:
 * a call that fails prints where and why, and the program exits 1. */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));        \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

#endif
