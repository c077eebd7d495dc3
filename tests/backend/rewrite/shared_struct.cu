/* expect: runs
 * __shared__ variables whose type is defined in the declaration. */
#include <cuda_runtime.h>
#include "check.h"

__global__ void unnamed(float *o)
{
    __shared__ struct { int a; float b; } s;
    __shared__ struct { double x, y; } pts[4], one;
    if (threadIdx.x == 0) {
        s.a = 3;
        s.b = 1.5f;
        one.x = 2;
    }
    pts[threadIdx.x].y = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = s.a * s.b + (float)(pts[3 - threadIdx.x].y * one.x);
}

__global__ void named(int *o)
{
    __shared__ struct pair {
        int first;
        int second;
    } p[4];
    __shared__ union {
        float f;
        unsigned u;
    } bits;
    p[threadIdx.x].first = (int)threadIdx.x;
    if (threadIdx.x == 0)
        bits.f = 1.0f;
    __syncthreads();
    pair q = p[3 - threadIdx.x];
    o[threadIdx.x] = q.first + (bits.u == 0x3F800000u ? 100 : 0);
}

/* a comment of more than 8 lines inside the declaration: g++ -E puts a
 * line marker there */
__global__ void long_comment(int *o)
{
    __shared__ struct {
        int a;
        /* a comment
         * of more
         * than
         * eight
         * lines
         * in
         * a
         * type */
        int b;
    } s;
    s.a = 1;
    s.b = __LINE__;
    o[0] = s.a + s.b;
}

template <class T> __global__ void templated(T *o)
{
    __shared__ struct { T v[4]; } box;
    box.v[threadIdx.x] = (T)threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = box.v[3 - threadIdx.x];
}

int main(void)
{
    cudaFuncAttributes attr;
    EXPECT_OK(cudaFuncGetAttributes(&attr, unnamed));
    EXPECT(attr.sharedSizeBytes >= 8 + 5 * 16, "unnamed: sharedSizeBytes %zu before the launch", attr.sharedSizeBytes);
    float *d, h[4];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    unnamed<<<1, 4>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 4.5f + 6 && h[3] == 4.5f, "unnamed: %g %g", h[0], h[3]);
    int *di, hi[4];
    EXPECT_OK(cudaMalloc(&di, sizeof hi));
    named<<<1, 4>>>(di);
    EXPECT_OK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    EXPECT(hi[0] == 103 && hi[3] == 100, "named: %d %d", hi[0], hi[3]);
    EXPECT_OK(cudaFuncGetAttributes(&attr, named));
    EXPECT(attr.sharedSizeBytes >= 32 + 4, "named: sharedSizeBytes %zu after the launch", attr.sharedSizeBytes);
    long_comment<<<1, 1>>>(di);
    EXPECT_OK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    EXPECT(hi[0] == 1 + 55, "long_comment: %d (the line of its __LINE__ is 55)", hi[0]);
    templated<<<1, 4>>>(di);
    EXPECT_OK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    EXPECT(hi[0] == 3 && hi[3] == 0, "templated: %d %d", hi[0], hi[3]);
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFree(di));
    return check_result();
}
