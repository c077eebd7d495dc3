/* cudaemu/device.h: what kernels see on the cpu backend: the built-in
 * variables, barriers, warp operations, shared memory, atomics, kernel printf
 * and the intrinsic math functions.  Each CUDA thread is a fiber; a call
 * that synchronises (a barrier, a shuffle, a vote) lets the other fibers run
 * until the whole group has arrived. */
#ifndef CUDAEMU_DEVICE_H
#define CUDAEMU_DEVICE_H

#include <math.h>
#include <cmath>
#include <limits>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <type_traits>

#include "types.h"

#define CUDAEMU_HIDDEN __attribute__((visibility("hidden")))
#define CUDAEMU_HERE const char *file = __builtin_FILE(), int line = __builtin_LINE()
/* For the warp operations' wrappers, which hand values to the scheduler
 * through variables on the fiber's stack: the next CUDA thread to run on the
 * same stack reuses them, and TSan would take the two threads' accesses for
 * a race.  Not instrumented, these wrappers are not inlined either, so the
 * student's code around them still is. */
#define CUDAEMU_NO_TSAN __attribute__((no_sanitize_thread))

/* ---- built-in variables ------------------------------------------------------
 * Read-only for kernels.  The scheduler stores the running thread's values
 * in them at every switch, so each fiber always sees its own; one copy per
 * host thread, since a launch's blocks run on several. */
extern __thread const uint3 threadIdx __asm__("cudaemu_threadIdx") CUDAEMU_HIDDEN;
extern __thread const uint3 blockIdx __asm__("cudaemu_blockIdx") CUDAEMU_HIDDEN;
extern const dim3 blockDim __asm__("cudaemu_blockDim") CUDAEMU_HIDDEN;
extern const dim3 gridDim __asm__("cudaemu_gridDim") CUDAEMU_HIDDEN;
static constexpr int warpSize = 32;

namespace cudaemu {
/* ---- the scheduler's side (src/scheduler.cpp) -------------------------------------- */
enum barrier_kind { BARRIER_PLAIN, BARRIER_COUNT, BARRIER_AND, BARRIER_OR };
enum warp_kind { WARP_SYNC, WARP_SHFL, WARP_SHFL_UP, WARP_SHFL_DOWN, WARP_SHFL_XOR, WARP_BALLOT, WARP_ANY, WARP_ALL,
                 WARP_KINDS };
enum { WARP_VALUE_MAX = 32 };

int block_barrier(int kind, int predicate, const char *what, const char *file, int line) CUDAEMU_HIDDEN;
/* in: this lane's value (size bytes); out: the value it receives.  For votes
 * the value is the predicate (an int) and out an unsigned. */
void warp_op(int kind, unsigned mask, const void *in, void *out, size_t size, int lane_arg, int width,
             const char *what, const char *file, int line) CUDAEMU_HIDDEN;
/* The same for a tile of `size` threads (a power of two from 64 to 1024,
 * cooperative groups' thread_block_tile<64> and up, whose making checked
 * that the block splits into such tiles): WARP_SYNC, WARP_SHFL (the value
 * of the tile's thread of rank `src`), WARP_ANY or WARP_ALL. */
void tile_op(int kind, unsigned size, const void *in, void *out, size_t bytes, unsigned src, const char *what,
             const char *file, int line) CUDAEMU_HIDDEN;
void grid_barrier(const char *file, int line) CUDAEMU_HIDDEN;
int grid_is_cooperative(void) CUDAEMU_HIDDEN;
void kernel_fail(int code, const char *file, int line, const char *fmt, ...) CUDAEMU_HIDDEN
    __attribute__((noreturn, format(printf, 4, 5)));
int in_kernel(void) CUDAEMU_HIDDEN;
void atomic_point(void) CUDAEMU_HIDDEN;

/* Shared memory.  Each __shared__ declaration owns a slot; the first thread
 * of a launch that reaches it places it in the block's shared arena.  The
 * launch and the offset share one word, so that a thread of another host
 * thread reads both at once, with a plain load the compiler may still hoist
 * out of a loop (an aligned 8-byte load is never torn on x86-64). */
struct shared_slot {
    unsigned long long placed; /* launch << SHARED_OFFSET_BITS | offset */
};
enum { SHARED_OFFSET_BITS = 24 };
extern unsigned long long current_launch_id CUDAEMU_HIDDEN;
extern unsigned long long clock_base CUDAEMU_HIDDEN;
extern __thread char *current_shared_base CUDAEMU_HIDDEN;
/* gives the slot's new word */
unsigned long long place_shared(shared_slot *slot, size_t size, size_t align, const char *file, int line) CUDAEMU_HIDDEN;
void *dynamic_shared(void) CUDAEMU_HIDDEN;

/* ALIGN: the declaration's own __align__(n) or __attribute__((aligned(n))),
 * 0 if none; at least 16 bytes, as a GPU's shared variables are. */
template <size_t ALIGN, class T> static constexpr size_t shared_align(void)
{
    return ALIGN > alignof(T) ? (ALIGN < 16 ? 16 : ALIGN) : (alignof(T) < 16 ? 16 : alignof(T));
}
template <class T, size_t ALIGN = 0> static inline T &shared_var(shared_slot *slot, const char *file, int line)
{
    static_assert(shared_align<ALIGN, T>() <= 256, "the cpu backend aligns __shared__ variables to at most 256 bytes");
    unsigned long long placed = slot->placed;
    if (placed >> SHARED_OFFSET_BITS != current_launch_id)
        placed = place_shared(slot, sizeof(T), shared_align<ALIGN, T>(), file, line);
    return *(T *)(current_shared_base + (placed & ((1ull << SHARED_OFFSET_BITS) - 1)));
}

/* Namespace-scope `extern __shared__ T x[];` becomes a DynamicShared<T>. */
template <class T> struct dynamic_shared_array {
    operator T *() const { return (T *)dynamic_shared(); }
    T &operator[](size_t i) const { return ((T *)dynamic_shared())[i]; }
    T *operator&() const { return (T *)dynamic_shared(); }
};
/* Namespace-scope `__shared__ T x[N];` (rare) becomes a static_shared<T[N]>. */
template <class T, size_t ALIGN = 0> struct static_shared_var {
    mutable shared_slot slot;
    T &get() const { return shared_var<T, ALIGN>(&slot, "", 0); }
    operator T &() const { return get(); }
    template <class I> auto &operator[](I i) const { return get()[i]; }
    template <class V> T &operator=(const V &v) const { return get() = v; }
    T *operator&() const { return &get(); }
};

int printf_in_kernel(const char *format, va_list args) CUDAEMU_HIDDEN;
} // namespace cudaemu

