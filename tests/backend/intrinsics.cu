/* intrinsics.cu: CUDA's integer intrinsics (the Math API's "Integer
 * Intrinsics" section), each on values whose results a GPU gives, the
 * directed-rounding float and double intrinsics (__fadd_rd, __dmul_rz, ...)
 * on values whose correctly rounded results are known, and
 * cudaLaunchHostFunc. */
#include <cuda_runtime.h>
#include <limits.h>

#include "check.h"

enum { N = 64 };
static __global__ void integer_intrinsics(unsigned long long *o)
{
    int i = 0;
    o[i++] = __brevll(1ULL);
    o[i++] = __brevll(0xF0ULL);
    o[i++] = __brev(0x1u);
    o[i++] = __byte_perm(0x33221100u, 0x77665544u, 0x5410u);
    o[i++] = __byte_perm(0x33221100u, 0x77665544u, 0x0123u);
    o[i++] = __byte_perm(0x33221100u, 0x77665544u, 0xFFFF7654u); /* the upper 16 bits are not used */
    o[i++] = __funnelshift_l(0x80000001u, 0x1u, 4);
    o[i++] = __funnelshift_l(0x80000001u, 0x1u, 36);  /* shift & 31 */
    o[i++] = __funnelshift_lc(0x80000001u, 0x1u, 36); /* clamped to 32 */
    o[i++] = __funnelshift_r(0x80000001u, 0x1u, 4);
    o[i++] = __funnelshift_rc(0x80000001u, 0x1u, 40);
    o[i++] = (unsigned)__hadd(INT_MAX, INT_MAX);
    o[i++] = (unsigned)__hadd(-3, 0);
    o[i++] = (unsigned)__rhadd(-3, 0);
    o[i++] = __uhadd(0xFFFFFFFFu, 1u);
    o[i++] = __urhadd(0xFFFFFFFFu, 2u);
    o[i++] = (unsigned)__mul24(0x01000003, 5);
    o[i++] = (unsigned)__mul24(0xFFFFFF, 2); /* 24-bit -1 */
    o[i++] = __umul24(0x01000003u, 5u);
    o[i++] = __umul24(0xFFFFFFu, 0xFFFFFFu);
    o[i++] = __sad(-5, 3, 1u);
    o[i++] = __usad(2u, 7u, 10u);
    o[i++] = __fns(0x2Cu, 0, 1);
    o[i++] = __fns(0x2Cu, 0, 3);
    o[i++] = __fns(0x2Cu, 3, 1);
    o[i++] = __fns(0x2Cu, 4, 1);
    o[i++] = __fns(0x2Cu, 5, -1);
    o[i++] = __fns(0x2Cu, 4, -1);
    o[i++] = __fns(0x2Cu, 4, 0);
    o[i++] = __fns(0x2Cu, 5, 0);
    o[i++] = __fns(0x2Cu, 0, 4);
    o[i++] = (unsigned)__dp4a(0x01FF0203, 0x02030405, 10);
    o[i++] = __dp4a(0x01FF0203u, 0x02030405u, 10u);
    o[i++] = (unsigned)__dp4a(make_char4(1, -2, 3, -4), make_char4(5, 6, 7, 8), 0);
    o[i++] = __dp4a(make_uchar4(1, 2, 3, 4), make_uchar4(5, 6, 7, 8), 1u);
    o[i++] = (unsigned)__dp2a_lo((int)0xFFFF0002, (int)0x0403FE05, 1);
    o[i++] = (unsigned)__dp2a_hi((int)0xFFFF0002, (int)0x0403FE05, 1);
    o[i++] = __dp2a_lo(0xFFFF0002u, 0x0403FE05u, 1u);
    o[i++] = __dp2a_hi(0xFFFF0002u, 0x0403FE05u, 1u);
    o[i++] = (unsigned)__dp2a_lo(make_short2(2, -1), make_char4(5, -2, 3, 4), 1);
    o[i++] = (unsigned)__dp2a_hi(make_short2(2, -1), make_char4(5, -2, 3, 4), 1);
    o[i++] = __popc(0xF0F0u) + __popcll(~0ULL) * 100;
    o[i++] = (unsigned)(__clz(1) + __clzll(1LL) * 100 + __ffs(0x100) * 10000 + __ffsll(1LL << 40) * 1000000);
    o[i++] = __umulhi(0x80000000u, 6u) + (unsigned)__mulhi(-0x40000000, 8) * 100u;
    o[i++] = __umul64hi(1ULL << 63, 6ULL) + (unsigned long long)__mul64hi(-(1LL << 62), 8LL) * 100;
    o[i++] = umin(3u, 9u) + umax(3u, 9u) * 10 + (unsigned long long)llmin(-4LL, 2LL) * 100;
    o[N - 1] = i;
}
static const unsigned long long want[] = {
    1ULL << 63, 0x0F00000000000000ULL, 0x80000000u,
    0x55441100u, 0x00112233u, 0x77665544u,
    0x18u, 0x18u, 0x80000001u, 0x18000000u, 0x1u,
    (unsigned)INT_MAX, (unsigned)-2, (unsigned)-1, 0x80000000u, 0x80000001u,
    15u, (unsigned)-2, 15u, 0xFE000001u,
    9u, 15u,
    2u, 5u, 3u, 5u, 5u, 3u, 0xFFFFFFFFu, 5u, 0xFFFFFFFFu,
    32u, 800u, (unsigned)-18, 71u,
    13u, 3u, 16645901u, 262147u, 13u, 3u,
    8u + 6400u, 31u + 6300u + 90000u + 41000000u, 3u + (unsigned)-2 * 100u,
    3ULL + (unsigned long long)-2LL * 100, 3ULL + 90ULL + (unsigned long long)-400LL,
};
enum { WANT = sizeof want / sizeof want[0] };

