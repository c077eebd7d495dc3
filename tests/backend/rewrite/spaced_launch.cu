/* expect: runs
 * Launches written with spaces inside the brackets, as some editors'
 * formatters write them (nvcc reads them): k << <g, b >> >(args), across
 * lines too; and the same token pairs where they are no launch: a friend
 * operator<< <>, nested template arguments closed by ">> >", shifts. */
#include <cuda_runtime.h>
#include <map>
#include <ostream>
#include <vector>
#include "check.h"

__global__ void twice(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * i;
}

template <typename T> struct box;
template <typename T> std::ostream &operator<<(std::ostream &os, const box<T> &b);
template <typename T> struct box {
    T v;
    friend std::ostream &operator<< <>(std::ostream &os, const box<T> &b);
};
template <typename T> std::ostream &operator<<(std::ostream &os, const box<T> &b) { return os << b.v; }

int main(void)
{
    int *d, h[8] = {0};
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    twice << <1, 8 >> >(d, 8);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[3] == 6 && h[7] == 14, "k << <1, 8 >> >: %d %d", h[3], h[7]);
    EXPECT_OK(cudaMemset(d, 0, sizeof h));
    twice<< <
        2, 4 >>
        >(d, 8);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[5] == 10, "across lines: %d", h[5]);
    std::map<int, std::vector<box<int>> > table;
    table[1].push_back(box<int>{3});
    int shifted = (1 << 4) >> 2;
    EXPECT(table[1][0].v == 3 && shifted == 4, "no launch: %d %d", table[1][0].v, shifted);
    EXPECT_OK(cudaFree(d));
    return check_result();
}
