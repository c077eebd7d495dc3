/* curand_kernel.h of the cpu backend: a refusal: cuRAND is a CUDA library. */
#error "curand_kernel.h: cuRAND and CUDA's other libraries do not exist on the cpu backend; generate the numbers on the host (or with a hash of the thread's index), or run this program on a GPU"
