/* check.c: the going-further versions of solutions/ (the files that make
 * bench links: fastest.cu, register_tiled.cu) give the right answers, at
 * sizes with tails (n not a multiple of 4, sides not multiples of a tile).
 * tests/check-beyond.sh builds it with them and runs it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void vector_mult_fastest(const float *a, const float *b, float *c, int n);
float block_max_fastest(const float *a, int n);
float dot_fastest(const float *x, const float *y, int n);
void matmul_tiled_fastest(const float *a, const float *b, float *c, int m, int k, int n);
void matmul_register_tiled(const float *a, const float *b, float *c, int m, int k, int n);

static int failures;

static void expect(int right, const char *what, int n)
{
    if (!right) {
        printf("wrong: %s, n = %d\n", what, n);
        failures++;
    }
}

/* Small whole numbers: every sum below is exact in float, whatever its order. */
static float whole(int i, int salt) { return (float)((i * 7919 + salt * 104729) % 41) - 20.0f; }

static void vectors(int n)
{
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double dot = 0;
    float largest = -INFINITY;
    for (int i = 0; i < n; i++) {
        a[i] = whole(i, 1), b[i] = whole(i, 2);
        dot += (double)a[i] * b[i];
        largest = a[i] > largest ? a[i] : largest;
    }
    vector_mult_fastest(a, b, c, n);
    int products_right = 1;
    for (int i = 0; i < n; i++)
        products_right &= c[i] == a[i] * b[i];
    expect(products_right, "vector_mult_fastest", n);
    expect(block_max_fastest(a, n) == largest, "block_max_fastest", n);
    expect(dot_fastest(a, b, n) == (float)dot, "dot_fastest", n);
    free(a), free(b), free(c);
}

static void product(void (*multiply)(const float *, const float *, float *, int, int, int), const char *name, int m,
                    int k, int n)
{
    float *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)k * n * sizeof *b);
    float *c = malloc((size_t)m * n * sizeof *c);
    for (int i = 0; i < m * k; i++)
        a[i] = (float)(i % 5 - 2);
    for (int i = 0; i < k * n; i++)
        b[i] = (float)(i % 3 - 1);
    multiply(a, b, c, m, k, n);
    int right = 1;
    for (int r = 0; r < m && right; r++)
        for (int col = 0; col < n && right; col++) {
            float exact = 0;
            for (int i = 0; i < k; i++)
                exact += a[r * k + i] * b[i * n + col];
            right = c[r * n + col] == exact;
        }
    expect(right, name, m);
    free(a), free(b), free(c);
}

int main(void)
{
    const int sizes[] = {1, 2, 3, 4, 5, 7, 31, 256, 1023, 4097, 100003};
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++)
        vectors(sizes[s]);
    product(matmul_tiled_fastest, "matmul_tiled_fastest 37 x 70 x 45", 37, 70, 45);
    product(matmul_tiled_fastest, "matmul_tiled_fastest 64 x 64 x 64", 64, 64, 64);
    product(matmul_register_tiled, "matmul_register_tiled 128 x 16 x 256", 128, 16, 256);
    printf("%s\n", failures ? "some going-further versions are wrong" : "every going-further version is right");
    return failures != 0;
}
