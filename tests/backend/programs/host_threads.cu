/* host_threads.cu: several host threads use the GPU at once, in the style
 * of the vendor's samples that give each CPU thread its own stream and
 * buffers.  Four pthreads each allocate an array, launch a counting kernel
 * 200 times on a stream of their own, copy the array back and check that
 * every element was counted 200 times; a launch with a wrong configuration
 * in one thread is that thread's error only (cudaGetLastError is per host
 * thread). */
#include <pthread.h>
#include <stdio.h>

#include "cuda_check.h"

#define HOST_THREADS 4
#define N 4096
#define LAUNCHES 200

static __global__ void count(int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i]++;
}

struct work {
    int index, wrong;
};

static void *run(void *arg)
{
    struct work *w = (struct work *)arg;
    cudaStream_t stream;
    int *d, *h;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc((void **)&d, N * sizeof(int)));
    CHECK(cudaMallocHost((void **)&h, N * sizeof(int)));
    CHECK(cudaMemsetAsync(d, 0, N * sizeof(int), stream));
    for (int k = 0; k < LAUNCHES; k++) {
        count<<<(N + 255) / 256, 256, 0, stream>>>(d, N);
        if (w->index == 0 && k == LAUNCHES / 2) {
            count<<<1, 2048, 0, stream>>>(d, N); /* too many threads per block: refused */
            if (cudaGetLastError() != cudaErrorInvalidValue)
                w->wrong++;
        }
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++)
        w->wrong += h[i] != LAUNCHES;
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}

int main(void)
{
    pthread_t threads[HOST_THREADS];
    struct work works[HOST_THREADS];
    for (int t = 0; t < HOST_THREADS; t++) {
        works[t].index = t;
        works[t].wrong = 0;
        pthread_create(&threads[t], 0, run, &works[t]);
    }
    int wrong = 0;
    for (int t = 0; t < HOST_THREADS; t++) {
        pthread_join(threads[t], 0);
        wrong += works[t].wrong;
    }
    printf("%d host threads, %d launches each: %s\n", HOST_THREADS, LAUNCHES, wrong ? "WRONG" : "every count right");
    return wrong ? 1 : 0;
}
