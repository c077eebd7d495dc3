/* memory.cpp: device, managed and pinned host memory on the cpu backend.
 *
 * Every allocation is an ordinary aligned heap block, so ASan sees
 * overflows and LeakSanitizer sees a missing cudaFree.  The table of live
 * allocations lets copies be checked as CUDA checks them (a device pointer
 * where a host one belongs, a copy past the end of an allocation), and
 * stores addresses disguised so that LeakSanitizer does not count the table
 * itself as a reference.
 *
 * Without ASan, device and managed memory come from an arena of their own,
 * address space reserved for it alone, apart from the host heap and this
 * file's tables (which live on that heap): no header sits beside a block, so a
 * kernel writing past an array can damage only guards, other arrays or
 * unmapped pages, never the runtime's bookkeeping.  Each block is followed
 * by guard bytes with a known pattern (the rest of its last page and one
 * more page), checked after every launch: a kernel that writes past the end
 * of an array (a missing or off-by-one bound check) fails its launch at
 * once, as a GPU's memory checker would report it.  An access further out
 * meets an unmapped page: the scheduler's SIGSEGV handler asks
 * memory_fault_in_arena() whether it is a kernel's, and fails the launch.
 *
 * Every allocation belongs to the device current when it was made (or, from
 * a pool, the pool's device): each device has its own 16 GB and its own
 * pool, cudaDeviceReset frees one device's allocations, and the scheduler
 * refuses a kernel handed another device's memory without peer access
 * (device_of).  Copies between devices need no peer access, as with CUDA's
 * unified addressing; cudaMemcpyPeer checks that each pointer is memory of
 * the device it names. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <map>

/* Each device's one pool of stream-ordered memory (cudaMallocAsync; the
 * type is cudaMemPool_t's, outside the namespace). */
struct cudaemu_mem_pool {
    unsigned long long release_threshold, used_high;
    bool reaches[cudaemu::MAX_DEVICES]; /* other devices let reach its memory (cudaMemPoolSetAccess) */
};
static cudaemu_mem_pool pools[cudaemu::MAX_DEVICES];