/* ---- kernel printf: buffered like CUDA's, shown at the next synchronisation -- */
static inline int cudaemu_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
static inline int cudaemu_printf(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = cudaemu::in_kernel() ? cudaemu::printf_in_kernel(format, args) : vprintf(format, args);
    va_end(args);
    return n;
}
namespace std {
using ::cudaemu_printf;
}
#define printf(...) cudaemu_printf(__VA_ARGS__)

/* ---- barriers ------------------------------------------------------------------------ */
static inline void __syncthreads(CUDAEMU_HERE)
{
    cudaemu::block_barrier(cudaemu::BARRIER_PLAIN, 0, "__syncthreads()", file, line);
}
static inline int __syncthreads_count(int predicate, CUDAEMU_HERE)
{
    return cudaemu::block_barrier(cudaemu::BARRIER_COUNT, predicate, "__syncthreads_count()", file, line);
}
static inline int __syncthreads_and(int predicate, CUDAEMU_HERE)
{
    return cudaemu::block_barrier(cudaemu::BARRIER_AND, predicate, "__syncthreads_and()", file, line);
}
static inline int __syncthreads_or(int predicate, CUDAEMU_HERE)
{
    return cudaemu::block_barrier(cudaemu::BARRIER_OR, predicate, "__syncthreads_or()", file, line);
}
/* Memory fences: a full fence of the CPU's (blocks may run on several
 * cores).  __sync_synchronize rather than __atomic_thread_fence: the same
 * code, but with -fsanitize=thread g++ warns at every use of the latter
 * ("atomic_thread_fence is not supported"), in the student's build of a
 * correct kernel.  TSan models neither: a fence orders nothing for it. */
static inline void __threadfence(void) { __sync_synchronize(); }
static inline void __threadfence_block(void) { __sync_synchronize(); }
static inline void __threadfence_system(void) { __sync_synchronize(); }

/* ---- warp operations ------------------------------------------------------------------- */
static inline void __syncwarp(unsigned mask = 0xffffffffu, CUDAEMU_HERE)
{
    cudaemu::warp_op(cudaemu::WARP_SYNC, mask, 0, 0, 0, 0, 32, "__syncwarp()", file, line);
}
template <class T>
static inline CUDAEMU_NO_TSAN T cudaemu_shuffle(int kind, unsigned mask, T var, int arg, int width, const char *what,
                                                const char *file, int line)
{
    static_assert(sizeof(T) <= cudaemu::WARP_VALUE_MAX, "shuffled values must be at most 32 bytes");
    T out;
    cudaemu::warp_op(kind, mask, &var, &out, sizeof(T), arg, width, what, file, line);
    return out;
}
template <class T> static inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32, CUDAEMU_HERE)
{
    return cudaemu_shuffle(cudaemu::WARP_SHFL, mask, var, src_lane, width, "__shfl_sync()", file, line);
}
template <class T> static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32, CUDAEMU_HERE)
{
    return cudaemu_shuffle(cudaemu::WARP_SHFL_UP, mask, var, (int)delta, width, "__shfl_up_sync()", file, line);
}
template <class T> static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32, CUDAEMU_HERE)
{
    return cudaemu_shuffle(cudaemu::WARP_SHFL_DOWN, mask, var, (int)delta, width, "__shfl_down_sync()", file, line);
}
template <class T> static inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32, CUDAEMU_HERE)
{
    return cudaemu_shuffle(cudaemu::WARP_SHFL_XOR, mask, var, lane_mask, width, "__shfl_xor_sync()", file, line);
}
static inline CUDAEMU_NO_TSAN unsigned __ballot_sync(unsigned mask, int predicate, CUDAEMU_HERE)
{
    unsigned out;
    int p = predicate != 0;
    cudaemu::warp_op(cudaemu::WARP_BALLOT, mask, &p, &out, sizeof p, 0, 32, "__ballot_sync()", file, line);
    return out;
}
static inline CUDAEMU_NO_TSAN int __any_sync(unsigned mask, int predicate, CUDAEMU_HERE)
{
    unsigned out;
    int p = predicate != 0;
    cudaemu::warp_op(cudaemu::WARP_ANY, mask, &p, &out, sizeof p, 0, 32, "__any_sync()", file, line);
    return (int)out;
}
static inline CUDAEMU_NO_TSAN int __all_sync(unsigned mask, int predicate, CUDAEMU_HERE)
{
    unsigned out;
    int p = predicate != 0;
    cudaemu::warp_op(cudaemu::WARP_ALL, mask, &p, &out, sizeof p, 0, 32, "__all_sync()", file, line);
    return (int)out;
}
/* sm_80's warp reductions and CUDA's warp matches, made of shuffles: every
 * lane reads each named lane's value in turn (a shuffle per lane named). */
