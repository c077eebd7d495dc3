/* cuda_awbarrier.h: not provided by the cpu backend (cudaemu/no_libcudacxx.h). */
#include "cudaemu/no_libcudacxx.h"
