/* scheduler.cpp: running a grid of emulated CUDA threads.
 *
 * Blocks run one at a time on a host thread (all at once for a cooperative
 * launch, so that a grid-wide sync can complete).  A large launch's blocks
 * are spread over the machine's cores: host threads of a pool (workers) take
 * the next block in order until none is left; each has its own fibers, ready
 * list and shared-memory arena.  Only where the schedule order does not matter
 * (a program's plain run, not the grader's nor a sanitizer's: see
 * launch_workers).  In a block, a worker fiber takes the next
 * thread that has not started and runs it; a thread that finishes without
 * waiting costs one function call, no switch.  A thread that waits (a
 * barrier, a shuffle, a vote, a grid sync) keeps its fiber and the next
 * ready thread, or a fresh worker, runs instead.  When nothing can run the
 * scheduler looks at who waits where: a complete group is released, anything
 * else is a bug in the kernel, reported at the student's line. */
#include "internal.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <string>
#include <vector>

/* The built-in variables' storage (device.h declares them read-only). */
extern __thread uint3 emu_thread_idx __asm__("cudaemu_threadIdx") HIDDEN;
extern __thread uint3 emu_block_idx __asm__("cudaemu_blockIdx") HIDDEN;
extern dim3 emu_block_dim __asm__("cudaemu_blockDim") HIDDEN;
extern dim3 emu_grid_dim __asm__("cudaemu_gridDim") HIDDEN;
__thread uint3 emu_thread_idx;
__thread uint3 emu_block_idx;
dim3 emu_block_dim;
dim3 emu_grid_dim;

