/* texture_sampling.cu: texture and surface objects in the style of the
 * vendor's samples.  Reads a 1D buffer with tex1Dfetch, an 8x8 array with
 * point and linear filtering under each address mode, bytes read as
 * normalized floats, a layered array, a 3D array with trilinear filtering,
 * a cubemap and a pitched buffer; then writes an array through a surface.
 * The host computes each value with exact weights and accepts the texture
 * unit's, whose weights have 8 bits after the point: within 1/256 of the
 * range.  The printed values are compared digit for digit with a GPU's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define N 8
#define SAMPLES 12

static int failures;
static void expect_near(const char *what, int i, float got, float want, float tolerance)
{
    if (fabsf(got - want) > tolerance) {
        printf("wrong: %s[%d] = %.6f, expected %.6f\n", what, i, got, want);
        failures++;
    }
}

/* ---- the host's reference -------------------------------------------------------------- */
static float grid_value(int x, int y) { return (float)(x + 10 * y); }

static int host_address(int i, int n, enum cudaTextureAddressMode mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == cudaAddressModeBorder)
        return -1;
    if (mode == cudaAddressModeWrap)
        return (i % n + n) % n;
    if (mode == cudaAddressModeMirror) {
        int m = (i % (2 * n) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    return i < 0 ? 0 : n - 1;
}
static float host_texel(int i, int j, enum cudaTextureAddressMode mode)
{
    int x = host_address(i, N, mode), y = host_address(j, N, mode);
    return x < 0 || y < 0 ? 0.0f : grid_value(x, y);
}
static float host_bilinear(float x, float y, enum cudaTextureAddressMode mode)
{
    float xb = x - 0.5f, yb = y - 0.5f;
    int i = (int)floorf(xb), j = (int)floorf(yb);
    float a = xb - floorf(xb), b = yb - floorf(yb);
    return (1 - a) * (1 - b) * host_texel(i, j, mode) + a * (1 - b) * host_texel(i + 1, j, mode) +
           (1 - a) * b * host_texel(i, j + 1, mode) + a * b * host_texel(i + 1, j + 1, mode);
}

/* ---- kernels ---------------------------------------------------------------------------- */
__global__ void fetch_1d(cudaTextureObject_t tex, const int *index, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<float>(tex, index[i]);
}

__global__ void sample_2d(cudaTextureObject_t tex, const float2 *at, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float>(tex, at[i].x, at[i].y);
}

__global__ void sample_bytes(cudaTextureObject_t normalized, cudaTextureObject_t raw, float4 *as_float,
                             uchar4 *as_bytes)
{
    int x = threadIdx.x;
    as_float[x] = tex2D<float4>(normalized, x + 0.5f, 0.5f);
    as_bytes[x] = tex2D<uchar4>(raw, x + 0.5f, 0.5f);
}

__global__ void sample_layers(cudaTextureObject_t tex, float *out)
{
    int layer = blockIdx.x, x = threadIdx.x;
    out[layer * N + x] = tex2DLayered<float>(tex, x + 0.5f, 2.5f, layer);
}

__global__ void sample_3d(cudaTextureObject_t tex, const float4 *at, float *out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        out[i] = tex3D<float>(tex, at[i].x, at[i].y, at[i].z);
}

__global__ void sample_cube(cudaTextureObject_t tex, const float4 *dir, float *out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        out[i] = texCubemap<float>(tex, dir[i].x, dir[i].y, dir[i].z);
}

__global__ void write_surface(cudaSurfaceObject_t surf, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < width && y < height) {
        float v = surf2Dread<float>(surf, x * (int)sizeof(float), y);
        surf2Dwrite(v * 2.0f + 1.0f, surf, x * (int)sizeof(float), y);
    }
}

/* ---- helpers ------------------------------------------------------------------------------ */
static cudaTextureObject_t array_texture(cudaArray_t array, enum cudaTextureAddressMode mode,
                                         enum cudaTextureFilterMode filter, enum cudaTextureReadMode read,
                                         int normalized)
{
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    struct cudaTextureDesc desc = {};
    desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = mode;
    desc.filterMode = filter;
    desc.readMode = read;
    desc.normalizedCoords = normalized;
    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    return tex;
}

static void print_row(const char *what, const float *v, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %.6f", v[i]);
    printf("\n");
}

