/* texture.cu: what the backend's texture and surface objects refuse, and the
 * copies around arrays (programs/texture_sampling.cu checks the values a
 * GPU gives).  Parts:
 *   api (default)  the API's refusals, each with the error code an H100 gives; the
 *                  deprecated linear copies through an array's rows; the
 *                  surface boundary modes zero and clamp
 *   shape          tex2D on a texture of linear memory fails its launch at its line
 *   stale          a destroyed texture object fails its launch at its line
 *   trap           a surface write past the array fails its launch at its line */
#include <cuda_runtime.h>

#include "check.h"

__global__ void read_2d(cudaTextureObject_t tex, float *out) { out[0] = tex2D<float>(tex, 0.5f, 0.5f); }
enum { READ_2D_LINE = __LINE__ - 1 };
__global__ void fetch(cudaTextureObject_t tex, float *out) { out[0] = tex1Dfetch<float>(tex, 0); }
enum { FETCH_LINE = __LINE__ - 1 };
__global__ void write_past(cudaSurfaceObject_t surf, int x, int mode)
{
    surf2Dwrite(7.0f, surf, x, 0, (cudaSurfaceBoundaryMode)mode);
}
enum { WRITE_PAST_LINE = __LINE__ - 2 };
__global__ void read_clamped(cudaSurfaceObject_t surf, int x, float *out)
{
    out[0] = surf2Dread<float>(surf, x, 0, cudaBoundaryModeClamp);
    out[1] = surf2Dread<float>(surf, x, 0, cudaBoundaryModeZero);
}

static cudaTextureObject_t linear_texture(float *data, size_t bytes)
{
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = data;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = bytes;
    struct cudaTextureDesc desc = {};
    cudaTextureObject_t tex = 0;
    EXPECT_OK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    return tex;
}

static cudaSurfaceObject_t surface_of(cudaArray_t array)
{
    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaSurfaceObject_t surf = 0;
    EXPECT_OK(cudaCreateSurfaceObject(&surf, &res));
    return surf;
}

/* The launch must fail with `want`, its message naming this file at `line`. */
static void expect_launch_failure(cudaError_t want, int line, const char *words)
{
    cudaError_t err = cudaDeviceSynchronize();
    EXPECT(err == want, "the launch gave %s, want %s", cudaGetErrorName(err), cudaGetErrorName(want));
    char at[64];
    snprintf(at, sizeof at, "texture.cu:%d", line);
    const char *message = cudaGetErrorString(err);
    EXPECT(strstr(message, at) && strstr(message, words), "the message should name %s and say \"%s\": %s", at, words,
           message);
}