namespace cudaemu {

unsigned long long current_launch_id;
unsigned long long clock_base; /* the cycle counter at the launch's start: its clock64() and clock() count from 0 */
__thread char *current_shared_base;
__thread volatile sig_atomic_t runtime_busy;

/* ---- schedule orders ------------------------------------------------------------------ */
static int schedule_mode = SCHEDULE_FORWARD;
static unsigned long long schedule_seed, rng_state;
static bool schedule_chosen;
static bool schedule_fixed; /* chosen by the program or EMU_SCHED: blocks in that order, on one host thread */

static unsigned long long rng_next(void)
{
    /* splitmix64: small, and the same sequence on every machine */
    unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool parse_schedule(const char *order)
{
    if (!order || !*order || !strcmp(order, "fwd") || !strcmp(order, "forward")) {
        schedule_mode = SCHEDULE_FORWARD;
    } else if (!strcmp(order, "rev") || !strcmp(order, "reverse")) {
        schedule_mode = SCHEDULE_REVERSE;
    } else if (!strncmp(order, "rand:", 5) || !strcmp(order, "rand")) {
        schedule_mode = SCHEDULE_RANDOM;
        schedule_seed = order[4] ? strtoull(order + 5, 0, 0) : 1;
    } else {
        return false;
    }
    rng_state = schedule_seed;
    schedule_chosen = true;
    return true;
}

void schedule_init_from_env(void)
{
    if (schedule_chosen)
        return;
    const char *env = getenv("EMU_SCHED");
    schedule_fixed = env && *env;
    if (!parse_schedule(env)) {
        fprintf(stderr, "cudaemu: EMU_SCHED=%s is not fwd, rev or rand:SEED; using fwd\n", env);
        parse_schedule("fwd");
    }
}

/* The byte shared memory is filled with at a block's start.  Each order
 * fills it differently, so a slot no thread wrote changes the result between
 * orders even where one pattern would pass: NaN vanishes under fmaxf and
 * fminf, a huge positive value under min, a negative one under max. */
unsigned char shared_poison_byte(void)
{
    static const unsigned char by_seed[3] = {0xFF, 0x7F, 0xFE}; /* NaN / -1, 3.4e38, -1.7e38 */
    if (schedule_mode == SCHEDULE_FORWARD)
        return 0xFF;
    if (schedule_mode == SCHEDULE_REVERSE)
        return 0x7F;
    return by_seed[schedule_seed % 3];
}

/* Fills order[0..n) with 0..n-1 in the current schedule's order. */
static void schedule_order(unsigned *order, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        order[i] = schedule_mode == SCHEDULE_REVERSE ? n - 1 - i : i;
    if (schedule_mode == SCHEDULE_RANDOM)
        for (unsigned i = n; i > 1; i--) {
            unsigned j = (unsigned)(rng_next() % i);
            unsigned t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
}

/* ---- the launch in progress ---------------------------------------------------------------- */
struct warp_group {              /* a warp operation some lanes wait in */
    unsigned mask, arrived;
    int kind;
    const char *what, *file;
    int line;
    unsigned tsan_slot;          /* its object in warp_state::tsan_sync */
};
enum { MAX_GROUPS_PER_WARP = 32 };
/* TSan's objects for a barrier, a warp operation or a grid sync: each
 * waiter releases into the object of the operation it waits at and acquires
 * from that same object once resumed, which in a block's ready list (first
 * in, first out) comes before any thread can wait at the object's next use.
 * A barrier (or a grid sync) needs two, alternating: no thread can reach
 * the one after next before every thread has left this one.  A warp's
 * operations, whose masks may differ, take the next of a ring of 64. */
enum { TSAN_SLOTS = 64 };
struct warp_state {
    warp_group groups[MAX_GROUPS_PER_WARP];
    int count;
    /* TSan's synchronisation objects, one per warp operation in a ring
     * (see tsan_slot): the lanes of an operation release into its own and
     * acquire from it when resumed.  A single object per warp would hand a
     * lane resumed late what a faster lane released at the warp's *next*
     * operation, hiding every race between them. */
    unsigned tsan_next;
    char tsan_sync[TSAN_SLOTS];
};

/* An operation of a tile of more than one warp (thread_block_tile<64> and
 * up) that some of its threads wait in: threads base .. base + size - 1.
 * The tiles of one size split the block, and a thread waits in one
 * operation at a time, so a block has at most 16 + 8 + 4 + 2 + 1 of them
 * at once (tiles of 64, 128, ... 1024 threads). */
struct tile_group {
    unsigned size, base, arrived;
    int kind;
    const char *what, *file;
    int line;
    unsigned tsan_slot;          /* its object in the first warp's warp_state::tsan_sync */
};
enum { MAX_TILE_GROUPS = 31 };

struct block_state {
    uint3 idx;
    unsigned long long number;   /* linear, in the grid */
    unsigned slot;               /* index among its worker's resident blocks */
    thread_state *threads;
    unsigned started, done, at_barrier, at_grid;
    const char *bar_what, *bar_file;
    int bar_line, bar_kind;
    bool bar_mismatch;
    long long bar_acc;
    int bar_result;
    char *shared;
    warp_state *warps;
    unsigned *start_order;       /* null in forward order */
    unsigned long long serial;   /* this block's run on its worker (thread_state::serial) */
    unsigned bar_generation;     /* barriers completed: which of tsan_sync the current one uses */
    char tsan_sync[2];
    /* Run as coroutines (co_run_block): each thread's frame, null until it
     * starts; null when the block runs on fibers. */
    void **co_frames;
    unsigned co_running;         /* the thread in a step now, or CO_NONE */
    unsigned co_round;           /* barriers released so far: a thread that waits in an earlier round is ready */
    tile_group tiles[MAX_TILE_GROUPS];
    unsigned tile_count;
    split_block *split;          /* run as loops over its threads (split_run_block), or null */
};
enum { CO_NONE = ~0u };

/* The launch, as every host thread running its blocks sees it. */
static struct {
    const char *name, *file;
    int line;
    dim3 grid, block;
    size_t shmem;
    thread_body body;
    thread_co_body co_body;            /* null: the threads run on fibers */
    thread_split_body split_body;      /* non-null: each block runs as loops over its threads (split.h) */
    thread_loop_body loop_body;        /* null: worker_main calls body for each thread */
    void *context;
    bool cooperative;
    volatile bool failed;              /* stop: every worker leaves at its next chance */
    bool reported;                     /* the failure's message is out (fail_launch's, the first only) */
    volatile sig_atomic_t timed_out;   /* the watchdog's limit passed while the launching thread waited */
    unsigned threads_per_block, warps_per_block;
    unsigned long long blocks;
    unsigned long long next_block;     /* the next block a worker takes (atomic where spread) */
    bool spread;                       /* the blocks are spread over several host threads */
    unsigned take_at_once;             /* spread: how many blocks a worker takes at a time */
    std::vector<unsigned> block_order; /* on one host thread, the schedule's order of the blocks; or empty */
    unsigned long long grid_waiting, grid_threads;
    unsigned grid_generation;          /* grid syncs completed: which of tsan_grid the current one uses */
    char tsan_in, tsan_out, tsan_grid[2];
} L;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

/* A host thread's part of the launch: its resident blocks and their threads. */
struct worker {
    std::vector<block_state> blocks;
    std::vector<thread_state> threads;
    std::vector<warp_state> warps;
    std::vector<unsigned> orders;
    std::vector<unsigned> tile_order;  /* the order a tile's threads go on after its operation */
    unsigned next_block_to_start;
    std::vector<thread_state *> ready; /* ring buffer */
    size_t ready_head, ready_count;
    cudaemuLaunchCounts counts;
    unsigned long long blocks_done;    /* this launch's, for the watchdog's message (written by this worker alone) */
    unsigned long long taken, taken_end; /* spread: the blocks it took at once and has not started yet */
    printf_log log;
    unsigned arena;                    /* its first block's shared-memory arena (each worker's differs) */
    unsigned long long block_serial;   /* blocks set up so far */
    std::vector<void *> co_frames;     /* a block's threads' frames, run as coroutines */
    std::vector<unsigned char> co_recorded; /* which of them has a record (thread_record) */
    std::vector<uint3> idx_by_rank;    /* each rank's threadIdx, for the launch idx_launch (start loop, coroutines) */
    unsigned long long idx_launch;
    std::vector<std::pair<char *, size_t>> co_pieces; /* the memory they are cut from */
    size_t co_piece;                   /* the piece cut from now */
};
static worker workers[POOL_MAX];    /* [0]: the launching thread's */
static __thread worker *W;             /* this host thread's */

/* (without writing a record: host code asks this of a kernel's thread too) */
int in_kernel(void) { return current_fiber && (current_fiber->thread || current_fiber->lazy_block); }
int grid_is_cooperative(void) { return L.cooperative; }
unsigned long long current_block_number(void) { return current_thread() ? current_thread()->block->number : 0; }
/* What the launch running (or last run) did, for cudaemuLastLaunchCounts:
 * each host thread counts its own, added up at the launch's end. */
static cudaemuLaunchCounts counts, counts_outside; /* (an atomic in host code) */
static __thread cudaemuLaunchCounts *counts_here = &counts_outside;
void atomic_point(void) { counts_here->atomics++; }

static void load_builtins(thread_state *t)
{
    emu_thread_idx = t->idx;
    emu_block_idx = t->block->idx;
    current_shared_base = t->block->shared;
}

static inline __attribute__((always_inline)) void ready_push(thread_state *t)
{
    worker *w = W;
    t->status = T_READY;
    size_t at = w->ready_head + w->ready_count++;
    w->ready[at < w->ready.size() ? at : at - w->ready.size()] = t;
}
static inline __attribute__((always_inline)) thread_state *ready_pop(void)
{
    worker *w = W;
    if (!w->ready_count)
        return 0;
    thread_state *t = w->ready[w->ready_head];
    if (++w->ready_head == w->ready.size())
        w->ready_head = 0;
    w->ready_count--;
    return t;
}

/* What the next switches will touch, asked of the memory system ahead of
 * them.  A barrier of a block of 256 threads brings back each waiting
 * thread's record, fiber and the top frames of its stack, over 100 KB:
 * from the L2 cache at best, each line a load that waits for the one before
 * (the record names the fiber, the fiber the stack).  Resumed in the ready
 * list's order, the next threads are known: while one thread runs, the
 * next's frames are fetched, the fiber of the one after and the record of
 * the third, each from a line fetched one switch earlier.  (Fetching
 * further ahead, or the fresh fibers' stacks at a block's first barrier,
 * measured no better.) */
static inline __attribute__((always_inline)) void prefetch_ready(void)
{
    worker *w = W;
    size_t count = w->ready_count, size = w->ready.size(), head = w->ready_head;
    thread_state *const *ring = w->ready.data();
    if (count > 2) {
        size_t at = head + 2;
        __builtin_prefetch(ring[at < size ? at : at - size], 1);
    }
    if (count > 1) {
        size_t at = head + 1;
        __builtin_prefetch(ring[at < size ? at : at - size]->fib, 1);
    }
    if (count > 0) {
        /* the saved registers, the runtime's frame and the kernel's above them */
        const char *sp = (const char *)ring[head]->fib->sp;
        for (int line = 0; line < 4; line++)
            __builtin_prefetch(sp + 64 * line, 1);
    }
}

/* ---- starting threads ---------------------------------------------------------------------- */
/* The thread worker_main() starts next, or null. */
static thread_state *next_unstarted(void)
{
    worker *w = W;
    while (w->next_block_to_start < w->blocks.size()) {
        block_state *b = &w->blocks[w->next_block_to_start];
        if (b->started < L.threads_per_block)
            return &b->threads[b->start_order ? b->start_order[b->started] : b->started];
        w->next_block_to_start++;
    }
    return 0;
}
/* A fiber to run unstarted thread t first (fiber_new says which). */
static fiber *new_worker(thread_state *t) { return fiber_new((size_t)(t - W->threads.data())); }

static void diagnose_stuck(void);

/* Gives the OS thread to someone else: a ready thread, a new worker for an
 * unstarted thread, or, when nothing can run, back to the host. */
static inline __attribute__((always_inline)) void schedule_next(bool leaving_for_good)
{
    busy_scope busy;
    for (;;) {
        if (L.failed) {
            fiber_switch(0, true);
            abort();
        }
        /* A waiting thread's fiber is only ever resumed from here, so its
         * built-ins are loaded here, before the switch, while its record is
         * in the cache (after it, the resumed side would fetch them through
         * its fiber and record, cold). */
        if (thread_state *t = ready_pop()) {
            prefetch_ready();
            t->status = T_RUNNING;
            load_builtins(t);
            if (t->fib != current_fiber)
                fiber_switch(t->fib, leaving_for_good);
            return;
        }
        if (thread_state *u = next_unstarted()) {
            fiber_switch(new_worker(u), leaving_for_good); /* (back here from the branch above) */
            return;
        }
        bool all_done = true;
        for (block_state &b : W->blocks)
            all_done = all_done && b.done == L.threads_per_block;
        if (!all_done)
            diagnose_stuck(); /* sets L.failed */
        fiber_switch(0, leaving_for_good);
        return;
    }
}

static inline uint3 thread_index(unsigned rank, bool flat)
{
    uint3 idx;
    if (flat) { /* the common case, without divisions */
        idx.x = rank;
        idx.y = idx.z = 0;
    } else {
        idx.x = rank % L.block.x;
        idx.y = rank / L.block.x % L.block.y;
        idx.z = rank / (L.block.x * L.block.y);
    }
    return idx;
}

/* The record of the thread that fiber f runs with none yet (f->lazy_block,
 * f->lazy_rank), written at that thread's first call into the runtime
 * (current_thread): a wait, a fault, the watchdog, a pipeline copy, printf.
 * From then on the thread is what it was when every thread had its record
 * from its start. */
thread_state *thread_record(fiber *f)
{
    block_state *b = f->lazy_block;
    if (f->batch) {
        /* a batch of thread_loop (launch.h): thread threadIdx.x runs, the
         * ones before it in the batch have ended, the batch ends here */
        unsigned x = emu_thread_idx.x;
        b->started = x + 1;
        b->done = f->batch_done_base + x;
        f->lazy_rank = x;
        f->batch = 0;
    }
    unsigned rank = f->lazy_rank;
    thread_state *t = &b->threads[rank];
    t->idx = thread_index(rank, L.block.y == 1 && L.block.z == 1);
    t->rank = rank;
    t->status = T_RUNNING;
    t->block = b;
    t->fib = f;
    t->serial = b->serial;
    f->thread = t;
    if (__builtin_expect(__atomic_load_n(&pipelines_made, __ATOMIC_RELAXED), 0) && t->pipeline)
        pipeline_thread_start(t);
    return t;
}

/* A thread with a record has returned from the kernel. */
static void recorded_thread_ends(fiber *self)
{
    thread_state *t = self->thread;
    if (__builtin_expect(__atomic_load_n(&pipelines_made, __ATOMIC_RELAXED), 0) && t->pipeline)
        pipeline_thread_end(t);
    tsan_release(&L.tsan_out);
    t->status = T_DONE;
    self->thread = 0;
}

/* A block of worker w has ended: counted for the watchdog's message, by its
 * worker alone (no line shared between host threads at every block). */
static inline void block_finished(worker *w)
{
    __atomic_store_n(&w->blocks_done, w->blocks_done + 1, __ATOMIC_RELAXED);
}
static bool take_block(void);

/* The thread worker fiber `self` ran in block b has returned from the kernel. */
static inline __attribute__((always_inline)) void thread_ends(block_state *b, fiber *self)
{
    if (__builtin_expect(self->thread != 0, 0)) {
        recorded_thread_ends(self);
        /* it may have waited, and other blocks' threads run meanwhile */
        emu_block_idx = b->idx;
        current_shared_base = b->shared;
    }
    if (++b->done == L.threads_per_block)
        block_finished(W);
}

#if __cpp_impl_coroutine
static void co_run_block(block_state *b, fiber *self);
#endif
static void split_run_block(block_state *b, fiber *self);
/* Each rank's threadIdx for this launch, in the worker's table. */
static void fill_index_table(worker *w)
{
    const unsigned n = L.threads_per_block;
    w->idx_by_rank.resize(n);
    for (unsigned rank = 0; rank < n; rank++)
        w->idx_by_rank[rank] = thread_index(rank, L.block.y == 1 && L.block.z == 1);
    w->idx_launch = current_launch_id;
}

/* What a worker fiber does: start the next unstarted thread and run it to
 * its end, then the next, on this same stack, with no switch: a thread
 * that never waits (every thread of a barrier-free kernel, and each
 * thread's stretch before its first wait) costs a call here and a few
 * stores to lines already in the cache (the built-in variables, the
 * block's counts, this fiber's note of which thread it runs), and nothing
 * in its own record: the record is written only if the thread calls into
 * the runtime (thread_record), and a diagnosis or the watchdog's census
 * tells the threads that ran to their end without one by their block's
 * serial number (settle_records).  A thread that waits keeps this fiber
 * (its frames are on it) and the scheduler starts a new worker fiber for
 * the next unstarted thread; when the thread is resumed and returns, this
 * loop goes on with whatever is still unstarted.  Threads start in the
 * schedule's order (start_order), as when each had a fiber of its own. */
void worker_main(void)
{
    fiber *self = current_fiber;
    worker *w = W;
    const unsigned n = L.threads_per_block;
    const bool flat = L.block.y == 1 && L.block.z == 1;
    const thread_body body = L.body;
    void *const context = L.context;
next_block:
    while (w->next_block_to_start < w->blocks.size()) {
        block_state *b = &w->blocks[w->next_block_to_start];
        if (b->started == n) {
            w->next_block_to_start++;
            continue;
        }
        self->lazy_block = b;
        emu_block_idx = b->idx;
        current_shared_base = b->shared;
        if (L.split_body || L.co_body) {
            /* the whole block in one call: as loops over its threads, or as coroutines */
            if (L.split_body)
                split_run_block(b, self);
#if __cpp_impl_coroutine
            else
                co_run_block(b, self);
#endif
            self->lazy_block = 0;
            self->thread = 0;
            if (L.failed)
                break;
            block_finished(w);
            continue;
        }
        const unsigned *order = b->start_order;
        if (L.loop_body) {
            /* the same loop, with the kernel inlined in it (launch.h's thread_loop) */
            if (!flat && w->idx_launch != current_launch_id)
                fill_index_table(w);
            thread_range range = {&b->started, &b->done, n, order, flat ? 0 : w->idx_by_rank.data(), &self->lazy_rank,
                                  (void *const *)&self->thread, &w->blocks_done, &self->batch, &self->batch_done_base};
            while (b->started < n) {
                L.loop_body(context, &range);
                if (self->thread) /* (the loop counted the others' ends itself) */
                    thread_ends(b, self);
            }
            self->lazy_block = 0;
            continue;
        }
        for (unsigned pos; (pos = b->started) < n;) {
            unsigned rank = order ? order[pos] : pos;
            b->started = pos + 1;
            self->lazy_rank = rank;
            emu_thread_idx = thread_index(rank, flat);
#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
            /* (the sanitizers' fibers are told of every thread: a record each, at once) */
            tsan_enter_thread(thread_record(self));
            tsan_acquire(&L.tsan_in);
#endif
            runtime_busy = 0; /* the kernel's own code from here */
            body(context);
            runtime_busy = 1;
            thread_ends(b, self);
#ifdef CUDAEMU_TSAN
            goto leave; /* the next thread runs on a stack of its own (fiber_new says why) */
#endif
        }
        self->lazy_block = 0;
    }
#if !defined(CUDAEMU_ASAN) && !defined(CUDAEMU_TSAN)
    /* Blocks handed out one at a time, one resident: where the block has
     * ended (every thread, not only this fiber's), the next starts here, on
     * this fiber, with no switch to the host thread and back and no new
     * fiber.  (The sanitizer builds go back at each block: their host loop
     * tells TSan that each block comes after the one before.) */
    if (w->blocks.size() == 1 && !L.cooperative && w->blocks[0].done == n && take_block())
        goto next_block;
#endif
#ifdef CUDAEMU_TSAN
leave:
#endif
    fiber_release(self); /* nothing will start on it before we have switched away */
    schedule_next(true);
    abort();
}

#ifdef CUDAEMU_TSAN
static std::string block_name(const block_state *b);
bool records_share_warp(size_t r1, size_t r2, std::string *who)
{
    worker *w = W;
    size_t n = L.threads_per_block;
    if (!w || !n || r1 >= w->threads.size() || r2 >= w->threads.size() || r1 / n != r2 / n)
        return false;
    unsigned rank1 = (unsigned)(r1 % n), rank2 = (unsigned)(r2 % n);
    if (rank1 / 32 != rank2 / 32 || rank1 == rank2)
        return false;
    const block_state *b = &w->blocks[r1 / n];
    *who = "threads " + std::to_string(rank1) + " and " + std::to_string(rank2) + " of " + block_name(b) +
           " (lanes " + std::to_string(rank1 % 32) + " and " + std::to_string(rank2 % 32) + " of warp " +
           std::to_string(rank1 / 32) + ")";
    return true;
}
#endif

/* ---- failures -------------------------------------------------------------------------------- */
static std::string thread_list(const block_state *b, bool (*pick)(const thread_state *, const void *), const void *arg)
{
    std::string s;
    unsigned n = L.threads_per_block, shown = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!pick(&b->threads[i], arg))
            continue;
        unsigned j = i;
        while (j + 1 < n && pick(&b->threads[j + 1], arg))
            j++;
        if (shown++ == 6) {
            s += ", ...";
            break;
        }
        char buf[48];
        if (j == i)
            snprintf(buf, sizeof buf, "%s%u", s.empty() ? "" : ", ", i);
        else
            snprintf(buf, sizeof buf, "%s%u-%u", s.empty() ? "" : ", ", i, j);
        s += buf;
        i = j;
    }
    return s;
}

/* "3, 16-31": the lanes set in a mask */
static std::string lane_list(unsigned mask)
{
    std::string s;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        unsigned j = l;
        while (j + 1 < 32 && (mask >> (j + 1) & 1))
            j++;
        s += (s.empty() ? "" : ", ") + std::to_string(l) + (j > l ? "-" + std::to_string(j) : "");
        l = j;
    }
    return s;
}

static std::string where_launched(void)
{
    char buf[512];
    snprintf(buf, sizeof buf, " [kernel %s launched at %s:%d]", L.name ? L.name : "?", L.file ? L.file : "?", L.line);
    return buf;
}

/* Stops the launch; the first failure (of any host thread) is the one reported. */
static void fail_launch(int code, const char *file, int line, const std::string &what)
{
    pthread_mutex_lock(&fail_lock);
    if (!L.reported) {
        std::string message = std::string(file && *file ? file : "?") + ":" + std::to_string(line) + ": " + what +
                              where_launched();
        fprintf(stderr, "%s:%d: error: %s%s\n", file && *file ? file : "?", line, what.c_str(),
                where_launched().c_str());
        set_sticky_error((cudaError_t)code, message.c_str());
        L.reported = true;
    }
    L.failed = true;
    pthread_mutex_unlock(&fail_lock);
}