#define CUDAEMU_WARP_REDUCE(NAME, T, INIT, OP)                                                          \
    static inline T NAME(unsigned mask, T value, CUDAEMU_HERE)                                          \
    {                                                                                                  \
        T r = INIT;                                                                                    \
        for (int lane = 0; lane < 32; lane++)                                                          \
            if (mask >> lane & 1) {                                                                    \
                T v = __shfl_sync(mask, value, lane, 32, file, line);                                  \
                r = OP;                                                                                \
            }                                                                                          \
        return r;                                                                                      \
    }
CUDAEMU_WARP_REDUCE(__reduce_add_sync, unsigned, 0u, r + v)
CUDAEMU_WARP_REDUCE(__reduce_add_sync, int, 0, (int)((unsigned)r + (unsigned)v))
CUDAEMU_WARP_REDUCE(__reduce_min_sync, unsigned, 0xffffffffu, v < r ? v : r)
CUDAEMU_WARP_REDUCE(__reduce_min_sync, int, 0x7fffffff, v < r ? v : r)
CUDAEMU_WARP_REDUCE(__reduce_max_sync, unsigned, 0u, v > r ? v : r)
CUDAEMU_WARP_REDUCE(__reduce_max_sync, int, (int)0x80000000u, v > r ? v : r)
CUDAEMU_WARP_REDUCE(__reduce_and_sync, unsigned, 0xffffffffu, r & v)
CUDAEMU_WARP_REDUCE(__reduce_or_sync, unsigned, 0u, r | v)
CUDAEMU_WARP_REDUCE(__reduce_xor_sync, unsigned, 0u, r ^ v)
#undef CUDAEMU_WARP_REDUCE
/* the lanes named in mask whose value has the same bits as this lane's */
template <class T> static inline unsigned __match_any_sync(unsigned mask, T value, CUDAEMU_HERE)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes 32- or 64-bit values");
    unsigned same = 0;
    for (int lane = 0; lane < 32; lane++)
        if (mask >> lane & 1) {
            T v = __shfl_sync(mask, value, lane, 32, file, line);
            if (!memcmp(&v, &value, sizeof v))
                same |= 1u << lane;
        }
    return same;
}
template <class T> static inline unsigned __match_all_sync(unsigned mask, T value, int *pred, CUDAEMU_HERE)
{
    bool all = __match_any_sync(mask, value, file, line) == mask;
    *pred = all;
    return all ? mask : 0;
}
/* Pre-Volta forms without a mask were removed from CUDA; say so. */
#define CUDAEMU_REMOVED(what) __attribute__((error(what " was removed from CUDA: use the _sync form with a mask")))
template <class T> T __shfl(T, int, int = 32) CUDAEMU_REMOVED("__shfl()");
template <class T> T __shfl_up(T, unsigned, int = 32) CUDAEMU_REMOVED("__shfl_up()");
template <class T> T __shfl_down(T, unsigned, int = 32) CUDAEMU_REMOVED("__shfl_down()");
template <class T> T __shfl_xor(T, int, int = 32) CUDAEMU_REMOVED("__shfl_xor()");
unsigned __ballot(int) CUDAEMU_REMOVED("__ballot()");
int __any(int) CUDAEMU_REMOVED("__any()");
int __all(int) CUDAEMU_REMOVED("__all()");
unsigned __activemask(void)
    __attribute__((error("__activemask() has no meaning on the cpu backend (each thread runs alone between "
                         "synchronisation points): name the lanes in an explicit mask")));
#undef CUDAEMU_REMOVED

/* ---- atomics: relaxed, like CUDA's; float and double by compare-and-swap ------------- */
/* What TSan sees of an atomic: an atomic read of its address, the change
 * itself being made where TSan does not look (CUDAEMU_NO_TSAN).  Atomics
 * still never race with each other, and a plain write racing with one (a
 * counter zeroed by one thread while others add to it) is still reported;
 * but a plain read of a value that other threads change atomically is not:
 * the compare-and-swap loop of CUDA's programming guide begins with one
 * (`int old = *address;` before atomicCAS), and reading such a value is
 * no bug on a GPU. */
template <class T> static inline void cudaemu_atomic_seen(T *p) { (void)__atomic_load_n(p, __ATOMIC_RELAXED); }
/* Compare-and-swap that returns the old value, as atomicCAS does.  Not
 * __atomic_compare_exchange_n, whose `expected` is a variable in memory. */
template <class T> static inline CUDAEMU_NO_TSAN T cudaemu_cas(T *p, T expected, T desired)
{
    return __sync_val_compare_and_swap(p, expected, desired);
}
#define CUDAEMU_RMW(name, builtin)                                                                          \
    template <class T> static inline CUDAEMU_NO_TSAN T cudaemu_##name(T *p, T v)                           \
    {                                                                                                        \
        return builtin(p, v, __ATOMIC_RELAXED);                                                              \
    }
CUDAEMU_RMW(fetch_add, __atomic_fetch_add)
CUDAEMU_RMW(fetch_sub, __atomic_fetch_sub)
CUDAEMU_RMW(exchange, __atomic_exchange_n)
CUDAEMU_RMW(fetch_and, __atomic_fetch_and)
CUDAEMU_RMW(fetch_or, __atomic_fetch_or)
CUDAEMU_RMW(fetch_xor, __atomic_fetch_xor)
#undef CUDAEMU_RMW
/* *p = next(*p) atomically, by compare-and-swap; returns the old value.
 * Nothing is written when next leaves the value as it is (atomicMax of a
 * smaller value). */