static void api_refusals(void)
{
    struct cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    struct cudaChannelFormatDesc ints = cudaCreateChannelDesc<int>();
    struct cudaChannelFormatDesc bytes = cudaCreateChannelDesc<uchar1>();
    cudaArray_t array = 0, int_array = 0;
    EXPECT(cudaMallocArray(&array, &three, 4, 4) == cudaErrorInvalidChannelDescriptor, "3 channels accepted");
    EXPECT(cudaMalloc3DArray(&array, &ints, make_cudaExtent(4, 5, 6), cudaArrayCubemap) == cudaErrorInvalidValue,
           "a cubemap of 4 x 5 faces accepted");
    EXPECT_OK(cudaMallocArray(&int_array, &ints, 4, 4));
    EXPECT(bytes.x == 8 && bytes.y == 0 && bytes.f == cudaChannelFormatKindUnsigned, "uchar1's description is wrong");

    struct cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = int_array;
    struct cudaTextureDesc desc = {};
    desc.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t tex = 0;
    EXPECT(cudaCreateTextureObject(&tex, &res, &desc, NULL) == cudaErrorInvalidFilterSetting,
           "linear filtering of ints accepted");
    desc.filterMode = cudaFilterModePoint;
    desc.readMode = cudaReadModeNormalizedFloat;
    EXPECT(cudaCreateTextureObject(&tex, &res, &desc, NULL) == cudaErrorInvalidNormSetting,
           "32-bit ints read as normalized floats accepted");
    desc.readMode = cudaReadModeElementType;
    EXPECT_OK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    EXPECT(tex != 0, "a texture object is never 0");
    /* as an H100 answers: a surface on an array made without
     * cudaArraySurfaceLoadStore works, destroying twice succeeds */
    cudaSurfaceObject_t surf = 0;
    EXPECT_OK(cudaCreateSurfaceObject(&surf, &res));
    EXPECT_OK(cudaDestroySurfaceObject(surf));
    EXPECT_OK(cudaDestroyTextureObject(tex));
    EXPECT_OK(cudaDestroyTextureObject(tex));

    int rows[4][4] = {{0}}, back[16];
    for (int i = 0; i < 16; i++)
        rows[i / 4][i % 4] = i;
    EXPECT(cudaMemcpy2DToArray(int_array, 8, 1, rows, 16, 16, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
           "a copy past the array's right edge accepted");
    EXPECT(cudaMemcpy2DToArray(int_array, 0, 3, rows, 16, 16, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
           "a copy past the array's last row accepted");
    /* the deprecated linear copy runs on into the next rows */
    EXPECT_OK(cudaMemcpyToArray(int_array, 8, 1, rows, 24, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy2DFromArray(back, 16, int_array, 0, 0, 16, 4, cudaMemcpyDeviceToHost));
    EXPECT(back[6] == 0 && back[7] == 1 && back[8] == 2 && back[11] == 5 && back[12] == 0,
           "cudaMemcpyToArray at (8 bytes, row 1): %d %d %d %d %d", back[6], back[7], back[8], back[11], back[12]);
    EXPECT(cudaMemcpyToArray(int_array, 0, 3, rows, 20, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
           "a linear copy past the array's end accepted");
    EXPECT_OK(cudaFreeArray(int_array));
#ifdef __CUDAEMU__ /* (an H100's runtime crashes here) */
    EXPECT(cudaFreeArray(int_array) == cudaErrorInvalidValue, "an array freed twice");
#endif

    size_t pitch = 0;
    float *pitched;
    EXPECT_OK(cudaMallocPitch(&pitched, &pitch, 10 * sizeof(float), 3));
    EXPECT(pitch >= 40 && pitch % 32 == 0, "cudaMallocPitch gave a pitch of %zu", pitch);
    EXPECT_OK(cudaMemset2D(pitched, pitch, 0, 40, 3));
    EXPECT(cudaMemset2D(pitched, pitch, 0, pitch + 1, 3) == cudaErrorInvalidValue, "a width over the pitch");
    EXPECT_OK(cudaFree(pitched));

    /* surface boundary modes: zero ignores a write outside and reads zeros; clamp reads the edge */
    struct cudaChannelFormatDesc floats = cudaCreateChannelDesc<float>();
    cudaArray_t surface_array;
    EXPECT_OK(cudaMallocArray(&surface_array, &floats, 4, 1, cudaArraySurfaceLoadStore));
    float line[4] = {1, 2, 3, 4}, *out;
    EXPECT_OK(cudaMemcpyToArray(surface_array, 0, 0, line, sizeof line, cudaMemcpyHostToDevice));
    surf = surface_of(surface_array);
    EXPECT_OK(cudaMallocManaged(&out, 2 * sizeof(float)));
    write_past<<<1, 1>>>(surf, 16, cudaBoundaryModeZero);
    read_clamped<<<1, 1>>>(surf, 100, out);
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT(out[0] == 4 && out[1] == 0, "clamped and zero reads past the end gave %g and %g", out[0], out[1]);
    EXPECT_OK(cudaMemcpyFromArray(line, surface_array, 0, 0, sizeof line, cudaMemcpyDeviceToHost));
    EXPECT(line[3] == 4, "a write past the end in zero mode changed the array");
    EXPECT_OK(cudaDestroySurfaceObject(surf));
    EXPECT_OK(cudaFreeArray(surface_array));
    EXPECT_OK(cudaFree(out));
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "api";
    float *data;
    EXPECT_OK(cudaMallocManaged(&data, 16 * sizeof(float)));
    if (!strcmp(part, "api")) {
        api_refusals();
        EXPECT_OK(cudaFree(data));
    } else if (!strcmp(part, "shape")) {
        read_2d<<<1, 1>>>(linear_texture(data, 16 * sizeof(float)), data);
        expect_launch_failure(cudaErrorInvalidValue, READ_2D_LINE, "tex2D on a texture object whose resource is read "
                              "with tex1Dfetch");
    } else if (!strcmp(part, "stale")) {
        cudaTextureObject_t tex = linear_texture(data, 16 * sizeof(float));
        EXPECT_OK(cudaDestroyTextureObject(tex));
        fetch<<<1, 1>>>(tex, data);
        expect_launch_failure(cudaErrorInvalidValue, FETCH_LINE, "not a live texture object");
    } else if (!strcmp(part, "trap")) {
        struct cudaChannelFormatDesc floats = cudaCreateChannelDesc<float>();
        cudaArray_t array;
        EXPECT_OK(cudaMallocArray(&array, &floats, 4, 1, cudaArraySurfaceLoadStore));
        write_past<<<1, 1>>>(surface_of(array), 16, cudaBoundaryModeTrap);
        expect_launch_failure(cudaErrorIllegalAddress, WRITE_PAST_LINE, "x counts bytes");
    } else {
        EXPECT(0, "no part %s", part);
    }
    return check_result();
}
