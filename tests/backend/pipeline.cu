/* pipeline.cu: cuda_pipeline.h's asynchronous copies, global -> shared.
 *   pipeline            copies of 4, 8 and 16 bytes, zfill, two groups in
 *                       flight (wait_prior(1) completes the first only), a
 *                       destination read before its wait still holds what
 *                       was there (the copy waits, as on a GPU), copies never
 *                       waited for are made at the thread's end
 *   pipeline misaligned a 16-byte copy from an address 4 bytes off: the launch
 *                       fails with cudaErrorMisalignedAddress at its line */
#include <cuda_pipeline.h>

#include "check.h"

enum { THREADS = 32 };

/* out[t] for thread t: 0: the sum of its float4 after wait_prior(0);
 * 1: its first stage's value after wait_prior(1) (copied); 2: its second
 * stage's value then (not yet: -1); 3: the second stage after wait_prior(0);
 * 4: a destination read before any wait (-1); 5: the zfilled float4's sum;
 * 6: an 8-byte copy's sum; 7: a 4-byte copy. */
static __global__ void copies(const float4 *in, const float *scalars, float *out)
{
    __shared__ float4 quad[THREADS], stage[2][THREADS], early[THREADS], zfilled[THREADS];
    __shared__ float2 pair[THREADS];
    __shared__ float single[THREADS];
    int t = threadIdx.x;
    float4 minus = make_float4(-1.0f, -1.0f, -1.0f, -1.0f);
    quad[t] = stage[0][t] = stage[1][t] = early[t] = zfilled[t] = minus;
    pair[t] = make_float2(-1.0f, -1.0f);
    single[t] = -1.0f;

    __pipeline_memcpy_async(&quad[t], &in[t], 16);
    __pipeline_memcpy_async(&pair[t], &scalars[2 * t], 8);
    __pipeline_memcpy_async(&single[t], &scalars[t], 4);
    __pipeline_memcpy_async(&zfilled[t], &in[t], 16, 8);
    __pipeline_commit();
    __pipeline_memcpy_async(&early[t], &in[t], 16);
    out[4 * THREADS + t] = early[t].x; /* not waited for: still -1 */
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[0 * THREADS + t] = quad[t].x + quad[t].y + quad[t].z + quad[t].w;
    out[5 * THREADS + t] = zfilled[t].x + zfilled[t].y + zfilled[t].z + zfilled[t].w;
    out[6 * THREADS + t] = pair[t].x + pair[t].y;
    out[7 * THREADS + t] = single[t];

    __pipeline_memcpy_async(&stage[0][t], &in[t], 16);
    __pipeline_commit();
    __pipeline_memcpy_async(&stage[1][t], &in[THREADS - 1 - t], 16);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    out[1 * THREADS + t] = stage[0][t].x;
    out[2 * THREADS + t] = stage[1][t].x;
    __pipeline_wait_prior(0);
    out[3 * THREADS + t] = stage[1][t].x;

    __pipeline_memcpy_async(&quad[t], &in[t], 16); /* never waited for: made at the thread's end */
    __pipeline_commit();
}

static __global__ void misaligned(const float *in)
{
    __shared__ float4 quad[THREADS];
    __pipeline_memcpy_async(&quad[threadIdx.x], in + 1, 16); /* in + 1: 4 bytes off */
    __pipeline_commit();
    __pipeline_wait_prior(0);
}
enum { MISALIGNED_LINE = __LINE__ - 4 };

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "copies";
    float4 *in;
    float *scalars, *out;
    EXPECT_OK(cudaMallocManaged(&in, THREADS * sizeof(float4)));
    EXPECT_OK(cudaMallocManaged(&scalars, 2 * THREADS * sizeof(float)));
    EXPECT_OK(cudaMallocManaged(&out, 8 * THREADS * sizeof(float)));
    for (int t = 0; t < THREADS; t++) {
        in[t] = make_float4((float)t, 1.0f, 2.0f, 3.0f);
        scalars[2 * t] = (float)t;
        scalars[2 * t + 1] = 0.5f;
    }
    if (!strcmp(part, "misaligned")) {
        misaligned<<<1, THREADS>>>(scalars);
        cudaError_t err = cudaDeviceSynchronize();
        EXPECT(err == cudaErrorMisalignedAddress, "the launch gave %s, want cudaErrorMisalignedAddress",
               cudaGetErrorName(err));
        char at[64];
        snprintf(at, sizeof at, "pipeline.cu:%d", (int)MISALIGNED_LINE);
        EXPECT(strstr(cudaGetErrorString(err), at), "the message does not name %s: %s", at, cudaGetErrorString(err));
        return check_result();
    }
    copies<<<1, THREADS>>>(in, scalars, out);
    EXPECT_OK(cudaDeviceSynchronize());
    int wrong = 0;
    for (int t = 0; t < THREADS; t++) {
        float want[8] = {t + 6.0f, (float)t, -1.0f, (float)(THREADS - 1 - t), -1.0f, t + 1.0f, t + 0.5f,
                         t % 2 ? 0.5f : (float)(t / 2)};
        for (int k = 0; k < 8; k++)
            if (out[k * THREADS + t] != want[k]) {
                if (wrong++ < 8)
                    fprintf(stderr, "thread %d, value %d: %g, want %g\n", t, k, out[k * THREADS + t], want[k]);
            }
    }
    EXPECT(wrong == 0, "%d values wrong", wrong);
    cudaFree(in), cudaFree(scalars), cudaFree(out);
    return check_result();
}