template <class T, class F> static inline CUDAEMU_NO_TSAN T cudaemu_update(T *p, F next)
{
    T old = __atomic_load_n(p, __ATOMIC_RELAXED), seen;
    while (next(old) != old && (seen = __sync_val_compare_and_swap(p, old, next(old))) != old)
        old = seen;
    return old;
}
template <class T, class F> static inline T cudaemu_atomic_update(T *p, F next)
{
    cudaemu::atomic_point();
    cudaemu_atomic_seen(p);
    return cudaemu_update(p, next);
}
#define CUDAEMU_ATOMIC_OP(T, name, op)                                                                     \
    static inline T name(T *p, T v)                                                                         \
    {                                                                                                        \
        cudaemu::atomic_point();                                                                             \
        cudaemu_atomic_seen(p);                                                                              \
        return cudaemu_##op(p, v);                                                                           \
    }
#define CUDAEMU_ATOMIC_INT(T)                                                                                   \
    CUDAEMU_ATOMIC_OP(T, atomicAdd, fetch_add)                                                                  \
    CUDAEMU_ATOMIC_OP(T, atomicSub, fetch_sub)                                                                  \
    CUDAEMU_ATOMIC_OP(T, atomicExch, exchange)                                                                  \
    CUDAEMU_ATOMIC_OP(T, atomicAnd, fetch_and)                                                                  \
    CUDAEMU_ATOMIC_OP(T, atomicOr, fetch_or)                                                                    \
    CUDAEMU_ATOMIC_OP(T, atomicXor, fetch_xor)                                                                  \
    static inline T atomicCAS(T *p, T expected, T desired)                                                       \
    {                                                                                                            \
        cudaemu::atomic_point();                                                                                 \
        cudaemu_atomic_seen(p);                                                                                  \
        return cudaemu_cas(p, expected, desired);                                                                \
    }                                                                                                            \
    static inline T atomicMax(T *p, T v)                                                                         \
    {                                                                                                            \
        return cudaemu_atomic_update(p, [v](T old) { return old < v ? v : old; });                               \
    }                                                                                                            \
    static inline T atomicMin(T *p, T v)                                                                         \
    {                                                                                                            \
        return cudaemu_atomic_update(p, [v](T old) { return v < old ? v : old; });                               \
    }
