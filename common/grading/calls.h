/* calls.h: describing a lab's entry points once, for both processes.
 *
 * Student code never runs in the grader.  When a suite calls
 *     GRADE_FN(grade_student(), fold_sum)(a, n)
 * it calls a stub with fold_sum's own type; the stub sends the call to the
 * runner process that hosts the student's shared object, and copies back
 * what came out.  The runner unpacks the same arguments and calls the real
 * fold_sum.  Both halves are made from one description per lab,
 * grading/labN-name/lab-calls.h, a list of lines such as
 *
 *     CALL(int, fold_sum, 2, (IN, const int, a, n), (VAL, int, n))
 *     CALL_VOID(fold_unfold, 2, (INOUT, int, a, n), (VAL, int, n))
 *
 * CALL(return type, name, number of arguments, arguments...), where each
 * argument is one of
 *     (VAL, T, name)           a value (a number or a struct), sent as is
 *     (IN, T, name, count)     a host array of `count` T the function reads
 *     (OUT, T, name, count)    a host array it writes (may be NULL)
 *     (INOUT, T, name, count)  a host array it reads and writes
 * `count` may use the other arguments by name (m * k).  The grader checks
 * at compile time that each description has the header's exact type.
 *
 * A suite includes its description after `#include "calls.h"` with
 * GRADE_STUBS defined; the runner includes it with SERVE_STUBS defined. */
#ifndef CALLS_H
#define CALLS_H

/* ---- applying a macro to each argument ------------------------------------------- */
#define CALLS_EACH_0(M, ...)
#define CALLS_EACH_1(M, a) M a
#define CALLS_EACH_2(M, a, b) M a M b
#define CALLS_EACH_3(M, a, b, c) M a M b M c
#define CALLS_EACH_4(M, a, b, c, d) M a M b M c M d
#define CALLS_EACH_5(M, a, b, c, d, e) M a M b M c M d M e
#define CALLS_EACH_6(M, a, b, c, d, e, f) M a M b M c M d M e M f
#define CALLS_EACH_7(M, a, b, c, d, e, f, g) M a M b M c M d M e M f M g

#define CALLS_LIST_0(M, ...)
#define CALLS_LIST_1(M, a) M a
#define CALLS_LIST_2(M, a, b) M a, M b
#define CALLS_LIST_3(M, a, b, c) M a, M b, M c
#define CALLS_LIST_4(M, a, b, c, d) M a, M b, M c, M d
#define CALLS_LIST_5(M, a, b, c, d, e) M a, M b, M c, M d, M e
#define CALLS_LIST_6(M, a, b, c, d, e, f) M a, M b, M c, M d, M e, M f
#define CALLS_LIST_7(M, a, b, c, d, e, f, g) M a, M b, M c, M d, M e, M f, M g

/* A parameter list: "void" for none. */
#define CALLS_PARAMS_0(...) void
#define CALLS_PARAMS_1(...) CALLS_LIST_1(CALLS_PARAM, __VA_ARGS__)
#define CALLS_PARAMS_2(...) CALLS_LIST_2(CALLS_PARAM, __VA_ARGS__)
#define CALLS_PARAMS_3(...) CALLS_LIST_3(CALLS_PARAM, __VA_ARGS__)
#define CALLS_PARAMS_4(...) CALLS_LIST_4(CALLS_PARAM, __VA_ARGS__)
#define CALLS_PARAMS_5(...) CALLS_LIST_5(CALLS_PARAM, __VA_ARGS__)
#define CALLS_PARAMS_6(...) CALLS_LIST_6(CALLS_PARAM, __VA_ARGS__)
#define CALLS_PARAMS_7(...) CALLS_LIST_7(CALLS_PARAM, __VA_ARGS__)

#define CALLS_PARAM(kind, T, name, ...) CALLS_PARAM_##kind(T, name)
#define CALLS_PARAM_VAL(T, name) T name
#define CALLS_PARAM_IN(T, name) T *name
#define CALLS_PARAM_OUT(T, name) T *name
#define CALLS_PARAM_INOUT(T, name) T *name
#define CALLS_NAME(kind, T, name, ...) name

/* ---- the grader's half: stubs that send the call ---------------------------------- */
#ifdef GRADE_STUBS
#include "grade.h"