static void test_fetch_1d(void)
{
    const int n = 64, reads = 6;
    float data[64];
    for (int i = 0; i < n; i++)
        data[i] = 0.5f * i;
    int index[6] = {0, 1, 31, 63, 64, -1}; /* the last two outside: zeros */
    float *d_data, *d_out;
    int *d_index;
    CHECK(cudaMalloc(&d_data, sizeof data));
    CHECK(cudaMalloc(&d_out, reads * sizeof(float)));
    CHECK(cudaMalloc(&d_index, sizeof index));
    CHECK(cudaMemcpy(d_data, data, sizeof data, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_index, index, sizeof index, cudaMemcpyHostToDevice));
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d_data;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = sizeof data;
    struct cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    fetch_1d<<<1, 32>>>(tex, d_index, d_out, reads);
    CHECK(cudaGetLastError());
    float got[6];
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < reads; i++)
        expect_near("tex1Dfetch", i, got[i], index[i] >= 0 && index[i] < n ? data[index[i]] : 0.0f, 0.0f);
    print_row("tex1Dfetch", got, reads);
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_index));
}

static void test_2d(void)
{
    float grid[N * N];
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            grid[y * N + x] = grid_value(x, y);
    struct cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &channel, N, N));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, grid, N * sizeof(float), N * sizeof(float), N, cudaMemcpyHostToDevice));

    /* texel coordinates: inside, between texels, and past every edge */
    float2 at[SAMPLES] = {{0.5f, 0.5f}, {3.5f, 6.5f}, {2.3f, 4.7f}, {1.0f, 1.0f},  {5.9f, 0.2f},   {7.9f, 7.9f},
                          {-1.3f, 2.6f}, {8.6f, 3.1f}, {4.2f, -2.4f}, {0.77f, 9.9f}, {6.123f, 3.456f}, {2.51f, 2.49f}};
    float2 *d_at;
    float *d_out, got[SAMPLES];
    CHECK(cudaMalloc(&d_at, sizeof at));
    CHECK(cudaMalloc(&d_out, sizeof got));
    CHECK(cudaMemcpy(d_at, at, sizeof at, cudaMemcpyHostToDevice));

    const char *mode_names[] = {"wrap", "clamp", "mirror", "border"};
    for (int m = cudaAddressModeWrap; m <= cudaAddressModeBorder; m++) {
        enum cudaTextureAddressMode mode = (enum cudaTextureAddressMode)m;
        /* Wrap and mirror need normalized coordinates; the same points, divided by N. */
        int normalized = mode == cudaAddressModeWrap || mode == cudaAddressModeMirror;
        float2 scaled[SAMPLES];
        for (int i = 0; i < SAMPLES; i++)
            scaled[i] = normalized ? make_float2(at[i].x / N, at[i].y / N) : at[i];
        CHECK(cudaMemcpy(d_at, scaled, sizeof scaled, cudaMemcpyHostToDevice));
        for (int filter = 0; filter < 2; filter++) {
            cudaTextureObject_t tex = array_texture(array, mode, filter ? cudaFilterModeLinear : cudaFilterModePoint,
                                                    cudaReadModeElementType, normalized);
            sample_2d<<<1, 32>>>(tex, d_at, d_out, SAMPLES);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            char what[64];
            snprintf(what, sizeof what, "tex2D %s %s", mode_names[m], filter ? "linear" : "point");
            for (int i = 0; i < SAMPLES; i++) {
                float x = scaled[i].x * (normalized ? N : 1), y = scaled[i].y * (normalized ? N : 1);
                float want = filter ? host_bilinear(x, y, mode) : host_texel((int)floorf(x), (int)floorf(y), mode);
                expect_near(what, i, got[i], want, filter ? 80.0f / 256 : 0.0f);
            }
            print_row(what, got, SAMPLES);
            CHECK(cudaDestroyTextureObject(tex));
        }
    }
    CHECK(cudaFree(d_at));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeArray(array));
}

