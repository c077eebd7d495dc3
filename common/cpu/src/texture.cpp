/* texture.cpp: CUDA arrays, copies to and from them, pitched memory, and
 * texture and surface objects on the cpu backend.
 *
 * An array is a block of host memory in row-major order (x fastest, then
 * rows, then slices or layers).  Texture and surface objects live in a
 * table of slots that are never freed, so that a kernel on any host thread
 * may read one without a lock: a handle is a slot's number plus one, as a
 * GPU's handles are small numbers too, and 0 is never one.
 *
 * A texture read follows the texture unit's rules as CUDA's programming
 * guide gives them: coordinates are scaled by the size when normalized;
 * an index outside the texture is clamped, wrapped, mirrored or replaced by
 * the border colour (wrap and mirror only with normalized coordinates;
 * otherwise they clamp); linear filtering weighs the two (four, eight)
 * nearest texels by the fraction of x - 0.5, which the hardware keeps in
 * fixed point with 8 bits after the point, and so does this file.  Each
 * texel's weight, a product of such fractions in 2D and 3D, is in 256ths
 * too, the weights summing to 1: in 2D the product of the two fractions is
 * rounded and the other three weights follow from it, as an H100 gives
 * them (256 of 256 reads at random points identical); in 3D, x and z are
 * weighed so first, then each of those split by y, which an H100 matches
 * in 239 of 256 random reads (the others differ in one weight by 1/256:
 * its exact rule is not known here). */
#include "internal.h"

#include <cuda_fp16.h>
#include <math.h>
#include <string.h>

struct cudaArray {
    cudaChannelFormatDesc desc;
    size_t width, height, depth; /* as given: 0 for a dimension not used */
    unsigned flags;
    size_t element; /* bytes */
    char *data;
};

namespace cudaemu {

static size_t element_bytes(const cudaChannelFormatDesc &d) { return (size_t)(d.x + d.y + d.z + d.w) / 8; }
static int channel_count(const cudaChannelFormatDesc &d) { return d.w ? 4 : d.z ? 3 : d.y ? 2 : d.x ? 1 : 0; }

/* What CUDA accepts: channels of 8, 16 or 32 bits, all alike, filled from x. */
static bool valid_desc(const cudaChannelFormatDesc *d)
{
    if (!d || d->f < cudaChannelFormatKindSigned || d->f > cudaChannelFormatKindFloat)
        return false;
    int n = channel_count(*d), bits[4] = {d->x, d->y, d->z, d->w};
    if (n == 3 || (d->x != 8 && d->x != 16 && d->x != 32) || (d->f == cudaChannelFormatKindFloat && d->x == 8))
        return false;
    for (int c = 0; c < 4; c++)
        if (bits[c] != (c < n ? d->x : 0))
            return false;
    return true;
}

static std::vector<cudaArray *> arrays; /* live ones (also what keeps LeakSanitizer quiet) */

static cudaArray *live_array(const void *a)
{
    for (cudaArray *x : arrays)
        if (x == a)
            return x;
    return 0;
}
static size_t rows_of(const cudaArray *a) { return a->height ? a->height : 1; }
static size_t slices_of(const cudaArray *a) { return a->depth ? a->depth : 1; }
static size_t row_bytes(const cudaArray *a) { return a->width * a->element; }

static cudaError_t make_array(cudaArray_t *out, const cudaChannelFormatDesc *desc, cudaExtent e, unsigned flags,
                              const char *api)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!out)
        return api_fail(cudaErrorInvalidValue, "%s: the address to store the array in is NULL", api);
    *out = 0;
    if (!valid_desc(desc))
        return api_fail(cudaErrorInvalidChannelDescriptor, "%s: the channel description is not one CUDA accepts "
                        "(1, 2 or 4 channels of 8, 16 or 32 bits, all of the same size)", api);
    if (flags & ~(unsigned)(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather))
        return api_fail(cudaErrorInvalidValue, "%s with unknown flags %#x", api, flags);
    if (!e.width || (e.depth && !e.height && !(flags & cudaArrayLayered)))
        return api_fail(cudaErrorInvalidValue, "%s of %zu x %zu x %zu elements: the width must not be 0, nor the "
                        "height when the depth is not", api, e.width, e.height, e.depth);
    if ((flags & cudaArrayCubemap) &&
        (e.width != e.height || !e.depth || e.depth % 6 || (!(flags & cudaArrayLayered) && e.depth != 6)))
        return api_fail(cudaErrorInvalidValue, "%s: a cubemap's faces are square (width = height) and its depth is 6 "
                        "(6 times the layers when layered), not %zu x %zu x %zu", api, e.width, e.height, e.depth);
    cudaArray *a = new cudaArray{*desc, e.width, e.height, e.depth, flags, element_bytes(*desc), 0};
    size_t bytes = row_bytes(a) * rows_of(a) * slices_of(a);
    if (!(a->data = (char *)calloc(bytes, 1))) {
        delete a;
        return api_fail(cudaErrorMemoryAllocation, "%s of %zu bytes: out of host memory", api, bytes);
    }
    arrays.push_back(a);
    *out = a;
    return cudaSuccess;
}

