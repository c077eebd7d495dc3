/* dot_kernel.h: the kernels lab 9 is given, each started on a stream of the
 * CURRENT device (the one cudaSetDevice chose last in this thread).  You do
 * not edit this file or dot_kernel.cu: lab 9 is about the devices, not the
 * kernels.
 *
 * Each call is a launch like LAUNCH's (recorded, checked at your line's
 * caller, never waited for), but on `stream` instead of the default stream,
 * so that each device's work stays in that device's own stream.  Every
 * pointer must be memory of the current device.  A count of 0 is allowed
 * (the kernel still runs, and adds nothing). */
#ifndef DOT_KERNEL_H
#define DOT_KERNEL_H

#include <cuda_runtime.h>

/* *result += the dot product of x and y (n floats), lab 7's kernel: each
 * thread adds its elements in a double, each block adds up its threads'
 * sums and adds its total to *result with ONE atomicAdd.  Set *result to 0
 * first (cudaMemsetAsync on the same stream). */
void launch_dot(const float *x, const float *y, int n, double *result, cudaStream_t stream);

/* *total = values[0] + ... + values[count - 1] (count <= 1024), in that order. */
void launch_add_doubles(const double *values, int count, double *total, cudaStream_t stream);

/* into[i] += from[i] for i < count: the reduce-scatter's sum of a chunk received. */
void launch_add_floats(float *into, const float *from, int count, cudaStream_t stream);

#endif /* DOT_KERNEL_H */
