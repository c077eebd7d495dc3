/* cudaemu/texture.h: CUDA arrays, texture objects and surface objects on the
 * cpu backend, with CUDA's names and signatures.
 *
 * A texture object reads an array or linear memory through the texture
 * unit's rules, which src/texture.cpp follows: normalized or texel
 * coordinates, the four address modes, point or linear filtering (with the
 * hardware's 8-bit fraction of a texel for the weights), and 8- or 16-bit
 * integers read as floats in [0, 1] or [-1, 1].  A surface object reads and
 * writes an array's elements at byte offsets.  Mipmaps, gathers and texture
 * references (removed in CUDA 12) are not provided. */
#ifndef CUDAEMU_TEXTURE_H
#define CUDAEMU_TEXTURE_H

#include "types.h"
#include "device.h"

/* ---- arrays and pitched memory -------------------------------------------------- */
enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc {
    int x, y, z, w; /* bits of each channel */
    enum cudaChannelFormatKind f;
};
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

struct cudaExtent {
    size_t width, height, depth;
};
struct cudaPos {
    size_t x, y, z;
};
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch; /* bytes from one row to the next */
    size_t xsize, ysize;
};
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent; /* in elements where an array takes part, else in bytes */
    enum cudaMemcpyKind kind;
};
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e = {w, h, d};
    return e;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p = {x, y, z};
    return p;
}
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    struct cudaPitchedPtr s = {d, p, xsz, ysz};
    return s;
}

/* ---- texture and surface objects ---------------------------------------------------- */
enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};
struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
    } res;
};
struct cudaResourceViewDesc; /* only NULL is accepted */
enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

extern "C" {
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags);
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t count,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitched, int value, struct cudaExtent extent);

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                    const struct cudaTextureDesc *desc, const struct cudaResourceViewDesc *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *res, cudaTextureObject_t tex);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *desc, cudaTextureObject_t tex);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const struct cudaResourceDesc *res);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf);

/* Texture references were removed in CUDA 12: declared so that a program
 * using them stops at the line that calls one, with the reason. */
#define CUDAEMU_NO_TEXREF                                                                                          \
    __attribute__((error("texture references (texture<...> with cudaBindTexture) were removed in CUDA 12 and the " \
                         "cpu backend does not provide them; use a texture object (cudaCreateTextureObject, then "   \
                         "tex1Dfetch<T>(object, i) or tex2D<T>(object, x, y) in the kernel)")))
cudaError_t cudaBindTexture(size_t *offset, ...) CUDAEMU_NO_TEXREF;
cudaError_t cudaBindTexture2D(size_t *offset, ...) CUDAEMU_NO_TEXREF;
cudaError_t cudaBindTextureToArray(const void *texref, ...) CUDAEMU_NO_TEXREF;
cudaError_t cudaUnbindTexture(const void *texref, ...) CUDAEMU_NO_TEXREF;
cudaError_t cudaBindSurfaceToArray(const void *surfref, ...) CUDAEMU_NO_TEXREF;
}

/* C++ forms: default arguments, and the channel description of a type. */
static inline cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width)
{
    return cudaMallocArray(array, desc, width, 0, 0);
}
static inline cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                                          size_t height)
{
    return cudaMallocArray(array, desc, width, height, 0);
}
static inline cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent)
{
    return cudaMalloc3DArray(array, desc, extent, 0);
}
template <class T> static inline cudaError_t cudaMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height)
{
    return cudaMallocPitch((void **)ptr, pitch, width, height);
}
static inline cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind)
{
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, 0);
}
static inline cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p) { return cudaMemcpy3DAsync(p, 0); }

