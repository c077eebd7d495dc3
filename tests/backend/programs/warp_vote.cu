/* warp_vote.cu: warp votes in the style of the vendor's samples.  Each warp
 * keeps the positive values of its 32 inputs, packed in their order
 * (stream compaction with __ballot_sync and __popc: a lane's place is the
 * number of kept lanes below it), and one lane per warp reserves room in
 * the output with atomicAdd.  __all_sync and __any_sync say whether a warp
 * kept everything or anything.  The host checks the kept values in each
 * warp's order and the counts of full and empty warps. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define FULL_MASK 0xffffffffu

/* out: kept values, each warp's in one run; runs[w] = {where its run begins, its length} */
__global__ void compact_positive(const int *in, int n, int *out, int *count, int2 *runs, int *full, int *empty)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32, warp = i / 32;
    int value = i < n ? in[i] : 0;
    bool keep = i < n && value > 0;

    unsigned kept = __ballot_sync(FULL_MASK, keep);
    int before = __popc(kept & ((1u << lane) - 1)); /* kept lanes below this one */
    int base = 0;
    if (lane == 0)
        base = atomicAdd(count, __popc(kept));
    base = __shfl_sync(FULL_MASK, base, 0);
    if (keep)
        out[base + before] = value;
    if (lane == 0)
        runs[warp] = make_int2(base, __popc(kept));

    if (__all_sync(FULL_MASK, keep) && lane == 0)
        atomicAdd(full, 1);
    if (!__any_sync(FULL_MASK, keep) && lane == 0)
        atomicAdd(empty, 1);
}

int main(void)
{
    const int n = 64 * 256, warps = n / 32;
    int *in = (int *)malloc(n * sizeof(int)), *out = (int *)malloc(n * sizeof(int));
    int2 *runs = (int2 *)malloc(warps * sizeof(int2));
    int want_full = 0, want_empty = 0;
    long want_kept = 0;
    for (int w = 0; w < warps; w++) {
        int kind = w % 5, kept = 0; /* 0: all positive, 1: none, else a pattern */
        for (int l = 0; l < 32; l++) {
            int i = w * 32 + l, v;
            if (kind == 0)
                v = 1 + (i % 9);
            else if (kind == 1)
                v = -(i % 4);
            else
                v = (i * 7 + w) % 11 - 5;
            in[i] = v;
            kept += v > 0;
        }
        want_full += kept == 32;
        want_empty += kept == 0;
        want_kept += kept;
    }

    int *d_in, *d_out, *d_counts;
    int2 *d_runs;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_runs, warps * sizeof(int2)));
    CHECK(cudaMalloc(&d_counts, 3 * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_counts, 0, 3 * sizeof(int)));
    compact_positive<<<n / 256, 256>>>(d_in, n, d_out, d_counts, d_runs, d_counts + 1, d_counts + 2);
    CHECK(cudaGetLastError());
    int counts[3];
    CHECK(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(runs, d_runs, warps * sizeof(int2), cudaMemcpyDeviceToHost));

    /* the runs may lie in any order (the atomicAdd decides), but each warp's
     * run must hold its positive values in lane order */
    int bad_runs = 0;
    for (int w = 0; w < warps; w++) {
        int at = runs[w].x, len = runs[w].y, k = 0;
        for (int l = 0; l < 32; l++) {
            int v = in[w * 32 + l];
            if (v > 0) {
                if (k >= len || at + k >= counts[0] || out[at + k] != v)
                    break;
                k++;
            }
        }
        int positives = 0;
        for (int l = 0; l < 32; l++)
            positives += in[w * 32 + l] > 0;
        bad_runs += k != positives || len != positives;
    }
    printf("kept %d of %d values (expected %ld), %d warps full (expected %d), %d empty (expected %d)\n", counts[0], n,
           want_kept, counts[1], want_full, counts[2], want_empty);
    printf("warp 2 kept %d values, warp 3 kept %d\n", runs[2].y, runs[3].y);
    bool right = counts[0] == want_kept && counts[1] == want_full && counts[2] == want_empty && bad_runs == 0;
    printf("%d warps with a wrong run: %s\n", bad_runs, right ? "right" : "WRONG");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_runs));
    CHECK(cudaFree(d_counts));
    free(in), free(out), free(runs);
    return right ? 0 : 1;
}