/* ---- copies ------------------------------------------------------------------------------ */
/* One side of a 3D copy: an array, or memory with a pitch. */
struct side {
    char *base;
    size_t pitch, rows; /* bytes from row to row; rows from slice to slice */
    size_t width, height, depth; /* bytes, rows, slices (arrays only: 0 = no limit) */
    const cudaArray *array;
};

static cudaError_t copy_3d(side dst, cudaPos dpos, side src, cudaPos spos, size_t width_bytes, size_t height,
                           size_t depth, const char *api)
{
    const side *ends[2] = {&dst, &src};
    const cudaPos *poss[2] = {&dpos, &spos};
    for (int k = 0; k < 2; k++) {
        const side &s = *ends[k];
        const cudaPos &p = *poss[k];
        if (s.array && (p.x + width_bytes > s.width || p.y + height > s.height || p.z + depth > s.depth))
            return api_fail(cudaErrorInvalidValue, "%s: %zu bytes x %zu rows x %zu slices from (%zu bytes, %zu, %zu) "
                            "run past the %s array of %zu bytes x %zu rows x %zu slices", api, width_bytes, height,
                            depth, p.x, p.y, p.z, k ? "source" : "destination", s.width, s.height, s.depth);
        if (!s.array && width_bytes > s.pitch)
            return api_fail(cudaErrorInvalidPitchValue, "%s: a row of %zu bytes is longer than the %s pitch, %zu",
                            api, width_bytes, k ? "source" : "destination", s.pitch);
    }
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < height; y++) {
            char *to = dst.base + ((dpos.z + z) * dst.rows + dpos.y + y) * dst.pitch + dpos.x;
            const char *from = src.base + ((spos.z + z) * src.rows + spos.y + y) * src.pitch + spos.x;
            cudaError_t err = dst.array || src.array ? (memmove(to, from, width_bytes), cudaSuccess)
                                                     : cudaMemcpy(to, from, width_bytes, cudaMemcpyDefault);
            if (err != cudaSuccess)
                return err;
        }
    return cudaSuccess;
}

static side array_side(const cudaArray *a)
{
    return side{a->data, row_bytes(a), rows_of(a), row_bytes(a), rows_of(a), slices_of(a), a};
}
static side memory_side(const void *p, size_t pitch, size_t rows)
{
    return side{(char *)p, pitch, rows ? rows : 1, 0, 0, 0, 0};
}

static cudaError_t copy_2d_array(cudaArray *to_array, const cudaArray *from_array, void *memory, size_t pitch,
                                 size_t w_offset, size_t h_offset, size_t width, size_t height, const char *api)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    printf_flush();
    const cudaArray *a = live_array(to_array ? (const void *)to_array : (const void *)from_array);
    if (!a)
        return api_fail(cudaErrorInvalidValue, "%s: %p is not a live array from cudaMallocArray", api,
                        to_array ? (void *)to_array : (const void *)from_array);
    if (!memory && width && height)
        return api_fail(cudaErrorInvalidValue, "%s with a NULL pointer", api);
    if (w_offset % a->element)
        return api_fail(cudaErrorInvalidValue, "%s: the offset of %zu bytes is not a whole number of the array's "
                        "%zu-byte elements", api, w_offset, a->element);
    side s = memory_side(memory, pitch, height);
    cudaPos at = {w_offset, h_offset, 0}, zero = {0, 0, 0};
    if (to_array)
        return copy_3d(array_side(a), at, s, zero, width, height, 1, api);
    return copy_3d(s, zero, array_side(a), at, width, height, 1, api);
}

