/* shared.cu: shared memory (static, dynamic, at function and file scope,
 * poisoned at block start), the barrier family, atomics and kernel printf. */
#include "check.h"

extern __shared__ int file_scope_dynamic[];

static __global__ void tree_sum(const int *in, int *out)
{
    __shared__ int cache[2][128];
    int t = threadIdx.x;
    cache[1][t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s)
            cache[1][t] += cache[1][t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = cache[1][0];
}

static __global__ void read_unwritten(unsigned *out)
{
    __shared__ unsigned never_written[64];
    __shared__ float written;
    if (threadIdx.x == 0)
        written = 1.0f;
    __syncthreads();
    out[threadIdx.x] = never_written[threadIdx.x];
}

static __global__ void dynamic_two_ways(int *out)
{
    extern __shared__ int local_dynamic[];
    local_dynamic[threadIdx.x] = threadIdx.x * 2;
    __syncthreads();
    out[threadIdx.x] = file_scope_dynamic[blockDim.x - 1 - threadIdx.x];
}

static __global__ void barrier_family(int *out)
{
    int t = threadIdx.x, *o = out + 5 * t; /* every thread's results, each in its own place */
    o[0] = __syncthreads_count(t % 3 == 0);
    o[1] = __syncthreads_and(t < 1000);
    o[2] = __syncthreads_and(t != 17);
    o[3] = __syncthreads_or(t == 99);
    o[4] = __syncthreads_or(t > 5000);
}

static __global__ void atomics(int *i, unsigned *u, float *f, double *d, unsigned long long *ull)
{
    atomicAdd(&i[0], 1);
    atomicSub(&i[1], 2);
    atomicMax(&i[2], (int)threadIdx.x);
    atomicMin(&i[3], -(int)threadIdx.x);
    atomicAdd(&u[0], 3u);
    atomicInc(&u[1], 9u);
    atomicCAS(&u[2], threadIdx.x, threadIdx.x + 1); /* ends at blockDim.x in forward order */
    atomicOr(&u[3], 1u << (threadIdx.x % 32));
    atomicAdd(f, 0.5f);
    atomicAdd(d, 0.25);
    atomicAdd(ull, 1ull << 33);
    if (threadIdx.x == 0)
        atomicExch(&i[4], 42);
}

static __global__ void say_hello(void) { printf("hello from thread %d of block %d\n", threadIdx.x, blockIdx.x); }

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "printf")) {
        say_hello<<<2, 2>>>();
        printf("before the synchronisation\n");
        cudaDeviceSynchronize();
        say_hello<<<1, 1>>>(); /* never synchronised: never shown, as on a GPU */
        return 0;
    }
    int n = 4 * 128, *h = (int *)malloc(n * sizeof(int)), *d_in, *d_out, out[16];
    for (int i = 0; i < n; i++)
        h[i] = i % 7;
    EXPECT_OK(cudaMalloc(&d_in, n * sizeof(int)));
    EXPECT_OK(cudaMalloc(&d_out, 1024 * sizeof(int)));
    EXPECT_OK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));
    const char *orders[] = {"fwd", "rev", "rand:1", "rand:2"};
    for (int o = 0; o < 4; o++) {
        cudaemuSetSchedule(orders[o]);
        tree_sum<<<4, 128>>>(d_in, d_out);
        EXPECT_OK(cudaMemcpy(out, d_out, 4 * sizeof(int), cudaMemcpyDeviceToHost));
        for (int b = 0; b < 4; b++) {
            int want = 0;
            for (int i = 0; i < 128; i++)
                want += h[b * 128 + i];
            EXPECT(out[b] == want, "%s: block %d sum %d, want %d", orders[o], b, out[b], want);
        }
    }
    cudaemuSetSchedule("fwd");

    unsigned poison[64];
    read_unwritten<<<1, 64>>>((unsigned *)d_out);
    EXPECT_OK(cudaMemcpy(poison, d_out, sizeof poison, cudaMemcpyDeviceToHost));
    EXPECT(poison[0] == 0xFFFFFFFFu && poison[63] == 0xFFFFFFFFu, "unwritten shared memory reads 0x%08x", poison[0]);

    dynamic_two_ways<<<1, 32, 32 * sizeof(int)>>>(d_out);
    EXPECT_OK(cudaMemcpy(out, d_out, 4 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(out[0] == 62 && out[3] == 56, "dynamic shared memory: %d %d", out[0], out[3]);

    int family[5 * 100];
    barrier_family<<<1, 100>>>(d_out);
    EXPECT_OK(cudaMemcpy(family, d_out, sizeof family, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 100; t++) {
        const int *o = family + 5 * t;
        EXPECT(o[0] == 34 && o[1] == 1 && o[2] == 0 && o[3] == 1 && o[4] == 0,
               "thread %d: count/and/or: %d %d %d %d %d", t, o[0], o[1], o[2], o[3], o[4]);
    }

    int hi[5] = {0, 0, -5, 5, 0};
    unsigned hu[4] = {0, 0, 0, 0};
    float hf = 0;
    double hd = 0;
    unsigned long long hull = 0;
    int *di;
    unsigned *du;
    float *df;
    double *dd;
    unsigned long long *dull;
    EXPECT_OK(cudaMalloc(&di, sizeof hi));
    EXPECT_OK(cudaMalloc(&du, sizeof hu));
    EXPECT_OK(cudaMalloc(&df, sizeof hf));
    EXPECT_OK(cudaMalloc(&dd, sizeof hd));
    EXPECT_OK(cudaMalloc(&dull, sizeof hull));
    EXPECT_OK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(du, hu, sizeof hu, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(df, &hf, sizeof hf, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(dd, &hd, sizeof hd, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(dull, &hull, sizeof hull, cudaMemcpyHostToDevice));
    atomics<<<1, 64>>>(di, du, df, dd, dull);
    EXPECT_OK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(hu, du, sizeof hu, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(&hf, df, sizeof hf, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(&hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(&hull, dull, sizeof hull, cudaMemcpyDeviceToHost));
    EXPECT(hi[0] == 64 && hi[1] == -128 && hi[2] == 63 && hi[3] == -63 && hi[4] == 42, "int atomics: %d %d %d %d %d",
           hi[0], hi[1], hi[2], hi[3], hi[4]);
    EXPECT(hu[0] == 192 && hu[1] == 64 % 10 && hu[2] == 64 && hu[3] == 0xFFFFFFFFu, "unsigned atomics: %u %u %u %x",
           hu[0], hu[1], hu[2], hu[3]);
    EXPECT(hf == 32.0f && hd == 16.0 && hull == 64ull << 33, "float/double/ull atomics: %f %f %llu", hf, hd, hull);

    cudaFree(di), cudaFree(du), cudaFree(df), cudaFree(dd), cudaFree(dull), cudaFree(d_in), cudaFree(d_out);
    free(h);
    return check_result();
}
