/* shared.cpp: shared memory.  Each resident block has an arena:
 *
 *   [ dynamic shared memory | red zone | var | red zone | var | ... ]
 *
 * A __shared__ declaration gets its place the first time a thread of the
 * launch reaches it (the same place in every block).  The arena is filled
 * when a block starts with a byte that depends on the schedule order (0xFF:
 * NaN as float, -1 as int; 0x7F: 3.4e38, 2139062143; 0xFE: -1.7e38), so a
 * read of shared memory nobody wrote shows, and differs between orders.  Under ASan the red zones and the
 * unused tail are poisoned, so an access past a shared array is reported. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#ifdef CUDAEMU_ASAN
/* called directly: the runtime itself is not built with -fsanitize, so
 * asan_interface.h's macros would be empty here */
extern "C" void __asan_poison_memory_region(void const volatile *addr, size_t size);
extern "C" void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region(p, n)
#define UNPOISON(p, n) __asan_unpoison_memory_region(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace cudaemu {

enum { RED_ZONE = 64, STATIC_LIMIT = 48 * 1024, STATIC_ROOM = 64 * 1024 };

struct region {
    size_t offset, size;
};
static struct shared_state {
    size_t dynamic_bytes, static_begin, used, capacity;
    std::vector<region> vars;
    std::vector<char *> arenas;     /* one per resident block */
    std::vector<size_t> capacities;
    const char *first_file;
    int first_line;
    /* Freed at exit: the vector goes with this destructor, before
     * LeakSanitizer looks, and the arenas would look leaked. */
    ~shared_state()
    {
        for (size_t i = 0; i < arenas.size(); i++)
            if (arenas[i]) {
                UNPOISON(arenas[i], capacities[i]);
                free(arenas[i]);
            }
    }
} S;

/* Blocks on other host threads start (shared_block_arena) and place
 * variables (place_shared) at the same time: both under this lock. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

void shared_launch_begin(size_t dynamic_bytes)
{
    S.dynamic_bytes = dynamic_bytes;
    S.static_begin = round_up(dynamic_bytes, 16) + RED_ZONE;
    S.used = S.static_begin;
    S.capacity = S.static_begin + STATIC_ROOM;
    S.vars.clear();
    S.first_file = 0;
}

size_t shared_static_bytes(void)
{
    size_t total = 0;
    for (const region &r : S.vars)
        total += r.size;
    return total;
}

/* Makes the arena of `slot` as large as this launch's arenas are (under the lock). */
static void make_arena(unsigned slot)
{
    if (S.arenas.size() <= slot) {
        S.arenas.resize(slot + 1, 0);
        S.capacities.resize(slot + 1, 0);
    }
    if (S.capacities[slot] < S.capacity) {
        if (S.arenas[slot]) {
            UNPOISON(S.arenas[slot], S.capacities[slot]);
            free(S.arenas[slot]);
        }
        void *p = 0;
        if (posix_memalign(&p, 256, S.capacity)) {
            fprintf(stderr, "cudaemu: no memory for %zu bytes of shared memory\n", S.capacity);
            abort();
        }
        S.arenas[slot] = (char *)p;
        S.capacities[slot] = S.capacity;
    }
}

void shared_prepare_arenas(unsigned count)
{
    pthread_mutex_lock(&shared_lock);
    for (unsigned slot = 0; slot < count; slot++)
        make_arena(slot);
    pthread_mutex_unlock(&shared_lock);
}

/* The arena of resident block `slot`, made ready for a new block.  With no
 * lock where shared_prepare_arenas made it (every block of a launch spread
 * over the cores): the arenas' table and sizes do not change during the
 * launch, and the fill needs only S.used.  A variable being placed meanwhile
 * by another host thread (place_shared) is filled in this arena by that
 * thread before it is published, and this block's threads write it only
 * once it is, so whichever S.used this fill reads, nothing written is
 * overwritten: both fills write the same byte, and what lies beyond the
 * S.used read here is a variable no thread of this block has written yet.
 * Not under ASan, whose poisoning reads the table of variables (its builds
 * run blocks on one host thread). */