#define CALLS_PUT(kind, T, name, ...) CALLS_PUT_##kind(T, name, __VA_ARGS__)
#define CALLS_PUT_VAL(T, name, ...) grade_call_value(call_, &name, sizeof(T));
#define CALLS_PUT_IN(T, name, count) grade_call_array(call_, #name, name, (long long)(count), sizeof(T), 0);
#define CALLS_PUT_OUT(T, name, count) grade_call_array(call_, #name, (void *)name, (long long)(count), sizeof(T), 1);
#define CALLS_PUT_INOUT(T, name, count) grade_call_array(call_, #name, (void *)name, (long long)(count), sizeof(T), 1);

#define CALLS_STUB(SIDE, RET, NAME, N, ...)                                                  \
    __attribute__((unused)) static RET NAME##__##SIDE(CALLS_PARAMS_##N(__VA_ARGS__))         \
    {                                                                                        \
        grade_call *call_ = grade_call_begin(grade_##SIDE(), #NAME);                         \
        CALLS_EACH_##N(CALLS_PUT, __VA_ARGS__)                                               \
        RET ret_;                                                                            \
        grade_call_finish(call_, &ret_, sizeof ret_);                                        \
        return ret_;                                                                         \
    }
#define CALLS_STUB_VOID(SIDE, NAME, N, ...)                                                  \
    __attribute__((unused)) static void NAME##__##SIDE(CALLS_PARAMS_##N(__VA_ARGS__))        \
    {                                                                                        \
        grade_call *call_ = grade_call_begin(grade_##SIDE(), #NAME);                         \
        CALLS_EACH_##N(CALLS_PUT, __VA_ARGS__)                                               \
        grade_call_finish(call_, NULL, 0);                                                   \
    }
#define CALLS_SAME_TYPE(NAME)                                                                \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&NAME), __typeof__(&NAME##__student)), \
                   "the description of " #NAME " in grading/lab*/lab-calls.h differs from the lab's header");

#define CALL(RET, NAME, N, ...)                                                              \
    CALLS_STUB(student, RET, NAME, N, __VA_ARGS__)                                           \
    CALLS_STUB(reference, RET, NAME, N, __VA_ARGS__)                                         \
    CALLS_SAME_TYPE(NAME)
#define CALL_VOID(NAME, N, ...)                                                              \
    CALLS_STUB_VOID(student, NAME, N, __VA_ARGS__)                                           \
    CALLS_STUB_VOID(reference, NAME, N, __VA_ARGS__)                                         \
    CALLS_SAME_TYPE(NAME)
#endif /* GRADE_STUBS */

/* ---- the runner's half: unpack, call the real function, send back ------------------ */
#ifdef SERVE_STUBS
#include "serve.h"

#define CALLS_TAKE(kind, T, name, ...) CALLS_TAKE_##kind(T, name)
#define CALLS_TAKE_VAL(T, name) T name; serve_value(s_, &name, sizeof(T));
#define CALLS_TAKE_IN(T, name) T *name = (T *)serve_array(s_, sizeof(T));
#define CALLS_TAKE_OUT(T, name) T *name = (T *)serve_array(s_, sizeof(T));
#define CALLS_TAKE_INOUT(T, name) T *name = (T *)serve_array(s_, sizeof(T));

/* One server per entry point: take the arguments, refuse a request that
 * does not parse, call, reply with the value kept (KEEP: "RET ret_ =") or
 * none (KEEP empty). */
#define CALLS_REPLY_VALUE serve_after(s_, &ret_, sizeof ret_);
#define CALLS_REPLY_NONE serve_after(s_, NULL, 0);
#define CALLS_SERVER(NAME, KEEP, REPLY, N, ...)                                              \
    static void serve_##NAME(void *fn_, serve_state *s_)                                     \
    {                                                                                        \
        CALLS_EACH_##N(CALLS_TAKE, __VA_ARGS__)                                              \
        if (serve_bad(s_))                                                                   \
            return;                                                                          \
        serve_before(s_);                                                                    \
        KEEP((__typeof__(&NAME))fn_)(CALLS_LIST_##N(CALLS_NAME, __VA_ARGS__));               \
        REPLY                                                                                \
    }
#define CALL(RET, NAME, N, ...) CALLS_SERVER(NAME, RET ret_ =, CALLS_REPLY_VALUE, N, __VA_ARGS__)
#define CALL_VOID(NAME, N, ...) CALLS_SERVER(NAME, , CALLS_REPLY_NONE, N, __VA_ARGS__)
#endif /* SERVE_STUBS */

#endif /* CALLS_H */
