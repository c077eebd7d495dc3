/* cudaemu/split.h: a block run as loops over its threads, cut at its barriers.
 *
 * For a kernel of a simple shape (barriers only as statements of its body
 * or of a uniform for loop there), cucc's build (rewrite.pl --split,
 * common/cpu/SplitKernel.pm) writes a third form beside the kernel and its
 * coroutine twin: a function the runtime calls once per block, in which
 * each stretch between two barriers is a loop over the block's threads,
 *     b.wait_at(file, line);     (the barrier after the stretch, for a diagnosis)
 *     for (unsigned p = 0; p < b.n; p++) {
 *         const unsigned x = b.enter(p);     (threadIdx, the worker's notes)
 *         ... the stretch, its locals that live past a barrier in arrays ...
 *         b.leave(x);
 *     }
 *     b.barrier();
 * The threads run in the order the coroutines' loop gives them
 * (scheduler.cpp's co_run_block: the schedule's start order, then, after
 * each barrier, its release order), so a run is the same either way; what
 * the loop saves is the call, the frame and the switch of each thread at
 * each barrier.  The ASan and TSan builds, a cooperative launch and
 * CUDAEMU_COROUTINES=0 or =1 or CUDAEMU_SPLIT=0 run the kernel as before. */
#ifndef CUDAEMU_SPLIT_H
#define CUDAEMU_SPLIT_H

#include <stddef.h>

#include <type_traits>

#include "device.h"

namespace cudaemu {

extern __thread volatile int runtime_busy CUDAEMU_HIDDEN; /* (internal.h) */

struct split_block;
/* (malloc: the memory is no other pointer's, so the compiler may keep a
 * thread's value in a register across a loop that reads shared memory) */
void *split_storage(size_t bytes) CUDAEMU_HIDDEN __attribute__((malloc)); /* from the block's arena */
void split_barrier(split_block *b) CUDAEMU_HIDDEN;               /* every thread has left the stretch */
void split_thread_resumes(split_block *b, unsigned rank) CUDAEMU_HIDDEN; /* a thread with a record runs again */
void split_thread_called(split_block *b, unsigned rank) CUDAEMU_HIDDEN;  /* a thread called into the runtime */

struct split_block {
    unsigned n;                    /* the block's threads */
    const unsigned *order;         /* this stretch's order of the threads, or null: rank order */
    const uint3 *idx;              /* threadIdx by rank, or null for a 1-D block */
    unsigned *lazy_rank;           /* the worker fiber's note of the thread it runs */
    void *const *record;           /* the worker fiber's thread record: set by a call into the runtime */
    const unsigned char *recorded; /* which threads have a record */
    unsigned pos;                  /* the position in this stretch's order that runs now */
    const char *wait_file;         /* the barrier after this stretch, or null */
    int wait_line;
    void *block;                   /* the runtime's record of the block */

    /* n elements of T, one a thread, for a local that lives past a barrier. */
    template <class T> T *alloc(void)
    {
        /* (the arrays are never constructed: only what a kernel's plain locals are) */
        static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_default_constructible<T>::value,
                      "a local of a split kernel that lives past a barrier is plain data");
        return (T *)split_storage(sizeof(T) * n);
    }
    void wait_at(const char *file, int line)
    {
        wait_file = file;
        wait_line = line;
    }
    /* The thread at position p of this stretch starts it: its rank. */
    inline __attribute__((always_inline)) unsigned enter(unsigned p)
    {
        const unsigned x = order ? order[p] : p;
        pos = p;
        *lazy_rank = x;
        if (__builtin_expect(recorded[x], 0))
            split_thread_resumes(this, x);
        /* (member by member: g++ 12 does not see a copy of the whole struct
         * into the const threadIdx as a change of its members, and would
         * read the last thread's values) */
        uint3 &thread_idx = const_cast<uint3 &>(threadIdx); /* (read-only to kernels) */
        if (idx)
            thread_idx.x = idx[x].x, thread_idx.y = idx[x].y, thread_idx.z = idx[x].z;
        else
            thread_idx.x = x, thread_idx.y = thread_idx.z = 0;
        runtime_busy = 0; /* the kernel's own code from here */
        return x;
    }
    inline __attribute__((always_inline)) void leave(unsigned x)
    {
        runtime_busy = 1;
        if (__builtin_expect(*record != 0, 0))
            split_thread_called(this, x);
    }
    void barrier(void) { split_barrier(this); }
};

/* A block's start: calls the split form with the launch's arguments. */
typedef void (*thread_split_body)(void *context, split_block *block);

} // namespace cudaemu

#endif /* CUDAEMU_SPLIT_H */
