/* matmul_dynamic.cu: a tiled matrix product whose two tiles live in one
 * dynamic shared-memory buffer sized at the launch.  Small whole numbers:
 * the result is exact, so the GPU and the cpu backend must agree bit for bit. */
#include <stdio.h>
#include <stdlib.h>

__global__ void matmul_tiled(const float *a, const float *b, float *c, int n, int tile)
{
    extern __shared__ float tiles[];
    float *at = tiles, *bt = tiles + tile * tile;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * tile + ty, col = blockIdx.x * tile + tx;
    float sum = 0;
    for (int s = 0; s < n / tile; s++) {
        at[ty * tile + tx] = a[row * n + s * tile + tx];
        bt[ty * tile + tx] = b[(s * tile + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < tile; k++)
            sum += at[ty * tile + k] * bt[k * tile + tx];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

int main(void)
{
    const int n = 96, tile = 16;
    size_t bytes = n * n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)(i % 5 - 2);
        b[i] = (float)(i % 3);
    }
    float *da, *db, *dc;
    cudaMalloc(&da, bytes), cudaMalloc(&db, bytes), cudaMalloc(&dc, bytes);
    cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
    dim3 block(tile, tile), grid(n / tile, n / tile);
    matmul_tiled<<<grid, block, 2 * tile * tile * sizeof(float)>>>(da, db, dc, n, tile);
    cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
    int wrong = 0;
    double checksum = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += (double)a[i * n + k] * b[k * n + j];
            wrong += s != c[i * n + j];
            checksum += c[i * n + j] * (double)((i + 2 * j) % 11);
        }
    printf("C[0][0..3] = %.0f %.0f %.0f %.0f, checksum %.0f, %d wrong\n", c[0], c[1], c[2], c[3], checksum, wrong);
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(da), cudaFree(db), cudaFree(dc), free(a), free(b), free(c);
    return wrong != 0;
}