static void test_bytes(void)
{
    uchar4 pixels[N];
    for (int x = 0; x < N; x++)
        pixels[x] = make_uchar4((unsigned char)(x * 36), (unsigned char)(255 - x), 0, 255);
    struct cudaChannelFormatDesc channel = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &channel, N, 1));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, pixels, sizeof pixels, sizeof pixels, 1, cudaMemcpyHostToDevice));
    cudaTextureObject_t normalized =
        array_texture(array, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, 0);
    cudaTextureObject_t raw = array_texture(array, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
    float4 *d_float, as_float[N];
    uchar4 *d_bytes, as_bytes[N];
    CHECK(cudaMalloc(&d_float, sizeof as_float));
    CHECK(cudaMalloc(&d_bytes, sizeof as_bytes));
    sample_bytes<<<1, N>>>(normalized, raw, d_float, d_bytes);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(as_float, d_float, sizeof as_float, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(as_bytes, d_bytes, sizeof as_bytes, cudaMemcpyDeviceToHost));
    float reds[N], greens[N];
    for (int x = 0; x < N; x++) {
        expect_near("normalized red", x, as_float[x].x, pixels[x].x / 255.0f, 1e-6f);
        expect_near("normalized green", x, as_float[x].y, pixels[x].y / 255.0f, 1e-6f);
        expect_near("normalized alpha", x, as_float[x].w, 1.0f, 0.0f);
        expect_near("raw red", x, as_bytes[x].x, pixels[x].x, 0.0f);
        reds[x] = as_float[x].x, greens[x] = as_float[x].y;
    }
    print_row("uchar4 as normalized red", reds, N);
    print_row("uchar4 as normalized green", greens, N);
    CHECK(cudaDestroyTextureObject(normalized));
    CHECK(cudaDestroyTextureObject(raw));
    CHECK(cudaFree(d_float));
    CHECK(cudaFree(d_bytes));
    CHECK(cudaFreeArray(array));
}

static void test_layers(void)
{
    const int layers = 3;
    float data[3 * N * N];
    for (int l = 0; l < layers; l++)
        for (int i = 0; i < N * N; i++)
            data[l * N * N + i] = 100.0f * l + i;
    struct cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &channel, make_cudaExtent(N, N, layers), cudaArrayLayered));
    struct cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(data, N * sizeof(float), N, N);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(N, N, layers);
    copy.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&copy));
    cudaTextureObject_t tex = array_texture(array, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
    float *d_out, got[3 * N];
    CHECK(cudaMalloc(&d_out, sizeof got));
    sample_layers<<<layers, N>>>(tex, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int l = 0; l < layers; l++)
        for (int x = 0; x < N; x++)
            expect_near("tex2DLayered", l * N + x, got[l * N + x], data[l * N * N + 2 * N + x], 0.0f);
    print_row("tex2DLayered row 2", got, 3 * N);
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeArray(array));
}

static void test_3d(void)
{
    const int D = 4;
    float data[4 * N * N];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++)
                data[(z * N + y) * N + x] = x + 10.0f * y + 100.0f * z;
    struct cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &channel, make_cudaExtent(N, N, D), 0));
    struct cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(data, N * sizeof(float), N, N);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(N, N, D);
    copy.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&copy));
    cudaTextureObject_t tex = array_texture(array, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, 0);
    const int n = 5;
    float4 at[5] = {{0.5f, 0.5f, 0.5f, 0}, {1.25f, 2.75f, 1.5f, 0}, {3.3f, 4.6f, 2.9f, 0},
                    {7.5f, 7.5f, 3.5f, 0}, {2.0f, 2.0f, 2.0f, 0}};
    float4 *d_at;
    float *d_out, got[5];
    CHECK(cudaMalloc(&d_at, sizeof at));
    CHECK(cudaMalloc(&d_out, sizeof got));
    CHECK(cudaMemcpy(d_at, at, sizeof at, cudaMemcpyHostToDevice));
    sample_3d<<<1, 32>>>(tex, d_at, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        /* inside the array, trilinear filtering of a linear function is the function */
        float want = (at[i].x - 0.5f) + 10 * (at[i].y - 0.5f) + 100 * (at[i].z - 0.5f);
        expect_near("tex3D", i, got[i], want, 111.0f / 256);
    }
    print_row("tex3D", got, n);
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFree(d_at));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeArray(array));
}