namespace cudaemu {

enum alloc_kind { DEVICE_MEMORY, MANAGED_MEMORY, PINNED_HOST_MEMORY };
struct allocation {
    size_t size;
    int kind;
    unsigned flags; /* cudaHostAlloc's, for cudaHostGetFlags */
    int device;     /* current at the allocation (the pool's, from a pool) */
    bool pooled;    /* from the device's pool (cudaMallocAsync), which other devices may be let reach */
};
static const uintptr_t DISGUISE = (uintptr_t)1 << 63; /* keeps order, and is no pointer */
static std::map<uintptr_t, allocation> allocations;   /* disguised start -> allocation */
static long long device_bytes[MAX_DEVICES]; /* device and managed memory, per device */
/* Host ranges given to cudaHostRegister: disguised start -> size and the
 * device current then.  They stay the program's memory; the table only
 * answers cudaHostGetDevicePointer and catches a second registration. */
struct registration {
    size_t size;
    int device;
};
static std::map<uintptr_t, registration> registered;
static const size_t DEVICE_MEMORY_SIZE = (size_t)16 << 30;
#if defined(CUDAEMU_ASAN)
static const bool USE_ARENA = false; /* ASan's own heap and redzones do better */
#else
static const bool USE_ARENA = true;
#endif
static const unsigned char GUARD_PATTERN = 0xA5;

/* ---- the device memory arena ----
 * Chunks of address space reserved as needed (not all 16 GB at once: the
 * grader limits a program's address space), each ending in a megabyte never
 * handed out, so that a write somewhat past its last block faults too. */
enum { MAX_CHUNKS = 1024 };
static struct chunk {
    char *base;
    size_t size;
} chunks[MAX_CHUNKS];
static int chunk_count;
static const size_t CHUNK_SIZE = (size_t)256 << 20, CHUNK_TAIL = (size_t)1 << 20, PAGE = 4096;

static const chunk *chunk_of(uintptr_t p)
{
    for (int i = 0; i < chunk_count; i++)
        if (p >= (uintptr_t)chunks[i].base && p < (uintptr_t)chunks[i].base + chunks[i].size)
            return &chunks[i];
    return 0;
}
static bool in_arena(uintptr_t p) { return chunk_of(p) != 0; }
/* The bytes a block of `size` takes in the arena: whole pages, one of guard. */
static size_t arena_span(size_t size) { return (size + PAGE - 1) / PAGE * PAGE + PAGE; }

/* The first gap of `span` bytes between the live blocks of chunk c, or 0. */
static uintptr_t first_fit(const chunk &c, size_t span)
{
    uintptr_t at = (uintptr_t)c.base, end = (uintptr_t)c.base + c.size - CHUNK_TAIL;
    for (auto it = allocations.lower_bound((uintptr_t)c.base | DISGUISE); it != allocations.end(); ++it) {
        uintptr_t start = it->first & ~DISGUISE; /* in address order */
        if (start >= end || start >= at + span)
            break;
        at = start + arena_span(it->second.size);
    }
    return at + span <= end ? at : 0;
}

/* Freed small blocks wait here, still usable, until the next launch or
 * allocation: a kernel is the only code that could touch them unnoticed
 * (copies check the table), so they are made to fault before any kernel
 * runs.  A program that frees and allocates the same size again, as most
 * lab calls do, gets the block back with no system call at all. */
enum { QUARANTINE_MAX = 8 };
static struct {
    char *at;
    size_t span;
} quarantine[QUARANTINE_MAX];
static int quarantined;

static void quarantine_flush(void)
{
    for (int i = 0; i < quarantined; i++) {
        madvise(quarantine[i].at, quarantine[i].span, MADV_DONTNEED); /* zero when next taken (see allocate) */
        mprotect(quarantine[i].at, quarantine[i].span, PROT_NONE);
    }
    quarantined = 0;
}

/* Room for a block of `span` bytes, made usable. */
static char *arena_take(size_t span)
{
    uintptr_t at = 0;
    for (int i = 0; i < chunk_count && !at; i++)
        at = first_fit(chunks[i], span);
    if (!at) {
        size_t size = span + CHUNK_TAIL > CHUNK_SIZE ? span + CHUNK_TAIL : CHUNK_SIZE;
        void *p = chunk_count < MAX_CHUNKS ? mmap(0, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                                  -1, 0) : MAP_FAILED;
        if (p == MAP_FAILED)
            return 0;
        chunks[chunk_count++] = chunk{(char *)p, size};
        at = (uintptr_t)p;
    }
    for (int i = 0; i < quarantined; i++)
        if ((uintptr_t)quarantine[i].at == at && quarantine[i].span == span) {
            quarantine[i] = quarantine[--quarantined]; /* still usable: taken back, zeroed (see allocate) */
            memset((void *)at, 0, span);
            return (char *)at;
        }
    quarantine_flush(); /* (a block overlapping the new one is made usable again just below) */
    if (mprotect((void *)at, span, PROT_READ | PROT_WRITE))
        return 0;
    return (char *)at;
}

/* Makes a freed block's pages fault when touched.  A large block's pages
 * also go back to the system; a small one's stay a while (the quarantine),
 * so that the next allocation of that place (a program that allocates and
 * frees in a loop) finds them without a page fault each, zeroed. */
static const size_t KEEP_PAGES_BELOW = (size_t)1 << 20;
static void arena_give_back(void *p, size_t size)
{
    if (arena_span(size) < KEEP_PAGES_BELOW) {
        if (quarantined == QUARANTINE_MAX)
            quarantine_flush();
        quarantine[quarantined].at = (char *)p;
        quarantine[quarantined++].span = arena_span(size);
        return;
    }
    madvise(p, arena_span(size), MADV_DONTNEED);
    mprotect(p, arena_span(size), PROT_NONE);
}

void memory_before_launch(void) { quarantine_flush(); }

/* Frees a block, wherever it came from. */
static void free_block(void *p, const allocation &a)
{
    if (in_arena((uintptr_t)p))
        arena_give_back(p, a.size);
    else
        free(p);
}

/* The allocation holding [p, p + n), if any; `start` receives its start. */
static allocation *find(const void *p, size_t n, uintptr_t *start)
{
    uintptr_t key = ((uintptr_t)p) | DISGUISE;
    auto it = allocations.upper_bound(key);
    if (it == allocations.begin())
        return 0;
    --it;
    uintptr_t begin = it->first & ~DISGUISE;
    if ((uintptr_t)p < begin || (uintptr_t)p + (n ? n : 1) > begin + (it->second.size ? it->second.size : 1))
        return 0;
    if (start)
        *start = begin;
    return &it->second;
}
/* The allocation p points into (for a message), ignoring the length. */
static allocation *find_any(const void *p, uintptr_t *start) { return find(p, 1, start); }

/* Whether [p, p + n) shares a byte with a registered range. */
static bool overlaps_registered(const void *p, size_t n)
{
    auto it = registered.upper_bound(((uintptr_t)p + n - 1) | DISGUISE);
    if (it == registered.begin())
        return false;
    --it;
    return (it->first & ~DISGUISE) + it->second.size > (uintptr_t)p;
}
/* Whether [p, p + n) shares a byte with an allocation (its kind in *kind). */
static bool overlaps_allocation(const void *p, size_t n, int *kind)
{
    auto it = allocations.upper_bound(((uintptr_t)p + n - 1) | DISGUISE);
    if (it == allocations.begin())
        return false;
    --it;
    *kind = it->second.kind;
    return (it->first & ~DISGUISE) + (it->second.size ? it->second.size : 1) > (uintptr_t)p;
}

static cudaError_t allocate(void **ptr, size_t size, int kind, const char *api, int device)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!ptr)
        return api_fail(cudaErrorInvalidValue, "%s: the address to store the pointer in is NULL", api);
    *ptr = 0;
    if (size == 0)
        return cudaSuccess; /* CUDA gives NULL for zero bytes */
    if (kind != PINNED_HOST_MEMORY && device_bytes[device] + (long long)size > (long long)DEVICE_MEMORY_SIZE)
        return api_fail(cudaErrorMemoryAllocation, "%s of %zu bytes: the emulated device has %zu bytes", api, size,
                        DEVICE_MEMORY_SIZE);
    /* Device and managed memory start zeroed in every build: the arena's
     * pages are fresh or given back zeroed, ASan's heap is cleared here (it
     * fills a block's first bytes with 0xbe).  A GPU promises nothing, but a
     * program that forgets to zero a counter must not pass in one build and
     * fail in another with no word why. */
    void *p = 0;
    if (kind != PINNED_HOST_MEMORY && USE_ARENA) {
        if (!(p = arena_take(arena_span(size))))
            return api_fail(cudaErrorMemoryAllocation, "%s of %zu bytes: out of host memory", api, size);
        memset((char *)p + size, GUARD_PATTERN, arena_span(size) - size);
    } else if (posix_memalign(&p, 256, size)) {
        return api_fail(cudaErrorMemoryAllocation, "%s of %zu bytes: out of host memory", api, size);
    } else if (kind != PINNED_HOST_MEMORY) {
        memset(p, 0, size);
    }
    allocations[(uintptr_t)p | DISGUISE] = allocation{size, kind, 0, device, false};
    if (kind != PINNED_HOST_MEMORY)
        device_bytes[device] += (long long)size;
    *ptr = p;
    return cudaSuccess;
}