namespace cudaemu {
template <class T> struct channel_of; /* the component type C of T, and how many (N) */
#define CUDAEMU_CHANNELS(C, V, KIND)                                                                 \
    template <> struct channel_of<C> { typedef C type; enum { N = 1, kind = KIND }; };               \
    template <> struct channel_of<V##1> { typedef C type; enum { N = 1, kind = KIND }; };            \
    template <> struct channel_of<V##2> { typedef C type; enum { N = 2, kind = KIND }; };            \
    template <> struct channel_of<V##4> { typedef C type; enum { N = 4, kind = KIND }; };
CUDAEMU_CHANNELS(signed char, char, cudaChannelFormatKindSigned)
CUDAEMU_CHANNELS(unsigned char, uchar, cudaChannelFormatKindUnsigned)
CUDAEMU_CHANNELS(short, short, cudaChannelFormatKindSigned)
CUDAEMU_CHANNELS(unsigned short, ushort, cudaChannelFormatKindUnsigned)
CUDAEMU_CHANNELS(int, int, cudaChannelFormatKindSigned)
CUDAEMU_CHANNELS(unsigned int, uint, cudaChannelFormatKindUnsigned)
CUDAEMU_CHANNELS(float, float, cudaChannelFormatKindFloat)
#undef CUDAEMU_CHANNELS
template <> struct channel_of<char> { typedef char type; enum { N = 1, kind = CHAR_MIN < 0 ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned }; };
template <> struct channel_of<long> { typedef long type; enum { N = 1, kind = cudaChannelFormatKindSigned }; };
template <> struct channel_of<unsigned long> { typedef unsigned long type; enum { N = 1, kind = cudaChannelFormatKindUnsigned }; };
} // namespace cudaemu
template <class T> static inline struct cudaChannelFormatDesc cudaCreateChannelDesc(void)
{
    typedef cudaemu::channel_of<T> c;
    int bits = (int)(8 * sizeof(typename c::type));
    return cudaCreateChannelDesc(bits, c::N > 1 ? bits : 0, c::N > 2 ? bits : 0, c::N > 3 ? bits : 0,
                                 (enum cudaChannelFormatKind)c::kind);
}
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf(void)
{
    return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf2(void)
{
    return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf4(void)
{
    return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

/* ---- reading textures and surfaces in a kernel ------------------------------------------ */
namespace cudaemu {
enum texture_shape { TEX_FETCH, TEX_1D, TEX_2D, TEX_3D, TEX_1D_LAYERED, TEX_2D_LAYERED, TEX_CUBEMAP,
                     TEX_CUBEMAP_LAYERED };
/* Fills out (size bytes) with the texel(s) at the coordinates: the
 * element's bytes, or floats where the texture filters or normalizes. */
void texture_read(cudaTextureObject_t tex, int shape, float x, float y, float z, int index, void *out, size_t size,
                  const char *file, int line);
/* Reads or writes `size` bytes at byte x, row y, slice or layer z. */
void surface_access(cudaSurfaceObject_t surf, bool write, void *value, size_t size, int x, int y, int z,
                    int boundary, const char *what, const char *file, int line);
template <class T> static inline T texture_value(cudaTextureObject_t tex, int shape, float x, float y, float z,
                                                 int index, const char *file, int line)
{
    T v;
    texture_read(tex, shape, x, y, z, index, &v, sizeof v, file, line);
    return v;
}
/* A surface read as a value: the one body behind surf*read's two forms. */
template <class T> static inline T surface_value(cudaSurfaceObject_t surf, int x, int y, int z, int boundary,
                                                 const char *what, const char *file, int line)
{
    T v;
    surface_access(surf, false, &v, sizeof v, x, y, z, boundary, what, file, line);
    return v;
}
} // namespace cudaemu

#define CUDAEMU_TEX(SHAPE, X, Y, Z, I) cudaemu::texture_value<T>(tex, cudaemu::SHAPE, X, Y, Z, I, file, line)
template <class T> static inline T tex1Dfetch(cudaTextureObject_t tex, int x, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_FETCH, 0, 0, 0, x);
}
template <class T> static inline T tex1D(cudaTextureObject_t tex, float x, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_1D, x, 0, 0, 0);
}
template <class T> static inline T tex2D(cudaTextureObject_t tex, float x, float y, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_2D, x, y, 0, 0);
}
template <class T> static inline T tex3D(cudaTextureObject_t tex, float x, float y, float z, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_3D, x, y, z, 0);
}
template <class T> static inline T tex1DLayered(cudaTextureObject_t tex, float x, int layer, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_1D_LAYERED, x, 0, 0, layer);
}
template <class T> static inline T tex2DLayered(cudaTextureObject_t tex, float x, float y, int layer, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_2D_LAYERED, x, y, 0, layer);
}
template <class T> static inline T texCubemap(cudaTextureObject_t tex, float x, float y, float z, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_CUBEMAP, x, y, z, 0);
}
template <class T>
static inline T texCubemapLayered(cudaTextureObject_t tex, float x, float y, float z, int layer, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_CUBEMAP_LAYERED, x, y, z, layer);
}
/* With no mipmaps, every level of detail is level 0. */
template <class T> static inline T tex1DLod(cudaTextureObject_t tex, float x, float, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_1D, x, 0, 0, 0);
}
template <class T> static inline T tex2DLod(cudaTextureObject_t tex, float x, float y, float, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_2D, x, y, 0, 0);
}
template <class T> static inline T tex3DLod(cudaTextureObject_t tex, float x, float y, float z, float, CUDAEMU_HERE)
{
    return CUDAEMU_TEX(TEX_3D, x, y, z, 0);
}
#undef CUDAEMU_TEX
/* The forms that store through a pointer. */
template <class T> static inline void tex1Dfetch(T *v, cudaTextureObject_t tex, int x, CUDAEMU_HERE)
{
    *v = tex1Dfetch<T>(tex, x, file, line);
}
template <class T> static inline void tex1D(T *v, cudaTextureObject_t tex, float x, CUDAEMU_HERE)
{
    *v = tex1D<T>(tex, x, file, line);
}
template <class T> static inline void tex2D(T *v, cudaTextureObject_t tex, float x, float y, CUDAEMU_HERE)
{
    *v = tex2D<T>(tex, x, y, file, line);
}
template <class T> static inline void tex3D(T *v, cudaTextureObject_t tex, float x, float y, float z, CUDAEMU_HERE)
{
    *v = tex3D<T>(tex, x, y, z, file, line);
}
template <class T>
static inline void tex2DLayered(T *v, cudaTextureObject_t tex, float x, float y, int layer, CUDAEMU_HERE)
{
    *v = tex2DLayered<T>(tex, x, y, layer, file, line);
}

