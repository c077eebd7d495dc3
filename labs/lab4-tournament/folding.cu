/* folding.cu: lab 3's folding sum, complete and given, so that the lab 4
 * program can time it beside the two tournaments.  Nothing to do here.
 * (dist: compiled only: it is lab 3's answer, so a student copy holds its
 * object, prebuilt/<backend>/lab4-tournament/folding.o, not this source.) */
#include "kit.h"
#include "lab4.h"

#define FOLD_BLOCK 256

static __global__ void fold_round(int *a, int d, int pairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs)
        a[i] += a[i + d];
}

int folding_sum_for_comparison(const int *a, int n)
{
    size_t bytes = (size_t)n * sizeof(int);
    int *d_a = NULL;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    int top = 1;
    while (top < n)
        top *= 2;
    for (int d = top / 2; d >= 1; d /= 2) {
        int pairs = (n < 2 * d ? n : 2 * d) - d;
        LAUNCH(fold_round, (pairs + FOLD_BLOCK - 1) / FOLD_BLOCK, FOLD_BLOCK, 0, d_a, d, pairs);
    }
    int sum = 0;
    CHECK(cudaMemcpy(&sum, d_a, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    return sum;
}