static cudaError_t release_checked(void *p, bool host, const char *api)
{
    device_lock locked;
    if (!p)
        return cudaSuccess;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    auto it = allocations.find((uintptr_t)p | DISGUISE);
    if (it == allocations.end() || (it->second.kind == PINNED_HOST_MEMORY) != host) {
        uintptr_t start;
        if (find_any(p, &start))
            return api_fail(cudaErrorInvalidValue, "%s(%p): the pointer is %zu bytes into an allocation, not its start",
                            api, p, (size_t)((uintptr_t)p - start));
        return api_fail(cudaErrorInvalidValue, "%s(%p): not a live allocation of %s (freed twice, or never allocated "
                        "with %s)", api, p, host ? "cudaMallocHost" : "cudaMalloc",
                        host ? "cudaMallocHost/cudaHostAlloc" : "cudaMalloc/cudaMallocManaged");
    }
    if (it->second.kind != PINNED_HOST_MEMORY)
        device_bytes[it->second.device] -= (long long)it->second.size;
    free_block(p, it->second);
    allocations.erase(it);
    return cudaSuccess;
}
/* cudaFree, cudaFreeAsync, cudaFreeHost: a graph's memory goes back to its
 * graph (graph_memory_freed), any other to the arena. */
static cudaError_t release(void *p, bool host, const char *api)
{
    device_lock locked;
    cudaError_t result;
    if (p && !host && !sticky_error() && graph_memory_freed(p, api, &result))
        return result;
    return release_checked(p, host, api); /* (a sticky error is its answer, as for every call) */
}
cudaError_t allocate_device_memory(void **ptr, size_t size, const char *api, int device)
{
    return allocate(ptr, size, DEVICE_MEMORY, api, device);
}
cudaError_t release_device_memory(void *ptr, const char *api) { return release_checked(ptr, false, api); }

/* Whether the `n` guard bytes at `p` all still hold the pattern. */
static bool guard_intact(const unsigned char *p, size_t n)
{
    static unsigned char pattern[PAGE];
    if (pattern[0] != GUARD_PATTERN)
        memset(pattern, GUARD_PATTERN, sizeof pattern);
    for (size_t at = 0; at < n; at += PAGE)
        if (memcmp(p + at, pattern, n - at < PAGE ? n - at : PAGE) != 0)
            return false;
    return true;
}

bool memory_guards_damaged(char *what, size_t what_size)
{
    for (auto &a : allocations) {
        if (!in_arena(a.first & ~DISGUISE))
            continue;
        const unsigned char *end = (const unsigned char *)(a.first & ~DISGUISE) + a.second.size;
        size_t guard = arena_span(a.second.size) - a.second.size;
        if (guard_intact(end, guard))
            continue; /* the usual case, at memcmp's speed: this runs after every launch */
        for (size_t i = 0; i < guard; i++)
            if (end[i] != GUARD_PATTERN) {
                snprintf(what, what_size, "out-of-bounds write: a thread wrote past the end of a device array "
                         "of %zu bytes (%zu floats or ints), at byte %zu after it; is a bound check missing, or off "
                         "by one?", a.second.size, a.second.size / 4, i);
                memset((unsigned char *)end, GUARD_PATTERN, guard); /* report it once */
                return true;
            }
    }
    return false;
}

