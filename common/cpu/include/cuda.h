/* cuda.h of the cpu backend: everything is in cuda_runtime.h. */
#include "cuda_runtime.h"
