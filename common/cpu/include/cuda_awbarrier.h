/* cuda_awbarrier.h of the cpu backend: a refusal: libcu++ (cudaemu/no_libcudacxx.h). */
#include "cudaemu/no_libcudacxx.h"