/* Whether a kernel's faulting access at `addr` lies in the arena (past every
 * guard, or in freed memory); if so `what` says where.  Called from a signal
 * handler: it only reads the table. */
bool memory_fault_in_arena(const void *addr, char *what, size_t what_size)
{
    if (!in_arena((uintptr_t)addr))
        return false;
    auto it = allocations.upper_bound((uintptr_t)addr | DISGUISE);
    uintptr_t start = 0;
    if (it != allocations.begin()) {
        --it;
        start = it->first & ~DISGUISE;
    }
    if (start && chunk_of(start) == chunk_of((uintptr_t)addr))
        snprintf(what, what_size, "out-of-bounds access: a thread touched memory in no array at all, %zu bytes past "
                 "the end of the device array of %zu bytes (%zu floats or ints) below it; is a bound check missing, or "
                 "an index computed wrong?", (size_t)((uintptr_t)addr - start - it->second.size), it->second.size,
                 it->second.size / 4);
    else
        snprintf(what, what_size, "out-of-bounds access: a thread touched device memory at %p, in no array at all "
                 "(freed, or before every array); is a pointer stale, or an index negative?", addr);
    return true;
}

void memory_reset(int device)
{
    device_lock locked;
    for (auto it = allocations.begin(); it != allocations.end();)
        if (it->second.device == device) {
            free_block((void *)(it->first & ~DISGUISE), it->second);
            it = allocations.erase(it);
        } else {
            ++it;
        }
    quarantine_flush();
    for (auto it = registered.begin(); it != registered.end();) /* the program's memory: forgotten, not freed */
        it = it->second.device == device ? registered.erase(it) : ++it;
    device_bytes[device] = 0;
    memset(pools[device].reaches, 0, sizeof pools[device].reaches); /* (its pool is made again) */
}

/* Whether memory p lies in a pool that lets device `device` reach it. */
bool pool_lets_reach(const void *p, int device)
{
    device_lock locked;
    allocation *a = p ? find(p, 1, 0) : 0;
    return a && a->pooled && pools[a->device].reaches[device];
}

int device_of(const void *p)
{
    device_lock locked;
    allocation *a = p ? find(p, 1, 0) : 0;
    return a && a->kind == DEVICE_MEMORY ? a->device : -1;
}

bool memory_elsewhere(int device)
{
    for (int d = 0; d < MAX_DEVICES; d++)
        if (d != device && device_bytes[d])
            return true;
    return false;
}

static const char *kind_name(cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    default: return "cudaMemcpyDefault";
    }
}

/* A pointer on the device side of a copy must lie in device or managed
 * memory for all `n` bytes; one on the host side must not be device memory. */
static cudaError_t check_side(const void *p, size_t n, bool device_side, const char *role, cudaMemcpyKind kind)
{
    uintptr_t start = 0;
    allocation *a = find(p, n, &start);
    if (device_side) {
        if (a && a->kind != PINNED_HOST_MEMORY)
            return cudaSuccess;
        allocation *partial = find_any(p, &start);
        if (partial && partial->kind != PINNED_HOST_MEMORY)
            return api_fail(cudaErrorInvalidValue, "cudaMemcpy: %zu bytes at %s %p run past the end of its allocation "
                            "of %zu bytes (%zu bytes from its start)", n, role, p, partial->size,
                            (size_t)((uintptr_t)p - start));
        return api_fail(cudaErrorInvalidValue, "cudaMemcpy with %s: the %s %p is not device memory from cudaMalloc",
                        kind_name(kind), role, p);
    }
    if (a && a->kind == DEVICE_MEMORY)
        return api_fail(cudaErrorInvalidValue, "cudaMemcpy with %s: the %s %p is device memory, not host memory "
                        "(are the arguments or the direction swapped?)", kind_name(kind), role, p);
    return cudaSuccess;
}

