/* cuComplex.h of the cpu backend: CUDA's single and double complex types
 * (float2 and double2) and their arithmetic, for kernels and host code. */
#ifndef CUDAEMU_CUCOMPLEX_H
#define CUDAEMU_CUCOMPLEX_H
#include <math.h>

#include "cuda_runtime.h"

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return make_double2(r, i); }
static inline cuComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
static inline float cuCrealf(cuFloatComplex z) { return z.x; }
static inline float cuCimagf(cuFloatComplex z) { return z.y; }
static inline double cuCreal(cuDoubleComplex z) { return z.x; }
static inline double cuCimag(cuDoubleComplex z) { return z.y; }
static inline cuFloatComplex cuConjf(cuFloatComplex z) { return make_float2(z.x, -z.y); }
static inline cuDoubleComplex cuConj(cuDoubleComplex z) { return make_double2(z.x, -z.y); }
static inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return make_float2(a.x + b.x, a.y + b.y); }
static inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return make_double2(a.x + b.x, a.y + b.y); }
static inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return make_float2(a.x - b.x, a.y - b.y); }
static inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return make_double2(a.x - b.x, a.y - b.y); }
static inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
static inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b)
{
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/* Division and magnitude scaled by the larger part, so that squares
 * neither overflow nor underflow. */
static inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b)
{
    double s = fabs(b.x) + fabs(b.y), ar = a.x / s, ai = a.y / s, br = b.x / s, bi = b.y / s, d = br * br + bi * bi;
    return make_double2((ar * br + ai * bi) / d, (ai * br - ar * bi) / d);
}
static inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b)
{
    float s = fabsf(b.x) + fabsf(b.y), ar = a.x / s, ai = a.y / s, br = b.x / s, bi = b.y / s, d = br * br + bi * bi;
    return make_float2((ar * br + ai * bi) / d, (ai * br - ar * bi) / d);
}
static inline double cuCabs(cuDoubleComplex z) { return hypot(z.x, z.y); }
static inline float cuCabsf(cuFloatComplex z) { return hypotf(z.x, z.y); }
static inline cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d)
{
    return cuCaddf(cuCmulf(x, y), d);
}
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d)
{
    return cuCadd(cuCmul(x, y), d);
}
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) { return make_double2(z.x, z.y); }
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) { return make_float2((float)z.x, (float)z.y); }
#endif