static cudaError_t memcpy_3d(const cudaMemcpy3DParms *p, const char *api)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    printf_flush();
    if (!p)
        return api_fail(cudaErrorInvalidValue, "%s(NULL)", api);
    if ((p->srcArray != 0) == (p->srcPtr.ptr != 0) || (p->dstArray != 0) == (p->dstPtr.ptr != 0))
        return api_fail(cudaErrorInvalidValue, "%s: each side must name exactly one of an array and a pointer "
                        "(srcArray or srcPtr, dstArray or dstPtr)", api);
    const cudaArray *sa = p->srcArray ? live_array(p->srcArray) : 0, *da = p->dstArray ? live_array(p->dstArray) : 0;
    if ((p->srcArray && !sa) || (p->dstArray && !da))
        return api_fail(cudaErrorInvalidValue, "%s: the %s array is not a live one from cudaMalloc3DArray", api,
                        p->srcArray && !sa ? "source" : "destination");
    /* With an array on either side, widths and x positions count its elements. */
    size_t element = da ? da->element : sa ? sa->element : 1;
    if (sa && da && sa->element != da->element)
        return api_fail(cudaErrorInvalidValue, "%s between arrays of %zu- and %zu-byte elements", api, sa->element,
                        da->element);
    side src = sa ? array_side(sa) : memory_side(p->srcPtr.ptr, p->srcPtr.pitch, p->srcPtr.ysize);
    side dst = da ? array_side(da) : memory_side(p->dstPtr.ptr, p->dstPtr.pitch, p->dstPtr.ysize);
    cudaPos spos = p->srcPos, dpos = p->dstPos;
    if (sa)
        spos.x *= element;
    if (da)
        dpos.x *= element;
    cudaExtent e = p->extent;
    return copy_3d(dst, dpos, src, spos, e.width * element, e.height ? e.height : 1, e.depth ? e.depth : 1, api);
}

/* ---- texture and surface objects -------------------------------------------------------- */
enum object_kind { FREE_SLOT, TEXTURE, SURFACE };
struct object {
    int kind;
    cudaResourceDesc res;
    cudaTextureDesc tex;
    const char *data;
    cudaChannelFormatDesc desc;
    size_t element, pitch, rows; /* row and slice strides: bytes, rows */
    size_t width, height, depth; /* texels (depth: slices, layers, or faces times layers) */
    int shape;                   /* the texture_shape its reads must have */
    bool float_result;           /* filtered or normalized: the reader gets floats */
};
enum { MAX_OBJECTS = 1 << 16 };
static object *objects[MAX_OBJECTS]; /* slot i: handle i + 1; made once, reused */

static const char *shape_name(int shape)
{
    static const char *names[] = {"tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered", "tex2DLayered",
                                  "texCubemap", "texCubemapLayered"};
    return shape >= 0 && shape <= TEX_CUBEMAP_LAYERED ? names[shape] : "?";
}

/* Takes a free slot, under the device lock; its number plus one is the handle. */
static unsigned long long new_object(const object &o)
{
    for (unsigned i = 0; i < MAX_OBJECTS; i++) {
        object *slot = __atomic_load_n(&objects[i], __ATOMIC_ACQUIRE);
        if (slot && slot->kind != FREE_SLOT)
            continue;
        if (!slot)
            slot = new object;
        *slot = o;
        __atomic_store_n(&objects[i], slot, __ATOMIC_RELEASE);
        return i + 1ull;
    }
    return 0;
}
static object *object_of(unsigned long long handle, int kind)
{
    if (!handle || handle > MAX_OBJECTS)
        return 0;
    object *o = __atomic_load_n(&objects[handle - 1], __ATOMIC_ACQUIRE);
    return o && o->kind == kind ? o : 0;
}

/* What a linear and a pitch2D resource both give: the memory and its channel
 * format; `member` names the union's member (res.linear or res.pitch2D) in
 * the refusal. */
template <class Memory>
static cudaError_t take_memory(object *o, const Memory &m, const char *member, const char *api)
{
    if (!valid_desc(&m.desc))
        return api_fail(cudaErrorInvalidChannelDescriptor, "%s: res.%s.desc is not a channel description CUDA accepts",
                        api, member);
    o->data = (const char *)m.devPtr, o->desc = m.desc;
    o->element = element_bytes(o->desc);
    return cudaSuccess;
}