/* Directed rounding: results whose rounding each mode decides. */
enum { ROUNDED = 32 };
static __global__ void directed_rounding(float *f, double *d)
{
    const float tiny = 1e-8f, big = 3.40282347e38f; /* FLT_MAX */
    int i = 0;
    f[i++] = __fadd_rd(1.0f, tiny);
    f[i++] = __fadd_ru(1.0f, tiny);
    f[i++] = __fadd_rz(-1.0f, -tiny);
    f[i++] = __fadd_rd(-1.0f, -tiny);
    f[i++] = __fsub_rd(1.0f, tiny);
    f[i++] = __fsub_ru(1.0f, tiny);
    f[i++] = __fmul_rd(3.0f, 0.5f);
    f[i++] = __fmul_ru(3.0f, 0.5f);
    f[i++] = __fdiv_rd(1.0f, 3.0f);
    f[i++] = __fdiv_ru(1.0f, 3.0f);
    f[i++] = __frcp_rz(3.0f);
    f[i++] = __fdiv_rz(-1.0f, 3.0f);
    f[i++] = __fsqrt_rd(2.0f);
    f[i++] = __fsqrt_ru(2.0f);
    f[i++] = __fsqrt_rz(4.0f);
    f[i++] = __fmul_rd(big, 2.0f);
    f[i++] = __fmul_ru(big, 2.0f);
    f[i++] = __fmul_rz(-big, 2.0f);
    f[i++] = __fadd_rd(1.0f, -1.0f);
    f[i++] = __fadd_ru(1.0f, -1.0f);
    int j = 0;
    d[j++] = __dadd_ru(1.0, 1e-20);
    d[j++] = __dadd_rd(1.0, 1e-20);
    d[j++] = __dmul_rz(0.1, 3.0);
    d[j++] = __dmul_ru(0.1, 3.0);
    d[j++] = __ddiv_rd(1.0, 3.0);
    d[j++] = __ddiv_ru(1.0, 3.0);
    d[j++] = __dsqrt_rd(2.0);
    d[j++] = __dsqrt_ru(2.0);
    d[j++] = __drcp_ru(-3.0);
    d[j++] = __dsub_rz(1.0, 1e-20);
}

static void check_directed_rounding(void)
{
    float *df, f[ROUNDED];
    double *dd, d[ROUNDED];
    EXPECT_OK(cudaMalloc(&df, sizeof f));
    EXPECT_OK(cudaMalloc(&dd, sizeof d));
    directed_rounding<<<1, 1>>>(df, dd);
    EXPECT_OK(cudaMemcpy(f, df, sizeof f, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost));
    const float one_up = nextafterf(1.0f, 2.0f), one_down = nextafterf(1.0f, 0.0f);
    EXPECT(f[0] == 1.0f && f[1] == one_up, "__fadd_rd/ru(1, 1e-8): %.9g %.9g", f[0], f[1]);
    EXPECT(f[2] == -1.0f && f[3] == -one_up, "__fadd_rz/rd(-1, -1e-8): %.9g %.9g", f[2], f[3]);
    EXPECT(f[4] == one_down && f[5] == 1.0f, "__fsub_rd/ru(1, 1e-8): %.9g %.9g", f[4], f[5]);
    EXPECT(f[6] == 1.5f && f[7] == 1.5f, "__fmul_rd/ru(3, 0.5), exact: %.9g %.9g", f[6], f[7]);
    EXPECT((double)f[8] < 1.0 / 3 && 1.0 / 3 < (double)f[9] && f[9] == nextafterf(f[8], 1.0f),
           "__fdiv_rd/ru(1, 3): %.9g %.9g", f[8], f[9]);
    EXPECT(f[10] == f[8] && f[11] == -f[8], "__frcp_rz(3), __fdiv_rz(-1, 3): %.9g %.9g", f[10], f[11]);
    EXPECT((double)f[12] * f[12] < 2 && 2 < (double)f[13] * f[13] && f[13] == nextafterf(f[12], 2.0f) &&
               f[14] == 2.0f, "__fsqrt_rd/ru(2), __fsqrt_rz(4): %.9g %.9g %.9g", f[12], f[13], f[14]);
    EXPECT(f[15] == 3.40282347e38f && isinf(f[16]) && f[17] == -3.40282347e38f,
           "an overflow rounded down, up, toward zero: %g %g %g", f[15], f[16], f[17]);
    EXPECT(f[18] == 0 && signbit(f[18]) && f[19] == 0 && !signbit(f[19]), "1 + -1 rounded down is -0, up +0");
    EXPECT(d[0] == nextafter(1.0, 2.0) && d[1] == 1.0, "__dadd_ru/rd(1, 1e-20): %.17g %.17g", d[0], d[1]);
    EXPECT(d[2] == 0.3 && d[3] == 0.1 * 3.0 && d[3] > d[2], "__dmul_rz/ru(0.1, 3): %.17g %.17g", d[2], d[3]);
    EXPECT(d[5] == nextafter(d[4], 1.0) && fma(d[4], 3.0, -1.0) < 0, "__ddiv_rd/ru(1, 3): %.17g %.17g", d[4], d[5]);
    EXPECT(d[7] == nextafter(d[6], 2.0) && d[6] < 1.4142135623730951 + 1e-16, "__dsqrt_rd/ru(2): %.17g %.17g",
           d[6], d[7]);
    EXPECT(d[8] == -d[4] && d[9] == nextafter(1.0, 0.0), "__drcp_ru(-3), __dsub_rz(1, 1e-20): %.17g %.17g", d[8],
           d[9]);
    EXPECT_OK(cudaFree(df));
    EXPECT_OK(cudaFree(dd));
}

