/* host_defines.h of the cpu backend: one of the parts CUDA's cuda_runtime.h is made
 * of, which programs sometimes include by name; the backend's
 * cuda_runtime.h has what it declares. */
#include "cuda_runtime.h"