static void test_cubemap(void)
{
    const int W = 4;
    float faces[6 * 4 * 4];
    for (int f = 0; f < 6; f++)
        for (int i = 0; i < W * W; i++)
            faces[f * W * W + i] = 100.0f * f + i;
    struct cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &channel, make_cudaExtent(W, W, 6), cudaArrayCubemap));
    struct cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(faces, W * sizeof(float), W, W);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(W, W, 6);
    copy.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&copy));
    cudaTextureObject_t tex = array_texture(array, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 1);
    /* one direction into each face, off its centre, then two more */
    const int n = 8;
    float4 dir[8] = {{1, 0.3f, -0.6f, 0}, {-1, -0.4f, 0.2f, 0}, {0.1f, 1, 0.7f, 0},  {-0.5f, -1, 0.3f, 0},
                     {0.6f, -0.2f, 1, 0}, {-0.3f, 0.8f, -1, 0}, {2, 1.5f, 0.5f, 0}, {0.2f, -0.3f, -4, 0}};
    /* the face and texel each should hit, from CUDA's table of cubemap faces */
    int want_face[8] = {0, 1, 2, 3, 4, 5, 0, 5};
    float4 *d_dir;
    float *d_out, got[8];
    CHECK(cudaMalloc(&d_dir, sizeof dir));
    CHECK(cudaMalloc(&d_out, sizeof got));
    CHECK(cudaMemcpy(d_dir, dir, sizeof dir, cudaMemcpyHostToDevice));
    sample_cube<<<1, 32>>>(tex, d_dir, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float x = dir[i].x, y = dir[i].y, z = dir[i].z, ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
        if (ax >= ay && ax >= az)
            m = ax, s = x > 0 ? -z : z, t = -y;
        else if (ay >= az)
            m = ay, s = x, t = y > 0 ? z : -z;
        else
            m = az, s = z > 0 ? x : -x, t = -y;
        int u = (int)floorf((s / m + 1) / 2 * W), v = (int)floorf((t / m + 1) / 2 * W);
        expect_near("texCubemap", i, got[i], 100.0f * want_face[i] + v * W + u, 0.0f);
    }
    print_row("texCubemap", got, n);
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFree(d_dir));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeArray(array));
}

static void test_pitched(void)
{
    const int width = 10, height = 6;
    float host[6][10];
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            host[y][x] = y * 0.25f - x;
    float *d_image;
    size_t pitch;
    CHECK(cudaMallocPitch(&d_image, &pitch, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(d_image, pitch, host, sizeof host[0], width * sizeof(float), height, cudaMemcpyHostToDevice));
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d_image;
    res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    res.res.pitch2D.width = width;
    res.res.pitch2D.height = height;
    res.res.pitch2D.pitchInBytes = pitch;
    struct cudaTextureDesc desc = {};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    float2 at[4] = {{0.5f, 0.5f}, {9.5f, 5.5f}, {4.2f, 3.9f}, {12.0f, -1.0f}};
    float2 *d_at;
    float *d_out, got[4];
    CHECK(cudaMalloc(&d_at, sizeof at));
    CHECK(cudaMalloc(&d_out, sizeof got));
    CHECK(cudaMemcpy(d_at, at, sizeof at, cudaMemcpyHostToDevice));
    sample_2d<<<1, 32>>>(tex, d_at, d_out, 4);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    float want[4] = {host[0][0], host[5][9], host[3][4], host[0][9]};
    for (int i = 0; i < 4; i++)
        expect_near("pitched tex2D", i, got[i], want[i], 0.0f);
    print_row("pitched tex2D", got, 4);
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFree(d_at));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_image));
}

static void test_surface(void)
{
    const int width = 40, height = 5;
    float host[5][40], back[5][40];
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            host[y][x] = (float)(x - y);
    struct cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &channel, width, height, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, host, sizeof host[0], sizeof host[0], height, cudaMemcpyHostToDevice));
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &res));
    write_surface<<<dim3(2, height), 32>>>(surf, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2DFromArray(back, sizeof back[0], array, 0, 0, sizeof back[0], height, cudaMemcpyDeviceToHost));
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            expect_near("surf2Dwrite", y * width + x, back[y][x], host[y][x] * 2 + 1, 0.0f);
    print_row("surf2Dwrite row 4", back[4], 8);
    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaFreeArray(array));
}

int main(void)
{
    test_fetch_1d();
    test_2d();
    test_bytes();
    test_layers();
    test_3d();
    test_cubemap();
    test_pitched();
    test_surface();
    if (failures) {
        printf("texture sampling: %d values wrong\n", failures);
        return 1;
    }
    printf("texture sampling: every value within the texture unit's precision\n");
    return 0;
}
