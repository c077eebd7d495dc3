/* streams_overlap.cu: overlapping copies and kernels on two streams, in the
 * style of the textbooks' "double stream" example: the input is cut into
 * chunks, and for each chunk one stream copies it in (cudaMemcpyAsync from
 * pinned memory), runs the kernel and copies the result out, the two streams
 * taking chunks in turn.  A last kernel on stream 1 waits for an event that
 * stream 0 records, and the host waits on events.  Every value is checked. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"


#define N (1 << 16)        /* elements per chunk */
#define CHUNKS 8

/* c[i] = the average of a around i, plus b[i] */
__global__ void smooth_add(const int *a, const int *b, int *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        int left = i > 0 ? a[i - 1] : a[i], right = i < N - 1 ? a[i + 1] : a[i];
        c[i] = (left + a[i] + right) / 3 + b[i];
    }
}

/* sum of the first chunk's results, after stream 0 has made them */
__global__ void sum_first(const int *c, long long *sum)
{
    __shared__ long long partial[256];
    long long s = 0;
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        s += c[i];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *sum = partial[0];
}

static int expected_at(const int *a, const int *b, long chunk_start, int i)
{
    const int *ca = a + chunk_start;
    int left = i > 0 ? ca[i - 1] : ca[i], right = i < N - 1 ? ca[i + 1] : ca[i];
    return (left + ca[i] + right) / 3 + b[chunk_start + i];
}

int main(void)
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("copy engines beside the kernels: %s\n", prop.asyncEngineCount > 0 ? "yes" : "no");

    int *a, *b, *c;
    long total = (long)N * CHUNKS;
    CHECK(cudaHostAlloc((void **)&a, total * sizeof(int), cudaHostAllocDefault));
    CHECK(cudaHostAlloc((void **)&b, total * sizeof(int), cudaHostAllocDefault));
    CHECK(cudaHostAlloc((void **)&c, total * sizeof(int), cudaHostAllocDefault));
    for (long i = 0; i < total; i++) {
        a[i] = (int)(i % 1000) - 500;
        b[i] = (int)(i % 17);
    }

    cudaStream_t stream[2];
    int *d_a[2], *d_b[2], *d_c[2];
    for (int s = 0; s < 2; s++) {
        CHECK(cudaStreamCreate(&stream[s]));
        CHECK(cudaMalloc(&d_a[s], N * sizeof(int)));
        CHECK(cudaMalloc(&d_b[s], N * sizeof(int)));
        CHECK(cudaMalloc(&d_c[s], N * sizeof(int)));
    }
    long long *d_sum, first_sum = 0;
    int *d_first;
    CHECK(cudaMalloc(&d_sum, sizeof first_sum));
    CHECK(cudaMalloc(&d_first, N * sizeof(int)));

    cudaEvent_t start, stop, first_done;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&first_done, cudaEventDisableTiming));
    CHECK(cudaEventRecord(start, stream[0]));

    for (int chunk = 0; chunk < CHUNKS; chunk++) {
        int s = chunk % 2;
        long at = (long)chunk * N;
        CHECK(cudaMemcpyAsync(d_a[s], a + at, N * sizeof(int), cudaMemcpyHostToDevice, stream[s]));
        CHECK(cudaMemcpyAsync(d_b[s], b + at, N * sizeof(int), cudaMemcpyHostToDevice, stream[s]));
        smooth_add<<<N / 256, 256, 0, stream[s]>>>(d_a[s], d_b[s], d_c[s]);
        CHECK(cudaMemcpyAsync(c + at, d_c[s], N * sizeof(int), cudaMemcpyDeviceToHost, stream[s]));
        if (chunk == 0) {
            /* keep chunk 0's results for stream 1's last kernel before d_c[0] is reused */
            CHECK(cudaMemcpyAsync(d_first, d_c[0], N * sizeof(int), cudaMemcpyDeviceToDevice, stream[0]));
            CHECK(cudaEventRecord(first_done, stream[0]));
        }
    }
    CHECK(cudaStreamWaitEvent(stream[1], first_done, 0));
    sum_first<<<1, 256, 0, stream[1]>>>(d_first, d_sum);
    CHECK(cudaMemcpyAsync(&first_sum, d_sum, sizeof first_sum, cudaMemcpyDeviceToHost, stream[1]));

    CHECK(cudaEventRecord(stop, stream[0]));
    CHECK(cudaStreamSynchronize(stream[1]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaStreamQuery(stream[0]));
    CHECK(cudaStreamQuery(stream[1]));

    long wrong = 0;
    long long want_first = 0;
    for (int chunk = 0; chunk < CHUNKS; chunk++)
        for (int i = 0; i < N; i++) {
            int want = expected_at(a, b, (long)chunk * N, i);
            wrong += c[(long)chunk * N + i] != want;
            if (chunk == 0)
                want_first += want;
        }
    printf("c[0] = %d, c[%d] = %d, c[%ld] = %d\n", c[0], N + 5, c[N + 5], total - 1, c[total - 1]);
    printf("%d chunks on 2 streams: %ld of %ld values wrong\n", CHUNKS, wrong, total);
    printf("sum of chunk 0 after the event: %lld, expected %lld\n", first_sum, want_first);
    printf("elapsed time measured: %s\n", ms >= 0 ? "yes" : "no");
    bool right = wrong == 0 && first_sum == want_first && ms >= 0;
    printf("%s\n", right ? "right" : "WRONG");

    for (int s = 0; s < 2; s++) {
        CHECK(cudaStreamDestroy(stream[s]));
        CHECK(cudaFree(d_a[s]));
        CHECK(cudaFree(d_b[s]));
        CHECK(cudaFree(d_c[s]));
    }
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_first));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(first_done));
    CHECK(cudaFreeHost(a));
    CHECK(cudaFreeHost(b));
    CHECK(cudaFreeHost(c));
    return right ? 0 : 1;
}
