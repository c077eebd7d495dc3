/* cuda_gl_interop.h of the cpu backend: a refusal: OpenGL interoperation needs a GPU. */
#error "cuda_gl_interop.h: OpenGL interoperation is not provided by the cpu backend; run this program on a GPU"