CUDAEMU_ATOMIC_INT(int)
CUDAEMU_ATOMIC_INT(unsigned int)
CUDAEMU_ATOMIC_INT(unsigned long long)
#undef CUDAEMU_ATOMIC_INT
#undef CUDAEMU_ATOMIC_OP
static inline long long atomicMax(long long *p, long long v)
{
    return cudaemu_atomic_update(p, [v](long long old) { return old < v ? v : old; });
}
static inline long long atomicMin(long long *p, long long v)
{
    return cudaemu_atomic_update(p, [v](long long old) { return v < old ? v : old; });
}
static inline unsigned short atomicCAS(unsigned short *p, unsigned short expected, unsigned short desired)
{
    cudaemu::atomic_point();
    cudaemu_atomic_seen(p);
    return cudaemu_cas(p, expected, desired);
}
static inline unsigned atomicInc(unsigned *p, unsigned limit)
{
    return cudaemu_atomic_update(p, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
static inline unsigned atomicDec(unsigned *p, unsigned limit)
{
    return cudaemu_atomic_update(p, [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
/* On the bit pattern, so that the comparison is of bits (a NaN equals
 * itself) and the write is one atomic store. */
template <class F, class I> static inline F cudaemu_atomic_float(F *p, F v, int op)
{
    static_assert(sizeof(F) == sizeof(I), "float and int sizes");
    I old_bits = cudaemu_atomic_update((I *)p, [v, op](I bits) {
        F old, result;
        memcpy(&old, &bits, sizeof old);
        result = op == 0 ? old + v : v;
        memcpy(&bits, &result, sizeof bits);
        return bits;
    });
    F old;
    memcpy(&old, &old_bits, sizeof old);
    return old;
}
static inline float atomicAdd(float *p, float v) { return cudaemu_atomic_float<float, unsigned>(p, v, 0); }
static inline double atomicAdd(double *p, double v) { return cudaemu_atomic_float<double, unsigned long long>(p, v, 0); }
static inline float atomicExch(float *p, float v) { return cudaemu_atomic_float<float, unsigned>(p, v, 1); }
/* _block and _system scopes: one device and one fiber at a time make every
 * scope the same as the plain atomic's. */
#define CUDAEMU_SCOPED(name)                                                                   \
    template <class T, class... A> static inline auto name##_block(T *p, A... a) { return name(p, a...); } \
    template <class T, class... A> static inline auto name##_system(T *p, A... a) { return name(p, a...); }
CUDAEMU_SCOPED(atomicAdd)
CUDAEMU_SCOPED(atomicSub)
CUDAEMU_SCOPED(atomicExch)
CUDAEMU_SCOPED(atomicMax)
CUDAEMU_SCOPED(atomicMin)
CUDAEMU_SCOPED(atomicCAS)
CUDAEMU_SCOPED(atomicAnd)
CUDAEMU_SCOPED(atomicOr)
CUDAEMU_SCOPED(atomicXor)
CUDAEMU_SCOPED(atomicInc)
CUDAEMU_SCOPED(atomicDec)
#undef CUDAEMU_SCOPED

/* ---- intrinsics and the math CUDA adds to C's ----------------------------------------- */
#define CUDAEMU_MINMAX(T)                                                          \
    static inline T min(T a, T b) { return b < a ? b : a; }                       \
    static inline T max(T a, T b) { return a < b ? b : a; }
CUDAEMU_MINMAX(int)
CUDAEMU_MINMAX(unsigned int)
CUDAEMU_MINMAX(long)
CUDAEMU_MINMAX(unsigned long)
CUDAEMU_MINMAX(long long)
CUDAEMU_MINMAX(unsigned long long)
#undef CUDAEMU_MINMAX
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline unsigned int min(int a, unsigned int b) { return min((unsigned)a, b); }
static inline unsigned int min(unsigned int a, int b) { return min(a, (unsigned)b); }
static inline unsigned int max(int a, unsigned int b) { return max((unsigned)a, b); }
static inline unsigned int max(unsigned int a, int b) { return max(a, (unsigned)b); }
static inline double min(float a, double b) { return fmin(a, b); }
static inline double min(double a, float b) { return fmin(a, b); }
static inline double max(float a, double b) { return fmax(a, b); }
static inline double max(double a, float b) { return fmax(a, b); }
/* CUDA's named forms, for code that wants no overload resolution. */
static inline unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
static inline unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
static inline long long llmin(long long a, long long b) { return min(a, b); }
static inline long long llmax(long long a, long long b) { return max(a, b); }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }

static inline int __float_as_int(float x) { int i; memcpy(&i, &x, sizeof i); return i; }
static inline unsigned int __float_as_uint(float x) { unsigned u; memcpy(&u, &x, sizeof u); return u; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, sizeof x); return x; }
static inline float __uint_as_float(unsigned u) { float x; memcpy(&x, &u, sizeof x); return x; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, sizeof i); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, sizeof x); return x; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
static inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
static inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
static inline double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
static inline double __dsub_rn(double a, double b) { volatile double r = a - b; return r; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double x) { return sqrt(x); }
static inline double __drcp_rn(double x) { return 1.0 / x; }
/* Directed rounding (__fadd_rd, __dmul_ru, __fsqrt_rz and the like): the
 * result rounded to nearest, then moved one step where the exact value lies
 * past it in the direction asked.  The exact value's side comes from an
 * exact error term: TwoSum for a sum, an fma for a product, the remainder of
 * a quotient or a square root.  `toward`: -1 down (rd), +1 up (ru), 0 toward
 * zero (rz); `error` has the sign of (exact - nearest). */
template <typename T> static inline T cudaemu_directed(T nearest, T error, int toward, bool finite_operands)
{
    const T big = std::numeric_limits<T>::max();
    if (std::isinf(nearest) && finite_operands) /* an overflow: toward zero it stops at the largest finite */
        return (toward == 0 || (toward < 0) == (nearest > 0)) ? std::copysign(big, nearest) : nearest;
    if (error == 0 || std::isnan(nearest) || std::isinf(nearest))
        return nearest;
    if (toward == 0) /* only a nonzero result that the exact value lies inside of moves */
        return nearest != 0 && (error > 0) != (nearest > 0) ? std::nextafter(nearest, T(0)) : nearest;
    return (error > 0) == (toward > 0) ? std::nextafter(nearest, toward > 0 ? big * 2 : -big * 2) : nearest;
}
template <typename T> static inline T cudaemu_add_toward(T a, T b, int toward)
{
    volatile T s = a + b;
    T bb = s - a, error = (a - (s - bb)) + (b - bb);
    if (s == 0 && error == 0 && toward < 0 && (a != 0 || std::signbit(a) || std::signbit(b)))
        return -T(0); /* IEEE: an exact zero sum rounded down is -0 (but +0 + +0) */
    return cudaemu_directed<T>(s, error, toward, std::isfinite(a) && std::isfinite(b));
}
template <typename T> static inline T cudaemu_mul_toward(T a, T b, int toward)
{
    volatile T p = a * b;
    return cudaemu_directed<T>(p, std::fma(a, b, -p), toward, std::isfinite(a) && std::isfinite(b));
}
template <typename T> static inline T cudaemu_div_toward(T a, T b, int toward)
{
    volatile T q = a / b;
    T remainder = std::fma(-q, b, a); /* exact; a/b - q has its sign times b's */
    return cudaemu_directed<T>(q, b > 0 ? remainder : -remainder, toward,
                               std::isfinite(a) && std::isfinite(b) && b != 0);
}
template <typename T> static inline T cudaemu_sqrt_toward(T x, int toward)
{
    volatile T r = std::sqrt(x);
    return cudaemu_directed<T>(r, std::fma(-r, r, x), toward, true);
}
#define CUDAEMU_DIRECTED(suffix, toward)                                                                         \
    static inline float __fadd_##suffix(float a, float b) { return cudaemu_add_toward(a, b, toward); }          \
    static inline float __fsub_##suffix(float a, float b) { return cudaemu_add_toward(a, -b, toward); }         \
    static inline float __fmul_##suffix(float a, float b) { return cudaemu_mul_toward(a, b, toward); }          \
    static inline float __fdiv_##suffix(float a, float b) { return cudaemu_div_toward(a, b, toward); }          \
    static inline float __frcp_##suffix(float x) { return cudaemu_div_toward(1.0f, x, toward); }                \
    static inline float __fsqrt_##suffix(float x) { return cudaemu_sqrt_toward(x, toward); }                    \
    static inline double __dadd_##suffix(double a, double b) { return cudaemu_add_toward(a, b, toward); }       \
    static inline double __dsub_##suffix(double a, double b) { return cudaemu_add_toward(a, -b, toward); }      \
    static inline double __dmul_##suffix(double a, double b) { return cudaemu_mul_toward(a, b, toward); }       \
    static inline double __ddiv_##suffix(double a, double b) { return cudaemu_div_toward(a, b, toward); }       \
    static inline double __drcp_##suffix(double x) { return cudaemu_div_toward(1.0, x, toward); }               \
    static inline double __dsqrt_##suffix(double x) { return cudaemu_sqrt_toward(x, toward); }
CUDAEMU_DIRECTED(rd, -1)
CUDAEMU_DIRECTED(ru, 1)
CUDAEMU_DIRECTED(rz, 0)
#undef CUDAEMU_DIRECTED
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/* sin(pi x) and cos(pi x): x reduced exactly to r in [-1, 1], then a sine
 * of an argument in [-pi/2, pi/2], so that whole and half x give exact
 * zeros and ones; from glibc 2.41 on, C23's own (math.h declares them) */
#if !(defined(__GLIBC__) && __GLIBC_PREREQ(2, 41))
static inline double sinpi(double x)
{
    double r = x - 2 * nearbyint(x / 2);
    return fabs(r) <= 0.5 ? sin(M_PI * r) : copysign(sin(M_PI * (1 - fabs(r))), r);
}
static inline double cospi(double x)
{
    double r = x - 2 * nearbyint(x / 2);
    return sin(M_PI * (0.5 - fabs(r)));
}
static inline float sinpif(float x) { return (float)sinpi(x); }
static inline float cospif(float x) { return (float)cospi(x); }
#endif
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x), *c = cospi(x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x), *c = cospif(x); }
static inline float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
static inline double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
static inline float norm3df(float a, float b, float c) { return (float)sqrt((double)a * a + (double)b * b + (double)c * c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
static inline float norm4df(float a, float b, float c, float d)
{
    return (float)sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d);
}
static inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
static inline double norm(int dim, const double *p)
{
    double s = 0;
    for (int i = 0; i < dim; i++)
        s += p[i] * p[i];
    return sqrt(s);
}
static inline float normf(int dim, const float *p)
{
    double s = 0;
    for (int i = 0; i < dim; i++)
        s += (double)p[i] * p[i];
    return (float)sqrt(s);
}
static inline double rnorm(int dim, const double *p) { return 1.0 / norm(dim, p); }
static inline float rnormf(int dim, const float *p) { return 1.0f / normf(dim, p); }
/* The inverse error functions: a first guess refined by Newton's method on
 * erf (or erfc near 1), in double. */
static inline double erfinv(double y)
{
    if (!(y > -1 && y < 1))
        return y == 1 ? INFINITY : y == -1 ? -INFINITY : NAN;
    double w = -log((1 - y) * (1 + y)), t = 2 / (M_PI * 0.147) - w / 2;
    double x = copysign(sqrt(sqrt(t * t + w / 0.147) - t), y);
    for (int i = 0; i < 3; i++)
        x -= (erf(x) - y) / (2 / sqrt(M_PI) * exp(-x * x));
    return x;
}
static inline double erfcinv(double y)
{
    if (!(y > 0 && y < 2))
        return y == 0 ? INFINITY : y == 2 ? -INFINITY : NAN;
    double x = erfinv(1 - y);
    for (int i = 0; i < 3 && isfinite(x); i++)
        x += (erfc(x) - y) / (2 / sqrt(M_PI) * exp(-x * x)); /* (erfc's slope is minus erf's) */
    return x;
}
static inline float erfinvf(float y) { return (float)erfinv(y); }
static inline float erfcinvf(float y) { return (float)erfcinv(y); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
/* glibc declares these names itself (as its own aliases), so they are
 * macros here, defined after <math.h>. */
#define __expf(x) expf(x)
#define __exp10f(x) exp10f(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf(x, y)
#define __sincosf(x, s, c) sincosf(x, s, c)
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float saturate(float x) { return __saturatef(x); }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
static inline float __int2float_rn(int i) { return (float)i; }
static inline float __uint2float_rn(unsigned u) { return (float)u; }
static inline double __int2double_rn(int i) { return (double)i; }
static inline int __double2int_rn(double x) { return (int)nearbyint(x); }
static inline float __double2float_rn(double x) { return (float)x; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
/* the low 32 bits of the product of the low 24 bits of a and b (signed for __mul24) */
static inline int __mul24(int a, int b)
{
    long long a24 = (long long)((a & 0xFFFFFF) ^ 0x800000) - 0x800000, b24 = (long long)((b & 0xFFFFFF) ^ 0x800000) - 0x800000;
    return (int)(unsigned)(unsigned long long)(a24 * b24);
}
static inline unsigned __umul24(unsigned a, unsigned b)
{
    return (unsigned)((unsigned long long)(a & 0xFFFFFF) * (b & 0xFFFFFF));
}
/* byte n of the result is byte (s >> 4n) & 7 of y:x */
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long both = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int n = 0; n < 4; n++)
        r |= (unsigned)((both >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
    return r;
}
/* hi:lo shifted left (the high word) or right (the low word), by shift & 31
 * or, for the clamped forms, by min(shift, 32) */
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift & 31)) >> 32);
}
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift < 32 ? shift : 32)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift & 31));
}
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift < 32 ? shift : 32));
}
/* averages without overflow, truncated (__hadd) or rounded up (__rhadd);
 * __hadd(__half, __half) is cuda_fp16.h's */
static inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
static inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
static inline unsigned __uhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y) >> 1); }
static inline unsigned __urhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y + 1) >> 1); }
/* the position of the offset-th set bit of mask counting from bit base
 * (included) up, or down for a negative offset; for 0, base if that bit is
 * set; 0xFFFFFFFF if there is none */
static inline unsigned __fns(unsigned mask, unsigned base, int offset)
{
    if (base > 31)
        return 0xFFFFFFFFu;
    if (offset == 0)
        return (mask >> base) & 1 ? base : 0xFFFFFFFFu;
    int step = offset > 0 ? 1 : -1, left = offset > 0 ? offset : -offset;
    for (int bit = (int)base; bit >= 0 && bit < 32; bit += step)
        if (((mask >> bit) & 1) && --left == 0)
            return (unsigned)bit;
    return 0xFFFFFFFFu;
}
/* dot products of bytes (__dp4a) or of 16-bit halves with bytes (__dp2a_lo:
 * bytes 0 and 1 of b; __dp2a_hi: bytes 2 and 3), plus c */
static inline int __dp4a(int a, int b, int c)
{
    for (int n = 0; n < 4; n++)
        c += (int)(signed char)(a >> (8 * n)) * (int)(signed char)(b >> (8 * n));
    return c;
}
static inline unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
    for (int n = 0; n < 4; n++)
        c += ((a >> (8 * n)) & 0xFF) * ((b >> (8 * n)) & 0xFF);
    return c;
}
static inline int __dp4a(char4 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline unsigned __dp4a(uchar4 a, uchar4 b, unsigned c)
{
    return c + (unsigned)a.x * b.x + (unsigned)a.y * b.y + (unsigned)a.z * b.z + (unsigned)a.w * b.w;
}
static inline int cudaemu_dp2a(int a, int b, int c, int byte)
{
    return c + (int)(short)a * (int)(signed char)(b >> (8 * byte)) +
           (int)(short)(a >> 16) * (int)(signed char)(b >> (8 * byte + 8));
}
static inline unsigned cudaemu_dp2a(unsigned a, unsigned b, unsigned c, int byte)
{
    return c + (a & 0xFFFF) * ((b >> (8 * byte)) & 0xFF) + (a >> 16) * ((b >> (8 * byte + 8)) & 0xFF);
}
static inline int __dp2a_lo(int a, int b, int c) { return cudaemu_dp2a(a, b, c, 0); }
static inline int __dp2a_hi(int a, int b, int c) { return cudaemu_dp2a(a, b, c, 2); }
static inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return cudaemu_dp2a(a, b, c, 0); }
static inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return cudaemu_dp2a(a, b, c, 2); }
static inline int __dp2a_lo(short2 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y; }
static inline int __dp2a_hi(short2 a, char4 b, int c) { return c + a.x * b.z + a.y * b.w; }
static inline unsigned __dp2a_lo(ushort2 a, uchar4 b, unsigned c) { return c + (unsigned)a.x * b.x + (unsigned)a.y * b.y; }
static inline unsigned __dp2a_hi(ushort2 a, uchar4 b, unsigned c) { return c + (unsigned)a.x * b.z + (unsigned)a.y * b.w; }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline unsigned __sad(int a, int b, unsigned c) { return (a > b ? (unsigned)a - (unsigned)b : (unsigned)b - (unsigned)a) + c; }
static inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
/* ---- SIMD intrinsics: an unsigned int as 2 halfwords (name2) or 4 bytes
 * (name4), each lane computed alone, as CUDA's math API defines them: wrapping
 * (__vadd, __vsub, __vneg, __vabs), saturated to the signed lane (..ss) or
 * unsigned lane (..us), averages rounded up (__vavgu; __vavgs rounds half away
 * from zero) or truncated (__vhaddu), comparisons giving all ones (__vcmp..)
 * or 1 (__vset..) in a lane where true, and sums of absolute differences
 * (__vsads, __vsadu) over the lanes.  Signed forms end in s, unsigned in u. */
