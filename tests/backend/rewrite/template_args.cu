/* expect: runs
 * Template arguments containing '>' in a launch. */
#include <cuda_runtime.h>
#include <functional>
#include "check.h"

template <class Compare> __global__ void compare(int *o, int a, int b) { o[0] = Compare()(a, b); }
template <int N> __global__ void constant(int *o) { o[0] = N; }
template <class A, class B> struct pair_of {
    static constexpr int value = A::value * 10 + B::value;
};
template <int N> struct num {
    static constexpr int value = N;
};
template <class P> __global__ void nested(int *o) { o[0] = P::value; }

int main(void)
{
    int *d, h = -1;
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    compare<std::greater<int>><<<1, 1>>>(d, 2, 1);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 1, "std::greater<int>: %d", h);
    compare<std::less<int> ><<<1, 1>>>(d, 2, 1);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 0, "std::less<int>: %d", h);
    constant<(3 > 2) + 4><<<1, 1>>>(d);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 5, "(3 > 2) + 4: %d", h);
    nested<pair_of<num<(7 >> 1)>, num<4>>><<<dim3(1), dim3(1)>>>(d);
    EXPECT_OK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 34, "pair_of<num<(7 >> 1)>, num<4>>: %d", h);
    EXPECT_OK(cudaFree(d));
    return check_result();
}
