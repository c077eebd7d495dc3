/* simd.cu: CUDA's SIMD intrinsics (2 halfwords or 4 bytes in an unsigned
 * int), each against values worked out by hand, lane by lane.  The operands
 * put a different case in each lane:
 *
 *   bytes   B1 a 0x7F80FF01 b 0x01FF7F02   lanes (low first), unsigned/signed:
 *                 1 vs 2;  255/-1 vs 127;  128/-128 vs 255/-1;  127 vs 1
 *           B2 a 0x80457F10 b 0x0145FFFF
 *                 16 vs 255/-1;  127 vs 255/-1;  69 vs 69;  128/-128 vs 1
 *   halves  H1 a 0x7FFF8000 b 0x00010001
 *                 32768/-32768 vs 1;  32767 vs 1
 *           H2 a 0x12348001 b 0x1234FFFF
 *                 32769/-32767 vs 65535/-1;  0x1234 vs 0x1234
 *
 * so that signed and unsigned orders differ, sums wrap or saturate at both
 * ends, and equal lanes occur; D is the math API's own example pair.  A
 * __vset.. gives 0 or 1 in each lane (as __vcmp.. gives 0 or all ones), though
 * the API's prose reads as if it gave one 0 or 1 for the whole word. */
#include "check.h"

#define B1 0x7F80FF01u, 0x01FF7F02u
#define B2 0x80457F10u, 0x0145FFFFu
#define H1 0x7FFF8000u, 0x00010001u
#define H2 0x12348001u, 0x1234FFFFu
#define D 0x1234ABA5u, 0x1234ABA6u