/* Surfaces: x counts bytes, as in CUDA; y and z count rows and slices (or layers). */
#define CUDAEMU_SURF_READ(X, Y, Z, WHAT) cudaemu::surface_value<T>(surf, X, Y, Z, (int)mode, WHAT, file, line)
#define CUDAEMU_SURF_WRITE(X, Y, Z, WHAT) \
    cudaemu::surface_access(surf, true, &v, sizeof v, X, Y, Z, (int)mode, WHAT, file, line)
template <class T>
static inline T surf1Dread(cudaSurfaceObject_t surf, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                           CUDAEMU_HERE)
{
    return CUDAEMU_SURF_READ(x, 0, 0, "surf1Dread");
}
template <class T>
static inline void surf1Dwrite(T v, cudaSurfaceObject_t surf, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                               CUDAEMU_HERE)
{
    CUDAEMU_SURF_WRITE(x, 0, 0, "surf1Dwrite");
}
template <class T>
static inline T surf2Dread(cudaSurfaceObject_t surf, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap,
                           CUDAEMU_HERE)
{
    return CUDAEMU_SURF_READ(x, y, 0, "surf2Dread");
}
template <class T>
static inline void surf2Dwrite(T v, cudaSurfaceObject_t surf, int x, int y,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    CUDAEMU_SURF_WRITE(x, y, 0, "surf2Dwrite");
}
template <class T>
static inline T surf3Dread(cudaSurfaceObject_t surf, int x, int y, int z,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    return CUDAEMU_SURF_READ(x, y, z, "surf3Dread");
}
template <class T>
static inline void surf3Dwrite(T v, cudaSurfaceObject_t surf, int x, int y, int z,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    CUDAEMU_SURF_WRITE(x, y, z, "surf3Dwrite");
}
template <class T>
static inline T surf2DLayeredread(cudaSurfaceObject_t surf, int x, int y, int layer,
                                  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    return CUDAEMU_SURF_READ(x, y, layer, "surf2DLayeredread");
}
template <class T>
static inline void surf2DLayeredwrite(T v, cudaSurfaceObject_t surf, int x, int y, int layer,
                                      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    CUDAEMU_SURF_WRITE(x, y, layer, "surf2DLayeredwrite");
}
#undef CUDAEMU_SURF_READ
#undef CUDAEMU_SURF_WRITE
/* The reads that store through a pointer. */
template <class T>
static inline void surf1Dread(T *out, cudaSurfaceObject_t surf, int x,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    *out = surf1Dread<T>(surf, x, mode, file, line);
}
template <class T>
static inline void surf2Dread(T *out, cudaSurfaceObject_t surf, int x, int y,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    *out = surf2Dread<T>(surf, x, y, mode, file, line);
}
template <class T>
static inline void surf3Dread(T *out, cudaSurfaceObject_t surf, int x, int y, int z,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    *out = surf3Dread<T>(surf, x, y, z, mode, file, line);
}
template <class T>
static inline void surf2DLayeredread(T *out, cudaSurfaceObject_t surf, int x, int y, int layer,
                                     cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUDAEMU_HERE)
{
    *out = surf2DLayeredread<T>(surf, x, y, layer, mode, file, line);
}

#endif /* CUDAEMU_TEXTURE_H */
