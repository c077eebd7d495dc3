/* nvrtc.h of the cpu backend: a refusal: run-time compilation needs a GPU. */
#error "nvrtc.h: NVRTC (compiling CUDA at run time) is not provided by the cpu backend; compile the kernels with cucc, or run this program on a GPU"