/* X(function, operands, expected), the operands one of B1 ... H2 */
#define BINARY(X)                                                                                        \
    X(__vadd4, B1, 0x807F7E03u) /* 255+127 and 128+255 wrap, 127+1 is 0x80 */                           \
    X(__vadd4, B2, 0x818A7E0Fu)                                                                         \
    X(__vadd2, H1, 0x80008001u)                                                                         \
    X(__vadd2, H2, 0x24688000u)                                                                         \
    X(__vsub4, B1, 0x7E8180FFu)                                                                         \
    X(__vsub4, B2, 0x7F008011u)                                                                         \
    X(__vsub2, H1, 0x7FFE7FFFu)                                                                         \
    X(__vsub2, H2, 0x00008002u)                                                                         \
    X(__vaddss4, B1, 0x7F807E03u) /* -128 + -1 stops at -128, 127 + 1 at 127 */                         \
    X(__vaddss4, B2, 0x817F7E0Fu)                                                                       \
    X(__vaddss2, H1, 0x7FFF8001u)                                                                       \
    X(__vaddss2, H2, 0x24688000u)                                                                       \
    X(__vaddus4, B1, 0x80FFFF03u)                                                                       \
    X(__vaddus4, B2, 0x818AFFFFu)                                                                       \
    X(__vaddus2, H1, 0x80008001u)                                                                       \
    X(__vaddus2, H2, 0x2468FFFFu)                                                                       \
    X(__vsubss4, B1, 0x7E8180FFu)                                                                       \
    X(__vsubss4, B2, 0x80007F11u) /* 127 - -1 stops at 127, -128 - 1 at -128 */                         \
    X(__vsubss2, H1, 0x7FFE8000u)                                                                       \
    X(__vsubss2, H2, 0x00008002u)                                                                       \
    X(__vsubus4, B1, 0x7E008000u) /* below 0 stops at 0 */                                              \
    X(__vsubus4, B2, 0x7F000000u)                                                                       \
    X(__vsubus2, H1, 0x7FFE7FFFu)                                                                       \
    X(__vsubus2, H2, 0x00000000u)                                                                       \
    X(__vabsdiffs4, B1, 0x7E7F8001u)                                                                    \
    X(__vabsdiffs4, B2, 0x81008011u) /* |-128 - 1| = 129 */                                             \
    X(__vabsdiffs2, H1, 0x7FFE8001u)                                                                    \
    X(__vabsdiffs2, H2, 0x00007FFEu)                                                                    \
    X(__vabsdiffu4, B1, 0x7E7F8001u)                                                                    \
    X(__vabsdiffu4, B2, 0x7F0080EFu)                                                                    \
    X(__vabsdiffu2, H1, 0x7FFE7FFFu)                                                                    \
    X(__vabsdiffu2, H2, 0x00007FFEu)                                                                    \
    X(__vavgs4, B1, 0x40BF3F02u) /* (-128 + -1) / 2 = -64.5 rounds to -65 */                            \
    X(__vavgs4, B2, 0xC0453F08u) /* (-128 + 1) / 2 = -63.5 rounds to -64 */                             \
    X(__vavgs2, H1, 0x4000C000u)                                                                        \
    X(__vavgs2, H2, 0x1234C000u)                                                                        \
    X(__vavgu4, B1, 0x40C0BF02u) /* (1 + 2) / 2 rounds up to 2 */                                       \
    X(__vavgu4, B2, 0x4145BF88u)                                                                        \
    X(__vavgu2, H1, 0x40004001u)                                                                        \
    X(__vavgu2, H2, 0x1234C000u)                                                                        \
    X(__vhaddu4, B1, 0x40BFBF01u) /* (1 + 2) / 2 truncates to 1 */                                      \
    X(__vhaddu4, B2, 0x4045BF87u)                                                                       \
    X(__vhaddu2, H1, 0x40004000u)                                                                       \
    X(__vhaddu2, H2, 0x1234C000u)                                                                       \
    X(__vmaxs4, B1, 0x7FFF7F02u)                                                                        \
    X(__vmaxs4, B2, 0x01457F10u)                                                                        \
    X(__vmaxs2, H1, 0x7FFF0001u)                                                                        \
    X(__vmaxs2, H2, 0x1234FFFFu)                                                                        \
    X(__vmaxu4, B1, 0x7FFFFF02u)                                                                        \
    X(__vmaxu4, B2, 0x8045FFFFu)                                                                        \
    X(__vmaxu2, H1, 0x7FFF8000u)                                                                        \
    X(__vmaxu2, H2, 0x1234FFFFu)                                                                        \
    X(__vmins4, B1, 0x0180FF01u)                                                                        \
    X(__vmins4, B2, 0x8045FFFFu)                                                                        \
    X(__vmins2, H1, 0x00018000u)                                                                        \
    X(__vmins2, H2, 0x12348001u)                                                                        \
    X(__vminu4, B1, 0x01807F01u)                                                                        \
    X(__vminu4, B2, 0x01457F10u)                                                                        \
    X(__vminu2, H1, 0x00010001u)                                                                        \
    X(__vminu2, H2, 0x12348001u)                                                                        \
    X(__vcmpeq4, B1, 0x00000000u)                                                                       \
    X(__vcmpeq4, B2, 0x00FF0000u)                                                                       \
    X(__vcmpeq2, H1, 0x00000000u)                                                                       \
    X(__vcmpeq2, H2, 0xFFFF0000u)                                                                       \
    X(__vcmpne4, B1, 0xFFFFFFFFu)                                                                       \
    X(__vcmpne4, B2, 0xFF00FFFFu)                                                                       \
    X(__vcmpne2, H1, 0xFFFFFFFFu)                                                                       \
    X(__vcmpne2, H2, 0x0000FFFFu)                                                                       \
    X(__vcmpges4, B1, 0xFF000000u)                                                                      \
    X(__vcmpges4, B2, 0x00FFFFFFu)                                                                      \
    X(__vcmpges2, H1, 0xFFFF0000u)                                                                      \
    X(__vcmpges2, H2, 0xFFFF0000u)                                                                      \
    X(__vcmpgeu4, B1, 0xFF00FF00u)                                                                      \
    X(__vcmpgeu4, B2, 0xFFFF0000u)                                                                      \
    X(__vcmpgeu2, H1, 0xFFFFFFFFu)                                                                      \
    X(__vcmpgeu2, H2, 0xFFFF0000u)                                                                      \
    X(__vcmpgts4, B1, 0xFF000000u)                                                                      \
    X(__vcmpgts4, B2, 0x0000FFFFu)                                                                      \
    X(__vcmpgts2, H1, 0xFFFF0000u)                                                                      \
    X(__vcmpgts2, H2, 0x00000000u)                                                                      \
    X(__vcmpgtu4, B1, 0xFF00FF00u)                                                                      \
    X(__vcmpgtu4, B2, 0xFF000000u)                                                                      \
    X(__vcmpgtu2, H1, 0xFFFFFFFFu)                                                                      \
    X(__vcmpgtu2, H2, 0x00000000u)                                                                      \
    X(__vcmples4, B1, 0x00FFFFFFu)                                                                      \
    X(__vcmples4, B2, 0xFFFF0000u)                                                                      \
    X(__vcmples2, H1, 0x0000FFFFu)                                                                      \
    X(__vcmples2, H2, 0xFFFFFFFFu)                                                                      \
    X(__vcmpleu4, B1, 0x00FF00FFu)                                                                      \
    X(__vcmpleu4, B2, 0x00FFFFFFu)                                                                      \
    X(__vcmpleu2, H1, 0x00000000u)                                                                      \
    X(__vcmpleu2, H2, 0xFFFFFFFFu)                                                                      \
    X(__vcmplts4, B1, 0x00FFFFFFu)                                                                      \
    X(__vcmplts4, B2, 0xFF000000u)                                                                      \
    X(__vcmplts2, H1, 0x0000FFFFu)                                                                      \
    X(__vcmplts2, H2, 0x0000FFFFu)                                                                      \
    X(__vcmpltu4, B1, 0x00FF00FFu)                                                                      \
    X(__vcmpltu4, B2, 0x0000FFFFu)                                                                      \
    X(__vcmpltu2, H1, 0x00000000u)                                                                      \
    X(__vcmpltu2, H2, 0x0000FFFFu)                                                                      \
    X(__vseteq4, B1, 0x00000000u)                                                                       \
    X(__vseteq4, B2, 0x00010000u)                                                                       \
    X(__vseteq2, H1, 0x00000000u)                                                                       \
    X(__vseteq2, H2, 0x00010000u)                                                                       \
    X(__vsetne4, B1, 0x01010101u)                                                                       \
    X(__vsetne4, B2, 0x01000101u)                                                                       \
    X(__vsetne2, H1, 0x00010001u)                                                                       \
    X(__vsetne2, H2, 0x00000001u)                                                                       \
    X(__vsetges4, B1, 0x01000000u)                                                                      \
    X(__vsetges4, B2, 0x00010101u)                                                                      \
    X(__vsetges2, H1, 0x00010000u)                                                                      \
    X(__vsetges2, H2, 0x00010000u)                                                                      \
    X(__vsetgeu4, B1, 0x01000100u)                                                                      \
    X(__vsetgeu4, B2, 0x01010000u)                                                                      \
    X(__vsetgeu2, H1, 0x00010001u)                                                                      \
    X(__vsetgeu2, H2, 0x00010000u)                                                                      \
    X(__vsetgts4, B1, 0x01000000u)                                                                      \
    X(__vsetgts4, B2, 0x00000101u)                                                                      \
    X(__vsetgts2, H1, 0x00010000u)                                                                      \
    X(__vsetgts2, H2, 0x00000000u)                                                                      \
    X(__vsetgtu4, B1, 0x01000100u)                                                                      \
    X(__vsetgtu4, B2, 0x01000000u)                                                                      \
    X(__vsetgtu2, H1, 0x00010001u)                                                                      \
    X(__vsetgtu2, H2, 0x00000000u)                                                                      \
    X(__vsetles4, B1, 0x00010101u)                                                                      \
    X(__vsetles4, B2, 0x01010000u)                                                                      \
    X(__vsetles2, H1, 0x00000001u)                                                                      \
    X(__vsetles2, H2, 0x00010001u)                                                                      \
    X(__vsetleu4, B1, 0x00010001u)                                                                      \
    X(__vsetleu4, B2, 0x00010101u)                                                                      \
    X(__vsetleu2, H1, 0x00000000u)                                                                      \
    X(__vsetleu2, H2, 0x00010001u)                                                                      \
    X(__vsetlts4, B1, 0x00010101u)                                                                      \
    X(__vsetlts4, B2, 0x01000000u)                                                                      \
    X(__vsetlts2, H1, 0x00000001u)                                                                      \
    X(__vsetlts2, H2, 0x00000001u)                                                                      \
    X(__vsetltu4, B1, 0x00010001u)                                                                      \
    X(__vsetltu4, B2, 0x00000101u)                                                                      \
    X(__vsetltu2, H1, 0x00000000u)                                                                      \
    X(__vsetltu2, H2, 0x00000001u)                                                                      \
    X(__vsads4, B1, 382u) /* 1 + 128 + 127 + 126 */                                                     \
    X(__vsads4, B2, 274u) /* 17 + 128 + 0 + 129 */                                                      \
    X(__vsads2, H1, 65535u) /* 32769 + 32766 */                                                         \
    X(__vsads2, H2, 32766u)                                                                             \
    X(__vsadu4, B1, 382u)                                                                               \
    X(__vsadu4, B2, 494u) /* 239 + 128 + 0 + 127 */                                                     \
    X(__vsadu2, H1, 65533u) /* 32767 + 32766 */                                                         \
    X(__vsadu2, H2, 32766u)                                                                             \
    X(__vcmpeq4, D, 0xFFFFFF00u) /* the math API's examples */                                         \
    X(__vcmpeq2, D, 0xFFFF0000u)                                                                        \
    X(__vcmpges4, D, 0xFFFFFF00u)                                                                       \
    X(__vcmplts2, D, 0x0000FFFFu)                                                                       \
    X(__vseteq4, D, 0x01010100u)                                                                        \
    X(__vsetlts4, D, 0x00000001u)