static cudaError_t copy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    printf_flush();
    if (count == 0)
        return cudaSuccess;
    if (!dst || !src)
        return api_fail(cudaErrorInvalidValue, "cudaMemcpy of %zu bytes with a NULL %s", count,
                        dst ? "source" : "destination");
    cudaError_t err = cudaSuccess;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        if ((err = check_side(dst, count, true, "destination", kind)) == cudaSuccess)
            err = check_side(src, count, false, "source", kind);
        break;
    case cudaMemcpyDeviceToHost:
        if ((err = check_side(src, count, true, "source", kind)) == cudaSuccess)
            err = check_side(dst, count, false, "destination", kind);
        break;
    case cudaMemcpyDeviceToDevice:
        if ((err = check_side(src, count, true, "source", kind)) == cudaSuccess)
            err = check_side(dst, count, true, "destination", kind);
        break;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
        break;
    default:
        return api_fail(cudaErrorInvalidMemcpyDirection, "cudaMemcpy with direction %d", (int)kind);
    }
    if (err != cudaSuccess)
        return err;
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t copy_symbol(void *symbol, size_t symbol_size, size_t offset, const void *src, size_t count, bool to_symbol,
                        const char *file, int line)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (offset + count > symbol_size)
        return api_fail(cudaErrorInvalidValue, "%s:%d: %s of %zu bytes at offset %zu: the symbol has %zu bytes", file,
                        line, to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol", count, offset, symbol_size);
    if (count && !src)
        return api_fail(cudaErrorInvalidValue, "%s:%d: %s with a NULL pointer", file, line,
                        to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol");
    if (to_symbol)
        memcpy((char *)symbol + offset, src, count);
    else
        memcpy((void *)src, (char *)symbol + offset, count);
    return cudaSuccess;
}

static cudaError_t check_managed(const void *p, size_t count, const char *api)
{
    device_lock locked;
    uintptr_t start;
    allocation *a = find(p, count, &start);
    if (!a || a->kind != MANAGED_MEMORY)
        return api_fail(cudaErrorInvalidValue, "%s(%p, %zu bytes): the range is not inside one cudaMallocManaged "
                        "allocation", api, p, count);
    return cudaSuccess;
}

static bool valid_location(int device) { return valid_device(device) || device == cudaCpuDeviceId; }

/* cudaMemcpyPeer's check: p, if device memory, is memory of the device named for it. */
static cudaError_t check_peer_side(const void *p, int named, const char *role, const char *device_role)
{
    int owner = device_of(p);
    if (owner >= 0 && owner != named)
        return api_fail(cudaErrorInvalidValue, "cudaMemcpyPeer: the %s %p is memory of device %d, but %s says device %d",
                        role, p, owner, device_role, named);
    return cudaSuccess;
}

} // namespace cudaemu

using namespace cudaemu;

extern "C" {
cudaError_t cudaMalloc(void **ptr, size_t size)
{
    return allocate(ptr, size, DEVICE_MEMORY, "cudaMalloc", current_device());
}
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return api_fail(cudaErrorInvalidValue, "cudaMallocManaged with flags %u", flags);
    return allocate(ptr, size, MANAGED_MEMORY, "cudaMallocManaged", current_device());
}
cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return allocate(ptr, size, PINNED_HOST_MEMORY, "cudaMallocHost", current_device());
}
/* Every flag gives the same memory here: host memory is already portable
 * and mapped (the device reads it directly), and write-combining only
 * changes speed. */
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return api_fail(cudaErrorInvalidValue, "cudaHostAlloc with unknown flags %#x", flags);
    cudaError_t err = allocate(ptr, size, PINNED_HOST_MEMORY, "cudaHostAlloc", current_device());
    if (err == cudaSuccess && *ptr) {
        device_lock locked;
        allocations[(uintptr_t)*ptr | DISGUISE].flags = flags;
    }
    return err;
}
cudaError_t cudaHostGetFlags(unsigned int *flags, void *host_ptr)
{
    device_lock locked;
    allocation *a = find(host_ptr, 1, 0);
    if (!flags || !a || a->kind != PINNED_HOST_MEMORY)
        return api_fail(cudaErrorInvalidValue, "cudaHostGetFlags(%p): not memory from cudaHostAlloc or "
                        "cudaMallocHost", host_ptr);
    *flags = a->flags;
    return cudaSuccess;
}
/* Device, managed or pinned host memory (an allocation's or a registered
 * range's), else unregistered host memory; one address for both sides. */
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes, const void *ptr)
{
    device_lock locked;
    if (!attributes)
        return api_fail(cudaErrorInvalidValue, "cudaPointerGetAttributes with a NULL address for the attributes");
    allocation *a = ptr ? find(ptr, 1, 0) : 0;
    int device = a ? a->device : 0;
    if (!a && ptr && overlaps_registered(ptr, 1)) {
        auto it = registered.upper_bound((uintptr_t)ptr | DISGUISE);
        device = (--it)->second.device;
    }
    cudaMemoryType type = !a ? (ptr && overlaps_registered(ptr, 1) ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered)
                          : a->kind == DEVICE_MEMORY  ? cudaMemoryTypeDevice
                          : a->kind == MANAGED_MEMORY ? cudaMemoryTypeManaged
                                                      : cudaMemoryTypeHost;
    bool unregistered = type == cudaMemoryTypeUnregistered;
    attributes->type = type;
    attributes->device = unregistered ? -2 : device; /* (-2: CUDA's answer for memory of no device) */
    attributes->devicePointer = unregistered ? 0 : (void *)ptr;
    attributes->hostPointer = type == cudaMemoryTypeDevice ? 0 : (void *)ptr;
    return cudaSuccess;
}
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *ptr, size_t length, unsigned int flags)
{
    (void)stream;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        return api_fail(cudaErrorInvalidValue, "cudaStreamAttachMemAsync with flags %#x", flags);
    return check_managed(ptr, length ? length : 1, "cudaStreamAttachMemAsync");
}
/* A copy from src_device's memory to dst_device's (no peer access needed,
 * as in CUDA); each pointer must be memory of the device named with it. */
cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t count)
{
    if (!valid_device(dst_device) || !valid_device(src_device))
        return api_fail(cudaErrorInvalidDevice, "cudaMemcpyPeer from device %d to device %d: there is no device %d; "
                        "the cpu backend emulates %s (CUDAEMU_DEVICES sets how many)", src_device, dst_device,
                        valid_device(dst_device) ? src_device : dst_device, devices_there());
    if (cudaError_t err = check_peer_side(dst, dst_device, "destination", "dstDevice"))
        return err;
    if (cudaError_t err = check_peer_side(src, src_device, "source", "srcDevice"))
        return err;
    return copy(dst, src, count, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device, size_t count,
                                cudaStream_t stream)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemcpy,
                          [=] { return cudaMemcpyPeer(dst, dst_device, src, src_device, count); });
}

/* ---- stream-ordered allocation: each device's one pool ---- */
static int pool_device(cudaMemPool_t pool)
{
    for (int d = 0; d < device_count(); d++)
        if (pool == &pools[d])
            return d;
    return -1;
}
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream)
{
    (void)stream;
    int device = pool_device(pool);
    if (device < 0)
        return api_fail(cudaErrorInvalidValue, "cudaMallocFromPoolAsync: not a device's memory pool");
    cudaError_t err = allocate(ptr, size, DEVICE_MEMORY, "cudaMallocAsync", device);
    device_lock locked;
    if (err == cudaSuccess && *ptr)
        find(*ptr, 1, 0)->pooled = true;
    if ((unsigned long long)device_bytes[device] > pool->used_high)
        pool->used_high = (unsigned long long)device_bytes[device];
    return err;
}
/* From the pool of the stream's device, as CUDA allocates it. */
cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
    if (capturing(stream)) /* (a graph's alloc node) */
        return capture_graph_alloc(stream, ptr, size, stream_device(stream));
    return cudaMallocFromPoolAsync(ptr, size, &pools[stream_device(stream)], stream);
}
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
    if (capturing(stream)) /* (a graph's free node) */
        return capture_graph_free(stream, ptr);
    return release(ptr, false, "cudaFreeAsync");
}
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device)
{
    if (!valid_device(device))
        return api_fail(cudaErrorInvalidDevice, "cudaDeviceGetDefaultMemPool(%d): the cpu backend emulates %s", device,
                        devices_there());
    if (!pool)
        return api_fail(cudaErrorInvalidValue, "cudaDeviceGetDefaultMemPool(%d) with a NULL address for the pool",
                        device);
    *pool = &pools[device];
    return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) { return cudaDeviceGetDefaultMemPool(pool, device); }
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool)
{
    if (!valid_device(device) || pool != &pools[device])
        return api_fail(cudaErrorInvalidValue, "cudaDeviceSetMemPool: each device has one pool, its default one");
    return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value)
{
    if (pool_device(pool) < 0 || !value)
        return api_fail(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: not a device's pool, or no value");
    if (attr == cudaMemPoolAttrReleaseThreshold)
        pool->release_threshold = *(unsigned long long *)value;
    else if (attr == cudaMemPoolAttrUsedMemHigh || attr == cudaMemPoolAttrReservedMemHigh)
        pool->used_high = 0; /* CUDA allows only a reset to 0 */
    return cudaSuccess; /* (the reuse policies change nothing here) */
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value)
{
    int device = pool_device(pool);
    if (device < 0 || !value)
        return api_fail(cudaErrorInvalidValue, "cudaMemPoolGetAttribute: not a device's pool, or no value");
    switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: *(unsigned long long *)value = pool->release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent: *(unsigned long long *)value = (unsigned long long)device_bytes[device]; break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: *(unsigned long long *)value = pool->used_high; break;
    default: *(int *)value = 1; break; /* the reuse policies: on */
    }
    return cudaSuccess;
}
/* Which devices may reach the pool's memory: its own always, others where
 * granted (then a kernel on them may be handed it, as with peer access). */
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc *descs, size_t count)
{
    int device = pool_device(pool);
    if (device < 0 || (count && !descs))
        return api_fail(cudaErrorInvalidValue, "cudaMemPoolSetAccess: not a device's pool, or no descriptions");
    for (size_t i = 0; i < count; i++) {
        const cudaMemAccessDesc &d = descs[i];
        if (d.location.type != cudaMemLocationTypeDevice || !valid_device(d.location.id))
            return api_fail(cudaErrorInvalidDevice, "cudaMemPoolSetAccess: description %zu names no device of the "
                            "cpu backend's %s", i, devices_there());
        if (d.flags != cudaMemAccessFlagsProtNone && d.flags != cudaMemAccessFlagsProtReadWrite)
            return api_fail(cudaErrorInvalidValue, "cudaMemPoolSetAccess: a pool's memory is reached read-write "
                            "(cudaMemAccessFlagsProtReadWrite) or not at all (cudaMemAccessFlagsProtNone)");
        if (d.location.id == device && d.flags == cudaMemAccessFlagsProtNone)
            return api_fail(cudaErrorInvalidDevice, "cudaMemPoolSetAccess: device %d always reaches its own pool", device);
    }
    device_lock locked;
    for (size_t i = 0; i < count; i++)
        pool->reaches[descs[i].location.id] = descs[i].flags == cudaMemAccessFlagsProtReadWrite;
    return cudaSuccess;
}
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *flags, cudaMemPool_t pool, cudaMemLocation *location)
{
    int device = pool_device(pool);
    if (device < 0 || !flags || !location || location->type != cudaMemLocationTypeDevice || !valid_device(location->id))
        return api_fail(cudaErrorInvalidValue, "cudaMemPoolGetAccess: not a device's pool, or no device named");
    device_lock locked;
    *flags = location->id == device || pool->reaches[location->id] ? cudaMemAccessFlagsProtReadWrite
                                                                    : cudaMemAccessFlagsProtNone;
    return cudaSuccess;
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep)
{
    (void)min_bytes_to_keep;
    return pool_device(pool) >= 0 ? cudaSuccess : api_fail(cudaErrorInvalidValue, "cudaMemPoolTrimTo: not a device's pool");
}

