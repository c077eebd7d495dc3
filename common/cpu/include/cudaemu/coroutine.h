/* cudaemu/coroutine.h: a kernel's threads as coroutines, split at their barriers.
 *
 * A kernel whose only waits are __syncthreads() in its own body (not in a
 * function it calls) is compiled twice by the build (rewrite.pl): as it is,
 * and as a C++ coroutine, its twin, in which every __syncthreads() is a
 * co_await and every return a co_return.  The compiler then does what a
 * barrier-splitting compiler does: it cuts the body at each barrier and
 * keeps the locals that live across one in the coroutine's frame.  A block
 * runs as loops over its threads (scheduler.cpp, co_run_block): each thread
 * runs to its next barrier and returns, a call and a return, with no stack
 * of its own and no switch, in the same order as with fibers.
 *
 * Where the twin is not used (the ASan and TSan builds, a cooperative
 * launch, CUDAEMU_COROUTINES=0, a kernel launched through a pointer, and a
 * kernel whose launches measured faster on fibers: scheduler.cpp's
 * co_choose), the threads run the kernel as it is, each on a fiber. */
#ifndef CUDAEMU_COROUTINE_H
#define CUDAEMU_COROUTINE_H

#if __cpp_impl_coroutine
#include <coroutine>
#include <stdlib.h>

#include "device.h"

namespace cudaemu {

/* Frames come from the running block's arena, cut in order and dropped all
 * at once when the block ends (scheduler.cpp); co_frame_more finds room
 * when the current piece is full. */
struct co_arena {
    char *next, *end;
};
extern __thread co_arena co_frames CUDAEMU_HIDDEN;
void *co_frame_more(size_t bytes) CUDAEMU_HIDDEN;
/* The next `bytes` of the arena (a multiple of its pieces' alignment, 16 or 64). */
static inline void *co_arena_cut(size_t bytes)
{
    co_arena &a = co_frames;
    if ((size_t)(a.end - a.next) < bytes)
        return co_frame_more(bytes);
    void *p = a.next;
    a.next += bytes;
    return p;
}

/* Where a thread waits: the block's loop reads it to check that every
 * thread waits at the same barrier.  It lies in the thread's frame (the
 * co_await's own object, alive while the thread waits), and the promise
 * points to it: one store at a suspension. */
struct co_wait {
    const char *what, *file;
    int line, kind, predicate;
};

struct co_thread {
    struct promise_type {
        const co_wait *wait;
        unsigned round; /* the block's barrier round it waits in (the block's loop writes it) */
        static void *operator new(size_t bytes)
        {
            return co_arena_cut((bytes + 15) & ~(size_t)15);
        }
        static void operator delete(void *) {} /* the arena goes as a whole */
        co_thread get_return_object() { return co_thread{std::coroutine_handle<promise_type>::from_promise(*this)}; }
        /* runs at once, to its first barrier: the call that starts a thread */
        std::suspend_never initial_suspend() noexcept { return {}; }
        /* stays, done, until the block ends */
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() {}
        void unhandled_exception() { abort(); }
    };
    std::coroutine_handle<promise_type> handle;
};

/* What the barrier returns (its count, and, or), for the threads it releases. */
extern __thread int co_barrier_result CUDAEMU_HIDDEN;

struct co_barrier {
    co_wait wait;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<co_thread::promise_type> h) noexcept { h.promise().wait = &wait; }
    int await_resume() const noexcept { return co_barrier_result; }
};
static inline co_barrier co_syncthreads(CUDAEMU_HERE)
{
    return co_barrier{{"__syncthreads()", file, line, BARRIER_PLAIN, 0}};
}
static inline co_barrier co_syncthreads_count(int predicate, CUDAEMU_HERE)
{
    return co_barrier{{"__syncthreads_count()", file, line, BARRIER_COUNT, predicate}};
}
static inline co_barrier co_syncthreads_and(int predicate, CUDAEMU_HERE)
{
    return co_barrier{{"__syncthreads_and()", file, line, BARRIER_AND, predicate}};
}
static inline co_barrier co_syncthreads_or(int predicate, CUDAEMU_HERE)
{
    return co_barrier{{"__syncthreads_or()", file, line, BARRIER_OR, predicate}};
}

/* A thread's start: calls the twin with the launch's arguments and returns
 * its frame (std::coroutine_handle's address). */
typedef void *(*thread_co_body)(void *context);

} // namespace cudaemu
#else /* (a host file compiled without -fcoroutines: no twins there) */
namespace cudaemu {
typedef void *(*thread_co_body)(void *context);
}
#endif

#endif /* CUDAEMU_COROUTINE_H */