/* The resource's memory and shape, for a texture (surface = false) or a surface. */
static cudaError_t describe_resource(object *o, const cudaResourceDesc *res, bool surface, const char *api)
{
    if (!res)
        return api_fail(cudaErrorInvalidValue, "%s: the resource description is NULL", api);
    o->res = *res;
    if (surface && res->resType != cudaResourceTypeArray)
        return api_fail(cudaErrorInvalidValue, "%s: a surface is made on an array (cudaResourceTypeArray)", api);
    switch (res->resType) {
    case cudaResourceTypeArray: {
        const cudaArray *a = live_array(res->res.array.array);
        if (!a)
            return api_fail(cudaErrorInvalidResourceHandle, "%s: res.array.array is not a live array", api);
        /* (CUDA's manual asks for cudaArraySurfaceLoadStore; an H100 does without it, and so does this) */
        o->data = a->data, o->desc = a->desc, o->element = a->element;
        o->pitch = row_bytes(a), o->rows = rows_of(a);
        o->width = a->width, o->height = rows_of(a), o->depth = slices_of(a);
        bool layered = a->flags & cudaArrayLayered;
        if (a->flags & cudaArrayCubemap)
            o->shape = layered ? TEX_CUBEMAP_LAYERED : TEX_CUBEMAP;
        else if (layered)
            o->shape = a->height ? TEX_2D_LAYERED : TEX_1D_LAYERED;
        else
            o->shape = a->depth ? TEX_3D : a->height ? TEX_2D : TEX_1D;
        return cudaSuccess;
    }
    case cudaResourceTypeLinear:
        if (cudaError_t err = take_memory(o, res->res.linear, "linear", api))
            return err;
        o->width = res->res.linear.sizeInBytes / o->element, o->height = o->depth = o->rows = 1;
        o->pitch = res->res.linear.sizeInBytes;
        o->shape = TEX_FETCH;
        if (!o->data)
            return api_fail(cudaErrorInvalidValue, "%s: res.linear.devPtr is NULL", api);
        return cudaSuccess;
    case cudaResourceTypePitch2D:
        if (cudaError_t err = take_memory(o, res->res.pitch2D, "pitch2D", api))
            return err;
        o->width = res->res.pitch2D.width, o->height = o->rows = res->res.pitch2D.height, o->depth = 1;
        o->pitch = res->res.pitch2D.pitchInBytes;
        o->shape = TEX_2D;
        if (!o->data || o->pitch < o->width * o->element || o->pitch % device_properties().texturePitchAlignment)
            return api_fail(cudaErrorInvalidValue, "%s: res.pitch2D needs a pointer and a pitch of at least width x "
                            "%zu bytes, a multiple of %zu (cudaMallocPitch gives one)", api, o->element,
                            device_properties().texturePitchAlignment);
        return cudaSuccess;
    default:
        return api_fail(cudaErrorNotSupported, "%s: the cpu backend has no mipmapped arrays", api);
    }
}

static float channel_value(const object *o, const char *p, int c)
{
    bool normalized = o->tex.readMode == cudaReadModeNormalizedFloat;
    switch (o->desc.f) {
    case cudaChannelFormatKindFloat: {
        if (o->desc.x == 16) {
            unsigned short h;
            memcpy(&h, p + 2 * c, 2);
            return half_bits_to_float(h);
        }
        float f;
        memcpy(&f, p + 4 * c, 4);
        return f;
    }
    case cudaChannelFormatKindUnsigned: {
        unsigned v = o->desc.x == 8 ? ((const unsigned char *)p)[c]
                     : o->desc.x == 16 ? ((const unsigned short *)p)[c] : ((const unsigned *)p)[c];
        return normalized ? (float)v / (float)((1u << o->desc.x) - 1) : (float)v;
    }
    default: {
        int v = o->desc.x == 8 ? ((const signed char *)p)[c]
                : o->desc.x == 16 ? ((const short *)p)[c] : ((const int *)p)[c];
        float f = normalized ? (float)v / (float)((1 << (o->desc.x - 1)) - 1) : (float)v;
        return f < -1 && normalized ? -1 : f;
    }
    }
}