/* ---- memory shared between processes: not here ---- */
#define CUDAEMU_NO_IPC(api) \
    api_fail(cudaErrorNotSupported, "%s: the cpu backend's device memory belongs to one process; CUDA IPC needs a GPU", api)
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *, void *) { return CUDAEMU_NO_IPC("cudaIpcGetMemHandle"); }
cudaError_t cudaIpcOpenMemHandle(void **, cudaIpcMemHandle_t, unsigned int) { return CUDAEMU_NO_IPC("cudaIpcOpenMemHandle"); }
cudaError_t cudaIpcCloseMemHandle(void *) { return CUDAEMU_NO_IPC("cudaIpcCloseMemHandle"); }
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *, cudaEvent_t) { return CUDAEMU_NO_IPC("cudaIpcGetEventHandle"); }
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *, cudaIpcEventHandle_t) { return CUDAEMU_NO_IPC("cudaIpcOpenEventHandle"); }
cudaError_t cudaFree(void *ptr)
{
    int owner = device_of(ptr);
    host_waited_for_device(owner >= 0 ? owner : current_device()); /* cudaFree synchronizes with the device */
    return release(ptr, false, "cudaFree");
}
cudaError_t cudaFreeHost(void *ptr) { return release(ptr, true, "cudaFreeHost"); }
/* Registering page-locks a range on a GPU; here it only records the range,
 * so that cudaHostGetDevicePointer accepts it and a second registration is
 * refused, as CUDA refuses it. */
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!ptr || !size)
        return api_fail(cudaErrorInvalidValue, "cudaHostRegister of an empty range");
    if (flags & ~(unsigned)(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                            cudaHostRegisterReadOnly))
        return api_fail(cudaErrorInvalidValue, "cudaHostRegister with unknown flags %#x", flags);
    int kind;
    if (overlaps_registered(ptr, size) || (overlaps_allocation(ptr, size, &kind) && kind == PINNED_HOST_MEMORY))
        return api_fail(cudaErrorHostMemoryAlreadyRegistered, "cudaHostRegister(%p, %zu bytes): the range overlaps "
                        "memory already registered or allocated with cudaMallocHost/cudaHostAlloc", ptr, size);
    if (overlaps_allocation(ptr, size, &kind))
        return api_fail(cudaErrorInvalidValue, "cudaHostRegister(%p): device memory from cudaMalloc or "
                        "cudaMallocManaged is not host memory", ptr);
    registered[(uintptr_t)ptr | DISGUISE] = registration{size, current_device()};
    return cudaSuccess;
}
cudaError_t cudaHostUnregister(void *ptr)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!ptr)
        return api_fail(cudaErrorInvalidValue, "cudaHostUnregister(NULL)");
    if (!registered.erase((uintptr_t)ptr | DISGUISE))
        return api_fail(cudaErrorHostMemoryNotRegistered, "cudaHostUnregister(%p): not the start of a range given "
                        "to cudaHostRegister", ptr);
    return cudaSuccess;
}
/* Host memory is device memory here, so the device sees a page-locked
 * buffer at its own address; anything else CUDA refuses. */