void kernel_fail(int code, const char *file, int line, const char *fmt, ...)
{
    runtime_busy = 1; /* it never returns to the kernel */
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!in_kernel()) {
        fprintf(stderr, "%s:%d: error: %s (called outside any kernel)\n", file, line, buf);
        abort();
    }
    fail_launch(code, file, line, buf);
    fiber_switch(0, true);
    abort();
}

static std::string block_name(const block_state *b)
{
    char buf[64];
    if (L.grid.y == 1 && L.grid.z == 1)
        snprintf(buf, sizeof buf, "block %u", b->idx.x);
    else
        snprintf(buf, sizeof buf, "block (%u,%u,%u)", b->idx.x, b->idx.y, b->idx.z);
    return buf;
}

static bool same_site(const char *f1, int l1, const char *f2, int l2)
{
    return l1 == l2 && (f1 == f2 || (f1 && f2 && !strcmp(f1, f2)));
}

struct site {
    int status;
    const char *what, *file;
    int line;
};
static bool at_site(const thread_state *t, const void *arg)
{
    const site *s = (const site *)arg;
    return t->status == s->status && same_site(t->wait_file, t->wait_line, s->file, s->line) &&
           !strcmp(t->wait_what, s->what);
}
static bool exited(const thread_state *t, const void *) { return t->status == T_DONE; }
static site site_of(const thread_state *t) { return site{t->status, t->wait_what, t->wait_file, t->wait_line}; }

/* Where a thread waits (status T_BARRIER, T_WARP, T_GRID or T_TILE): what a
 * diagnosis and the watchdog's census read back (site_of, wait_sites). */
static inline void wait_at(thread_state *t, int status, const char *what, const char *file, int line)
{
    t->status = status;
    t->wait_what = what;
    t->wait_file = file;
    t->wait_line = line;
}

static std::string describe_site(const site &s)
{
    return std::string(s.what) + " at " + (s.file ? s.file : "?") + ":" + std::to_string(s.line);
}

/* The records of b's threads say where each is, before any look at every
 * thread's status (a diagnosis, the watchdog's census): those not started
 * yet say so (setup_block leaves them as the last block left them), and so
 * do those that ran to their end without a record of this block
 * (worker_main writes none for them).  Only b's own host thread calls it,
 * and none of those threads runs anywhere. */
static void co_settle(block_state *b);
static void split_settle(block_state *b);
static void settle_records(block_state *b)
{
    if (b->co_frames) {
        co_settle(b);
        return;
    }
    if (b->split) {
        split_settle(b);
        return;
    }
    (void)current_thread(); /* the running thread's record, if it has none yet */
    for (unsigned i = 0; i < L.threads_per_block; i++) {
        thread_state *t = &b->threads[b->start_order ? b->start_order[i] : i];
        if (i >= b->started)
            t->status = T_UNSTARTED;
        else if (t->serial != b->serial)
            t->status = T_DONE;
    }
}

/* A warp operation that waits for lanes that are elsewhere or gone: which,
 * and where. */
static std::string warp_stuck_message(block_state *b, const site *w, const std::string &who)
{
    thread_state *first = 0;
    for (unsigned i = 0; i < L.threads_per_block && !first; i++)
        if (at_site(&b->threads[i], w))
            first = &b->threads[i];
    unsigned warp = first->rank / 32, mask = first->warp_mask;
    unsigned gone = 0, elsewhere = 0;
    std::string where_else;
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!(mask & (1u << lane)))
            continue;
        unsigned r = warp * 32 + lane;
        if (r >= L.threads_per_block)
            continue;
        thread_state *t = &b->threads[r];
        if (t->status == T_DONE)
            gone |= 1u << lane;
        else if (t->status != T_WARP || t->warp_mask != mask ||
                 !same_site(t->wait_file, t->wait_line, w->file, w->line)) {
            elsewhere |= 1u << lane;
            if (where_else.empty())
                where_else = describe_site(site_of(t));
        }
    }
    std::string missing_gone = lane_list(gone), missing_elsewhere = lane_list(elsewhere);
    char maskbuf[16];
    snprintf(maskbuf, sizeof maskbuf, "0x%08x", mask);
    std::string msg = describe_site(*w) + " with mask " + maskbuf + " can never complete in " + who + ", warp " +
                      std::to_string(warp) + ":";
    if (!missing_gone.empty())
        msg += " lanes " + missing_gone + " named in the mask have already exited;";
    if (!missing_elsewhere.empty())
        msg += " lanes " + missing_elsewhere + " named in the mask wait elsewhere (" + where_else +
               ") or with another mask;";
    msg += " every lane named in the mask must make the same call";
    return msg;
}

/* The same for a tile of more than one warp: which of its threads are gone
 * or elsewhere. */
static unsigned count(const block_state *b, bool (*pick)(const thread_state *, const void *), const void *arg);
struct tile_member {
    const thread_state *threads; /* the block's (a record not written yet has no rank) */
    unsigned base, size;
    int status; /* T_DONE: those exited; T_TILE: those elsewhere than *s */
    const site *s;
};
static bool in_tile(const thread_state *t, const void *arg)
{
    const tile_member *m = (const tile_member *)arg;
    unsigned rank = (unsigned)(t - m->threads);
    if (rank < m->base || rank >= m->base + m->size)
        return false;
    bool gone = t->status == T_DONE;
    return m->status == T_DONE ? gone : !gone && !at_site(t, m->s);
}
static std::string tile_stuck_message(block_state *b, const site *s, const std::string &who)
{
    const thread_state *first = 0;
    for (unsigned i = 0; i < L.threads_per_block && !first; i++)
        if (at_site(&b->threads[i], s))
            first = &b->threads[i];
    unsigned size = (unsigned)first->warp_width, base = (unsigned)(first - b->threads) / size * size;
    tile_member gone = {b->threads, base, size, T_DONE, s}, elsewhere = {b->threads, base, size, T_TILE, s};
    std::string msg = describe_site(*s) + " can never complete in " + who + ", the tile of threads " +
                      std::to_string(base) + "-" + std::to_string(base + size - 1) + ":";
    if (count(b, in_tile, &gone))
        msg += " threads " + thread_list(b, in_tile, &gone) + " of the tile have already exited;";
    if (count(b, in_tile, &elsewhere)) {
        std::string where;
        for (unsigned r = base; r < base + size && where.empty(); r++)
            if (in_tile(&b->threads[r], &elsewhere))
                where = describe_site(site_of(&b->threads[r]));
        msg += " threads " + thread_list(b, in_tile, &elsewhere) + " of the tile wait elsewhere (" + where + ");";
    }
    return msg + " every thread of a tile must make the same call";
}

/* The distinct places where b's threads wait (barriers, warp operations, grid
 * syncs), in the order of the first thread at each: what a diagnosis and the
 * watchdog's census both report. */
static std::vector<site> wait_sites(const block_state *b)
{
    std::vector<site> sites;
    for (unsigned i = 0; i < L.threads_per_block; i++) {
        const thread_state *t = &b->threads[i];
        if (t->status != T_BARRIER && t->status != T_WARP && t->status != T_GRID && t->status != T_TILE)
            continue;
        bool known = false;
        for (const site &s : sites)
            known = known || at_site(t, &s);
        if (!known)
            sites.push_back(site_of(t));
    }
    return sites;
}

/* "threads A wait at X; threads B wait at Y", then those of b that have
 * exited: the body of a divergence's or a deadlock's message. */
static std::string who_waits_where(const block_state *b, const std::vector<site> &sites)
{
    std::string msg;
    for (size_t k = 0; k < sites.size(); k++)
        msg += (k ? "; threads " : "threads ") + thread_list(b, at_site, &sites[k]) + " wait at " +
               describe_site(sites[k]);
    if (b->done)
        msg += "; threads " + thread_list(b, exited, 0) + " have exited";
    return msg;
}

/* Nothing can run and some threads wait: say who waits where, and why it
 * can never complete. */
static void diagnose_stuck(void)
{
    for (block_state &b : W->blocks)
        settle_records(&b);
    for (block_state &b : W->blocks) {
        if (b.done == L.threads_per_block)
            continue;
        std::vector<site> sites = wait_sites(&b);
        if (sites.empty())
            continue;
        std::string who = block_name(&b);
        std::string msg;
        if (sites[0].status == T_TILE || (sites.size() > 1 && sites[1].status == T_TILE)) {
            msg = tile_stuck_message(&b, sites[0].status == T_TILE ? &sites[0] : &sites[1], who);
        } else if (b.done && sites.size() == 1 && sites[0].status != T_WARP) {
            const char *verb = sites[0].status == T_GRID ? "grid sync" : "barrier";
            msg = std::string(verb) + " can never complete: in " + who + ", threads " +
                  thread_list(&b, at_site, &sites[0]) + " wait at " + describe_site(sites[0]) + " but threads " +
                  thread_list(&b, exited, 0) + " have already exited (returned before reaching it); every thread " +
                  (sites[0].status == T_GRID ? "of the grid must reach grid.sync()" : "of a block must reach the same barrier");
        } else if (sites.size() > 1 && sites[0].status == T_BARRIER && sites[1].status == T_BARRIER) {
            msg = "barrier divergence in " + who + ": " + who_waits_where(&b, sites) +
                  "; every thread of a block must reach the same __syncthreads()";
        } else if (sites[0].status == T_WARP || (sites.size() > 1 && sites[1].status == T_WARP)) {
            msg = warp_stuck_message(&b, sites[0].status == T_WARP ? &sites[0] : &sites[1], who);
        } else {
            msg = "deadlock in " + who + ": " + who_waits_where(&b, sites);
        }
        fail_launch(cudaErrorLaunchFailure, sites[0].file, sites[0].line, msg);
        return;
    }
    fail_launch(cudaErrorLaunchFailure, L.file, L.line, "the kernel's threads wait for each other forever (deadlock)");
}

/* ---- a block's threads as coroutines (coroutine.h) -------------------------------------------
 * Each thread is a step at a time: started (its twin called) or resumed, it
 * runs to its next barrier or its end and returns here.  The threads start
 * in the schedule's order and are resumed, barrier after barrier, in the
 * order its release would put them on the ready list: the interleaving is
 * the one the fibers give.  What fibers find at a barrier is found here
 * after each round: threads at different barriers, or some waiting while
 * others have returned, is the same diagnosis with the same message. */
__thread co_arena co_frames;
__thread int co_barrier_result;

/* CUDAEMU_COROUTINES=0 runs every kernel on fibers, as the sanitizer builds
 * do; =1 every block of a kernel with a twin as coroutines; unset, each
 * kernel the way its blocks run faster (co_choose). */
enum { COROUTINES_OFF, COROUTINES_ALWAYS, COROUTINES_FASTER };
static int coroutines_mode(void)
{
#if __cpp_impl_coroutine && !defined(CUDAEMU_ASAN) && !defined(CUDAEMU_TSAN)
    const char *env = getenv("CUDAEMU_COROUTINES");
    return !env || !*env ? COROUTINES_FASTER : !strcmp(env, "0") ? COROUTINES_OFF : COROUTINES_ALWAYS;
#else
    return COROUTINES_OFF;
#endif
}

/* Thread `rank` of b, run in one call on this fiber: its record's who and where. */
static thread_state *record_in_one_call(block_state *b, unsigned rank)
{
    thread_state *t = &b->threads[rank];
    t->idx = thread_index(rank, L.block.y == 1 && L.block.z == 1);
    t->rank = rank;
    t->block = b;
    t->fib = current_fiber;
    t->serial = b->serial;
    return t;
}

/* What a block run in one call (as coroutines, or split) starts from: each
 * rank's threadIdx, the worker's arena from its start, no thread's record. */
static void block_in_one_call(worker *w, unsigned n)
{
    if (w->idx_launch != current_launch_id)
        fill_index_table(w);
    w->co_piece = 0;
#if __cpp_impl_coroutine
    co_frames.next = co_frames.end = 0;
#endif
    w->co_recorded.assign(n, 0);
}

#if __cpp_impl_coroutine
typedef std::coroutine_handle<co_thread::promise_type> co_handle;

