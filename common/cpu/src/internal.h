/* internal.h: what the parts of the cpu backend's runtime share.
 *
 *   fiber.cpp      stacks, the context switch, sanitizer hooks
 *   scheduler.cpp  launches, blocks, barriers, warp operations, grid sync, diagnostics
 *   pool.cpp       the host threads a large launch's blocks are spread over
 *   pipeline.cpp   cuda_pipeline.h's asynchronous copies
 *   shared.cpp     the per-block shared memory arena
 *   memory.cpp     cudaMalloc and friends, copies, managed-memory hints
 *   texture.cpp    arrays, pitched memory, texture and surface objects
 *   device.cpp     the emulated devices, the current one, peer access, the occupancy calculator
 *   errors.cpp     error codes, sticky errors, kernel printf
 *   events.cpp     events and streams
 *   graph.cpp      CUDA graphs and stream capture
 */
#ifndef CUDAEMU_INTERNAL_H
#define CUDAEMU_INTERNAL_H

#include <cuda_runtime.h>
#include <signal.h>

#include <string>
#include <utility>
#include <vector>

#define HIDDEN __attribute__((visibility("hidden")))

namespace cudaemu {

/* ---- fibers (fiber.cpp) ------------------------------------------------------------- */
struct thread_state;
/* What a switch and a barrier read (sp, thread, lazy_block) comes first, and
 * each fiber starts a cache line of its own (fiber_make): a barrier of a
 * large block brings every waiting thread's fiber back, one line each. */
struct alignas(64) fiber {
    void *sp;                /* saved stack pointer while suspended */
    thread_state *thread;    /* the CUDA thread it runs, once that thread has a record (see lazy_block) */
    /* The thread a worker fiber runs before that thread's first call into
     * the runtime (scheduler.cpp's worker_main): its block and rank, with
     * its record not written yet (thread is null).  Null between threads. */
    struct block_state *lazy_block;
    unsigned lazy_rank;
    /* A batch of launch.h's thread_loop runs on it: its block's counts are
     * written at the batch's end, or, with lazy_rank, from threadIdx.x at
     * a call into the runtime (thread_record). */
    int batch;
    unsigned batch_done_base; /* the block's done count less the batch's first rank */
    bool abandoned;          /* left mid-run by a failed launch */
    fiber *next_free;
    char *stack;             /* lowest usable byte */
    size_t stack_size;
    size_t colour;           /* bytes left unused at the top (fiber.cpp says why) */
    void *fake_stack;        /* ASan's fake stack while suspended */
};
/* Per host thread: with a launch's blocks spread over the cores (workers
 * in scheduler.cpp), each host thread runs fibers of its own. */
extern __thread fiber *current_fiber HIDDEN; /* null on the host's own stack */
fiber *fiber_new(size_t record) HIDDEN;    /* a fiber that will run worker_main(), for L.threads[record] first */
extern "C" void cudaemu_switch(void **save_sp, void *next_sp) HIDDEN; /* switch_x86_64.S */
#if defined(CUDAEMU_ASAN) || defined(CUDAEMU_TSAN)
void fiber_switch(fiber *to, bool leaving_for_good) HIDDEN; /* to == null: back to the host stack */
#else
/* With no sanitizer to tell, inline: every barrier switches, and a frame
 * fewer on the stacks is a cache line fewer to bring back at each switch. */
extern __thread void *host_sp HIDDEN;      /* the host stack, while a fiber runs */
static inline void fiber_switch(fiber *to, bool)
{
    fiber *self = current_fiber;
    current_fiber = to; /* (and whoever switches back to self sets it to self) */
    cudaemu_switch(self ? &self->sp : &host_sp, to ? to->sp : host_sp);
}
#endif
void fiber_release(fiber *f) HIDDEN;       /* back to this host thread's pool */
void fibers_give_back(void) HIDDEN;        /* this host thread's pool to everyone's, at its share's end */
void fibers_abandon_all(void) HIDDEN;      /* after a failed launch, every host thread having given back */
void worker_main(void) HIDDEN;             /* scheduler.cpp: what a new fiber runs */
thread_state *thread_record(fiber *f) HIDDEN; /* scheduler.cpp: writes the record of f's lazy thread */
/* The CUDA thread running on this host thread, its record written (a
 * thread's first call into the runtime writes it: a wait, a fault, a
 * pipeline copy, printf), or null on the host. */
static inline thread_state *current_thread(void)
{
    fiber *f = current_fiber;
    if (!f)
        return 0;
    if (__builtin_expect(!f->thread && f->lazy_block, 0))
        return thread_record(f);
    return f->thread;
}
size_t fiber_stack_limit(void) HIDDEN;     /* cudaLimitStackSize */
void fiber_set_stack_limit(size_t bytes) HIDDEN; /* between launches only */
bool fiber_guard_hit(const void *addr) HIDDEN; /* a fault in the running fiber's guard page */
#ifdef CUDAEMU_TSAN
void tsan_make_fibers(thread_state *threads, size_t n) HIDDEN; /* on the host, before a launch */
void tsan_enter_thread(thread_state *t) HIDDEN;
void tsan_acquire(void *addr) HIDDEN;
void tsan_release(void *addr) HIDDEN;
void *tsan_host_fiber(void) HIDDEN;
void tsan_ignore_begin(void) HIDDEN;     /* the runtime's writes, invisible to TSan */
void tsan_ignore_end(void) HIDDEN;
/* Whether records r1 and r2 of this host thread's launch (TSan's fiber
 * indices) are lanes of one warp of one block; if so, *who names them. */
bool records_share_warp(size_t r1, size_t r2, std::string *who) HIDDEN;
#else /* nothing to tell: inline, so that a barrier makes no call for them */
static inline void tsan_make_fibers(thread_state *, size_t) {}
static inline void tsan_enter_thread(thread_state *) {}
static inline void tsan_acquire(void *) {}
static inline void tsan_release(void *) {}
static inline void *tsan_host_fiber(void) { return 0; }
static inline void tsan_ignore_begin(void) {}
static inline void tsan_ignore_end(void) {}
#endif

/* ---- threads and blocks (scheduler.cpp) ---------------------------------------------- */
enum thread_status { T_UNSTARTED, T_RUNNING, T_READY, T_BARRIER, T_WARP, T_GRID, T_TILE, T_DONE };
struct block_state;
/* What a barrier reads and writes lies in the first 64 bytes (the record
 * written at a thread's first wait, thread_record, included), and each
 * record starts a cache line: a barrier of a large block touches every
 * thread's record, one line each. */
struct alignas(64) thread_state {
    uint3 idx;
    unsigned rank;               /* linear index in the block */
    int status;
    int wait_line;
    block_state *block;
    fiber *fib;
    const char *wait_what, *wait_file;
    unsigned long long serial;   /* its block's (block_state::serial) when the record was written */
    /* (from here, a second line: warp operations, pipelines, TSan) */
    unsigned warp_mask;          /* of the warp operation it waits in */
    int warp_kind, warp_arg, warp_width; /* (for a tile over 32 threads: its size in warp_width) */
    void *tsan_fiber;
    struct pipeline_state *pipeline; /* its asynchronous copies (pipeline.cpp), once it has made one */
    unsigned char warp_in[WARP_VALUE_MAX], warp_out[WARP_VALUE_MAX];
};
static_assert(__builtin_offsetof(thread_state, serial) + sizeof(unsigned long long) <= 64,
              "a barrier's part of a thread record fits one cache line");
/* Whether any thread has made a pipeline copy in this process (pipeline.cpp):
 * until one has, a thread's start and end need not read t->pipeline, which
 * lies outside the record's first line. */
extern bool pipelines_made HIDDEN;
void pipeline_thread_start(thread_state *t) HIDDEN; /* where t->pipeline is set */
void pipeline_thread_end(thread_state *t) HIDDEN;

/* ---- the runtime at work inside a launch (scheduler.cpp) ----------------------------------
 * Set while the runtime itself works in a kernel's thread (switching fibers,
 * building a message, growing a table).  The watchdog's signal stops a
 * kernel only outside such work, so it never abandons the runtime half-way. */
extern __thread volatile sig_atomic_t runtime_busy HIDDEN;
struct busy_scope {
    sig_atomic_t saved;
    busy_scope() : saved(runtime_busy) { runtime_busy = 1; }
    ~busy_scope() { runtime_busy = saved; }
};

/* ---- the pool of host threads (pool.cpp) -------------------------------------------------- */
enum { POOL_MAX = 64 };
#define POOL_STOP_SIGNAL (SIGRTMIN + 1)
/* Runs share(0) on this thread and share(1) .. share(n - 1) on the pool's
 * threads (each of which runs begins() once, when made), and returns the
 * shares run (fewer than n where threads cannot be made) once all have
 * ended.  While stop_wanted() says so, the pool's threads still running
 * get POOL_STOP_SIGNAL every 50 ms, whose handler is on_stop_signal. */
unsigned pool_run(unsigned n, void (*share)(unsigned slot), bool (*stop_wanted)(void),
                  void (*on_stop_signal)(int, siginfo_t *, void *), void (*begins)(void)) HIDDEN;
/* The CPU-time clocks of the pool's threads made in this process, in
 * clocks[1] .. clocks[n - 1]; returns n (1 where there are none).  Safe in
 * a signal handler (the watchdog reads them there). */
unsigned pool_cpu_clocks(clockid_t clocks[POOL_MAX]) HIDDEN;

/* ---- shared memory (shared.cpp) ---------------------------------------------------- */
void shared_launch_begin(size_t dynamic_bytes) HIDDEN;
void shared_prepare_arenas(unsigned count) HIDDEN; /* slots 0..count-1 made for this launch, before it runs */
char *shared_block_arena(unsigned slot) HIDDEN;   /* one per resident block, poisoned */
void shared_launch_end(void) HIDDEN;
bool in_shared_memory(const void *p) HIDDEN;       /* in a block's shared arena (TSan's reports) */
size_t shared_static_bytes(void) HIDDEN;           /* static shared memory laid out so far */

/* ---- errors (errors.cpp) ----------------------------------------------------------------- */
cudaError_t api_result(cudaError_t err) HIDDEN;         /* records err as the last error, returns it */
cudaError_t api_fail(cudaError_t err, const char *fmt, ...) HIDDEN __attribute__((format(printf, 2, 3)));
cudaError_t sticky_error(void) HIDDEN;                  /* cudaSuccess unless a kernel failed */
void set_sticky_error(cudaError_t err, const char *message) HIDDEN;
void clear_errors(void) HIDDEN;
void printf_flush(void) HIDDEN;
/* Kernel printf in a launch spread over host threads: each keeps a log of
 * its own, merged at the launch's end in block order, so the output is the
 * same as when the blocks run one after another. */
struct printf_log {
    std::string text;
    std::vector<std::pair<unsigned long long, size_t>> marks; /* (block, end of its text) in the order run */
};
void printf_log_here(printf_log *log) HIDDEN;              /* this host thread's printf goes there (null: the buffer) */
void printf_merge(printf_log *logs, unsigned count) HIDDEN; /* into the buffer, block by block */
unsigned long long current_block_number(void) HIDDEN;       /* the running thread's block, linear (scheduler.cpp) */
void printf_set_limit(size_t bytes) HIDDEN;
size_t printf_limit(void) HIDDEN;

/* ---- graphs (graph.cpp): a capturing stream's events ----------------------------------------- */
bool capture_event_record(cudaEvent_t event, cudaStream_t stream) HIDDEN; /* true: recorded into the capture */
bool capture_stream_wait(cudaStream_t stream, cudaEvent_t event) HIDDEN;  /* true: a captured event, the stream joins */
void capture_invalidate(cudaStream_t stream) HIDDEN;                       /* a call CUDA does not allow in a capture */
/* An asynchronous call's work, written once: a node of node_type in the
 * stream's capture when it is capturing, else run now (the stream's work is
 * done when it is issued). */
template <class Call> static inline cudaError_t run_or_capture(cudaStream_t stream, int node_type, Call call)
{
    if (capturing(stream))
        return capture(stream, work_of(call), node_type);
    return call();
}
bool valid_stream(cudaStream_t stream) HIDDEN;                             /* events.cpp */
int stream_device(cudaStream_t stream) HIDDEN; /* the device it was created on; a default stream's: the current one */

/* ---- graphs' memory (graph.cpp, memory.cpp) ----
 * A graph's alloc node owns its memory from the node's making until no
 * graph or instance holds the node and its use has ended.  memory.cpp
 * makes and gives back the memory; graph.cpp keeps the account. */
cudaError_t allocate_device_memory(void **ptr, size_t size, const char *api, int device) HIDDEN;
cudaError_t release_device_memory(void *ptr, const char *api) HIDDEN; /* (graph.cpp's own: no account asked) */
/* cudaFree or cudaFreeAsync of ptr: if it is a graph's, its use ends here
 * (*result says how that went) and true; false for any other pointer. */
bool graph_memory_freed(void *ptr, const char *api, cudaError_t *result) HIDDEN;
/* cudaMallocAsync and cudaFreeAsync on a stream that is being captured: nodes. */
cudaError_t capture_graph_alloc(cudaStream_t stream, void **ptr, size_t size, int device) HIDDEN;
cudaError_t capture_graph_free(cudaStream_t stream, void *ptr) HIDDEN;
/* The host waited for device's work: its events recorded so far are complete. */
void host_waited_for_device(int device) HIDDEN;

/* ---- memory (memory.cpp) ----------------------------------------------------------------- */
void memory_reset(int device) HIDDEN;   /* cudaDeviceReset: every allocation made on that device freed */
bool memory_elsewhere(int device) HIDDEN; /* any device memory allocated on a device other than this one */
void memory_before_launch(void) HIDDEN;  /* freed arrays fault from here on */
bool memory_guards_damaged(char *what, size_t what_size) HIDDEN; /* after a launch */
bool memory_fault_in_arena(const void *addr, char *what, size_t what_size) HIDDEN; /* a kernel's SIGSEGV */

/* ---- the devices (device.cpp, memory.cpp) -------------------------------------------------
 * CUDAEMU_DEVICES=N emulated devices, all alike.  What the rest of the
 * backend (nccl.cpp included) asks about them: */
enum { MAX_DEVICES = 8 };
int device_count(void) HIDDEN;    /* N, 1 to 8 (2 when unset; a bad value stops the program with the reason) */
int current_device(void) HIDDEN;  /* the calling host thread's (cudaSetDevice), 0 until it sets one */
/* The device whose memory p points into (cudaMalloc, cudaMallocAsync,
 * pitched memory: the device current at the allocation), or -1 where p is
 * no device allocation (host memory, pinned or not; managed memory, which
 * every device reaches; a freed or unknown address). */
int device_of(const void *p) HIDDEN;
bool pool_lets_reach(const void *p, int device) HIDDEN; /* (cudaMemPoolSetAccess) */
/* Whether kernels on device `from` may touch device `to`'s memory: true
 * for from == to, else once cudaDeviceEnablePeerAccess(to, 0) was called
 * with `from` current (and not disabled since). */
bool peer_enabled(int from, int to) HIDDEN;
bool valid_device(int device) HIDDEN;       /* 0 <= device < device_count() */
const char *devices_there(void) HIDDEN;      /* "2 devices, 0 and 1", for messages */
cudaError_t invalid_device(const char *api, int device) HIDDEN; /* "API: there is no device N; ..." */
/* Held while the runtime works for one host thread: a launch (its whole
 * run), a change or look-up of the tables of allocations, streams, events
 * and kernels, the printf buffer's flush.  A program whose host threads
 * call CUDA at the same time gets them one after another (recursive: a
 * stream callback may call CUDA again).  Never taken by a kernel's thread. */
struct device_lock {
    device_lock();
    ~device_lock();
    device_lock(const device_lock &) = delete;
    device_lock &operator=(const device_lock &) = delete;
};
const cudaDeviceProp &device_properties(void) HIDDEN;
struct kernel_info {
    const void *kernel;
    const char *name;
    size_t static_shared;        /* registered by the build, or seen at a launch */
    int max_dynamic_shared;      /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    pointer_launcher launcher;
    pointer_recorder recorder;   /* for a graph's kernel node */
    /* Whether its blocks run faster as coroutines or on fibers (scheduler.cpp,
     * co_choose): the cycles and blocks measured each way, then the choice. */
    unsigned long long co_cycles[2];
    unsigned co_blocks[2];
    int co_choice;               /* CO_UNDECIDED, CO_COROUTINES or CO_FIBERS */
    unsigned co_block_threads;   /* the block size they are for (another measures again) */
};
enum { CO_UNDECIDED, CO_COROUTINES, CO_FIBERS };
kernel_info *kernel_lookup(const void *kernel, bool create) HIDDEN;
int occupancy_blocks_per_sm(int block_size, size_t shared_bytes) HIDDEN;
enum { ASSUMED_REGISTERS_PER_THREAD = 32 };
int assumed_registers_per_thread(void) HIDDEN; /* 32, or another device's (CUDAEMU_DEVICE, device.cpp) */

/* ---- schedule orders ------------------------------------------------------------------ */
enum schedule_mode { SCHEDULE_FORWARD, SCHEDULE_REVERSE, SCHEDULE_RANDOM };
void schedule_init_from_env(void) HIDDEN;
unsigned char shared_poison_byte(void) HIDDEN;     /* shared memory's fill in this order */

} // namespace cudaemu

#endif /* CUDAEMU_INTERNAL_H */