/* X(function, a, expected); lanes (low first) of 0x807F01FF: -1, 1, 127, -128;
 * of 0x80007FFF: 32767, -32768; of 0xFFFF0001: 1, -1 */
#define UNARY(X)                                                                                         \
    X(__vabs4, 0x807F01FFu, 0x807F0101u) /* |-128| wraps to 0x80 */                                     \
    X(__vabsss4, 0x807F01FFu, 0x7F7F0101u) /* |-128| stops at 127 */                                    \
    X(__vneg4, 0x807F01FFu, 0x8081FF01u)                                                                \
    X(__vnegss4, 0x807F01FFu, 0x7F81FF01u)                                                              \
    X(__vabs2, 0x80007FFFu, 0x80007FFFu)                                                                \
    X(__vabsss2, 0x80007FFFu, 0x7FFF7FFFu)                                                              \
    X(__vneg2, 0x80007FFFu, 0x80008001u)                                                                \
    X(__vnegss2, 0x80007FFFu, 0x7FFF8001u)                                                              \
    X(__vabs2, 0xFFFF0001u, 0x00010001u)                                                                \
    X(__vabsss2, 0xFFFF0001u, 0x00010001u)                                                              \
    X(__vneg2, 0xFFFF0001u, 0x0001FFFFu)                                                                \
    X(__vnegss2, 0xFFFF0001u, 0x0001FFFFu)