/* The next piece of the worker's memory for frames, with room for `bytes`. */
void *co_frame_more(size_t bytes)
{
    busy_scope busy; /* (called from a kernel's thread: the watchdog must not stop it in malloc) */
    worker *w = W;
    for (;;) {
        if (w->co_piece == w->co_pieces.size()) {
            size_t size = bytes > (4u << 20) ? bytes : (4u << 20);
            char *p = (char *)aligned_alloc(64, (size + 63) & ~(size_t)63);
            if (!p)
                kernel_fail(cudaErrorMemoryAllocation, L.file, L.line, "no memory for the threads' frames");
            w->co_pieces.push_back({p, size});
        }
        std::pair<char *, size_t> piece = w->co_pieces[w->co_piece++];
        if (piece.second >= bytes) {
            co_frames.next = piece.first + bytes;
            co_frames.end = piece.first + piece.second;
            return piece.first;
        }
    }
}

/* One step of thread `rank`: its start, or its resumption after a barrier.
 * What it touches besides the thread's frame is a few bytes a thread in
 * the worker's tables, not the thread's record (a line each). */
static inline __attribute__((always_inline)) void co_step(block_state *b, fiber *self, unsigned rank)
{
    worker *w = W;
    self->lazy_rank = rank;
    if (__builtin_expect(w->co_recorded[rank], 0)) { /* a call into the runtime wrote its record */
        self->thread = &b->threads[rank];
        self->thread->status = T_RUNNING;
    }
    emu_thread_idx = w->idx_by_rank[rank];
    b->co_running = rank;
    void *&frame = b->co_frames[rank];
    runtime_busy = 0; /* the kernel's own code from here */
    if (!frame)
        frame = L.co_body(L.context);
    else
        co_handle::from_address(frame).resume();
    runtime_busy = 1;
    b->co_running = CO_NONE;
    if (__builtin_expect(self->thread != 0, 0)) {
        w->co_recorded[rank] = 1;
        self->thread = 0;
    }
}

/* After thread rank's step: whether it waits at a barrier, and at which. */
struct co_tally {
    unsigned waiting;
    co_wait first;
    bool mismatch;
    long long acc;
};
static inline __attribute__((always_inline)) void co_note(block_state *b, unsigned rank, co_tally *r)
{
    co_handle h = co_handle::from_address(b->co_frames[rank]);
    if (h.done()) {
        b->done++;
        return;
    }
    const co_wait &w = *h.promise().wait;
    h.promise().round = b->co_round;
    if (!r->waiting++) {
        r->first = w;
        r->acc = w.kind == BARRIER_AND ? 1 : 0;
    } else if (w.kind != r->first.kind || !same_site(w.file, w.line, r->first.file, r->first.line)) {
        r->mismatch = true;
    }
    if (w.kind == BARRIER_COUNT)
        r->acc += w.predicate != 0;
    else if (w.kind == BARRIER_AND)
        r->acc = r->acc && w.predicate;
    else if (w.kind == BARRIER_OR)
        r->acc = r->acc || w.predicate;
}

static void co_run_block(block_state *b, fiber *self)
{
    worker *w = W;
    const unsigned n = L.threads_per_block;
    block_in_one_call(w, n);
    w->co_frames.assign(n, nullptr);
    b->co_frames = w->co_frames.data();
    b->co_round = 0;
    co_tally r = {};
    for (unsigned pos = 0; pos < n; pos++) {
        unsigned rank = b->start_order ? b->start_order[pos] : pos;
        b->started = pos + 1;
        co_step(b, self, rank);
        co_note(b, rank, &r);
    }
    counts_here->coroutine_blocks++;
    while (r.waiting) {
        if (b->done || r.mismatch) {
            /* (the same diagnosis as a barrier that never completes on fibers) */
            self->lazy_block = 0;
            diagnose_stuck();
            return;
        }
        counts_here->barriers += n;
        b->bar_generation++;
        b->co_round++;
        co_barrier_result = r.first.kind == BARRIER_COUNT ? (int)r.acc
                          : r.first.kind == BARRIER_PLAIN ? 0 : (int)(r.acc != 0);
        r = co_tally{};
        const unsigned *order = 0;
        if (schedule_mode == SCHEDULE_RANDOM) {
            unsigned *o = &w->orders[(size_t)b->slot * n];
            schedule_order(o, n);
            order = o;
        }
        const bool reverse = schedule_mode == SCHEDULE_REVERSE;
        for (unsigned i = 0; i < n; i++) {
            unsigned rank = order ? order[i] : reverse ? n - 1 - i : i;
            co_step(b, self, rank);
            co_note(b, rank, &r);
        }
    }
    b->co_frames = 0;
}

/* Every record of b written from the frames: where each thread is. */
static void co_settle(block_state *b)
{
    for (unsigned rank = 0; rank < L.threads_per_block; rank++) {
        thread_state *t = record_in_one_call(b, rank);
        void *frame = b->co_frames[rank];
        if (rank == b->co_running) {
            t->status = T_RUNNING;
        } else if (!frame) {
            t->status = T_UNSTARTED;
        } else if (co_handle::from_address(frame).done()) {
            t->status = T_DONE;
        } else if (co_handle::from_address(frame).promise().round != b->co_round) {
            t->status = T_READY; /* its barrier released, it is not resumed yet */
        } else {
            const co_wait &w = *co_handle::from_address(frame).promise().wait;
            wait_at(t, T_BARRIER, w.what, w.file, w.line);
        }
    }
}
#else
static void co_settle(block_state *) {}
#endif

/* ---- a block's threads as loops, cut at its barriers (split.h) ------------------------------------
 * The split form (cucc's builds) runs a block in one call: each stretch
 * between barriers a loop over the threads, in the order co_run_block
 * gives them; nothing here runs per thread but a thread's call into the
 * runtime (its record, as in co_step). */
static bool split_wanted(bool cooperative)
{
#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
    (void)cooperative;
    return false;
#else
    const char *env = getenv("CUDAEMU_SPLIT");
    return !cooperative && coroutines_mode() == COROUTINES_FASTER && !(env && !strcmp(env, "0"));
#endif
}

#if __cpp_impl_coroutine
void *split_storage(size_t bytes)
{
    return co_arena_cut((bytes + 63) & ~(size_t)63); /* (a float4 or a double2 per thread: 16-byte elements) */
}
#endif

void split_thread_resumes(split_block *, unsigned rank)
{
    block_state *b = current_fiber->lazy_block;
    current_fiber->thread = &b->threads[rank];
    current_fiber->thread->status = T_RUNNING;
}

void split_thread_called(split_block *, unsigned rank)
{
    W->co_recorded[rank] = 1;
    current_fiber->thread = 0;
}

void split_barrier(split_block *s)
{
    block_state *b = (block_state *)s->block;
    counts_here->barriers += s->n;
    b->bar_generation++;
    b->co_round++;
    if (schedule_mode == SCHEDULE_RANDOM) { /* (in reverse, the start order stays: n - 1 down to 0) */
        unsigned *order = &W->orders[(size_t)b->slot * s->n];
        schedule_order(order, s->n);
        s->order = order;
    }
    s->pos = 0;
}

static void split_run_block(block_state *b, fiber *self)
{
    worker *w = W;
    const unsigned n = L.threads_per_block;
    block_in_one_call(w, n);
    split_block s = {};
    s.n = n;
    s.order = b->start_order;
    s.idx = L.block.y == 1 && L.block.z == 1 ? 0 : w->idx_by_rank.data();
    s.lazy_rank = &self->lazy_rank;
    s.record = (void *const *)&self->thread;
    s.recorded = w->co_recorded.data();
    s.block = b;
    b->split = &s;
    b->co_round = 0;
    b->started = n; /* (none for worker_main to start) */
    L.split_body(L.context, &s);
    counts_here->split_blocks++;
    b->split = 0;
    b->done = n;
}

/* Every record of b written from the loop's place: the threads before the
 * running one in this stretch wait at the barrier after it (or have ended,
 * after the last), the rest are ready (or not started, before the first). */
static void split_settle(block_state *b)
{
    const split_block *s = b->split;
    for (unsigned p = 0; p < L.threads_per_block; p++) {
        thread_state *t = record_in_one_call(b, s->order ? s->order[p] : p);
        if (p == s->pos)
            t->status = T_RUNNING;
        else if (p > s->pos)
            t->status = b->co_round ? T_READY : T_UNSTARTED;
        else if (s->wait_file)
            wait_at(t, T_BARRIER, "__syncthreads()", s->wait_file, s->wait_line);
        else
            t->status = T_DONE;
    }
    b->done = s->wait_file ? 0 : s->pos; /* (the census's count of exited threads) */
}

/* A wait reached in a function the kernel calls, while the kernel runs as
 * coroutines (the build saw barriers only in its own body): it cannot
 * wait here, so it says how to run the kernel. */
static void co_refuse(const char *what, const char *file, int line)
{
    kernel_fail(cudaErrorNotSupported, file, line,
                "%s in a function the kernel calls, while the kernel's threads run split at the barriers of its "
                "own body (as coroutines, or as loops over the block's threads): the build did not see this wait; "
                "run with CUDAEMU_COROUTINES=0 (every kernel on fibers)", what);
}

/* ---- barriers ------------------------------------------------------------------------------------ */
/* The thread that is to wait at `what`: the running one, which must not
 * run as a coroutine (co_refuse). */
static thread_state *thread_to_wait(const char *what, const char *file, int line)
{
    thread_state *t = current_thread();
    if (!t)
        kernel_fail(cudaErrorLaunchFailure, file, line, "%s called outside a kernel", what);
    if (t->block->co_frames || t->block->split)
        co_refuse(what, file, line);
    return t;
}

static void release_barrier(block_state *b)
{
    long long acc = b->bar_acc;
    b->bar_result = b->bar_kind == BARRIER_COUNT ? (int)acc : b->bar_kind == BARRIER_PLAIN ? 0 : (int)(acc != 0);
    b->at_barrier = 0;
    b->bar_generation++;
    unsigned n = L.threads_per_block;
    if (schedule_mode == SCHEDULE_RANDOM) {
        unsigned *order = &W->orders[(size_t)b->slot * n];
        schedule_order(order, n);
        for (unsigned i = 0; i < n; i++)
            ready_push(&b->threads[order[i]]);
    } else {
        for (unsigned i = 0; i < n; i++)
            ready_push(&b->threads[schedule_mode == SCHEDULE_REVERSE ? n - 1 - i : i]);
    }
}

int block_barrier(int kind, int predicate, const char *what, const char *file, int line)
{
    thread_state *t = thread_to_wait(what, file, line);
    block_state *b = t->block;
    counts_here->barriers++;
    if (b->at_barrier == 0) {
        b->bar_what = what;
        b->bar_file = file;
        b->bar_line = line;
        b->bar_kind = kind;
        b->bar_mismatch = false;
        b->bar_acc = kind == BARRIER_AND ? 1 : 0;
    } else if (!same_site(file, line, b->bar_file, b->bar_line) || kind != b->bar_kind) {
        b->bar_mismatch = true;
    }
    if (kind == BARRIER_COUNT)
        b->bar_acc += predicate != 0;
    else if (kind == BARRIER_AND)
        b->bar_acc = b->bar_acc && predicate;
    else if (kind == BARRIER_OR)
        b->bar_acc = b->bar_acc || predicate;
    wait_at(t, T_BARRIER, what, file, line);
    b->at_barrier++;
    char *sync = &b->tsan_sync[b->bar_generation & 1];
    tsan_release(sync);
    if (b->at_barrier == L.threads_per_block && !b->bar_mismatch)
        release_barrier(b);
    schedule_next(false);
    tsan_acquire(sync);
    return b->bar_result;
}