cudaError_t cudaHostGetDevicePointer(void **device_ptr, void *host_ptr, unsigned int flags)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (!device_ptr || flags)
        return api_fail(cudaErrorInvalidValue, "cudaHostGetDevicePointer with %s", device_ptr ? "flags other than 0"
                        : "a NULL address to store the pointer in");
    *device_ptr = 0;
    allocation *a = find(host_ptr, 1, 0);
    if (!(a && a->kind == PINNED_HOST_MEMORY) && !(host_ptr && overlaps_registered(host_ptr, 1)))
        return api_fail(cudaErrorInvalidValue, "cudaHostGetDevicePointer(%p): not memory from cudaHostAlloc, "
                        "cudaMallocHost or cudaHostRegister", host_ptr);
    *device_ptr = host_ptr;
    return cudaSuccess;
}

/* Blocking: the host waits for the work before it, on the current device. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    host_waited_for_device(current_device());
    return copy(dst, src, count, kind);
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemcpy, [=] { return copy(dst, src, count, kind); });
}
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind)
{
    if (width > dpitch || width > spitch)
        return api_fail(cudaErrorInvalidPitchValue, "cudaMemcpy2D: width %zu is larger than a pitch", width);
    for (size_t row = 0; row < height; row++) {
        cudaError_t err = copy((char *)dst + row * dpitch, (const char *)src + row * spitch, width, kind);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}
cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    device_lock locked;
    if (cudaError_t s = sticky_error())
        return api_result(s);
    if (count == 0)
        return cudaSuccess;
    uintptr_t start;
    allocation *a = find(ptr, count, &start);
    if (!a || a->kind == PINNED_HOST_MEMORY) {
        allocation *partial = find_any(ptr, &start);
        if (partial && partial->kind != PINNED_HOST_MEMORY)
            return api_fail(cudaErrorInvalidValue, "cudaMemset of %zu bytes at %p runs past the end of its allocation "
                            "of %zu bytes", count, ptr, partial->size);
        return api_fail(cudaErrorInvalidValue, "cudaMemset(%p): not device memory from cudaMalloc", ptr);
    }
    memset(ptr, value, count);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    return run_or_capture(stream, cudaGraphNodeTypeMemset, [=] { return cudaMemset(ptr, value, count); });
}
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, int device, cudaStream_t stream)
{
    (void)stream; /* (in a capture too: a hint, nothing to record) */
    if (!valid_location(device))
        return api_fail(cudaErrorInvalidDevice, "cudaMemPrefetchAsync to device %d: the cpu backend emulates %s, "
                        "and the host is cudaCpuDeviceId", device, devices_there());
    return check_managed(ptr, count, "cudaMemPrefetchAsync");
}
cudaError_t cudaMemAdvise(const void *ptr, size_t count, cudaMemoryAdvise advice, int device)
{
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return api_fail(cudaErrorInvalidValue, "cudaMemAdvise with advice %d", (int)advice);
    if (!valid_location(device) && advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly)
        return api_fail(cudaErrorInvalidDevice, "cudaMemAdvise for device %d: the cpu backend emulates %s, and the "
                        "host is cudaCpuDeviceId", device, devices_there());
    return check_managed(ptr, count, "cudaMemAdvise");
}
/* The current device's memory. */
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (free_bytes)
        *free_bytes = DEVICE_MEMORY_SIZE - (size_t)device_bytes[current_device()];
    if (total_bytes)
        *total_bytes = DEVICE_MEMORY_SIZE;
    return cudaSuccess;
}
/* Every device's (what the harness counts as not freed). */
long long cudaemuBytesInUse(void)
{
    device_lock locked;
    long long total = 0;
    for (int d = 0; d < MAX_DEVICES; d++)
        total += device_bytes[d];
    return total;
}
}

static int location_device(cudaMemLocation location)
{
    if (location.type == cudaMemLocationTypeDevice)
        return location.id;
    if (location.type == cudaMemLocationTypeHost || location.type == cudaMemLocationTypeHostNumaCurrent)
        return cudaCpuDeviceId;
    return cudaInvalidDeviceId;
}
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream)
{
    (void)flags;
    return cudaMemPrefetchAsync(ptr, count, location_device(location), stream);
}
cudaError_t cudaMemAdvise(const void *ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location)
{
    return cudaMemAdvise(ptr, count, advice, location_device(location));
}
