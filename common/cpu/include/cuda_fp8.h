/* cuda_fp8.h of the cpu backend: a refusal: the 8-bit float types are not emulated. */
#error "cuda_fp8.h: the 8-bit float types (__nv_fp8_e4m3, __nv_fp8_e5m2) are not provided by the cpu backend; run this program on a GPU"