#define FIRST(a, b) a
#define SECOND(a, b) b
#define COUNT2(f, ab, w) +1
#define COUNT1(f, a, w) +1
enum { N_BINARY = 0 BINARY(COUNT2), N_UNARY = 0 UNARY(COUNT1), N = N_BINARY + N_UNARY };

/* One thread computes every case from operands in device memory. */
static __global__ void simd(const unsigned *a, const unsigned *b, unsigned *out)
{
    int i = 0;
#define RUN2(f, AB, W) out[i] = f(a[i], b[i]), i++;
#define RUN1(f, A, W) out[i] = f(a[i]), i++;
    BINARY(RUN2)
    UNARY(RUN1)
}

int main(void)
{
    static const char *names[N] = {
#define NAME2(f, ab, w) #f "(" #ab ")",
#define NAME1(f, a, w) #f "(" #a ")",
        BINARY(NAME2) UNARY(NAME1)};
    unsigned a[N] = {
#define A2(f, ab, w) FIRST(ab),
#define A1(f, a, w) a,
        BINARY(A2) UNARY(A1)};
    unsigned b[N] = {
#define B_2(f, ab, w) SECOND(ab),
#define B_1(f, a, w) 0,
        BINARY(B_2) UNARY(B_1)};
    const unsigned want[N] = {
#define W2(f, ab, w) w,
#define W1(f, a, w) w,
        BINARY(W2) UNARY(W1)};
    unsigned got[N], *d;
    EXPECT_OK(cudaMalloc(&d, 3 * sizeof got));
    EXPECT_OK(cudaMemcpy(d, a, sizeof a, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(d + N, b, sizeof b, cudaMemcpyHostToDevice));
    simd<<<1, 1>>>(d, d + N, d + 2 * N);
    EXPECT_OK(cudaMemcpy(got, d + 2 * N, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        EXPECT(got[i] == want[i], "%s = 0x%08x, want 0x%08x", names[i], got[i], want[i]);
    EXPECT_OK(cudaFree(d));
    return check_result();
}