/* ---- warp operations ------------------------------------------------------------------------------ */
static unsigned lanes_present(unsigned warp)
{
    unsigned first = warp * 32, n = L.threads_per_block - first;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

static void complete_warp_op(block_state *b, unsigned warp, warp_group *g)
{
    thread_state *lanes = &b->threads[warp * 32];
    unsigned mask = g->mask;
    if (g->kind == WARP_BALLOT || g->kind == WARP_ANY || g->kind == WARP_ALL) {
        unsigned ballot = 0;
        for (unsigned l = 0; l < 32; l++)
            if ((mask >> l & 1) && *(int *)lanes[l].warp_in)
                ballot |= 1u << l;
        unsigned result = g->kind == WARP_BALLOT ? ballot : g->kind == WARP_ANY ? ballot != 0 : ballot == mask;
        tsan_ignore_begin(); /* the runtime's copies, as in warp_op */
        for (unsigned l = 0; l < 32; l++)
            if (mask >> l & 1)
                memcpy(lanes[l].warp_out, &result, sizeof result);
        tsan_ignore_end();
    } else if (g->kind != WARP_SYNC) {
        /* PTX's shfl.sync rules, with the clamp and segment mask that
         * CUDA's __shfl*_sync derive from `width`. */
        for (unsigned l = 0; l < 32; l++) {
            if (!(mask >> l & 1))
                continue;
            thread_state *t = &lanes[l];
            unsigned segmask = (32u - (unsigned)t->warp_width) & 31u;
            unsigned b5 = (unsigned)t->warp_arg & 31u;
            unsigned min_lane = l & segmask;
            unsigned max_lane = t->warp_kind == WARP_SHFL_UP ? min_lane : (min_lane | (31u & ~segmask));
            int j;
            bool valid;
            switch (t->warp_kind) {
            case WARP_SHFL_UP: j = (int)l - (int)b5; valid = j >= (int)max_lane; break;
            case WARP_SHFL_DOWN: j = (int)(l + b5); valid = j <= (int)max_lane; break;
            case WARP_SHFL_XOR: j = (int)(l ^ b5); valid = j <= (int)max_lane; break;
            default: j = (int)(min_lane | (b5 & ~segmask)); valid = j <= (int)max_lane; break;
            }
            if (!valid)
                j = (int)l;
            if (!(mask >> j & 1)) {
                kernel_fail(cudaErrorLaunchFailure, g->file, g->line,
                            "%s with mask 0x%08x: lane %u (thread %u of %s) reads lane %d, which the mask does not "
                            "name, so its value is undefined",
                            g->what, mask, l, warp * 32 + l, block_name(b).c_str(), j);
            }
            tsan_ignore_begin();
            memcpy(t->warp_out, lanes[j].warp_in, WARP_VALUE_MAX);
            tsan_ignore_end();
        }
    }
    warp_state *w = &b->warps[warp];
    *g = w->groups[--w->count];
    unsigned order[32], n = 0;
    for (unsigned l = 0; l < 32; l++)
        if (mask >> l & 1)
            order[n++] = l;
    if (schedule_mode == SCHEDULE_REVERSE)
        for (unsigned i = 0; i < n / 2; i++) {
            unsigned x = order[i];
            order[i] = order[n - 1 - i];
            order[n - 1 - i] = x;
        }
    else if (schedule_mode == SCHEDULE_RANDOM)
        for (unsigned i = n; i > 1; i--) {
            unsigned j = (unsigned)(rng_next() % i), x = order[i - 1];
            order[i - 1] = order[j];
            order[j] = x;
        }
    for (unsigned i = 0; i < n; i++)
        ready_push(&lanes[order[i]]);
}

void warp_op(int kind, unsigned mask, const void *in, void *out, size_t size, int lane_arg, int width, const char *what,
             const char *file, int line)
{
    thread_state *t = thread_to_wait(what, file, line);
    block_state *b = t->block;
    unsigned warp = t->rank / 32, lane = t->rank % 32, present = lanes_present(warp);
    if (!(mask >> lane & 1))
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "%s with mask 0x%08x called by lane %u (thread %u of %s), which the mask does not include",
                    what, mask, lane, t->rank, block_name(b).c_str());
    if (mask & ~present)
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "%s with mask 0x%08x names lanes that do not exist: the block has %u threads, so warp %u has "
                    "lanes 0-%u only (mask 0x%08x)",
                    what, mask, L.threads_per_block, warp, 31 - __builtin_clz(present), present);
    if (kind != WARP_SYNC && kind < WARP_BALLOT && (width < 1 || width > 32 || (width & (width - 1))))
        kernel_fail(cudaErrorLaunchFailure, file, line, "%s with width %d: the width must be a power of two from 1 to 32",
                    what, width);
    warp_state *w = &b->warps[warp];
    warp_group *g = 0;
    for (int i = 0; i < w->count && !g; i++)
        if (w->groups[i].mask == mask)
            g = &w->groups[i];
    if (!g) {
        g = &w->groups[w->count++];
        g->mask = mask;
        g->arrived = 0;
        g->kind = kind;
        g->what = what;
        g->file = file;
        g->line = line;
        g->tsan_slot = w->tsan_next++ % TSAN_SLOTS;
    } else if (g->kind != kind) {
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "%s with mask 0x%08x called by lane %u (thread %u of %s) while lanes of the same mask wait at %s "
                    "at %s:%d: the lanes of a mask must make the same call",
                    what, mask, lane, t->rank, block_name(b).c_str(), g->what, g->file, g->line);
    }
    /* The values' copies are the runtime's, not the kernel's, and TSan sees
     * memcpy even here: the next thread to use these stack slots and lane
     * buffers would look like a racing one. */
    tsan_ignore_begin();
    if (size)
        memcpy(t->warp_in, in, size);
    tsan_ignore_end();
    if (kind >= WARP_SHFL && kind <= WARP_SHFL_XOR)
        counts_here->shuffles++;
    t->warp_kind = kind;
    t->warp_arg = lane_arg;
    t->warp_width = width;
    t->warp_mask = mask;
    wait_at(t, T_WARP, what, file, line);
    g->arrived |= 1u << lane;
    char *sync = &w->tsan_sync[g->tsan_slot];
    tsan_release(sync);
    if (g->arrived == mask)
        complete_warp_op(b, warp, g);
    schedule_next(false);
    tsan_acquire(sync);
    tsan_ignore_begin();
    if (out)
        memcpy(out, t->warp_out, kind >= WARP_BALLOT ? sizeof(unsigned) : size);
    tsan_ignore_end();
}

/* ---- operations of tiles of more than one warp ------------------------------------------------------
 * Like a warp's, among the tile's threads: each waits until every thread of
 * its tile has made the same call, and they go on in the schedule's order. */
static void complete_tile_op(block_state *b, tile_group *g)
{
    thread_state *threads = &b->threads[g->base];
    const unsigned size = g->size;
    tsan_ignore_begin(); /* the runtime's copies, as in warp_op */
    if (g->kind == WARP_ANY || g->kind == WARP_ALL) {
        unsigned yes = 0;
        for (unsigned i = 0; i < size; i++)
            yes += *(int *)threads[i].warp_in != 0;
        unsigned result = g->kind == WARP_ANY ? yes != 0 : yes == size;
        for (unsigned i = 0; i < size; i++)
            memcpy(threads[i].warp_out, &result, sizeof result);
    } else if (g->kind == WARP_SHFL) {
        for (unsigned i = 0; i < size; i++)
            memcpy(threads[i].warp_out, threads[(unsigned)threads[i].warp_arg % size].warp_in, WARP_VALUE_MAX);
    }
    tsan_ignore_end();
    *g = b->tiles[--b->tile_count];
    unsigned *order = W->tile_order.data();
    schedule_order(order, size);
    for (unsigned i = 0; i < size; i++)
        ready_push(&threads[order[i]]);
}

void tile_op(int kind, unsigned size, const void *in, void *out, size_t bytes, unsigned src, const char *what,
             const char *file, int line)
{
    thread_state *t = thread_to_wait(what, file, line);
    block_state *b = t->block;
    const unsigned base = t->rank / size * size;
    tile_group *g = 0;
    for (unsigned i = 0; i < b->tile_count && !g; i++)
        if (b->tiles[i].size == size && b->tiles[i].base == base)
            g = &b->tiles[i];
    warp_state *w = &b->warps[base / 32];
    if (!g) {
        g = &b->tiles[b->tile_count++];
        *g = tile_group{size, base, 0, kind, what, file, line, w->tsan_next++ % TSAN_SLOTS};
    } else if (g->kind != kind) {
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "%s called by thread %u of %s while other threads of its tile (threads %u-%u) wait at %s at "
                    "%s:%d: the threads of a tile must make the same call",
                    what, t->rank, block_name(b).c_str(), base, base + size - 1, g->what, g->file, g->line);
    }
    tsan_ignore_begin();
    if (bytes)
        memcpy(t->warp_in, in, bytes);
    tsan_ignore_end();
    if (kind == WARP_SHFL)
        counts_here->shuffles++;
    t->warp_kind = kind;
    t->warp_arg = (int)src;
    t->warp_width = (int)size;
    wait_at(t, T_TILE, what, file, line);
    char *sync = &w->tsan_sync[g->tsan_slot];
    tsan_release(sync);
    if (++g->arrived == size)
        complete_tile_op(b, g);
    schedule_next(false);
    tsan_acquire(sync);
    tsan_ignore_begin();
    if (out)
        memcpy(out, t->warp_out, kind == WARP_SHFL ? bytes : sizeof(unsigned));
    tsan_ignore_end();
}

/* ---- grid-wide sync ------------------------------------------------------------------------------- */
void grid_barrier(const char *file, int line)
{
    thread_state *t = current_thread();
    if (!t)
        kernel_fail(cudaErrorLaunchFailure, file, line, "grid sync called outside a kernel");
    if (!L.cooperative)
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "this_grid().sync() in a kernel launched with <<<...>>>: a grid-wide sync needs "
                    "cudaLaunchCooperativeKernel");
    wait_at(t, T_GRID, "grid.sync()", file, line);
    char *sync = &L.tsan_grid[L.grid_generation & 1];
    tsan_release(sync);
    if (++L.grid_waiting == L.grid_threads) {
        L.grid_waiting = 0;
        L.grid_generation++;
        for (block_state &b : W->blocks)
            for (unsigned i = 0; i < L.threads_per_block; i++)
                ready_push(&b.threads[schedule_mode == SCHEDULE_REVERSE ? L.threads_per_block - 1 - i : i]);
    }
    schedule_next(false);
    tsan_acquire(sync);
}

/* ---- the watchdog and faults in device memory ------------------------------------------------ */
/* A thread spinning in a loop that calls nothing never comes back to the
 * scheduler, so no check of the runtime's would ever run.  A timer's signal
 * interrupts it instead, on the launching thread (the only one running
 * fibers), and leaves the fiber for the host as kernel_fail does; a kernel's
 * SIGSEGV in the device memory arena leaves the same way.  Both act only in
 * the kernel's own code (runtime_busy clear), never half-way through the
 * runtime's work; the watchdog's timer repeats until it finds such a moment.
 * Not under TSan, whose deferred signals and fiber switches do not mix. */
/* What it counts is CPU time, not time on the clock: on a busy machine (a
 * batch grading on every core) a kernel gets a share of a core, and correct
 * code took several times the limit on the clock.  The launch's CPU time is
 * that of its busiest host thread (each runs its blocks' fibers; an endless
 * loop keeps one of them busy), each read from its own clock
 * (CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid): on an idle machine that
 * is the time on the clock, as before.
 * One timer per host thread and process, made at its first launch.  A
 * launch only notes when it began; reading a CPU clock is a system call, so
 * a launch reads none: the timer's ticks read them instead, every
 * watchdog_period() while launches run, and a launch counts from the last
 * tick before it began (or from its start, after a quiet spell, when it arms
 * the timer itself).  So a program that launches thousands of short kernels
 * makes no system call for them, and a launch is counted at most one period
 * more than it used (a long kernel stopped a period early at worst), never
 * less.  When the timer fires, the handler decides: no launch running ->
 * disarm; a launch that used less than the limit (and ran less than it on
 * the clock, which bounds its CPU time too) -> fire again when it could
 * reach it; else stop the kernel. */
static int watchdog_limit;                          /* seconds of CPU time */
static thread_local timer_t watchdog_timer;
static thread_local bool watchdog_made;             /* in this process (a fork's child makes its own) */
static thread_local volatile sig_atomic_t watchdog_ticking; /* the timer is armed */
static thread_local volatile sig_atomic_t watchdog_in_launch;
static thread_local volatile double watchdog_began; /* the running launch's start, monotonic seconds */
static thread_local volatile double watchdog_fires;  /* when the armed timer fires */
static thread_local unsigned long long watchdog_launch; /* the running launch's number */
/* Each host thread's CPU seconds ([0]: this one's, [1..]: the pool's) at
 * the last tick (the mark), and at the tick the running launch counts from.
 * Made with the timer, on the heap: a library that a runner dlopens has
 * little static TLS (thread_local) to use. */
struct watchdog_marks {
    double mark[POOL_MAX], from[POOL_MAX];
    unsigned marked, from_count;
    unsigned long long from_launch;
};
static thread_local watchdog_marks *watchdog_cpu;

static double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t); /* no system call: the vDSO */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* How often the timer looks while launches run: a tenth of the limit, from
 * 0.1 s to 1 s (the most a launch is counted over what it used). */
