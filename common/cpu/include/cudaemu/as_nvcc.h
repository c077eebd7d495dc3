/* cudaemu/as_nvcc.h: what nvcc defines when it compiles a .cu file, forced
 * in before the file's text where the cpu backend preprocesses one (cpu.mk's
 * cu_compile, cucc): a program's `#ifndef __CUDACC__` host stand-ins
 * (helper_math.h's min, max and rsqrtf) would clash with the backend's own.
 * The version is the one cudaRuntimeGetVersion gives (CUDART_VERSION, which
 * cuda_runtime.h, forced in next, defines before any use of these). */
#ifndef CUDAEMU_AS_NVCC_H
#define CUDAEMU_AS_NVCC_H
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ (CUDART_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDART_VERSION % 1000 / 10)
#define __CUDACC_VER_BUILD__ 0
#endif
