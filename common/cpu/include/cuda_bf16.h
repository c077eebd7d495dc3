/* cuda_bf16.h of the cpu backend: a refusal: the bfloat16 type is not emulated. */
#error "cuda_bf16.h: the bfloat16 type (__nv_bfloat16) is not provided by the cpu backend; use float or cuda_fp16.h's half, or run this program on a GPU"
