/* cuda_fp16.h of the cpu backend: the half-precision type __half, its
 * conversions and its arithmetic, for kernels and host code alike.
 *
 * A __half holds the 16 bits of an IEEE 754 binary16 number.  Arithmetic
 * converts to float, computes there and rounds back: float has more than
 * twice half's 11 significant bits plus two, so the double rounding gives
 * the correctly rounded half result for + - * /, as a GPU's half units do;
 * a fused multiply-add computes in double and rounds once.  __half2 holds
 * two halves, each computed as one.  The half math functions (hexp, hsqrt,
 * ...) are not emulated. */
#ifndef CUDAEMU_CUDA_FP16_H
#define CUDAEMU_CUDA_FP16_H
/* CUDA's own guard for this header, which some headers test */
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#endif

#include "cuda_runtime.h"

/* The raw bits, as CUDA names them (member x). */
struct __half_raw {
    unsigned short x;
};

namespace cudaemu {
/* float -> binary16, rounded to nearest, ties to even; a NaN becomes CUDA's
 * canonical 0x7FFF, as cvt.rn.f16.f32 gives it. */
static inline unsigned short float_to_half_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7FFFFFFFu;
    if (abs > 0x7F800000u)
        return 0x7FFF;
    if (abs >= 0x477FF000u) /* 65520 and up: past the largest half, 65504, by half a step or more */
        return (unsigned short)(sign | 0x7C00u);
    uint32_t exponent = abs >> 23;
    if (exponent < 113) {
        /* below 2^-14: a subnormal half, in units of 2^-24 */
        uint32_t shift = 126 - exponent;
        if (shift > 24) /* under a quarter of the unit (float subnormals included) */
            return (unsigned short)sign;
        uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
        uint32_t q = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), tie = 1u << (shift - 1);
        if (rest > tie || (rest == tie && (q & 1)))
            q++; /* may carry into the smallest normal, 0x0400: the bits are right */
        return (unsigned short)(sign | q);
    }
    uint32_t bits = ((exponent - 112) << 10) | ((abs >> 13) & 0x3FFu), rest = abs & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (bits & 1)))
        bits++; /* a carry into the exponent is the right result too */
    return (unsigned short)(sign | bits);
}
/* binary16 -> float: exact */
static inline float half_bits_to_float(unsigned short h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu, x;
    if (exponent == 0x1F)
        x = sign | 0x7F800000u | (mantissa << 13);
    else if (exponent == 0) {
        float v = ldexpf((float)mantissa, -24);
        return sign ? -v : v;
    } else
        x = sign | ((exponent + 112) << 23) | (mantissa << 13);
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}
} // namespace cudaemu

/* Converts from and to float as CUDA's __half does (implicitly), so that
 * `__half h = 1.5f;` and `float f = h;` work. */
struct __align__(2) __half {
    unsigned short __x;
    __half() = default;
    __half(const __half_raw &r) : __x(r.x) {}
    __half(float f) : __x(cudaemu::float_to_half_bits(f)) {}
    __half(double d) : __x(cudaemu::float_to_half_bits((float)d)) {}
    __half(int i) : __x(cudaemu::float_to_half_bits((float)i)) {}
    operator float() const { return cudaemu::half_bits_to_float(__x); }
    operator __half_raw() const { return __half_raw{__x}; }
};

static inline __half __ushort_as_half(unsigned short bits)
{
    return __half(__half_raw{bits});
}
static inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static inline __half __float2half(float f) { return __ushort_as_half(cudaemu::float_to_half_bits(f)); }
static inline __half __float2half_rn(float f) { return __float2half(f); }
static inline float __half2float(__half h) { return cudaemu::half_bits_to_float(h.__x); }

static inline __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
static inline __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
static inline __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
static inline __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
static inline __half __hneg(__half a) { return __ushort_as_half((unsigned short)(a.__x ^ 0x8000u)); }

/* Operators between two halves round to half after each operation, as on a
 * GPU (a + b * c is two roundings, not one). */
static inline __half operator+(__half a, __half b) { return __hadd(a, b); }
static inline __half operator-(__half a, __half b) { return __hsub(a, b); }
static inline __half operator*(__half a, __half b) { return __hmul(a, b); }
static inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
static inline __half operator-(__half a) { return __hneg(a); }

static inline __half __hfma(__half a, __half b, __half c)
{
    return __float2half((float)((double)__half2float(a) * __half2float(b) + __half2float(c)));
}
static inline __half __habs(__half a) { return __ushort_as_half((unsigned short)(a.__x & 0x7FFFu)); }
static inline __half __hmax(__half a, __half b) { return __half2float(a) >= __half2float(b) ? a : b; }
static inline __half __hmin(__half a, __half b) { return __half2float(a) <= __half2float(b) ? a : b; }
static inline bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
static inline bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
static inline bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
static inline __half &operator+=(__half &a, __half b) { return a = a + b; }
static inline __half &operator-=(__half &a, __half b) { return a = a - b; }
static inline __half &operator*=(__half &a, __half b) { return a = a * b; }
static inline __half &operator/=(__half &a, __half b) { return a = a / b; }
typedef __half half;

/* ---- two halves: each lane computed as a __half ------------------------------------------ */
struct __align__(4) __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;
static inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 __half2half2(__half a) { return __half2(a, a); }
static inline __half2 __float2half2_rn(float f) { return __half2(__float2half(f), __float2half(f)); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
static inline __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
static inline float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
static inline float __low2float(__half2 h) { return __half2float(h.x); }
static inline float __high2float(__half2 h) { return __half2float(h.y); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
static inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
static inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
static inline __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
/* The _rn forms: nvcc does not contract them into a fused multiply-add
 * (it may contract the others; here nothing is contracted). */
static inline __half __hadd_rn(__half a, __half b) { return __hadd(a, b); }
static inline __half __hsub_rn(__half a, __half b) { return __hsub(a, b); }
static inline __half __hmul_rn(__half a, __half b) { return __hmul(a, b); }
static inline __half2 __hadd2_rn(__half2 a, __half2 b) { return __hadd2(a, b); }
static inline __half2 __hsub2_rn(__half2 a, __half2 b) { return __hsub2(a, b); }
static inline __half2 __hmul2_rn(__half2 a, __half2 b) { return __hmul2(a, b); }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
static inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
static inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
static inline __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
static inline __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
static inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
static inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
static inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
static inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
static inline __half2 operator-(__half2 a) { return __hneg2(a); }
static inline __half2 &operator+=(__half2 &a, __half2 b) { return a = a + b; }
static inline __half2 &operator-=(__half2 &a, __half2 b) { return a = a - b; }
static inline __half2 &operator*=(__half2 &a, __half2 b) { return a = a * b; }

#endif /* CUDAEMU_CUDA_FP16_H */