char *shared_block_arena(unsigned slot)
{
#ifndef CUDAEMU_ASAN
    if (slot < S.arenas.size() && S.capacities[slot] >= S.capacity) {
        char *a = S.arenas[slot];
        tsan_ignore_begin(); /* the runtime's own writes are not the kernel's */
        memset(a, shared_poison_byte(), __atomic_load_n(&S.used, __ATOMIC_ACQUIRE));
        tsan_ignore_end();
        return a;
    }
#endif
    pthread_mutex_lock(&shared_lock);
    make_arena(slot);
    char *a = S.arenas[slot];
    UNPOISON(a, S.used);
    tsan_ignore_begin(); /* the runtime's own writes are not the kernel's */
    memset(a, shared_poison_byte(), S.used);
    tsan_ignore_end();
    POISON(a, S.capacities[slot]);
    UNPOISON(a, S.dynamic_bytes);
    for (const region &r : S.vars)
        UNPOISON(a + r.offset, r.size);
    pthread_mutex_unlock(&shared_lock);
    return a;
}

void shared_launch_end(void)
{
    for (size_t i = 0; i < S.arenas.size(); i++)
        if (S.arenas[i])
            UNPOISON(S.arenas[i], S.capacities[i]);
}

unsigned long long place_shared(shared_slot *slot, size_t size, size_t align, const char *file, int line)
{
    pthread_mutex_lock(&shared_lock);
    unsigned long long placed = slot->placed;
    if (placed >> SHARED_OFFSET_BITS == current_launch_id) { /* by a thread of another host thread meanwhile */
        pthread_mutex_unlock(&shared_lock);
        return placed;
    }
    size_t offset = round_up(S.used + (S.vars.empty() ? 0 : RED_ZONE), align);
    size_t end = offset + size;
    if (end - S.static_begin > STATIC_LIMIT || end > S.capacity) {
        pthread_mutex_unlock(&shared_lock);
        kernel_fail(cudaErrorLaunchOutOfResources, file, line,
                    "this kernel's __shared__ variables need more than %d bytes (the static shared memory of a "
                    "block); use dynamic shared memory for larger arrays", STATIC_LIMIT);
    }
    if (!S.first_file) {
        S.first_file = file;
        S.first_line = line;
    }
    S.vars.push_back(region{offset, size});
    /* Blocks already running have not poisoned this part yet. */
    for (size_t i = 0; i < S.arenas.size(); i++)
        if (S.arenas[i] && S.capacities[i] >= S.capacity) {
            UNPOISON(S.arenas[i] + S.used, end - S.used);
            tsan_ignore_begin();
            memset(S.arenas[i] + S.used, shared_poison_byte(), end - S.used);
            tsan_ignore_end();
            POISON(S.arenas[i] + S.used, offset - S.used);
        }
    __atomic_store_n(&S.used, end, __ATOMIC_RELEASE); /* (read without the lock by shared_block_arena) */
    /* Only now, every arena ready: a thread of another host thread that
     * sees the slot placed writes its variable at once, and a fill of its
     * arena after that would undo the write. */
    placed = current_launch_id << SHARED_OFFSET_BITS | offset; /* (offset < 2^24: the arena is far smaller) */
    __atomic_store_n(&slot->placed, placed, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&shared_lock);
    return placed;
}

bool in_shared_memory(const void *p)
{
    for (size_t i = 0; i < S.arenas.size(); i++)
        if (S.arenas[i] && (const char *)p >= S.arenas[i] && (const char *)p < S.arenas[i] + S.capacities[i])
            return true;
    return false;
}

void *dynamic_shared(void) { return current_shared_base; }

} // namespace cudaemu
