/* tournament_max.cu: the maximum by a tournament, one launch per round:
 * in round r, element i (a multiple of 2D, D = 2^r) keeps the larger of
 * itself and element i + D. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

__global__ void round_max(float *a, int n, int d)
{
    int i = 2 * d * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i + d < n)
        a[i] = fmaxf(a[i], a[i + d]);
}

int main(void)
{
    const int n = 1000;
    float a[1000];
    for (int i = 0; i < n; i++)
        a[i] = -1000.0f + (float)((i * 7919) % 997);
    float expected = -INFINITY;
    for (int i = 0; i < n; i++)
        expected = fmaxf(expected, a[i]);
    float *d;
    cudaMalloc(&d, sizeof a);
    cudaMemcpy(d, a, sizeof a, cudaMemcpyHostToDevice);
    int rounds = 0;
    for (int dist = 1; dist < n; dist *= 2, rounds++) {
        int players = (n + 2 * dist - 1) / (2 * dist);
        round_max<<<(players + 127) / 128, 128>>>(d, n, dist);
    }
    float best;
    cudaMemcpy(&best, d, sizeof best, cudaMemcpyDeviceToHost);
    printf("%d rounds, max = %.0f, expected %.0f, %s\n", rounds, best, expected, best == expected ? "right" : "WRONG");
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d);
    return best == expected ? 0 : 1;
}