static double watchdog_period(void)
{
    double period = watchdog_limit / 10.0;
    return period < 0.1 ? 0.1 : period > 1 ? 1 : period;
}

/* Every host thread's CPU seconds now, into cpu[]; returns how many.
 * Async-signal-safe (clock_gettime is). */
static unsigned read_cpu_clocks(double cpu[POOL_MAX])
{
    clockid_t clocks[POOL_MAX];
    unsigned n = pool_cpu_clocks(clocks);
    clocks[0] = CLOCK_THREAD_CPUTIME_ID; /* the timer's signal comes to the launching thread */
    for (unsigned i = 0; i < n; i++) {
        struct timespec t;
        cpu[i] = clock_gettime(clocks[i], &t) == 0 ? (double)t.tv_sec + 1e-9 * (double)t.tv_nsec : 0;
    }
    return n;
}

/* (unused in the TSan build, which has no watchdog) */
__attribute__((unused)) static void watchdog_take_mark(void)
{
    watchdog_cpu->marked = read_cpu_clocks(watchdog_cpu->mark);
}

/* The CPU seconds the running launch has used, as its busiest host thread
 * counts them (from the mark before it began; a thread made since counts
 * from nothing), at most its time on the clock.  Marks again. */
static double watchdog_cpu_used(double now)
{
    watchdog_marks *w = watchdog_cpu;
    if (w->from_launch != watchdog_launch) { /* the first tick of this launch: its mark is from before it */
        memcpy(w->from, w->mark, sizeof w->mark);
        w->from_count = w->marked;
        w->from_launch = watchdog_launch;
    }
    double cpu[POOL_MAX], used = 0;
    unsigned n = read_cpu_clocks(cpu);
    for (unsigned i = 0; i < n; i++) {
        double its = cpu[i] - (i < w->from_count ? w->from[i] : 0);
        used = its > used ? its : used;
    }
    memcpy(w->mark, cpu, sizeof cpu);
    w->marked = n;
    double on_the_clock = now - watchdog_began;
    return used < on_the_clock ? used : on_the_clock;
}

static void watchdog_arm(double seconds)
{
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    if (seconds < 0.001)
        seconds = 0.001;
    when.it_value.tv_sec = (time_t)seconds;
    when.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
    watchdog_fires = monotonic_seconds() + seconds;
    watchdog_ticking = timer_settime(watchdog_timer, 0, &when, 0) == 0;
}

/* (unused in the TSan build, which has no watchdog) */
__attribute__((unused)) static void watchdog_forget_after_fork(void) { watchdog_made = false; watchdog_ticking = 0; }

/* A host thread that launched and ends: its timer deleted and its marks
 * freed (a program that starts thread after thread would otherwise keep
 * them all).  The timer first, so that no tick comes after the marks go;
 * no launch runs on a thread that is ending, so a tick already on its way
 * finds none and reads no marks. */
static pthread_key_t watchdog_thread_key;
__attribute__((unused)) static pthread_once_t watchdog_key_once = PTHREAD_ONCE_INIT;
__attribute__((unused)) static void watchdog_thread_ends(void *)
{
    if (watchdog_made) {
        watchdog_made = false;
        watchdog_ticking = 0;
        timer_delete(watchdog_timer);
    }
    watchdog_marks *marks = watchdog_cpu;
    watchdog_cpu = 0;
    free(marks);
}
__attribute__((unused)) static void watchdog_make_thread_key(void)
{
    pthread_key_create(&watchdog_thread_key, watchdog_thread_ends);
}

static bool count_running(const thread_state *t, const void *)
{
    return t->status == T_RUNNING || t->status == T_READY;
}
static bool count_unstarted(const thread_state *t, const void *) { return t->status == T_UNSTARTED; }
static unsigned count(const block_state *b, bool (*pick)(const thread_state *, const void *), const void *arg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < L.threads_per_block; i++)
        n += pick(&b->threads[i], arg);
    return n;
}

/* Where the threads of the interrupted thread's block are. */
static std::string census(block_state *b)
{
    settle_records(b);
    unsigned running = count(b, count_running, 0);
    std::string s = "in " + block_name(b) + ", " + std::to_string(running) + (running == 1 ? " thread" : " threads") +
                    " still running (" + thread_list(b, count_running, 0) +
                    ": an endless loop, or a wait for something no thread will do?)";
    std::vector<site> sites = wait_sites(b);
    for (site &k : sites)
        s += ", " + std::to_string(count(b, at_site, &k)) + " waiting at " + describe_site(k) + " (" +
             thread_list(b, at_site, &k) + ")";
    s += ", " + std::to_string(b->done) + " exited, " + std::to_string(count(b, count_unstarted, 0)) +
         " not started yet";
    return s;
}

/* The running thread `t` is stopped for good (in kernel code: no runtime work half-done). */
static void stop_for_timeout(thread_state *t)
{
    runtime_busy = 1;
    /* Blocks that finished mean the kernel moved: it may only be slow here. */
    unsigned long long done = 0;
    for (const worker &w : workers)
        done += __atomic_load_n(&w.blocks_done, __ATOMIC_RELAXED);
    std::string progress = std::to_string(done) + " of " + std::to_string(L.blocks) + " blocks had finished" +
                           (done ? " (a kernel sized for a GPU may only be slow on a CPU: to let it run longer, set "
                                   "CUDAEMU_WATCHDOG_SECONDS)" : "") + "; ";
    fail_launch(cudaErrorLaunchTimeout, L.file, L.line,
                "kernel " + std::string(L.name ? L.name : "?") + " ran for more than " + std::to_string(watchdog_limit) +
                    " s of CPU time and was stopped (CUDAEMU_WATCHDOG_SECONDS; a GPU's watchdog stops it too): " + progress +
                    census(t->block));
    fiber_switch(0, true);
    abort();
}

/* In a signal's handler: the thread running here, if it is in its own code
 * or has a record (in worker_main's stores, with the runtime busy, its note
 * of the thread it runs may be half-written, so no record is made then). */
static thread_state *interrupted_thread(void)
{
    fiber *f = current_fiber;
    if (!f || f->thread || runtime_busy)
        return f ? f->thread : 0;
    return f->lazy_block ? thread_record(f) : 0;
}

__attribute__((unused)) static void watchdog_bark(int, siginfo_t *, void *)
{
    watchdog_ticking = 0; /* it fired, once: armed again only below or by the next launch */
    if (!watchdog_in_launch)
        return;
    double left = watchdog_limit - watchdog_cpu_used(monotonic_seconds());
    thread_state *t = left <= 0 ? interrupted_thread() : 0;
    if (left <= 0)
        L.timed_out = 1; /* for the other workers: the launching thread stops them (pool_run) */
    if (left > 0 || !t || runtime_busy || L.failed) {
        /* the CPU time left takes at least as long on the clock; past the
         * limit, the runtime's own work: look again in 100 ms */
        double period = watchdog_period();
        watchdog_arm(left <= 0 ? 0.1 : left < period ? left : period);
        return;
    }
    stop_for_timeout(t);
}

/* A worker of the pool, told to stop (the launch failed, or ran past the
 * watchdog's limit): it leaves its fiber where it is, unless it is inside
 * the runtime's work, which brings it to a check of L.failed soon. */
static void worker_told_to_stop(int, siginfo_t *, void *)
{
    thread_state *t = interrupted_thread();
    if (!t || runtime_busy)
        return;
    if (!L.failed)
        stop_for_timeout(t);
    runtime_busy = 1;
    fiber_switch(0, true);
    abort();
}

/* A kernel's out-of-bounds access to device memory, met by arena_fault:
 * what it touched and the instruction that did, reported at the launch's end
 * (the first one, where several host threads fault). */
static char fault_what[512];
static void *fault_pc;
static int fault_claimed;

#if !defined(CUDAEMU_ASAN) && !defined(CUDAEMU_TSAN)
static struct sigaction segv_before; /* the program's own handler, or the default */
static volatile sig_atomic_t segv_installed; /* arena_fault is SIGSEGV's handler */

/* A kernel's thread ran into the guard page below its stack: stop the
 * launch and say how to give it more.  Even inside the runtime's own work
 * (a printf from the kernel), since nothing can go on on that stack. */
static void stack_overflow(thread_state *t)
{
    runtime_busy = 1;
    char who[128];
    snprintf(who, sizeof who, "thread (%u,%u,%u) of %s", t->idx.x, t->idx.y, t->idx.z, block_name(t->block).c_str());
    fail_launch(cudaErrorIllegalAddress, L.file, L.line,
                "kernel " + std::string(L.name ? L.name : "?") + ": " + who + " overflowed its stack of " +
                    std::to_string(t->fib->stack_size / 1024) +
                    " KB: its local variables (arrays declared in the kernel or in the functions it calls) or its "
                    "recursion need more.  A GPU gives a kernel the local memory its code needs; on the cpu "
                    "backend, call cudaDeviceSetLimit(cudaLimitStackSize, bytes) before the launch to add that "
                    "many bytes to every thread's stack, or keep big arrays in shared or device memory");
    fiber_switch(0, true);
    abort();
}

static void arena_fault(int sig, siginfo_t *info, void *context)
{
    char what[512];
    thread_state *t = interrupted_thread();
    if (t && !L.failed && fiber_guard_hit(info->si_addr))
        stack_overflow(t);
    if (!t || runtime_busy) {
        sigaction(sig, &segv_before, 0); /* not a kernel's access: fault again, as before */
        segv_installed = 0;
        return;
    }
    if (L.failed) { /* a second worker's fault, after the launch failed on another: this one only stops */
        runtime_busy = 1;
        fiber_switch(0, true);
        abort();
    }
    /* A kernel's own access: in the arena (past an array, or freed), or
     * anywhere else a GPU would not map either. */
    if (!memory_fault_in_arena(info->si_addr, what, sizeof what)) {
        if ((uintptr_t)info->si_addr < 65536)
            snprintf(what, sizeof what, "out-of-bounds access: a thread touched memory at %p, next to address 0: is a "
                     "pointer NULL (never allocated, or a host variable's value not copied to the device)?",
                     info->si_addr);
        else
            snprintf(what, sizeof what, "out-of-bounds access: a thread touched memory at %p, outside all device "
                     "memory: is an index far past an array's end, or a pointer stale or a host one?", info->si_addr);
    }
    runtime_busy = 1;
    /* The message waits for the launch to end, where the faulting
     * instruction's source line can be looked up (source_line_of). */
    if (!__atomic_exchange_n(&fault_claimed, 1, __ATOMIC_ACQ_REL)) {
        snprintf(fault_what, sizeof fault_what, "%s", what);
#if defined(__x86_64__)
        fault_pc = (void *)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#endif
    }
    L.failed = true;
    fiber_switch(0, true);
    abort();
}
#endif

/* "FILE:LINE" of the code at `pc`, from its object's debug information
 * (addr2line, where it can be run), or "". */
static std::string source_line_of(void *pc)
{
    Dl_info info;
    if (!pc || !dladdr(pc, &info) || !info.dli_fname || !info.dli_fname[0])
        return "";
    char offset[32];
    snprintf(offset, sizeof offset, "0x%lx", (unsigned long)((uintptr_t)pc - (uintptr_t)info.dli_fbase));
    int out[2];
    if (pipe(out) != 0)
        return "";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)"addr2line", (char *)"-e", (char *)info.dli_fname, offset, 0};
    pid_t pid;
    int started = posix_spawnp(&pid, "addr2line", &actions, 0, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    char line[1024] = "";
    ssize_t got = started ? read(out[0], line, sizeof line - 1) : 0;
    close(out[0]);
    if (started)
        waitpid(pid, 0, 0);
    line[got > 0 ? got : 0] = 0;
    line[strcspn(line, " \n")] = 0; /* "file.cu:12 (discriminator 1)" */
    size_t n = strlen(line);
    if (n < 3 || line[0] == '?' || (line[n - 2] == ':' && (line[n - 1] == '0' || line[n - 1] == '?')))
        return ""; /* "??:0", "file:?": no line known */
    return line;
}

/* A thread that overflows its stack faults with no stack left to run the
 * handler on: it runs on a stack of its own, made once per host thread that
 * runs blocks (unless the program gave that thread one). */