template <int BITS> struct cudaemu_lanes {
    static constexpr long long SMIN = -(1LL << (BITS - 1)), SMAX = (1LL << (BITS - 1)) - 1, UMAX = (1LL << BITS) - 1;
    static long long clamp(long long v, long long lo, long long hi) { return v < lo ? lo : v > hi ? hi : v; }
    /* f(ua, ub, sa, sb): a lane of each operand, unsigned and signed */
    template <class F> static unsigned map(unsigned a, unsigned b, F f)
    {
        unsigned r = 0;
        for (int shift = 0; shift < 32; shift += BITS) {
            long long ua = (a >> shift) & UMAX, ub = (b >> shift) & UMAX;
            long long sa = ua > SMAX ? ua - UMAX - 1 : ua, sb = ub > SMAX ? ub - UMAX - 1 : ub;
            r |= (unsigned)((unsigned long long)f(ua, ub, sa, sb) & UMAX) << shift;
        }
        return r;
    }
    template <class F> static unsigned sum(unsigned a, unsigned b, F f)
    {
        unsigned long long r = 0;
        for (int shift = 0; shift < 32; shift += BITS) {
            long long ua = (a >> shift) & UMAX, ub = (b >> shift) & UMAX;
            long long sa = ua > SMAX ? ua - UMAX - 1 : ua, sb = ub > SMAX ? ub - UMAX - 1 : ub;
            r += (unsigned long long)f(ua, ub, sa, sb);
        }
        return (unsigned)r;
    }
};
#define CUDAEMU_SIMD_WIDTH(name, n, bits, how, expr)                                                        \
    static inline unsigned name##n(unsigned a, unsigned b)                                                 \
    {                                                                                                       \
        typedef cudaemu_lanes<bits> L;                                                                      \
        return L::how(a, b, [](long long ua, long long ub, long long sa, long long sb) -> long long {       \
            (void)ua, (void)ub, (void)sa, (void)sb;                                                         \
            return expr;                                                                                    \
        });                                                                                                 \
    }
