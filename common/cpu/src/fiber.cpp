/* fiber.cpp: the fibers every emulated CUDA thread runs on.
 *
 * Stacks come from large mmap regions (MAP_NORESERVE, so untouched pages
 * cost nothing) and are pooled across launches.  The
 * switch itself is cudaemu_switch (switch_x86_64.S).  Under ASan and TSan
 * every switch is announced to the sanitizer, as their fiber APIs ask. */
#include "internal.h"

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

extern "C" void cudaemu_switch(void **save_sp, void *next_sp);

namespace cudaemu {

fiber *current_fiber;
static void *host_sp;                /* the host stack, while a fiber runs */
static fiber *free_fibers;
static fiber *all_fibers[1 << 16];
static size_t fiber_count;

#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
static const size_t STACK_SIZE = 256 * 1024;
#else
static const size_t STACK_SIZE = 64 * 1024;
#endif
static const size_t STACKS_PER_CHUNK = 64;

static void fiber_entry(void);

static void fiber_prepare(fiber *f)
{
    /* The first switch to f "returns" into fiber_entry with the stack laid
     * out as if fiber_entry had just been called. */
    unsigned long long *top = (unsigned long long *)(f->stack + f->stack_size);
    top -= 2;                                /* 16-byte aligned slot for the entry address */
    top[1] = 0;                              /* fiber_entry's return address: none */
    top[0] = (unsigned long long)(void *)&fiber_entry;
    unsigned long long *sp = top - 7;        /* rbp rbx r12 r13 r14 r15, then the control words */
    memset(sp, 0, 7 * sizeof *sp);
    unsigned int csr[2];
    __asm__ volatile("stmxcsr %0" : "=m"(csr[0]));
    __asm__ volatile("fnstcw %0" : "=m"(csr[1]));
    memcpy(sp, csr, sizeof csr);
    f->sp = sp;
    f->thread = 0;
    f->fake_stack = 0;
#ifdef CUDAEMU_ASAN
    if (f->abandoned)
        __asan_unpoison_memory_region(f->stack, f->stack_size);
#endif
    f->abandoned = false;
}

fiber *fiber_new(void)
{
    fiber *f = free_fibers;
    if (f) {
        free_fibers = f->next_free;
    } else {
        if (fiber_count == sizeof all_fibers / sizeof all_fibers[0]) {
            fprintf(stderr, "cudaemu: more than %zu fibers at once\n", fiber_count);
            abort();
        }
        /* Stacks come 64 to a mapping: a grid-wide launch can need tens of
         * thousands, and each mapping counts against vm.max_map_count. */
        static char *chunk;
        static size_t chunk_left;
        if (!chunk_left) {
            chunk = (char *)mmap(0, STACK_SIZE * STACKS_PER_CHUNK, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
            if (chunk == MAP_FAILED) {
                fprintf(stderr, "cudaemu: no memory for fiber stacks (%zu fibers so far)\n", fiber_count);
                abort();
            }
            chunk_left = STACKS_PER_CHUNK;
        }
        char *region = chunk;
        chunk += STACK_SIZE;
        chunk_left--;
        f = (fiber *)calloc(1, sizeof *f);
        f->stack = region;
        f->stack_size = STACK_SIZE;
        all_fibers[fiber_count++] = f;
    }
    fiber_prepare(f);
    return f;
}

void fiber_release(fiber *f)
{
    f->thread = 0;
    f->next_free = free_fibers;
    free_fibers = f;
}

void fibers_abandon_all(void)
{
    free_fibers = 0;
    for (size_t i = 0; i < fiber_count; i++) {
        all_fibers[i]->abandoned = true;
        all_fibers[i]->thread = 0;
        all_fibers[i]->next_free = free_fibers;
        free_fibers = all_fibers[i];
    }
}

#ifdef CUDAEMU_ASAN
static const void *host_stack_bottom;
static size_t host_stack_size;
static void *host_fake_stack;
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
static void *host_tsan;
void *tsan_host_fiber(void)
{
    if (!host_tsan)
        host_tsan = __tsan_get_current_fiber();
    return host_tsan;
}
void tsan_enter_thread(thread_state *t)
{
    tsan_host_fiber();
    if (!t->tsan_fiber)
        t->tsan_fiber = __tsan_create_fiber(0);
    __tsan_switch_to_fiber(t->tsan_fiber, __tsan_switch_to_fiber_no_sync);
}
void tsan_acquire(void *addr) { __tsan_acquire(addr); }
void tsan_release(void *addr) { __tsan_release(addr); }
extern "C" void __tsan_ignore_thread_begin(void);
extern "C" void __tsan_ignore_thread_end(void);
void tsan_ignore_begin(void) { __tsan_ignore_thread_begin(); }
void tsan_ignore_end(void) { __tsan_ignore_thread_end(); }
#else
void tsan_ignore_begin(void) {}
void tsan_ignore_end(void) {}
void *tsan_host_fiber(void) { return 0; }
void tsan_enter_thread(thread_state *) {}
void tsan_acquire(void *) {}
void tsan_release(void *) {}
#endif

} // namespace cudaemu
