/* mma.h of the cpu backend: a refusal: tensor cores' warp matrix functions (WMMA) are not emulated. */
#error "mma.h: the warp matrix functions (wmma::fragment, mma_sync) of tensor cores are not provided by the cpu backend; multiply with ordinary arithmetic (shared-memory tiles), or run this program on a GPU"