#define CUDAEMU_SIMD(name, expr) CUDAEMU_SIMD_WIDTH(name, 2, 16, map, expr) CUDAEMU_SIMD_WIDTH(name, 4, 8, map, expr)
#define CUDAEMU_SIMD_SUM(name, expr) CUDAEMU_SIMD_WIDTH(name, 2, 16, sum, expr) CUDAEMU_SIMD_WIDTH(name, 4, 8, sum, expr)
CUDAEMU_SIMD(__vadd, ua + ub)
CUDAEMU_SIMD(__vsub, ua - ub)
CUDAEMU_SIMD(__vaddss, L::clamp(sa + sb, L::SMIN, L::SMAX))
CUDAEMU_SIMD(__vaddus, L::clamp(ua + ub, 0, L::UMAX))
CUDAEMU_SIMD(__vsubss, L::clamp(sa - sb, L::SMIN, L::SMAX))
CUDAEMU_SIMD(__vsubus, L::clamp(ua - ub, 0, L::UMAX))
CUDAEMU_SIMD(__vabsdiffs, sa > sb ? sa - sb : sb - sa)
CUDAEMU_SIMD(__vabsdiffu, ua > ub ? ua - ub : ub - ua)
CUDAEMU_SIMD(__vavgs, sa + sb < 0 ? (sa + sb) >> 1 : (sa + sb + 1) >> 1) /* >> floors: -1.5 gives -2 */
CUDAEMU_SIMD(__vavgu, (ua + ub + 1) >> 1)
CUDAEMU_SIMD(__vhaddu, (ua + ub) >> 1)
CUDAEMU_SIMD(__vmaxs, sa > sb ? sa : sb)
CUDAEMU_SIMD(__vmaxu, ua > ub ? ua : ub)
CUDAEMU_SIMD(__vmins, sa < sb ? sa : sb)
CUDAEMU_SIMD(__vminu, ua < ub ? ua : ub)
CUDAEMU_SIMD(__vcmpeq, -(ua == ub))
CUDAEMU_SIMD(__vcmpne, -(ua != ub))
CUDAEMU_SIMD(__vcmpges, -(sa >= sb))
CUDAEMU_SIMD(__vcmpgeu, -(ua >= ub))
CUDAEMU_SIMD(__vcmpgts, -(sa > sb))
CUDAEMU_SIMD(__vcmpgtu, -(ua > ub))
CUDAEMU_SIMD(__vcmples, -(sa <= sb))
CUDAEMU_SIMD(__vcmpleu, -(ua <= ub))
CUDAEMU_SIMD(__vcmplts, -(sa < sb))
CUDAEMU_SIMD(__vcmpltu, -(ua < ub))
CUDAEMU_SIMD(__vseteq, ua == ub)
CUDAEMU_SIMD(__vsetne, ua != ub)
CUDAEMU_SIMD(__vsetges, sa >= sb)
CUDAEMU_SIMD(__vsetgeu, ua >= ub)
CUDAEMU_SIMD(__vsetgts, sa > sb)
CUDAEMU_SIMD(__vsetgtu, ua > ub)
CUDAEMU_SIMD(__vsetles, sa <= sb)
CUDAEMU_SIMD(__vsetleu, ua <= ub)
CUDAEMU_SIMD(__vsetlts, sa < sb)
CUDAEMU_SIMD(__vsetltu, ua < ub)
CUDAEMU_SIMD_SUM(__vsads, sa > sb ? sa - sb : sb - sa)
CUDAEMU_SIMD_SUM(__vsadu, ua > ub ? ua - ub : ub - ua)
/* the one-operand forms: the lane against 0 */
CUDAEMU_SIMD(cudaemu_vabs, sa < 0 ? -sa : sa)
CUDAEMU_SIMD(cudaemu_vabsss, L::clamp(sa < 0 ? -sa : sa, 0, L::SMAX))
CUDAEMU_SIMD(cudaemu_vneg, -sa)
CUDAEMU_SIMD(cudaemu_vnegss, L::clamp(-sa, L::SMIN, L::SMAX))
#undef CUDAEMU_SIMD_SUM
#undef CUDAEMU_SIMD
#undef CUDAEMU_SIMD_WIDTH
static inline unsigned __vabs2(unsigned a) { return cudaemu_vabs2(a, 0); }
static inline unsigned __vabs4(unsigned a) { return cudaemu_vabs4(a, 0); }
static inline unsigned __vabsss2(unsigned a) { return cudaemu_vabsss2(a, 0); }
static inline unsigned __vabsss4(unsigned a) { return cudaemu_vabsss4(a, 0); }
static inline unsigned __vneg2(unsigned a) { return cudaemu_vneg2(a, 0); }
static inline unsigned __vneg4(unsigned a) { return cudaemu_vneg4(a, 0); }
static inline unsigned __vnegss2(unsigned a) { return cudaemu_vnegss2(a, 0); }
static inline unsigned __vnegss4(unsigned a) { return cudaemu_vnegss4(a, 0); }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline T __ldca(const T *p) { return *p; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline void __stwb(T *p, T v) { *p = v; }
/* A kernel's clock64() and clock() count the CPU's cycles (its time-stamp
 * counter) from the start of the launch, so that spinning for N cycles
 * takes as long with either.  A GPU's clock() is a 32-bit counter widened
 * to clock_t, which wraps every few seconds: a loop such as
 *     clock_t start = clock(); while (clock() - start < N) {}
 * that meets the wrap never ends.  Here the threads of a launch run one
 * after another, so a launch lasts longer and would meet it often: clock()
 * gives the whole count instead (the same as a GPU's for the first 2^31
 * cycles of a launch, about a second), and code that keeps it in an int or
 * unsigned still gets a GPU's 32-bit arithmetic.  Host code keeps the C
 * library's clock() (processor time); the two are told apart when called. */
static inline long long clock64(void) { return (long long)(__builtin_ia32_rdtsc() - cudaemu::clock_base); }
static inline clock_t cudaemu_clock(void)
{
    return cudaemu::in_kernel() ? (clock_t)clock64() : (::clock)(); /* (clock)(): not rewritten */
}
namespace std {
using ::cudaemu_clock;
}
#define clock() cudaemu_clock()
static inline void __nanosleep(unsigned) {}
static inline void __trap(CUDAEMU_HERE) { cudaemu::kernel_fail(cudaErrorLaunchFailure, file, line, "__trap() called"); }

#endif /* CUDAEMU_DEVICE_H */