/* An index outside [0, n) after the address mode; -1 for the border. */
static long address(long i, long n, int mode, bool normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (!normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror))
        mode = cudaAddressModeClamp; /* CUDA: wrap and mirror need normalized coordinates */
    switch (mode) {
    case cudaAddressModeBorder: return -1;
    case cudaAddressModeWrap: return (i % n + n) % n;
    case cudaAddressModeMirror: {
        long m = (i % (2 * n) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    default: return i < 0 ? 0 : n - 1;
    }
}

/* The texel at (i, j, k), as floats; k is the layer (or cubemap face) where
 * the texture is not 3D.  A cubemap's faces do not wrap into each other. */
static void texel(const object *o, long i, long j, long k, float out[4])
{
    bool cube = o->shape == TEX_CUBEMAP || o->shape == TEX_CUBEMAP_LAYERED, norm = o->tex.normalizedCoords;
    long x = address(i, (long)o->width, cube ? cudaAddressModeClamp : o->tex.addressMode[0], norm);
    long y = address(j, (long)o->height, cube ? cudaAddressModeClamp : o->tex.addressMode[1], norm);
    long z = o->shape == TEX_3D ? address(k, (long)o->depth, o->tex.addressMode[2], norm) : k;
    if (x < 0 || y < 0 || z < 0) {
        for (int c = 0; c < 4; c++)
            out[c] = o->tex.borderColor[c];
        return;
    }
    const char *p = o->data + ((size_t)z * o->rows + (size_t)y) * o->pitch + (size_t)x * o->element;
    int n = channel_count(o->desc);
    for (int c = 0; c < 4; c++)
        out[c] = c < n ? channel_value(o, p, c) : 0;
}

/* The weight of the upper texel in 256ths: the fraction, rounded. */
static int fraction_256(float x, long *lower)
{
    float f = floorf(x);
    *lower = (long)f;
    return (int)floorf((x - f) * 256.0f + 0.5f);
}

/* The four weights of bilinear filtering, w[dy][dx], in 256ths, summing to
 * 256: the product of the fractions rounded, the rest from it. */
static void bilinear_weights(int a, int b, int w[2][2])
{
    int ab = (a * b + 128) >> 8;
    w[1][1] = ab, w[1][0] = b - ab, w[0][1] = a - ab, w[0][0] = 256 - a - b + ab;
}

/* Cubemap coordinates: the face and the coordinates on it, in [0, 1]. */
static void cube_face(float x, float y, float z, int *face, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    if (ax >= ay && ax >= az)
        *face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
    else if (ay >= az)
        *face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
    else
        *face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
    *s = (sc / m + 1) / 2;
    *t = (tc / m + 1) / 2;
}

/* Linear filtering: the 2, 4 or 8 texels around (x, y, z) of layer `slice`,
 * weighted in 256ths as the hardware does, into v. */
static void filter_linear(const object *o, int dims, float x, float y, float z, long slice, float v[4])
{
    long i, j = 0, k = slice;
    int a = fraction_256(x - 0.5f, &i), b = dims > 1 ? fraction_256(y - 0.5f, &j) : 0;
    int g = dims > 2 ? fraction_256(z - 0.5f, &k) : 0;
    int w[2][2][2] = {}; /* [dz][dy][dx], in 256ths */
    if (dims == 1) {
        w[0][0][0] = 256 - a, w[0][0][1] = a;
    } else if (dims == 2) {
        bilinear_weights(a, b, w[0]);
    } else { /* x with z first, then each of those split by y */
        int xz[2][2];
        bilinear_weights(a, g, xz);
        for (int dz = 0; dz < 2; dz++)
            for (int dx = 0; dx < 2; dx++) {
                int upper = (xz[dz][dx] * b + 128) >> 8;
                w[dz][1][dx] = upper, w[dz][0][dx] = xz[dz][dx] - upper;
            }
    }
    for (int dz = 0; dz < 2; dz++)
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                if (!w[dz][dy][dx])
                    continue;
                float t[4];
                texel(o, i + dx, j + dy, k + dz, t);
                for (int c = 0; c < 4; c++)
                    v[c] += (float)w[dz][dy][dx] / 256.0f * t[c];
            }
}