static __global__ void write_five(int *a) { a[threadIdx.x] = 5; }
struct host_record {
    int calls;
    const int *data;
    int seen;
};
static void CUDART_CB host_function(void *user_data)
{
    host_record *r = (host_record *)user_data;
    r->calls++;
    r->seen = r->data[3];
}

int main(void)
{
    check_directed_rounding();
    unsigned long long *d, h[N];
    EXPECT_OK(cudaMalloc(&d, sizeof h));
    EXPECT_OK(cudaMemset(d, 0, sizeof h));
    integer_intrinsics<<<1, 1>>>(d);
    EXPECT_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[N - 1] == WANT, "%llu results, %d expected", h[N - 1], (int)WANT);
    for (int i = 0; i < WANT; i++)
        EXPECT(h[i] == want[i], "result %d: %#llx, want %#llx", i, h[i], want[i]);
    EXPECT_OK(cudaFree(d));

    /* cudaLaunchHostFunc: after the stream's earlier work, once */
    int *a;
    cudaStream_t s;
    EXPECT_OK(cudaMallocManaged(&a, 4 * sizeof(int)));
    EXPECT_OK(cudaStreamCreate(&s));
    write_five<<<1, 4, 0, s>>>(a);
    host_record r = {0, a, -1};
    cudaHostFn_t fn = host_function;
    EXPECT_OK(cudaLaunchHostFunc(s, fn, &r));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT(r.calls == 1 && r.seen == 5, "host function: %d calls, saw %d", r.calls, r.seen);
    EXPECT_OK(cudaLaunchHostFunc(0, host_function, &r));
    EXPECT(r.calls == 2, "host function on the default stream: %d calls", r.calls);
    EXPECT(cudaLaunchHostFunc(s, 0, &r) == cudaErrorInvalidValue, "a NULL host function accepted");
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "the refusal is the last error");
    EXPECT(cudaGetLastError() == cudaSuccess, "the refusal is sticky");
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(a));
    /* sinpi and cospi exact at whole and half arguments; the inverse error functions invert */
    EXPECT(sinpif(1.0f) == 0 && cospif(0.5f) == 0 && sinpif(-3.5f) == 1 && cospif(3.0f) == -1 &&
           fabsf(sinpif(0.25f) - 0.70710678f) < 1e-7f, "sinpif/cospif");
    float s_, c_;
    sincospif(1.5f, &s_, &c_);
    EXPECT(s_ == -1 && c_ == 0, "sincospif(1.5): %g %g", s_, c_);
    for (double y : {-0.999, -0.3, 0.0, 0.5, 0.999999})
        EXPECT(fabs(erf(erfinv(y)) - y) < 1e-15, "erf(erfinv(%g)) = %.17g", y, erf(erfinv(y)));
    for (double y : {1e-10, 0.2, 1.0, 1.8})
        EXPECT(fabs(erfc(erfcinv(y)) - y) < 1e-14 * (y > 1e-3 ? 1 : 1e3 * y), "erfc(erfcinv(%g))", y);
    EXPECT(isinf(erfinvf(1.0f)) && isnan(erfinvf(1.5f)) && norm3df(2, 3, 6) == 7 && rhypotf(3, 4) == 0.2f &&
           rnorm4df(1, 1, 1, 1) == 0.5f, "the edges of erfinvf, norm3df, rhypotf, rnorm4df");
    return check_result();
}
