/* params.cu: a kernel's by-value parameters are copied once per launch, as
 * on a GPU: the host makes (and destroys) one copy of each argument for
 * <<<...>>>, none for cudaLaunchKernel, and the threads get bitwise copies,
 * so no constructor or destructor of a parameter runs inside the kernel.
 * Parameters of 32 KB, CUDA's limit, fit in each thread's stack. */
#include "check.h"

static int destructions, copies;

/* The lock of a textbook dot product: its destructor frees the mutex.  Run
 * once per emulated thread, it freed the mutex under the other threads. */
struct Lock {
    int *mutex;
    Lock(void)
    {
        cudaMalloc(&mutex, sizeof(int));
        cudaMemset(mutex, 0, sizeof(int));
    }
    Lock(const Lock &other) : mutex(other.mutex) { copies++; }
    ~Lock(void)
    {
        destructions++;
        cudaFree(mutex); /* the second time, on the original, an error that nobody reads (as on a GPU) */
    }
    __device__ void lock(void)
    {
        while (atomicCAS(mutex, 0, 1) != 0) {}
    }
    __device__ void unlock(void) { atomicExch(mutex, 0); }
};

enum { THREADS = 256, BLOCKS = 8, N = 33 * 1024 };

static __global__ void dot(Lock lock, const float *a, const float *b, float *c)
{
    __shared__ float cache[THREADS];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    float temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[threadIdx.x] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if ((int)threadIdx.x < i)
            cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        lock.lock();
        *c += cache[0];
        lock.unlock();
    }
}

/* A parameter the kernel changes: each thread changes its own copy. */
struct Counter {
    int n;
    ~Counter(void) { destructions++; }
};
static __global__ void bump(Counter counter, int *out)
{
    counter.n += (int)threadIdx.x;
    out[threadIdx.x] = counter.n;
}

/* CUDA 12.1's largest parameter list, 32764 bytes: a plain struct the
 * threads change (their own copies) and hand on by value.  The parameters
 * live in each thread's stack here, which grows to hold them. */
struct Big {
    int v[8190];
};
static __device__ int sum_of(Big b)
{
    int s = 0;
    for (int i = 0; i < 8190; i++)
        s += b.v[i];
    return s;
}
/* A type that may be copied but not moved: the x86-64 ABI passes it by
 * value (a deleted constructor counts as trivial there), not by address. */
struct copy_only {
    int offset;
    copy_only(int o) : offset(o) {}
    copy_only(const copy_only &) = default;
    copy_only(copy_only &&) = delete;
};
static __global__ void add_offset(copy_only c, int *out) { out[threadIdx.x] = (int)threadIdx.x + c.offset; }

static __global__ void sum_big(Big big, int *out)
{
    big.v[threadIdx.x] += 1000;
    out[threadIdx.x] = sum_of(big);
}

int main(void)
{
    float *a, *b, *c;
    EXPECT_OK(cudaMallocManaged(&a, N * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&b, N * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&c, sizeof(float)));
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 7);
        b[i] = 2.0f;
    }
    double want = 0;
    for (int i = 0; i < N; i++)
        want += a[i] * b[i];
    *c = 0;
    {
        Lock lock;
        dot<<<BLOCKS, THREADS>>>(lock, a, b, c);
        EXPECT_OK(cudaDeviceSynchronize());
        /* nvcc's host stub copies the lock once and destroys that copy */
        EXPECT(copies == 1 && destructions == 1, "one launch: %d copies and %d destructions of the lock, not 1 and 1",
               copies, destructions);
        EXPECT(*c == (float)want, "dot product %g, not %g", *c, want);
    }
    EXPECT(destructions == 2, "%d destructions after the lock's scope, not 2", destructions);
    cudaGetLastError(); /* the original's cudaFree of the freed mutex */

    int *out;
    EXPECT_OK(cudaMallocManaged(&out, 64 * sizeof(int)));
    destructions = 0;
    {
        Counter counter = {100};
        bump<<<1, 64>>>(counter, out);
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(destructions == 1, "<<<>>>: %d destructions of the counter, not 1", destructions);
        for (int t = 0; t < 64; t++)
            EXPECT(out[t] == 100 + t, "thread %d saw %d, not %d: another thread's change leaked in", t, out[t], 100 + t);
        /* cudaLaunchKernel copies the bytes it is given, as a GPU does: no copy at all on the host */
        void *args[] = {&counter, &out};
        EXPECT_OK(cudaLaunchKernel(bump, dim3(1), dim3(64), args));
        EXPECT_OK(cudaLaunchKernel((const void *)bump, dim3(1), dim3(64), args));
        EXPECT_OK(cudaDeviceSynchronize());
        EXPECT(destructions == 1, "cudaLaunchKernel: %d destructions of the counter, not still 1", destructions);
        EXPECT(counter.n == 100 && out[63] == 163, "counter %d, out[63] %d", counter.n, out[63]);
    }
    EXPECT(destructions == 2, "%d destructions after the counter's scope, not 2", destructions);

    const copy_only copied(1000);
    add_offset<<<1, 64>>>(copied, out);
    EXPECT_OK(cudaDeviceSynchronize());
    for (int t = 0; t < 64; t++)
        EXPECT(out[t] == 1000 + t, "copy-only parameter: thread %d got %d, not %d", t, out[t], 1000 + t);

    static Big big;
    for (int i = 0; i < 8190; i++)
        big.v[i] = i % 3;
    int base = 0;
    for (int i = 0; i < 8190; i++)
        base += big.v[i];
    sum_big<<<2, 64>>>(big, out);
    EXPECT_OK(cudaDeviceSynchronize());
    for (int t = 0; t < 64; t++)
        EXPECT(out[t] == base + 1000, "32 KB parameter: thread %d summed %d, not %d", t, out[t], base + 1000);
    EXPECT_OK(cudaFree(a));
    EXPECT_OK(cudaFree(b));
    EXPECT_OK(cudaFree(c));
    EXPECT_OK(cudaFree(out));
    return check_result();
}