void texture_read(cudaTextureObject_t handle, int shape, float x, float y, float z, int index, void *out, size_t size,
                  const char *file, int line)
{
    const object *o = object_of(handle, TEXTURE);
    if (!o)
        kernel_fail(cudaErrorInvalidValue, file, line, "%s: %llu is not a live texture object (made with "
                    "cudaCreateTextureObject and not destroyed)", shape_name(shape), handle);
    if (shape != o->shape)
        kernel_fail(cudaErrorInvalidValue, file, line, "%s on a texture object whose resource is read with %s",
                    shape_name(shape), shape_name(o->shape));
    float v[4] = {0, 0, 0, 0};
    if (shape == TEX_FETCH) {
        /* linear memory: a whole index, no filtering; outside, zeros */
        if (index >= 0 && (size_t)index < o->width) {
            const char *p = o->data + (size_t)index * o->element;
            if (!o->float_result) {
                memset(out, 0, size);
                memcpy(out, p, size < o->element ? size : o->element);
                return;
            }
            for (int c = 0; c < channel_count(o->desc); c++)
                v[c] = channel_value(o, p, c);
        }
    } else {
        long slice = 0;
        int dims = shape == TEX_3D ? 3 : shape == TEX_1D || shape == TEX_1D_LAYERED ? 1 : 2;
        if (shape == TEX_CUBEMAP || shape == TEX_CUBEMAP_LAYERED) {
            int face;
            cube_face(x, y, z, &face, &x, &y);
            x *= (float)o->width, y *= (float)o->height;
            slice = face + (shape == TEX_CUBEMAP_LAYERED ? 6L * index : 0);
        } else {
            if (o->tex.normalizedCoords)
                x *= (float)o->width, y *= (float)o->height, z *= (float)o->depth;
            if (shape == TEX_1D_LAYERED || shape == TEX_2D_LAYERED)
                slice = index;
        }
        long layers = (long)o->depth;
        if (shape != TEX_3D && (slice < 0 || slice >= layers))
            slice = slice < 0 ? 0 : layers - 1; /* a layer outside: the nearest one */
        if (o->tex.filterMode == cudaFilterModePoint) {
            long i = (long)floorf(x), j = dims > 1 ? (long)floorf(y) : 0;
            long k = dims > 2 ? (long)floorf(z) : slice;
            if (!o->float_result) {
                bool norm = o->tex.normalizedCoords;
                long xi = address(i, (long)o->width, o->tex.addressMode[0], norm);
                long yi = address(j, (long)o->height, o->tex.addressMode[1], norm);
                long zi = dims > 2 ? address(k, (long)o->depth, o->tex.addressMode[2], norm) : k;
                memset(out, 0, size);
                if (xi >= 0 && yi >= 0 && zi >= 0) {
                    const char *p = o->data + ((size_t)zi * o->rows + (size_t)yi) * o->pitch + (size_t)xi * o->element;
                    memcpy(out, p, size < o->element ? size : o->element);
                }
                return;
            }
            texel(o, i, j, k, v);
        } else {
            filter_linear(o, dims, x, y, z, slice, v);
        }
    }
    memset(out, 0, size); /* (a whole element past the end of linear memory: zeros) */
    if (o->float_result)
        memcpy(out, v, size < sizeof v ? size : sizeof v);
}

void surface_access(cudaSurfaceObject_t handle, bool write, void *value, size_t size, int x, int y, int z,
                    int boundary, const char *what, const char *file, int line)
{
    const object *o = object_of(handle, SURFACE);
    if (!o)
        kernel_fail(cudaErrorInvalidValue, file, line, "%s: %llu is not a live surface object (made with "
                    "cudaCreateSurfaceObject and not destroyed)", what, handle);
    long row = (long)(o->width * o->element);
    bool outside = x < 0 || (long)x + (long)size > row || y < 0 || (size_t)y >= o->height || z < 0 ||
                   (size_t)z >= o->depth;
    if (outside && boundary == cudaBoundaryModeTrap) {
        char slice[32] = "";
        if (o->depth > 1)
            snprintf(slice, sizeof slice, " of slice %d", z);
        kernel_fail(cudaErrorIllegalAddress, file, line, "%s of %zu bytes at byte %d of row %d%s: outside the array "
                    "of %zu x %zu elements of %zu bytes (x counts bytes, not elements)", what, size, x, y, slice,
                    o->width, o->height, o->element);
    }
    if (outside && boundary == cudaBoundaryModeZero) {
        if (!write)
            memset(value, 0, size);
        return;
    }
    if (outside) { /* clamp to the nearest element */
        long last = row - (long)size;
        x = x < 0 ? 0 : x > last ? (int)(last - last % (long)o->element) : x;
        y = y < 0 ? 0 : (size_t)y >= o->height ? (int)o->height - 1 : y;
        z = z < 0 ? 0 : (size_t)z >= o->depth ? (int)o->depth - 1 : z;
    }
    char *p = (char *)o->data + ((size_t)z * o->rows + (size_t)y) * o->pitch + (size_t)x;
    if (write)
        memcpy(p, value, size);
    else
        memcpy(value, p, size);
}

/* What the texture object was made from, for the two getters: CUDA calls a
 * dead object and a NULL result alike an invalid value.  The lock keeps the
 * object from being destroyed while it is copied. */
template <class Field>
static cudaError_t texture_object_field(Field *out, cudaTextureObject_t tex, Field object::*field, const char *api)
{
    device_lock locked;
    const object *o = object_of(tex, TEXTURE);
    if (!o || !out)
        return api_fail(cudaErrorInvalidValue, "%s: %s", api, out ? "not a live texture object" : "NULL");
    *out = o->*field;
    return cudaSuccess;
}

} // namespace cudaemu

using namespace cudaemu;

extern "C" {
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f)
{
    cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}
cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags)
{
    return make_array(array, desc, make_cudaExtent(width, height, 0), flags, "cudaMallocArray");
}
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent,
                              unsigned int flags)
{
    return make_array(array, desc, extent, flags, "cudaMalloc3DArray");
}
cudaError_t cudaFreeArray(cudaArray_t array)
{
    device_lock locked;
    if (!array)
        return cudaSuccess;
    for (size_t i = 0; i < arrays.size(); i++)
        if (arrays[i] == array) {
            free(array->data);
            delete array;
            arrays.erase(arrays.begin() + (long)i);
            return cudaSuccess;
        }
    return api_fail(cudaErrorInvalidValue, "cudaFreeArray(%p): not a live array (freed twice, or never made with "
                    "cudaMallocArray or cudaMalloc3DArray)", (void *)array);
}
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags, cudaArray_t array)
{
    device_lock locked;
    const cudaArray *a = live_array(array);
    if (!a)
        return api_fail(cudaErrorInvalidValue, "cudaArrayGetInfo(%p): not a live array", (void *)array);
    if (desc)
        *desc = a->desc;
    if (extent)
        *extent = make_cudaExtent(a->width, a->height, a->depth);
    if (flags)
        *flags = a->flags;
    return cudaSuccess;
}
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    return cudaArrayGetInfo(desc, 0, 0, (cudaArray_t)array);
}
/* The deprecated forms: `count` bytes from (w_offset bytes, row h_offset) on,
 * through the array's rows in order. */
static cudaError_t copy_linear_array(cudaArray *to, const cudaArray *from, void *memory, size_t w_offset,
                                     size_t h_offset, size_t count, const char *api)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    printf_flush();
    const cudaArray *a = live_array(to ? (const void *)to : (const void *)from);
    if (!a)
        return api_fail(cudaErrorInvalidValue, "%s: %p is not a live array", api, to ? (void *)to : (const void *)from);
    size_t at = h_offset * row_bytes(a) + w_offset, total = row_bytes(a) * rows_of(a) * slices_of(a);
    if (w_offset > row_bytes(a) || at > total || count > total - at)
        return api_fail(cudaErrorInvalidValue, "%s of %zu bytes from (%zu bytes, row %zu): past the end of the array "
                        "of %zu bytes", api, count, w_offset, h_offset, total);
    if (count && !memory)
        return api_fail(cudaErrorInvalidValue, "%s with a NULL pointer", api);
    if (to)
        memmove(a->data + at, memory, count);
    else
        memmove(memory, a->data + at, count);
    return cudaSuccess;
}
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t count,
                              cudaMemcpyKind kind)
{
    (void)kind;
    return copy_linear_array(dst, 0, (void *)src, w_offset, h_offset, count, "cudaMemcpyToArray");
}
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                cudaMemcpyKind kind)
{
    (void)kind;
    return copy_linear_array(0, src, dst, w_offset, h_offset, count, "cudaMemcpyFromArray");
}
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind)
{
    (void)kind;
    return copy_2d_array(dst, 0, (void *)src, spitch, w_offset, h_offset, width, height, "cudaMemcpy2DToArray");
}
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, cudaMemcpyKind kind)
{
    (void)kind;
    return copy_2d_array(0, src, dst, dpitch, w_offset, h_offset, width, height, "cudaMemcpy2DFromArray");
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void *src,
                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemcpy, [=] {
        return cudaMemcpy2DToArray(dst, w_offset, h_offset, src, spitch, width, height, kind);
    });
}
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemcpy, [=] {
        return cudaMemcpy2DFromArray(dst, dpitch, src, w_offset, h_offset, width, height, kind);
    });
}
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) { return memcpy_3d(p, "cudaMemcpy3D"); }
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream)
{
    if (p && capturing(stream)) {
        cudaMemcpy3DParms copy = *p;
        return capture(stream, work_of([copy] { return memcpy_3d(&copy, "cudaMemcpy3DAsync"); }),
                       cudaGraphNodeTypeMemcpy);
    }
    return memcpy_3d(p, "cudaMemcpy3DAsync");
}

