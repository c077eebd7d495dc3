/* fiber.cpp: the fibers every emulated CUDA thread runs on.
 *
 * Stacks come from large mmap regions (MAP_NORESERVE, so untouched pages
 * cost nothing) and are pooled across launches.  The
 * switch itself is cudaemu_switch (switch_x86_64.S).  Under ASan and TSan
 * every switch is announced to the sanitizer, as their fiber APIs ask. */
#include "internal.h"

#include <stdio.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef CUDAEMU_ASAN
#include <sanitizer/common_interface_defs.h>
extern "C" void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#endif
#ifdef CUDAEMU_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* Linux 6.13; not yet in every libc's headers */
#endif

namespace cudaemu {

__thread fiber *current_fiber;
__thread void *host_sp;              /* the host stack, while a fiber runs */
/* Free fibers: each host thread that runs blocks keeps a list of its own
 * (no lock at a switch); the pool's threads give theirs back at the end of
 * their share of a launch, to the spare list, which any thread takes from
 * under the lock before it makes a new fiber. */
static __thread fiber *free_fibers;
static fiber *spare_fibers;
static pthread_mutex_t fibers_lock = PTHREAD_MUTEX_INITIALIZER;
static fiber *all_fibers[1 << 16];
static size_t fiber_count;

#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
static const size_t STACK_SIZE = 256 * 1024;
#else
static const size_t STACK_SIZE = 64 * 1024;
#endif
static const size_t STACKS_PER_CHUNK = 64;
/* Below each stack, one page no access is allowed to: a thread that
 * overflows its stack faults there (kernels are compiled with
 * -fstack-clash-protection, so a large frame touches it page by page and
 * cannot jump over it into the next stack) and the launch fails with a
 * message, instead of overwriting another thread's stack. */
static const size_t GUARD = 4096;
/* cudaLimitStackSize as the program set it (a GPU's default, 1 KB); above
 * that default, fibers get that much more stack than STACK_SIZE. */
static const size_t GPU_DEFAULT_STACK = 1024;
static size_t stack_limit = GPU_DEFAULT_STACK;
static size_t stack_size = STACK_SIZE;
/* the mapping new stacks are cut from */
static char *chunk;
static size_t chunk_left;

static void fiber_entry(void);

static void fiber_prepare(fiber *f)
{
    /* The first switch to f "returns" into fiber_entry with the stack laid
     * out as if fiber_entry had just been called. */
    unsigned long long *top = (unsigned long long *)(f->stack + f->stack_size - f->colour);
    top -= 2;                                /* 16-byte aligned slot for the entry address */
    top[1] = 0;                              /* fiber_entry's return address: none */
    top[0] = (unsigned long long)(void *)&fiber_entry;
    unsigned long long *sp = top - 6;        /* rbp rbx r12 r13 r14 r15, as cudaemu_switch pops them */
    memset(sp, 0, 6 * sizeof *sp);
    f->sp = sp;
    f->thread = 0;
    f->lazy_block = 0;
    f->batch = 0;
    f->fake_stack = 0;
#ifdef CUDAEMU_ASAN
    if (f->abandoned)
        __asan_unpoison_memory_region(f->stack, f->stack_size);
#endif
    f->abandoned = false;
}

/* A new fiber with a stack of its own, never used before. */
static fiber *fiber_make(void)
{
    if (fiber_count == sizeof all_fibers / sizeof all_fibers[0]) {
        fprintf(stderr, "cudaemu: more than %zu fibers at once\n", fiber_count);
        abort();
    }
    /* Stacks come 64 to a mapping: a grid-wide launch can need tens of
     * thousands, and each mapping counts against vm.max_map_count (a
     * guard page splits it: two entries per stack). */
    size_t slot = GUARD + stack_size;
    if (!chunk_left) {
        chunk = (char *)mmap(0, slot * STACKS_PER_CHUNK, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (chunk == MAP_FAILED) {
            fprintf(stderr, "cudaemu: no memory for fiber stacks (%zu fibers so far)\n", fiber_count);
            abort();
        }
        chunk_left = STACKS_PER_CHUNK;
    }
    char *region = chunk;
    chunk += slot;
    chunk_left--;
    /* Once per fiber of the process (they are pooled), not per launch.
     * Linux 6.13's guard regions cost a quarter of mprotect's time and
     * do not split the mapping; older kernels refuse them. */
    if (madvise(region, GUARD, MADV_GUARD_INSTALL) && mprotect(region, GUARD, PROT_NONE)) {
        fprintf(stderr, "cudaemu: cannot make a fiber's guard page (%zu fibers so far)\n", fiber_count);
        abort();
    }
    fiber *f = (fiber *)aligned_alloc(alignof(fiber), sizeof *f); /* a line of its own (internal.h) */
    if (!f) {
        fprintf(stderr, "cudaemu: no memory for a fiber (%zu fibers so far)\n", fiber_count);
        abort();
    }
    memset(f, 0, sizeof *f);
    f->stack = region + GUARD;
    f->stack_size = stack_size;
    /* Each stack's top a few cache lines lower than the last's: the tops of
     * stacks 68 KB apart would all fall in the same sets of the caches (the
     * same offset in a page, and 16 offsets in 64 KB), and a barrier of a
     * block of 256 threads, which brings each one's top frames back, would
     * evict them from each other.  1,024 colours: the stack's place among
     * 16 consecutive ones (its offset in 64 KB) times 64 lines of a page. */
    f->colour = (fiber_count / 16 % 64) * 64;
    all_fibers[fiber_count++] = f;
    return f;
}

#ifdef CUDAEMU_TSAN
/* Under TSan each thread record has a fiber, and so a stack, of its own.
 * With a shared pool, the next CUDA thread to run on a stack would write
 * where the previous one kept its locals (spilled at -O0, a by-value
 * argument, an atomic's temporary), and TSan, which knows nothing of
 * stacks being handed over, would report the two threads' accesses as a
 * race.  Telling TSan that the threads are ordered would hide the real
 * races between them; a stack that only ever serves one TSan fiber cannot
 * look shared. */
static fiber **owned;
static size_t owned_count;
#endif

fiber *fiber_new(size_t record)
{
#ifdef CUDAEMU_TSAN
    /* Called in a kernel's thread as well: TSan sees the C library's calls
     * (memset, calloc, mmap) even from the runtime, and would take this
     * table and a new chunk of stacks for that thread's memory. */
    tsan_ignore_begin();
    if (record >= owned_count) {
        size_t n = record + 1 > 2 * owned_count ? record + 1 : 2 * owned_count;
        owned = (fiber **)realloc(owned, n * sizeof *owned);
        memset(owned + owned_count, 0, (n - owned_count) * sizeof *owned);
        owned_count = n;
    }
    if (!owned[record])
        owned[record] = fiber_make();
    tsan_ignore_end();
    fiber *f = owned[record];
#else
    (void)record;
    fiber *f = free_fibers;
    if (f) {
        free_fibers = f->next_free;
    } else {
        pthread_mutex_lock(&fibers_lock);
        f = spare_fibers;
        if (f)
            spare_fibers = f->next_free;
        else
            f = fiber_make();
        pthread_mutex_unlock(&fibers_lock);
    }
#endif
    fiber_prepare(f);
    return f;
}

size_t fiber_stack_limit(void) { return stack_limit; }
static size_t argument_room; /* reserve_argument_stack's, on top */

static void resize_stacks(void);
void fiber_set_stack_limit(size_t bytes)
{
    stack_limit = bytes;
    resize_stacks();
}
/* Twice the parameters' size: their copy in the kernel's frame, and one
 * more where the kernel hands them on by value. */
void reserve_argument_stack(size_t bytes)
{
    device_lock locked; /* (no other host thread's launch is running) */
    size_t room = (2 * bytes + GUARD - 1) / GUARD * GUARD;
    if (current_fiber || room <= argument_room)
        return; /* (from a kernel, the launch itself fails) */
    argument_room = room;
    resize_stacks();
}

static void resize_stacks(void)
{
    size_t extra = stack_limit > GPU_DEFAULT_STACK ? (stack_limit + GUARD - 1) / GUARD * GUARD : 0;
    if (STACK_SIZE + extra + argument_room == stack_size)
        return;
    /* Called between launches, when every fiber is free: drop them all, so
     * that the next launch makes fibers of the new size. */
    for (size_t i = 0; i < fiber_count; i++) {
#ifdef CUDAEMU_ASAN
        /* an abandoned thread's poisoned frames must not outlive its stack */
        __asan_unpoison_memory_region(all_fibers[i]->stack, all_fibers[i]->stack_size);
#endif
        munmap(all_fibers[i]->stack - GUARD, GUARD + all_fibers[i]->stack_size);
        free(all_fibers[i]);
    }
    if (chunk_left)
        munmap(chunk, chunk_left * (GUARD + stack_size));
    stack_size = STACK_SIZE + extra + argument_room;
    fiber_count = 0;
    free_fibers = spare_fibers = 0;
    chunk_left = 0;
#ifdef CUDAEMU_TSAN
    memset(owned, 0, owned_count * sizeof *owned);
#endif
}

bool fiber_guard_hit(const void *addr)
{
    fiber *f = current_fiber;
    return f && (const char *)addr < f->stack && (const char *)addr >= f->stack - GUARD;
}

void fiber_release(fiber *f)
{
    f->thread = 0;
    f->lazy_block = 0;
    f->batch = 0;
#ifndef CUDAEMU_TSAN /* under TSan it stays its thread record's */
    f->next_free = free_fibers;
    free_fibers = f;
#endif
}

void fibers_give_back(void)
{
    fiber *last = free_fibers;
    if (!last)
        return;
    while (last->next_free)
        last = last->next_free;
    pthread_mutex_lock(&fibers_lock);
    last->next_free = spare_fibers;
    spare_fibers = free_fibers;
    pthread_mutex_unlock(&fibers_lock);
    free_fibers = 0;
}

void fibers_abandon_all(void)
{
    free_fibers = spare_fibers = 0;
    for (size_t i = 0; i < fiber_count; i++) {
        all_fibers[i]->abandoned = true;
        all_fibers[i]->thread = 0;
        all_fibers[i]->lazy_block = 0;
        all_fibers[i]->batch = 0;
        all_fibers[i]->next_free = free_fibers;
        free_fibers = all_fibers[i];
    }
}

#ifdef CUDAEMU_ASAN
/* each host thread's own: a program may launch from several */
static __thread const void *host_stack_bottom;
static __thread size_t host_stack_size;
static __thread void *host_fake_stack;
static void host_stack_bounds(void)
{
    if (host_stack_bottom)
        return;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    host_stack_bottom = addr;
    host_stack_size = size;
}
#endif

#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN) /* (inline otherwise: internal.h) */
void fiber_switch(fiber *to, bool leaving_for_good)
{
    fiber *self = current_fiber;
    void **save = self ? &self->sp : &host_sp;
    current_fiber = to;
#ifdef CUDAEMU_TSAN
    if (!to)
        __tsan_switch_to_fiber(tsan_host_fiber(), __tsan_switch_to_fiber_no_sync);
    else if (to->thread)
        __tsan_switch_to_fiber(to->thread->tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
#ifdef CUDAEMU_ASAN
    host_stack_bounds();
    void **fake = leaving_for_good ? 0 : (self ? &self->fake_stack : &host_fake_stack);
    if (to)
        __sanitizer_start_switch_fiber(fake, to->stack, to->stack_size);
    else
        __sanitizer_start_switch_fiber(fake, host_stack_bottom, host_stack_size);
#else
    (void)leaving_for_good;
#endif
    cudaemu_switch(save, to ? to->sp : host_sp);
    /* back here when someone switches to self */
#ifdef CUDAEMU_ASAN
    __sanitizer_finish_switch_fiber(self ? self->fake_stack : host_fake_stack, 0, 0);
#endif
    current_fiber = self;
}

#endif

static void fiber_entry(void)
{
#ifdef CUDAEMU_ASAN
    __sanitizer_finish_switch_fiber(0, 0, 0);
#endif
    worker_main();
    abort(); /* worker_main never returns */
}

/* ---- TSan: one TSan fiber per emulated thread, and explicit synchronisation ---- */
#ifdef CUDAEMU_TSAN
static __thread void *host_tsan; /* each host thread's own: a program may launch from several */
void *tsan_host_fiber(void)
{
    if (!host_tsan)
        host_tsan = __tsan_get_current_fiber();
    return host_tsan;
}
/* TSan dies past 8128 threads, fibers included, and a cooperative launch
 * can hold 16384 threads at once: past 4096 records, records share TSan
 * fibers (record r has r % 4096's), so that two runtimes in one process
 * still fit.  Two threads sharing one are never told racing; every other
 * pair still is. */
static const size_t TSAN_FIBERS = 4096;
void tsan_make_fibers(thread_state *threads, size_t n)
{
    static void *fibers[TSAN_FIBERS];
    tsan_host_fiber();
    for (size_t r = 0; r < n; r++) {
        if (threads[r].tsan_fiber)
            continue;
        /* Made here, on the host, between launches: a TSan fiber starts
         * with all that its maker did behind it, and one made by the
         * kernel's previous thread would hide every race between the two. */
        void *&f = fibers[r % TSAN_FIBERS];
        if (!f) {
            f = __tsan_create_fiber(0);
            char name[32]; /* (copied by TSan) read back by __tsan_on_report */
            snprintf(name, sizeof name, "cudaemu fiber %zu", r % TSAN_FIBERS);
            __tsan_set_fiber_name(f, name);
        }
        threads[r].tsan_fiber = f;
    }
}
void tsan_enter_thread(thread_state *t)
{
    __tsan_switch_to_fiber(t->tsan_fiber, __tsan_switch_to_fiber_no_sync);
}
void tsan_acquire(void *addr) { __tsan_acquire(addr); }
void tsan_release(void *addr) { __tsan_release(addr); }
extern "C" void __tsan_ignore_thread_begin(void);
extern "C" void __tsan_ignore_thread_end(void);
void tsan_ignore_begin(void) { __tsan_ignore_thread_begin(); }
void tsan_ignore_end(void) { __tsan_ignore_thread_end(); }

/* ---- TSan's race reports: a word on warp-synchronous code ----
 * A race between two lanes of one warp on shared memory is, in a kernel
 * that works on a GPU, code that counts on the warp's lanes running in
 * step (the unrolled "last warp" reduction on volatile shared memory): the
 * backend does not run them so, and GPUs since Volta do not promise it.
 * TSan calls this hook with each report it prints (GCC 12's: after its
 * SUMMARY line, before halt_on_error stops the program). */
extern "C" {
int __tsan_get_report_data(void *report, const char **description, int *count, int *stack_count, int *mop_count,
                           int *loc_count, int *mutex_count, int *thread_count, int *unique_tid_count,
                           void **sleep_trace, unsigned long trace_size);
int __tsan_get_report_mop(void *report, unsigned long idx, int *tid, void **addr, int *size, int *write,
                          int *atomic, void **trace, unsigned long trace_size);
int __tsan_get_report_thread(void *report, unsigned long idx, int *tid, unsigned long *os_id, int *running,
                             const char **name, int *parent_tid, void **trace, unsigned long trace_size);
}
/* The emulated thread (its record's index) that TSan's thread `tid` in the
 * report is, from the name tsan_make_fibers gave its fiber; -1 if none. */
static long report_record(void *report, int threads, int tid)
{
    for (int i = 0; i < threads; i++) {
        int t, running, parent;
        unsigned long os_id;
        const char *name = 0;
        void *trace[1];
        size_t r;
        if (__tsan_get_report_thread(report, (unsigned long)i, &t, &os_id, &running, &name, &parent, trace, 1) &&
            t == tid && name && sscanf(name, "cudaemu fiber %zu", &r) == 1)
            return (long)r;
    }
    return -1;
}
extern "C" void __tsan_on_report(void *report)
{
    const char *description = 0;
    int count, stacks, mops = 0, locs, mutexes, threads = 0, unique;
    void *sleep[1];
    if (!__tsan_get_report_data(report, &description, &count, &stacks, &mops, &locs, &mutexes, &threads, &unique,
                                sleep, 1) ||
        !description || strcmp(description, "data-race") || mops < 2)
        return;
    long record[2];
    void *pc[2], *addr = 0;
    int write[2];
    for (int i = 0; i < 2; i++) {
        int tid, size, atomic;
        void *trace[1] = {0};
        if (!__tsan_get_report_mop(report, (unsigned long)i, &tid, &addr, &size, &write[i], &atomic, trace, 1))
            return;
        record[i] = report_record(report, threads, tid);
        pc[i] = trace[0];
    }
    std::string who;
    if (record[0] < 0 || record[1] < 0 || !in_shared_memory(addr) ||
        !records_share_warp((size_t)record[0], (size_t)record[1], &who))
        return;
    char here[512] = "?", there[512] = "?";
    __sanitizer_symbolize_pc(pc[0], "%s:%l", here, sizeof here);
    __sanitizer_symbolize_pc(pc[1], "%s:%l", there, sizeof there);
    fprintf(stderr,
            "%s: warning: this %s of shared memory and the %s at %s race: %s, with no __syncwarp() or barrier "
            "between; the code relies on warp-synchronous execution (lanes in lock-step, which GPUs since Volta do "
            "not promise and the cpu backend does not do): add __syncwarp() between the write and the read\n",
            here, write[0] ? "write" : "read", write[1] ? "write" : "read", there, who.c_str());
}
#endif

} // namespace cudaemu