static void alt_stack_once(void)
{
#if !defined(CUDAEMU_ASAN) && !defined(CUDAEMU_TSAN)
    static __thread bool alt_stack_checked;
    if (alt_stack_checked)
        return;
    alt_stack_checked = true;
    stack_t now;
    if (sigaltstack(0, &now) == 0 && (now.ss_flags & SS_DISABLE)) {
        stack_t alt;
        alt.ss_size = 64 * 1024;
        alt.ss_flags = 0;
        alt.ss_sp = mmap(0, alt.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (alt.ss_sp != MAP_FAILED)
            sigaltstack(&alt, 0);
    }
#endif
}

static void watchdog_start(void)
{
#ifndef CUDAEMU_TSAN
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART; /* NODEFER: the handler never returns to unblock it */
#if !defined(CUDAEMU_ASAN)
    alt_stack_once();
    /* Installed once (a system call at every launch adds up over thousands);
     * a handler the program installs later is its own choice. */
    if (!segv_installed) {
        struct sigaction before;
        sa.sa_sigaction = arena_fault;
        sa.sa_flags |= SA_ONSTACK;
        sigaction(SIGSEGV, &sa, &before);
        sa.sa_flags &= ~SA_ONSTACK;
        if (before.sa_sigaction != arena_fault)
            segv_before = before;
        segv_installed = 1;
    }
#endif
    const char *env = getenv("CUDAEMU_WATCHDOG_SECONDS"); /* read at every launch: a program may change it */
    watchdog_limit = env && *env ? atoi(env) : 20;
    if (watchdog_limit <= 0)
        return;
    if (!watchdog_cpu) {
        if (!(watchdog_cpu = (watchdog_marks *)calloc(1, sizeof *watchdog_cpu)))
            return;
        pthread_once(&watchdog_key_once, watchdog_make_thread_key);
        pthread_setspecific(watchdog_thread_key, watchdog_cpu); /* (a value, so that its end is called) */
    }
    if (!watchdog_made) {
        static bool atfork_registered;
        if (!atfork_registered)
            atfork_registered = pthread_atfork(0, 0, watchdog_forget_after_fork) == 0;
        sa.sa_sigaction = watchdog_bark;
        sigaction(SIGRTMIN, &sa, 0);
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGRTMIN;
        ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id, which glibc 2.36 does not name */
        if (timer_create(CLOCK_MONOTONIC, &ev, &watchdog_timer))
            return;
        watchdog_made = true;
    }
    watchdog_began = monotonic_seconds();
    watchdog_launch = current_launch_id;
    watchdog_in_launch = 1; /* before looking at the timer: a tick from here on sees this launch */
    double period = watchdog_period();
    if (!watchdog_ticking) { /* after a quiet spell (no tick can come here): this launch counts from now */
        watchdog_take_mark();
        watchdog_arm(period);
    } else if (watchdog_fires > watchdog_began + period + 0.05) {
        watchdog_arm(period); /* armed by an earlier launch for a longer limit (the program lowered it): sooner */
    }
#endif
}

/* The timer keeps ticking: the next launch, or its next tick, decides. */
static void watchdog_stop(void) { watchdog_in_launch = 0; }

/* ---- coroutines or fibers, kernel by kernel ----------------------------------------------------
 * A kernel with a twin runs faster as coroutines at its barriers, but g++
 * keeps every local of a coroutine in its frame, in memory: a kernel that
 * loops long between barriers over data it loads (a matmul with a runtime
 * tile side) can run slower so.  Until that is known, its launches run one
 * way and the other in turn, their cycles per block counted; once each way
 * has 4 blocks, the cheaper is the kernel's way at that block size (a
 * launch with another measures again).  A launch runs all its blocks one
 * way: a __shared__ variable's place is the first its launch gives it, and
 * the twin's variables are its own.  Either way gives the same results,
 * orders and diagnoses: only the time differs. */
enum { CO_SAMPLES = 4 };
/* The way this launch runs: CO_COROUTINES or CO_FIBERS. */
static int co_choose(thread_co_body co_body, const void *kernel)
{
    int mode = coroutines_mode();
    if (!co_body || mode == COROUTINES_OFF)
        return CO_FIBERS;
    if (mode == COROUTINES_ALWAYS || !kernel)
        return CO_COROUTINES;
    kernel_info *k = kernel_lookup(kernel, true);
    if (k->co_block_threads != L.threads_per_block) {
        memset(k->co_cycles, 0, sizeof k->co_cycles);
        memset(k->co_blocks, 0, sizeof k->co_blocks);
        k->co_choice = CO_UNDECIDED;
        k->co_block_threads = L.threads_per_block;
    }
    if (k->co_choice != CO_UNDECIDED)
        return k->co_choice;
    return k->co_blocks[0] <= k->co_blocks[1] ? CO_COROUTINES : CO_FIBERS; /* (the way measured less) */
}
/* A launch that ran `way` took `cycles`: noted while its kernel's way is not known. */
static void co_measured(int way, const void *kernel, unsigned long long cycles)
{
    if (coroutines_mode() != COROUTINES_FASTER || !kernel || L.failed)
        return;
    kernel_info *k = kernel_lookup(kernel, false);
    if (!k || k->co_block_threads != L.threads_per_block || k->co_choice != CO_UNDECIDED)
        return;
    int i = way == CO_COROUTINES ? 0 : 1;
    k->co_cycles[i] += cycles;
    k->co_blocks[i] += L.blocks;
    if (k->co_blocks[0] >= CO_SAMPLES && k->co_blocks[1] >= CO_SAMPLES)
        k->co_choice = (double)k->co_cycles[0] / k->co_blocks[0] <= (double)k->co_cycles[1] / k->co_blocks[1]
                           ? CO_COROUTINES : CO_FIBERS;
}

/* ---- the launch --------------------------------------------------------------------------------- */
static void setup_block(block_state *b, unsigned slot, unsigned linear)
{
    worker *w = W;
    b->slot = slot;
    b->serial = ++w->block_serial;
    b->number = linear;
    b->idx.x = linear % L.grid.x;
    b->idx.y = linear / L.grid.x % L.grid.y;
    b->idx.z = linear / (L.grid.x * L.grid.y);
    b->threads = &w->threads[(size_t)slot * L.threads_per_block];
    b->started = b->done = b->at_barrier = b->at_grid = 0;
    /* (the records of threads not started yet keep the last block's status
     * until mark_unstarted: a store per thread less at every block) */
    b->bar_mismatch = false;
    b->warps = &w->warps[(size_t)slot * L.warps_per_block];
    for (unsigned w = 0; w < L.warps_per_block; w++)
        b->warps[w].count = 0;
    b->tile_count = 0;
    b->shared = shared_block_arena(w->arena + slot);
    b->start_order = 0;
    b->co_frames = 0;
    b->co_running = CO_NONE;
    b->split = 0;
    if (schedule_mode != SCHEDULE_FORWARD) {
        b->start_order = &w->orders[(size_t)slot * L.threads_per_block];
        schedule_order(b->start_order, L.threads_per_block);
    }
}

/* The next block for the worker's one resident place, set up to start;
 * false when none is left or the launch has failed.  Spread over host
 * threads, the next not taken yet; on one, the next in the schedule's order. */
static bool take_block(void)
{
    worker *w = W;
    if (L.failed)
        return false;
    unsigned long long i;
    if (!L.spread) {
        i = L.next_block++;
    } else {
        if (w->taken == w->taken_end) {
            /* a few at a time: the count is a line every host thread writes */
            w->taken = __atomic_fetch_add(&L.next_block, L.take_at_once, __ATOMIC_RELAXED);
            w->taken_end = w->taken + L.take_at_once;
        }
        i = w->taken++;
    }
    if (i >= L.blocks)
        return false;
    setup_block(&w->blocks[0], 0, L.block_order.empty() ? (unsigned)i : L.block_order[i]);
    w->next_block_to_start = 0;
    return true;
}

static void run_resident_blocks(void)
{
    W->next_block_to_start = 0;
    W->ready_head = W->ready_count = 0;
    fiber_switch(new_worker(next_unstarted()), false); /* returns when every thread is done or the launch failed */
}

/* This host thread becomes worker `slot` of the launch, with room for
 * `resident` blocks at once. */
static void worker_begin(unsigned slot, unsigned resident)
{
    worker *w = W = &workers[slot];
    tsan_host_fiber(); /* this host thread's TSan fiber, noted here, on the host's stack */
    w->arena = slot;
    w->blocks.resize(resident);
    if (w->threads.size() < (size_t)resident * L.threads_per_block) {
        /* Fresh thread records (each keeps its TSan fiber from then on). */
        w->threads.resize((size_t)resident * L.threads_per_block);
        tsan_make_fibers(w->threads.data(), w->threads.size());
    }
    w->warps.resize((size_t)resident * L.warps_per_block);
    w->orders.resize((size_t)resident * L.threads_per_block);
    w->tile_order.resize(L.threads_per_block);
    w->ready.resize((size_t)resident * L.threads_per_block);
    memset(&w->counts, 0, sizeof w->counts);
    counts_here = &w->counts;
    w->taken = w->taken_end = 0;
}

/* A worker's share of a launch spread over host threads: the next block
 * not taken yet, in order, until none is left or the launch has failed. */
static void run_share(unsigned slot)
{
    worker_begin(slot, 1);
    printf_log_here(&W->log);
    while (take_block())
        run_resident_blocks();
    printf_log_here(0);
    fibers_give_back();
}

/* The host threads this launch's blocks are spread over: 1 where the
 * order must stay the one chosen (the grader sets one; EMU_SCHED), in the
 * sanitizer builds (their fiber hooks are one host thread's), for a
 * cooperative launch (all its blocks resident on one), and for a launch too
 * small to gain; else the CPUs this process may use (CUDAEMU_CPUS: fewer). */
static unsigned launch_workers(unsigned long long blocks)
{
#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
    (void)blocks;
    return 1;
#else
    enum { MIN_THREADS = 8192 }; /* below, waking the pool costs more than it saves */
    if (schedule_fixed || L.cooperative || blocks < 2 || blocks * L.threads_per_block < MIN_THREADS)
        return 1;
    static int cpus;
    if (!cpus) {
        cpu_set_t set;
        cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
    const char *env = getenv("CUDAEMU_CPUS");
    unsigned n = env && *env && atoi(env) > 0 ? (unsigned)atoi(env) : (unsigned)cpus;
    n = n < (unsigned)POOL_MAX ? n : (unsigned)POOL_MAX;
    return blocks < n ? (unsigned)blocks : n;
#endif
}

static bool launch_stopping(void) { return L.failed || L.timed_out; }

/* Runs the launch's blocks on n host threads, this one included. */
static void run_spread(unsigned n)
{
    pool_run(n, run_share, launch_stopping, worker_told_to_stop, alt_stack_once);
    W = &workers[0];
}

static const char *short_name(const char *name)
{
    return name ? name : "a kernel";
}

static cudaError_t check_configuration(const char *file, int line, const char *name, const void *kernel,
                                       const launch_config &c, bool cooperative)
{
    /* CUDA 13 answers every launch shape it refuses with cudaErrorInvalidValue
     * (seen on an H200; older toolkits said cudaErrorInvalidConfiguration),
     * and so does the cpu backend, with the reason in the message. */
    const cudaDeviceProp &p = device_properties();
    unsigned long long threads = (unsigned long long)c.block.x * c.block.y * c.block.z;
    if (!c.block.x || !c.block.y || !c.block.z || !c.grid.x || !c.grid.y || !c.grid.z)
        return api_fail(cudaErrorInvalidValue, "%s:%d: launch of %s with a zero grid or block dimension "
                        "(grid %ux%ux%u, block %ux%ux%u)", file, line, short_name(name), c.grid.x, c.grid.y, c.grid.z,
                        c.block.x, c.block.y, c.block.z);
    if (threads > (unsigned)p.maxThreadsPerBlock || c.block.x > (unsigned)p.maxThreadsDim[0] ||
        c.block.y > (unsigned)p.maxThreadsDim[1] || c.block.z > (unsigned)p.maxThreadsDim[2])
        return api_fail(cudaErrorInvalidValue, "%s:%d: launch of %s with %llu threads per block (%ux%ux%u); "
                        "the limit is %d, and %dx%dx%d per dimension", file, line, short_name(name), threads,
                        c.block.x, c.block.y, c.block.z, p.maxThreadsPerBlock, p.maxThreadsDim[0], p.maxThreadsDim[1],
                        p.maxThreadsDim[2]);
    if (c.grid.x > (unsigned)p.maxGridSize[0] || c.grid.y > (unsigned)p.maxGridSize[1] ||
        c.grid.z > (unsigned)p.maxGridSize[2])
        return api_fail(cudaErrorInvalidValue, "%s:%d: launch of %s with grid %ux%ux%u; the limits are "
                        "%dx%dx%d", file, line, short_name(name), c.grid.x, c.grid.y, c.grid.z, p.maxGridSize[0],
                        p.maxGridSize[1], p.maxGridSize[2]);
    kernel_info *info = kernel ? kernel_lookup(kernel, false) : 0;
    size_t limit = info && info->max_dynamic_shared > 0 ? (size_t)info->max_dynamic_shared : p.sharedMemPerBlock;
    size_t static_bytes = info ? info->static_shared : 0;
    if (c.shmem + static_bytes > limit && c.shmem + static_bytes > p.sharedMemPerBlock)
        return api_fail(cudaErrorInvalidValue, "%s:%d: launch of %s with %zu bytes of dynamic shared memory (plus %zu "
                        "static): above %zu bytes a kernel must first allow it with cudaFuncSetAttribute(kernel, "
                        "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), up to %zu", file, line,
                        short_name(name), c.shmem, static_bytes, limit, p.sharedMemPerBlockOptin);
    if (cooperative) {
        int per_sm = occupancy_blocks_per_sm((int)threads, c.shmem + static_bytes);
        unsigned long long blocks = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
        if (blocks > (unsigned long long)per_sm * p.multiProcessorCount)
            return api_fail(cudaErrorCooperativeLaunchTooLarge, "%s:%d: cooperative launch of %s with %llu blocks of "
                            "%llu threads: at most %d blocks of that size fit on the device at once (%d per SM x %d "
                            "SMs)", file, line, short_name(name), blocks, threads, per_sm * p.multiProcessorCount,
                            per_sm, p.multiProcessorCount);
    }
    return cudaSuccess;
}

static unsigned long long launch_counter;

/* The launch's record (L) and the device-side built-ins, from its configuration. */
static void launch_record(const char *file, int line, const char *name, const launch_config &c, thread_body body,
                          void *context, bool cooperative)
{
    L.name = name;
    L.file = file;
    L.line = line;
    L.grid = c.grid;
    L.block = c.block;
    L.shmem = c.shmem;
    L.body = body;
    L.context = context;
    L.cooperative = cooperative;
    L.failed = false;
    L.reported = false;
    L.timed_out = 0;
    L.threads_per_block = c.block.x * c.block.y * c.block.z;
    L.warps_per_block = (L.threads_per_block + 31) / 32;
    L.blocks = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
    L.next_block = 0;
    for (worker &w : workers)
        w.blocks_done = 0;
    emu_grid_dim = c.grid;
    emu_block_dim = c.block;
    current_launch_id = ++launch_counter;
    clock_base = __builtin_ia32_rdtsc();
}

/* Runs every block: all resident at once (cooperative), spread over the
 * workers, or one after another in the schedule's order.  Returns how many
 * workers ran blocks. */
static unsigned run_blocks(bool cooperative)
{
    unsigned long long blocks = L.blocks;
    unsigned resident = cooperative ? (unsigned)blocks : 1;
    worker_begin(0, resident);
    L.grid_threads = (unsigned long long)resident * L.threads_per_block;
    L.grid_waiting = 0;
    shared_launch_begin(L.shmem);
    memory_before_launch();
    watchdog_start();

    unsigned spread = launch_workers(blocks);
    L.spread = spread > 1;
    /* (blocks taken a few at a time, and enough left for the workers to end together) */
    unsigned long long per_worker = blocks / (spread * 32ull);
    L.take_at_once = per_worker < 1 ? 1 : per_worker > 8 ? 8 : (unsigned)per_worker;
    shared_prepare_arenas(spread > resident ? spread : resident); /* so that no block start takes a lock */
    if (cooperative) {
        for (unsigned b = 0; b < resident; b++)
            setup_block(&W->blocks[b], b, b);
        tsan_release(&L.tsan_in); /* the host's writes come before every thread */
        run_resident_blocks();
    } else if (spread > 1) {
        run_spread(spread);
    } else {
        L.block_order.clear();
        if (schedule_mode != SCHEDULE_FORWARD) {
            L.block_order.resize(blocks);
            schedule_order(L.block_order.data(), (unsigned)blocks);
        }
        while (take_block()) {
            /* this block's threads come after the host and every earlier block */
            tsan_release(&L.tsan_in);
            run_resident_blocks();
            tsan_acquire(&L.tsan_out);
        }
    }
    tsan_acquire(&L.tsan_out);
    watchdog_stop();
    return spread;
}

/* After the blocks: the workers' counts and printf output gathered, a fault
 * a thread met reported at its line, the kernel's shared memory noted. */
static void gather_results(unsigned spread, const void *kernel, kernel_info *info)
{
    counts = workers[0].counts;
    for (unsigned s = 1; s < spread; s++) {
        counts.atomics += workers[s].counts.atomics;
        counts.shuffles += workers[s].counts.shuffles;
        counts.barriers += workers[s].counts.barriers;
        counts.coroutine_blocks += workers[s].counts.coroutine_blocks;
        counts.split_blocks += workers[s].counts.split_blocks;
    }
    if (spread > 1) {
        printf_log logs[POOL_MAX];
        for (unsigned s = 0; s < spread; s++)
            std::swap(logs[s], workers[s].log);
        printf_merge(logs, spread);
    }
    if (fault_claimed) {
        std::string where = source_line_of(fault_pc);
        fail_launch(cudaErrorIllegalAddress, L.file, L.line,
                    where.empty() ? std::string(fault_what) + " (its line is not known here: the program run by "
                                                              "itself, or built with AddressSanitizer (SANITIZE=address "
                                                              "for a lab, cucc --sanitize=address), names it)"
                                  : where + ": " + fault_what);
        fault_what[0] = 0;
        fault_pc = 0;
        fault_claimed = 0;
    }
    if (info && shared_static_bytes() > info->static_shared)
        info->static_shared = shared_static_bytes();
    else if (!info && kernel && shared_static_bytes()) {
        kernel_info *seen = kernel_lookup(kernel, true);
        seen->static_shared = shared_static_bytes();
    }
    counts.static_shared = shared_static_bytes();
    shared_launch_end();
}

/* A kernel runs on the current device, into one of its streams (CUDA
 * refuses a stream of another device with cudaErrorInvalidResourceHandle). */
static cudaError_t check_stream_device(const char *file, int line, const char *name, const launch_config &c)
{
    int self = current_device(), owner = c.stream ? stream_device(c.stream) : self;
    if (owner == self)
        return cudaSuccess;
    return api_fail(cudaErrorInvalidResourceHandle, "%s:%d: launch of %s into a stream of device %d while device %d is "
                    "current: a kernel runs on the current device, into a stream made there (cudaSetDevice(%d) before "
                    "the launch)", file, line, short_name(name), owner, self, owner);
}

/* The first argument word (a pointer argument, or a pointer inside a
 * by-value struct) that points into memory of a device the current one may
 * not reach; false if none.  Only where some other device has memory at
 * all, so a program on one device pays nothing. */
static bool foreign_argument(const launch_args &args, unsigned *which, size_t *offset, const void **pointer,
                             int *owner)
{
    int self = current_device();
    if (!args.count || !memory_elsewhere(self))
        return false;
    for (unsigned i = 0; i < args.count; i++)
        for (size_t at = 0; at + sizeof(void *) <= args.sizes[i]; at += sizeof(void *)) {
            const void *word;
            memcpy(&word, (const char *)args.values[i] + at, sizeof word);
            int d = device_of(word);
            if (d >= 0 && !peer_enabled(self, d) && !pool_lets_reach(word, self)) {
                *which = i, *offset = at, *pointer = word, *owner = d;
                return true;
            }
        }
    return false;
}

cudaError_t launch(const char *file, int line, const char *name, const void *kernel, const launch_config &c,
                   thread_body body, void *context, bool cooperative, const launch_args &args, thread_co_body co_body,
                   thread_loop_body loop_body, thread_split_body split_body)
{
    if (current_fiber)
        kernel_fail(cudaErrorNotSupported, file, line, "a kernel launch from device code (dynamic parallelism) "
                    "is not supported by the cpu backend");
    device_lock locked; /* one launch at a time, whichever host thread makes it */
    schedule_init_from_env();
    printf_flush();
    if (cudaError_t sticky = sticky_error())
        return api_result(sticky);
    kernel_info *info = kernel ? kernel_lookup(kernel, false) : 0;
    if (!name && info)
        name = info->name;
    cudaError_t err = check_configuration(file, line, name, kernel, c, cooperative);
    if (err == cudaSuccess)
        err = check_stream_device(file, line, name, c);
    if (err != cudaSuccess)
        return err;

    launch_record(file, line, name, c, body, context, cooperative);
    L.split_body = split_body && split_wanted(cooperative) ? split_body : 0;
    int co_way = L.split_body ? CO_FIBERS : co_choose(cooperative ? 0 : co_body, kernel);
    L.co_body = co_way == CO_COROUTINES ? co_body : 0;
#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
    L.loop_body = 0; /* (every thread's start is told to the sanitizers) */
    (void)loop_body;
#else
    L.loop_body = loop_body;
#endif
    unsigned which;
    size_t offset;
    const void *pointer;
    int owner;
    if (foreign_argument(args, &which, &offset, &pointer, &owner)) {
        /* A GPU faults when the kernel touches it (an illegal address, sticky):
         * here it is stopped before it runs, at its launch. */
        int self = current_device();
        char what[512], inside[64] = "";
        if (args.sizes[which] > sizeof(void *))
            snprintf(inside, sizeof inside, ", a pointer at byte %zu of it", offset);
        snprintf(what, sizeof what, "a kernel on device %d is handed memory of device %d (argument %u%s: %p) without "
                 "peer access; launch it with device %d current, or first call cudaDeviceEnablePeerAccess(%d, 0) with "
                 "device %d current", self, owner, which + 1, inside, pointer, owner, owner, self);
        fail_launch(cudaErrorIllegalAddress, file, line, what);
        return api_result(sticky_error());
    }
    unsigned long long t0 = __builtin_ia32_rdtsc();
    unsigned spread = run_blocks(cooperative);
    if (!L.split_body)
        co_measured(co_way, kernel, __builtin_ia32_rdtsc() - t0);
    gather_results(spread, kernel, info);
    char damage[512];
    if (!L.failed && memory_guards_damaged(damage, sizeof damage))
        fail_launch(cudaErrorIllegalAddress, file, line, damage);
    if (L.failed) {
        fibers_abandon_all();
        return api_result(sticky_error());
    }
    return api_result(cudaSuccess);
}

cudaError_t launch_attributes(const cudaLaunchConfig_t *config, bool *cooperative, const char *file, int line)
{
    if (!config)
        return api_fail(cudaErrorInvalidValue, "%s:%d: cudaLaunchKernelEx with a NULL configuration", file, line);
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute &a = config->attrs[i];
        if (a.id == cudaLaunchAttributeCooperative)
            *cooperative = a.val.cooperative != 0;
        else if (a.id == cudaLaunchAttributeClusterDimension &&
                 (unsigned long long)a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
            return api_fail(cudaErrorNotSupported, "%s:%d: cudaLaunchKernelEx: thread block clusters are not provided "
                            "by the cpu backend; launch without the cluster attribute", file, line);
    }
    return cudaSuccess;
}

cudaError_t launch_registered(const void *kernel, const launch_config &cfg, void **args, bool cooperative,
                              const char *file, int line)
{
    kernel_info *info = kernel ? kernel_lookup(kernel, false) : 0;
    if (!info || !info->launcher)
        return api_fail(cudaErrorInvalidDeviceFunction, "%s:%d: %s: the cpu backend does not know this kernel's "
                        "parameters; pass the kernel itself rather than a void pointer to it", file, line,
                        cooperative ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel");
    return info->launcher(kernel, cfg, args, cooperative, file, line);
}

} // namespace cudaemu

extern "C" void cudaemuLastLaunchCounts(cudaemuLaunchCounts *out) { *out = cudaemu::counts; }

extern "C" void cudaemuSetSchedule(const char *order)
{
    cudaemu::schedule_fixed = true;
    if (!cudaemu::parse_schedule(order)) {
        fprintf(stderr, "cudaemu: schedule \"%s\" is not fwd, rev or rand:SEED; using fwd\n", order);
        cudaemu::parse_schedule("fwd");
    }
}
