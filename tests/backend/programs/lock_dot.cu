/* lock_dot.cu: the dot product with a lock, in the style of "CUDA by
 * Example": each block reduces its products in shared memory, then its
 * thread 0 takes a lock (atomicCAS on a flag in device memory), adds the
 * block's sum to the result and gives the lock back (atomicExch).  The lock
 * is a small class passed to the kernel by value; its constructor allocates
 * the flag and its destructor frees it, on the host.  Only the Lock that made
 * the flag frees it: the kernel's copy of the argument is destroyed on the
 * host (never in the kernel), and must leave the flag alone. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define THREADS 256
#define BLOCKS 32

static int locks_made, locks_freed; /* host bookkeeping, read at the end */

struct Lock {
    int *mutex;
    bool owner;
    Lock() : owner(true)
    {
        CHECK(cudaMalloc((void **)&mutex, sizeof(int)));
        CHECK(cudaMemset(mutex, 0, sizeof(int)));
        locks_made++;
    }
    Lock(const Lock &other) : mutex(other.mutex), owner(false) {}
    ~Lock()
    {
        if (owner) {
            CHECK(cudaFree(mutex));
            locks_freed++;
        }
    }
    __device__ void lock(void)
    {
        while (atomicCAS(mutex, 0, 1) != 0) {
        }
    }
    __device__ void unlock(void) { atomicExch(mutex, 0); }
};

__global__ void dot(Lock lock, const float *a, const float *b, int n, float *c)
{
    __shared__ float cache[THREADS];
    float sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += a[i] * b[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        lock.lock();
        *c += cache[0];
        lock.unlock();
    }
}

int main(void)
{
    const int n = 33 * 1024 + 5;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
    double expected = 0;
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i % 9 - 4);
        b[i] = (float)(i % 5);
        expected += (double)a[i] * b[i];
    }
    float *d_a, *d_b, *d_c, c = 0;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CHECK(cudaMalloc(&d_c, sizeof(float)));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, &c, sizeof c, cudaMemcpyHostToDevice));
    {
        Lock lock;
        dot<<<BLOCKS, THREADS>>>(lock, d_a, d_b, n, d_c);
        CHECK(cudaGetLastError());
        dot<<<BLOCKS, THREADS>>>(lock, d_b, d_a, n, d_c); /* the same lock again: it must still be there */
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&c, d_c, sizeof c, cudaMemcpyDeviceToHost));
    }
    printf("dot twice = %.0f, expected %.0f\n", c, 2 * expected);
    printf("locks made %d, freed %d\n", locks_made, locks_freed);
    bool right = c == 2 * expected && locks_made == 1 && locks_freed == 1;
    printf("%s\n", right ? "right" : "WRONG");
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    free(a), free(b);
    return right ? 0 : 1;
}