/* Rows padded to a multiple of the texture alignment, as a GPU pads them. */
cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch)
        return api_fail(cudaErrorInvalidValue, "cudaMallocPitch: the address to store the pitch in is NULL");
    size_t align = device_properties().textureAlignment;
    *pitch = (width + align - 1) / align * align;
    return cudaMalloc(ptr, *pitch * height);
}
cudaError_t cudaMalloc3D(cudaPitchedPtr *pitched, cudaExtent extent)
{
    if (!pitched)
        return api_fail(cudaErrorInvalidValue, "cudaMalloc3D: the address to store the pointer in is NULL");
    size_t pitch = 0;
    void *p = 0;
    cudaError_t err = cudaMallocPitch(&p, &pitch, extent.width, extent.height * (extent.depth ? extent.depth : 1));
    *pitched = make_cudaPitchedPtr(p, pitch, extent.width, extent.height);
    return err;
}
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemcpy,
                          [=] { return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind); });
}
cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    if (width > pitch)
        return api_fail(cudaErrorInvalidValue, "cudaMemset2D: width %zu is larger than the pitch %zu", width,
                        pitch);
    for (size_t row = 0; row < height; row++)
        if (cudaError_t err = cudaMemset((char *)ptr + row * pitch, value, width))
            return err;
    return cudaSuccess;
}
cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent)
{
    size_t rows = pitched.ysize ? pitched.ysize : 1;
    for (size_t z = 0; z < (extent.depth ? extent.depth : 1); z++)
        if (cudaError_t err = cudaMemset2D((char *)pitched.ptr + z * rows * pitched.pitch, pitched.pitch, value,
                                           extent.width, extent.height ? extent.height : 1))
            return err;
    return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const cudaResourceDesc *res,
                                    const cudaTextureDesc *desc, const cudaResourceViewDesc *view)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!tex || !desc)
        return api_fail(cudaErrorInvalidValue, "cudaCreateTextureObject with a NULL %s",
                        tex ? "texture description" : "address to store the object in");
    *tex = 0;
    if (view)
        return api_fail(cudaErrorNotSupported, "cudaCreateTextureObject: the cpu backend has no resource views; "
                        "pass NULL");
    object o = {};
    o.kind = TEXTURE;
    o.tex = *desc;
    if (cudaError_t err = describe_resource(&o, res, false, "cudaCreateTextureObject"))
        return err;
    bool integer = o.desc.f != cudaChannelFormatKindFloat;
    if (desc->readMode == cudaReadModeNormalizedFloat && integer && o.desc.x == 32)
        return api_fail(cudaErrorInvalidNormSetting, "cudaCreateTextureObject: cudaReadModeNormalizedFloat needs "
                        "8- or 16-bit integers, not 32-bit ones");
    o.float_result = !integer ? (o.desc.x == 16 || desc->filterMode == cudaFilterModeLinear)
                              : desc->readMode == cudaReadModeNormalizedFloat;
    if (desc->filterMode == cudaFilterModeLinear && integer && desc->readMode != cudaReadModeNormalizedFloat)
        return api_fail(cudaErrorInvalidFilterSetting, "cudaCreateTextureObject: linear filtering needs floats: "
                        "float channels, or integers read with cudaReadModeNormalizedFloat");
    if (o.shape == TEX_FETCH && desc->filterMode == cudaFilterModeLinear)
        return api_fail(cudaErrorInvalidFilterSetting, "cudaCreateTextureObject: a texture of linear memory is read "
                        "with tex1Dfetch, which does not filter; use cudaFilterModePoint");
    if (!(*tex = new_object(o)))
        return api_fail(cudaErrorMemoryAllocation, "cudaCreateTextureObject: %d objects are live already",
                        (int)MAX_OBJECTS);
    return cudaSuccess;
}
/* Destroying what is not a live object succeeds, as on an H100. */
static cudaError_t destroy_object(unsigned long long handle, int kind)
{
    device_lock locked;
    if (object *o = object_of(handle, kind))
        __atomic_store_n(&o->kind, (int)FREE_SLOT, __ATOMIC_RELEASE);
    return cudaSuccess;
}
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex)
{
    return destroy_object(tex, TEXTURE);
}
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *res, cudaTextureObject_t tex)
{
    return texture_object_field(res, tex, &object::res, "cudaGetTextureObjectResourceDesc");
}
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *desc, cudaTextureObject_t tex)
{
    return texture_object_field(desc, tex, &object::tex, "cudaGetTextureObjectTextureDesc");
}
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const cudaResourceDesc *res)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!surf)
        return api_fail(cudaErrorInvalidValue, "cudaCreateSurfaceObject: the address to store the object in is NULL");
    *surf = 0;
    object o = {};
    o.kind = SURFACE;
    if (cudaError_t err = describe_resource(&o, res, true, "cudaCreateSurfaceObject"))
        return err;
    if (!(*surf = new_object(o)))
        return api_fail(cudaErrorMemoryAllocation, "cudaCreateSurfaceObject: %d objects are live already",
                        (int)MAX_OBJECTS);
    return cudaSuccess;
}
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf)
{
    return destroy_object(surf, SURFACE);
}
}
