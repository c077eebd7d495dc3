/* cuda_runtime.h of the cpu backend: the CUDA runtime and device built-ins
 * the kit's emulation provides.  The build includes it in every .cu file,
 * as nvcc does; see common/cpu/README.md for what it covers and its limits. */
#ifndef CUDAEMU_CUDA_RUNTIME_H
#define CUDAEMU_CUDA_RUNTIME_H
/* CUDA's own guard for this header: helper headers such as the CUDA
 * samples' helper_cuda.h test it to decide what they define. */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif

#ifndef __cplusplus
#error "the cpu backend compiles CUDA sources as C++, as nvcc does"
#endif
#ifndef __CUDAEMU__
#define __CUDAEMU__ 1
/* Not set before: a host file (.cpp, as cucc compiles one) includes this
 * header, not a .cu, which the build compiles with __CUDAEMU__ set and
 * rewrites (rewrite.pl reads its qualifiers).  See the end. */
#define CUDAEMU_HOST_FILE 1
#endif

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudaemu/types.h"
#include "cudaemu/runtime_api.h"
#include "cudaemu/device.h"
#include "cudaemu/texture.h"
#include "cudaemu/launch.h"
#include "cudaemu/graph.h"

/* Qualifiers that change nothing on a CPU.  (__global__, __device__,
 * __host__, __constant__, __managed__ and __shared__ are handled by the
 * build's rewrite step, see common/cpu/rewrite.pl.) */
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

/* In a host file, CUDA's qualifiers are what nvcc's host compiler makes of
 * them there: nothing that changes the code (a __host__ __device__
 * function is a plain function; a __device__ or __global__ one is only
 * declared, as a header shared with the .cu files declares it). */
#ifdef CUDAEMU_HOST_FILE
#define __host__
#define __device__
#define __global__
#define __constant__
#endif

#endif /* CUDAEMU_CUDA_RUNTIME_H */
