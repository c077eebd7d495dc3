/* cudaemu/launch.h: kernel launches on the cpu backend.
 *
 * The build rewrites `k<<<grid, block, shmem, stream>>>(a, b)` into
 *     cudaemu::launch_typed(__FILE__, __LINE__, "k", k, cudaemu::config(grid, block, shmem, stream),
 *                           cudaemu::kernel_args<decltype(k)>(a, b))
 * or, for a template kernel whose template arguments come from the call
 * (kernel pointer nullptr) and for a kernel with default arguments (whose
 * decltype does not have them; kernel pointer (const void *)k),
 *     cudaemu::launch_kernel(__FILE__, __LINE__, "k", nullptr, cudaemu::config(...),
 *                            [&](auto &&sink) { sink(a, b); },
 *                            [&](auto &&...x) { k(x...); })
 * Either way the arguments are evaluated once, on the host, as CUDA does.
 * Where k is defined above the launch, launch_typed gets a last argument
 * that names k's faster way in: its twin, __cudaemu_co_k (coroutine.h), or
 * cudaemu::inline_kernel<&k>() for the start loop (thread_loop below).
 * launch_typed and the pointer launches then give every emulated thread a
 * bitwise copy of them, as a GPU does: no constructor or destructor runs in
 * the kernel (see thread_copy).  launch_kernel's threads call the kernel
 * with the host's values, each parameter copied as C++ copies it. */
#ifndef CUDAEMU_LAUNCH_H
#define CUDAEMU_LAUNCH_H

#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>

#include "coroutine.h"
#include "device.h"
#include "runtime_api.h"
#include "split.h"

namespace cudaemu {
struct launch_config {
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
};
static inline launch_config config(dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t stream = 0)
{
    return launch_config{grid, block, shmem, stream};
}

typedef void (*thread_body)(void *context);
/* Where a launch's argument values lie and their sizes, so that the
 * scheduler can refuse a kernel handed memory of a device it cannot reach
 * (an argument, or a pointer inside a by-value struct, that points into
 * another device's allocation without peer access). */
struct launch_args {
    void *const *values;
    const size_t *sizes;
    unsigned count;
};
template <class... P> struct argument_sizes {
    static constexpr size_t sizes[sizeof...(P) + 1] = {sizeof(std::decay_t<P>)..., 0};
    static launch_args of(void *const *values) { return launch_args{values, sizes, (unsigned)sizeof...(P)}; }
};
/* The same for a tuple of argument values. */
template <class... T> struct tuple_args {
    void *values[sizeof...(T) + 1];
    template <size_t... I> explicit tuple_args(std::tuple<T...> &t, std::index_sequence<I...>)
        : values{(void *)&std::get<I>(t)..., 0}
    {
    }
    launch_args get(void) const { return argument_sizes<T...>::of(values); }
};
template <class... T> static inline tuple_args<T...> args_of(std::tuple<T...> &t)
{
    return tuple_args<T...>(t, std::index_sequence_for<T...>{});
}
/* Runs the whole grid before it returns; the result is also what the next
 * cudaGetLastError() reports. */
/* A block's threads started one after another by a loop with the kernel
 * inlined in it (thread_loop below), instead of a call through `body` each:
 * what the scheduler's worker_main does per thread, on its fields. */
struct thread_range {
    unsigned *started, *done;    /* the block's counts */
    unsigned n;                  /* its threads */
    const unsigned *order;       /* the schedule's start order, or null */
    const uint3 *idx;            /* threadIdx by rank, or null for a 1-D block */
    unsigned *lazy_rank;         /* the worker fiber's note of the thread it runs */
    void *const *record;         /* the worker fiber's thread record: set by a call into the runtime */
    unsigned long long *blocks_done; /* the worker's count of ended blocks (written by it alone) */
    int *batch;                  /* the worker fiber's note: a batch runs (below) */
    unsigned *batch_done_base;   /* and the block's done count, less the first rank of the batch */
};
typedef void (*thread_loop_body)(void *context, thread_range *range);
extern __thread volatile int runtime_busy CUDAEMU_HIDDEN; /* (internal.h) */

cudaError_t launch(const char *file, int line, const char *name, const void *kernel, const launch_config &config,
                   thread_body body, void *context, bool cooperative,
                   const launch_args &args = launch_args{0, 0, 0}, thread_co_body co_body = 0,
                   thread_loop_body loop_body = 0, thread_split_body split_body = 0) CUDAEMU_HIDDEN;

/* ---- CUDA graphs (src/graph.cpp) ----
 * A node's work, kept until the graph and every instance of it are gone.
 * A launch on a stream that is being captured becomes such a node instead
 * of running: a recorded launch, with its own copy of the arguments. */
struct graph_work {
    virtual ~graph_work() {}
    virtual cudaError_t run(void) = 0;
};
extern int captures_active CUDAEMU_HIDDEN; /* streams capturing now: a launch looks further only if any */
bool stream_capturing(cudaStream_t stream) CUDAEMU_HIDDEN;
cudaError_t capture(cudaStream_t stream, graph_work *work, int node_type) CUDAEMU_HIDDEN; /* takes the work */
static inline bool capturing(cudaStream_t stream) { return captures_active && stream_capturing(stream); }
template <class F> struct call_work : graph_work {
    F f;
    explicit call_work(F g) : f(g) {}
    cudaError_t run(void) override { return f(); }
};
template <class F> static inline graph_work *work_of(F f) { return new call_work<F>(f); }

template <class Values, class Call> struct recorded_call : graph_work {
    const char *file;
    int line;
    const char *name;
    const void *kernel;
    launch_config cfg;
    Values values;
    Call call;
    recorded_call(const char *f, int l, const char *n, const void *k, launch_config c, Values v, Call callable)
        : file(f), line(l), name(n), kernel(k), cfg(c), values(v), call(callable)
    {
    }
    cudaError_t run(void) override
    {
        launch_config c = cfg;
        c.stream = 0;
        return launch(file, line, name, kernel, c, [](void *p) {
            recorded_call *r = (recorded_call *)p;
            std::apply(r->call, r->values);
        }, this, false, args_of(values).get());
    }
};
template <class Eval, class Call>
static inline void launch_kernel(const char *file, int line, const char *name, const void *kernel, launch_config cfg,
                                 Eval eval, Call call)
{
    eval([&](auto &&...a) {
        std::tuple<std::decay_t<decltype(a)>...> args(std::forward<decltype(a)>(a)...);
        if (capturing(cfg.stream)) {
            capture(cfg.stream, new recorded_call<decltype(args), Call>(file, line, name, kernel, cfg, args, call), 0);
            return;
        }
        struct context {
            decltype(args) *values;
            Call *call;
        } ctx = {&args, &call};
        launch(file, line, name, kernel, cfg, [](void *p) { context *c = (context *)p; std::apply(*c->call, *c->values); },
               &ctx, false, args_of(args).get());
    });
}

/* The usual case: a kernel whose parameter types are known where it is
 * launched.  The build writes `kernel_args<decltype(k)>(a, b)`, so the
 * arguments convert to the parameters exactly as in a call (NULL and 0 to
 * pointers included), once, on the host. */
template <class F> struct parameters;
template <class... P> struct parameters<void (*)(P...)> {
    typedef std::tuple<std::decay_t<P>...> tuple;
};
template <class F> using kernel_args = typename parameters<std::decay_t<F>>::tuple;

/* A GPU copies a kernel's arguments bitwise into parameter memory, once
 * per launch: a by-value object's copy constructor and destructor run on the
 * host only (for the host's copy), never in the kernel.  A plain C++ call
 * would copy and destroy each such parameter once per emulated thread: a
 * destructor that calls cudaFree (a "Lock" freeing its mutex) would then
 * free it while other threads still use it.
 *
 * So each thread calls the kernel the way the x86-64 C++ ABI passes such a
 * parameter: a class with a copy or move constructor that is not trivial
 * (and not deleted), a destructor that is not trivial, or every copy and
 * move constructor deleted, travels as the address of a copy that the
 * caller makes and the caller destroys.  (A deleted constructor alone, a
 * type that may be copied but not moved, travels by value.)  The thread
 * makes that copy with memcpy and never destroys it; the kernel may change
 * it without the other threads seeing the change, as on a GPU.  Any other
 * parameter is passed as in an ordinary call (its copy is a memcpy anyway). */
template <class T>
struct passed_by_address
    : std::integral_constant<bool, (std::is_copy_constructible<T>::value && !std::is_trivially_copy_constructible<T>::value) ||
                                       (std::is_move_constructible<T>::value &&
                                        !std::is_trivially_move_constructible<T>::value) ||
                                       !std::is_trivially_destructible<T>::value ||
                                       (!std::is_copy_constructible<T>::value && !std::is_move_constructible<T>::value)> {
};
template <class T, bool by_address = passed_by_address<T>::value>
struct thread_copy {
    /* The call itself copies the launch's value into the thread's
     * parameter, once: a struct of 32 KB (CUDA allows that much) takes
     * 32 KB of the thread's stack, not twice or three times that. */
    typedef T passed;
    static constexpr bool by_address_v = false;
    const T *value;
    CUDAEMU_NO_TSAN explicit thread_copy(const T &v) : value(&v) {}
    CUDAEMU_NO_TSAN T pass(void) { return *value; }
};
/* Defined only in a TSan build (the build preprocesses without the
 * sanitizer's flags, so no macro tells). */
extern "C" void __tsan_init(void) __attribute__((weak));
template <class T> struct thread_copy<T, true> {
    typedef T *passed;
    static constexpr bool by_address_v = true;
    alignas(T) unsigned char bytes[sizeof(T)];
    void *at;
    /* Under TSan the kernel reads and writes this copy itself: at the same
     * stack address for every thread a fiber runs, it would look like a
     * race between them.  Memory from malloc is new to TSan each time. */
    CUDAEMU_NO_TSAN explicit thread_copy(const T &v)
        : at(__tsan_init ? aligned_alloc(alignof(T) < 16 ? 16 : alignof(T), (sizeof(T) + 15) / 16 * 16) : bytes)
    {
        memcpy(at, (const void *)&v, sizeof(T));
    }
    thread_copy(const thread_copy &) = delete;
    CUDAEMU_NO_TSAN ~thread_copy(void)
    {
        if (at != bytes)
            free(at); /* as bytes: a GPU runs no destructor either */
    }
    CUDAEMU_NO_TSAN T *pass(void) { return (T *)at; }
};
/* Each thread's call, from the addresses of the launch's argument values.
 * The copies lie at the same place of the stack for every thread a fiber
 * runs: the runtime's writes, not the kernel's, which TSan must not see as
 * racing (as in the warp operations). */
template <class... P, size_t... I>
static inline CUDAEMU_NO_TSAN void call_with_copies(void (*kernel)(P...), void *const *args, std::index_sequence<I...>)
{
    std::tuple<thread_copy<std::decay_t<P>>...> copies(*(const std::decay_t<P> *)args[I]...);
    (void)args; /* a kernel without parameters */
    typedef void (*as_passed)(typename thread_copy<std::decay_t<P>>::passed...);
    ((as_passed)(void (*)(void))kernel)(std::get<I>(copies).pass()...);
}
/* Kernel parameters live in each thread's stack here (in constant memory on
 * a GPU): a launch whose parameters take more than a kilobyte makes room
 * for them (fiber.cpp), between launches. */
void reserve_argument_stack(size_t bytes) CUDAEMU_HIDDEN;
template <class... P> struct thread_call {
    static constexpr size_t argument_bytes = (sizeof(std::decay_t<P>) + ... + 0);
    static void reserve(void)
    {
        if (argument_bytes > 1024)
            reserve_argument_stack(argument_bytes);
    }
    void (*kernel)(P...);
    void *const *args;
    static void run(void *p)
    {
        thread_call *c = (thread_call *)p;
        call_with_copies(c->kernel, c->args, std::index_sequence_for<P...>{});
    }
};

/* The common launch's call (launch_typed), where every parameter is
 * trivially copied: the values lie in the call's record itself, so a
 * thread's call loads the kernel's address and its arguments side by side
 * (thread_call's reads one pointer after another: the table, an address,
 * the value) and passes them as any call does, a copy per thread. */
template <class T> struct copied_as_in_a_call {
    static constexpr bool value = !thread_copy<T>::by_address_v;
};
template <class... P> struct thread_call_values {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> values;
    template <size_t... I> CUDAEMU_NO_TSAN void call(std::index_sequence<I...>) const
    {
        kernel(std::get<I>(values)...);
    }
    static CUDAEMU_NO_TSAN void run(void *p)
    {
        ((const thread_call_values *)p)->call(std::index_sequence_for<P...>{});
    }
};

/* A launch recorded into a graph: its own copy of the arguments. */
template <class... P> struct recorded_launch : graph_work {
    const char *file;
    int line;
    const char *name;
    void (*kernel)(P...);
    launch_config cfg;
    bool cooperative;
    std::tuple<std::decay_t<P>...> args;
    recorded_launch(const char *f, int l, const char *n, void (*k)(P...), launch_config c, bool coop,
                    const std::tuple<std::decay_t<P>...> &a)
        : file(f), line(l), name(n), kernel(k), cfg(c), cooperative(coop), args(a)
    {
    }
    template <size_t... I> cudaError_t run_with(std::index_sequence<I...>)
    {
        void *addresses[sizeof...(P) + 1] = {(void *)&std::get<I>(args)...};
        thread_call<P...> call = {kernel, addresses};
        thread_call<P...>::reserve();
        launch_config c = cfg;
        c.stream = 0;
        return launch(file, line, name, (const void *)kernel, c, &thread_call<P...>::run, &call, cooperative,
                      argument_sizes<P...>::of(addresses));
    }
    cudaError_t run(void) override { return run_with(std::index_sequence_for<P...>{}); }
};
template <class... P, size_t... I>
static inline graph_work *record_from_pointers(void (*kernel)(P...), const launch_config &cfg, void **args,
                                               bool cooperative, const char *file, int line, std::index_sequence<I...>)
{
    (void)args; /* a kernel without parameters */
    return new recorded_launch<P...>(file, line, 0, kernel, cfg, cooperative,
                                     std::tuple<std::decay_t<P>...>(*(const std::decay_t<P> *)args[I]...));
}

#if __cpp_impl_coroutine
/* The same with the kernel's twin (coroutine.h), whose call starts a
 * thread and returns its frame. */
template <class Twin, class... P> struct thread_call_twin : thread_call_values<P...> {
    Twin twin;
    template <size_t... I> CUDAEMU_NO_TSAN void *start(std::index_sequence<I...>) const
    {
        return twin(std::get<I>(this->values)...).handle.address();
    }
    static CUDAEMU_NO_TSAN void *run_twin(void *p)
    {
        return ((const thread_call_twin *)p)->start(std::index_sequence_for<P...>{});
    }
};
/* A kernel's twin and its split form (split.h), named together at a launch
 * (cucc's build: rewrite.pl --split). */
template <class Twin, class Split> struct twin_and_split {
    Twin twin;
    Split split;
};
template <class Twin, class Split> static inline twin_and_split<Twin, Split> split_kernel(Twin twin, Split split)
{
    return twin_and_split<Twin, Split>{twin, split};
}
template <class T> struct is_twin_and_split : std::false_type {};
template <class Twin, class Split> struct is_twin_and_split<twin_and_split<Twin, Split>> : std::true_type {};
template <class Twin, class Split, class... P> struct thread_call_split : thread_call_twin<Twin, P...> {
    Split split;
    template <size_t... I> CUDAEMU_NO_TSAN void run_block(split_block *b, std::index_sequence<I...>) const
    {
        split(*b, std::get<I>(this->values)...);
    }
    static CUDAEMU_NO_TSAN void run_split(void *p, split_block *b)
    {
        ((const thread_call_split *)p)->run_block(b, std::index_sequence_for<P...>{});
    }
};
#endif

/* The kernel K itself, known where it is launched (rewrite.pl names it so
 * where it is defined above the launch): its calls are inlined in the loop
 * that starts a block's threads.  The loop is worker_main's, store for
 * store: a thread that calls into the runtime (a record, a wait, a fault's
 * note) ends it, and the scheduler does the rest as for any thread. */
template <auto K> struct inline_kernel {};
enum : unsigned { index_room = 0x7fffffffu };
template <auto K, class... P> struct thread_loop {
    /* A 1-D block in rank order, as a batch: each thread's start is its
     * threadIdx.x alone.  The block's counts are written once, at the
     * batch's end; a thread that calls into the runtime has them and the
     * fiber's note of its thread written from its threadIdx.x first
     * (scheduler.cpp's thread_record), and ends the batch.  So the loop is
     * the kernel's body and a store. */
    template <size_t... I>
    static CUDAEMU_NO_TSAN inline __attribute__((always_inline)) void
    batch(const std::tuple<std::decay_t<P>...> &values, thread_range *r, std::index_sequence<I...>)
    {
        unsigned *const started = r->started, *const done = r->done;
        const unsigned n = r->n;
        void *const *const record = r->record;
        uint3 &thread_idx = const_cast<uint3 &>(threadIdx); /* (read-only to kernels) */
        const unsigned first = *started;
        *r->batch_done_base = *done - first;
        *r->batch = 1;
        thread_idx.x = first, thread_idx.y = thread_idx.z = 0; /* (before the signals may read it) */
        runtime_busy = 0; /* the kernel's own code from here */
        const unsigned before = blockIdx.x * blockDim.x; /* the threads of the grid's rows before this block */
        if (__builtin_expect(before <= index_room - 1024, 1)) {
            /* As below, and the compiler told what is true here: n is at
             * most 1,024, and blockIdx.x * blockDim.x + threadIdx.x fits in
             * an int, so the kernel's usual index is an affine function of
             * x (it may then vectorise the loop; it could not know that an
             * unsigned sum does not wrap). */
            if (n > 1024 || before > index_room - 1024)
                __builtin_unreachable();
            for (unsigned x = first; x < n; x++) {
                thread_idx.x = x;
                K(std::get<I>(values)...);
                if (__builtin_expect(*record != 0, 0)) {
                    runtime_busy = 1;
                    return; /* the scheduler ends this thread, then calls again */
                }
            }
        } else { /* (the same loop, for a grid of 2^31 threads or more in x) */
            for (unsigned x = first; x < n; x++) {
                thread_idx.x = x;
                K(std::get<I>(values)...);
                if (__builtin_expect(*record != 0, 0)) {
                    runtime_busy = 1;
                    return;
                }
            }
        }
        runtime_busy = 1;
        *r->batch = 0;
        *started = n;
        if ((*done += n - first) == n)
            __atomic_store_n(r->blocks_done, *r->blocks_done + 1, __ATOMIC_RELAXED);
    }
    template <size_t... I>
    static CUDAEMU_NO_TSAN void run(const thread_call_values<P...> *c, thread_range *r, std::index_sequence<I...>)
    {
        const unsigned *const order = r->order;
        const uint3 *const idx = r->idx;
        if (!order && !idx) {
            /* (the arguments in a local copy, where copying them is only
             * bytes: what the kernel stores cannot change them, so the
             * compiler loads each once, not once a thread) */
            if constexpr ((std::is_trivially_copyable<std::decay_t<P>>::value && ...)) {
                const std::tuple<std::decay_t<P>...> values = c->values;
                batch(values, r, std::index_sequence<I...>{});
            } else {
                batch(c->values, r, std::index_sequence<I...>{});
            }
            return;
        }
        /* The others (a 2-D or 3-D block, or a schedule's order): each
         * thread's start written as worker_main writes it.  (The range's
         * fields in locals: the kernel's stores might alias them.) */
        unsigned *const started = r->started, *const done = r->done, *const lazy_rank = r->lazy_rank;
        const unsigned n = r->n;
        void *const *const record = r->record;
        uint3 &thread_idx = const_cast<uint3 &>(threadIdx); /* (read-only to kernels) */
        for (unsigned pos; (pos = *started) < n;) {
            runtime_busy = 1;
            unsigned rank = order ? order[pos] : pos;
            *started = pos + 1;
            *lazy_rank = rank;
            if (idx) {
                thread_idx.x = idx[rank].x, thread_idx.y = idx[rank].y, thread_idx.z = idx[rank].z;
            } else {
                thread_idx.x = rank, thread_idx.y = 0, thread_idx.z = 0;
            }
            runtime_busy = 0; /* the kernel's own code from here */
            K(std::get<I>(c->values)...);
            if (__builtin_expect(*record != 0, 0))
                return; /* the scheduler ends this thread, then calls again */
            if (++*done == n)
                __atomic_store_n(r->blocks_done, *r->blocks_done + 1, __ATOMIC_RELAXED);
        }
        runtime_busy = 1;
    }
    static CUDAEMU_NO_TSAN void run_loop(void *p, thread_range *r)
    {
        run((const thread_call_values<P...> *)p, r, std::index_sequence_for<P...>{});
    }
};
template <class T> struct is_inline_kernel : std::false_type {};
template <auto K> struct is_inline_kernel<inline_kernel<K>> : std::true_type {};
template <auto K, class... P> static thread_loop_body loop_of(inline_kernel<K>, void (*)(P...))
{
    return &thread_loop<K, P...>::run_loop;
}

template <class... P, size_t... I, class Faster = std::nullptr_t>
static inline void launch_typed(const char *file, int line, const char *name, void (*kernel)(P...), launch_config cfg,
                                std::tuple<std::decay_t<P>...> &args, std::index_sequence<I...>, Faster faster = nullptr)
{
    if (capturing(cfg.stream)) {
        capture(cfg.stream, new recorded_launch<P...>(file, line, name, kernel, cfg, false, args), 0);
        return;
    }
    void *addresses[sizeof...(P) + 1] = {(void *)&std::get<I>(args)...};
    thread_call<P...>::reserve();
    if constexpr ((copied_as_in_a_call<std::decay_t<P>>::value && ...)) {
        thread_call_values<P...> call = {kernel, args}; /* (trivial copies: bitwise, as a GPU's) */
#if __cpp_impl_coroutine
        if constexpr (is_twin_and_split<Faster>::value) {
            using call_split = thread_call_split<decltype(faster.twin), decltype(faster.split), P...>;
            call_split all = {{call, faster.twin}, faster.split};
            launch(file, line, name, (const void *)kernel, cfg, &thread_call_values<P...>::run, &all, false,
                   argument_sizes<P...>::of(addresses), &call_split::run_twin, 0, &call_split::run_split);
            return;
        } else if constexpr (!std::is_same<Faster, std::nullptr_t>::value && !is_inline_kernel<Faster>::value) {
            thread_call_twin<Faster, P...> both = {call, faster}; /* (run reads its first part) */
            launch(file, line, name, (const void *)kernel, cfg, &thread_call_values<P...>::run, &both, false,
                   argument_sizes<P...>::of(addresses), &thread_call_twin<Faster, P...>::run_twin);
            return;
        }
#endif
        if constexpr (is_inline_kernel<Faster>::value) {
            launch(file, line, name, (const void *)kernel, cfg, &thread_call_values<P...>::run, &call, false,
                   argument_sizes<P...>::of(addresses), 0, loop_of(faster, kernel));
            return;
        }
        (void)faster;
        launch(file, line, name, (const void *)kernel, cfg, &thread_call_values<P...>::run, &call, false,
               argument_sizes<P...>::of(addresses));
    } else {
        thread_call<P...> call = {kernel, addresses};
        launch(file, line, name, (const void *)kernel, cfg, &thread_call<P...>::run, &call, false,
               argument_sizes<P...>::of(addresses));
    }
}
/* The host's copy of the arguments (args) is made once, and destroyed once
 * when the launch returns, as nvcc's host stub makes and destroys it. */
template <class... P, class Faster = std::nullptr_t>
static inline void launch_typed(const char *file, int line, const char *name, void (*kernel)(P...), launch_config cfg,
                                std::tuple<std::decay_t<P>...> args, Faster faster = nullptr)
{
    launch_typed(file, line, name, kernel, cfg, args, std::index_sequence_for<P...>{}, faster);
}

/* Launches through an array of argument addresses (cudaLaunchKernel and
 * cudaLaunchCooperativeKernel), for a kernel whose parameter types are known.
 * As on a GPU, nothing is copied on the host: the threads copy the caller's
 * values bitwise. */
template <class... P>
static inline cudaError_t launch_with_pointers(void (*kernel)(P...), const launch_config &cfg, void **args,
                                               bool cooperative, const char *file, int line)
{
    if (capturing(cfg.stream))
        return capture(cfg.stream,
                       record_from_pointers(kernel, cfg, args, cooperative, file, line, std::index_sequence_for<P...>{}),
                       0);
    thread_call<P...> call = {kernel, args};
    thread_call<P...>::reserve();
    return launch(file, line, 0, (const void *)kernel, cfg, &thread_call<P...>::run, &call, cooperative,
                  argument_sizes<P...>::of(args));
}
template <class... P>
static inline cudaError_t launch_pointers_erased(const void *kernel, const launch_config &cfg, void **args,
                                                 bool cooperative, const char *file, int line)
{
    return launch_with_pointers((void (*)(P...))kernel, cfg, args, cooperative, file, line);
}

/* What the build registers for every non-template kernel defined in a
 * file: its name, its static shared memory, and how to launch it from an
 * array of argument addresses.  Lets the occupancy API and
 * cudaLaunchCooperativeKernel((void *)k, ...) work as on a GPU. */
typedef cudaError_t (*pointer_launcher)(const void *kernel, const launch_config &cfg, void **args, bool cooperative,
                                        const char *file, int line);
/* and how to record it for a graph's kernel node, its arguments copied */
typedef graph_work *(*pointer_recorder)(const void *kernel, const launch_config &cfg, void **args, const char *file,
                                        int line);
template <class... P>
static inline graph_work *record_pointers_erased(const void *kernel, const launch_config &cfg, void **args,
                                                 const char *file, int line)
{
    return record_from_pointers((void (*)(P...))kernel, cfg, args, false, file, line, std::index_sequence_for<P...>{});
}
void register_kernel(const void *kernel, const char *name, size_t static_shared, pointer_launcher launcher,
                     pointer_recorder recorder) CUDAEMU_HIDDEN;
struct shared_size {
    size_t size, align;
};
struct kernel_registration {
    template <class... P>
    kernel_registration(void (*kernel)(P...), const char *name, std::initializer_list<shared_size> shared)
    {
        size_t total = 0;
        for (shared_size v : shared)
            total = (total + v.align - 1) / v.align * v.align + v.size;
        register_kernel((const void *)kernel, name, total, &launch_pointers_erased<P...>, &record_pointers_erased<P...>);
    }
};
cudaError_t launch_registered(const void *kernel, const launch_config &cfg, void **args, bool cooperative,
                              const char *file, int line) CUDAEMU_HIDDEN;
} // namespace cudaemu

/* ---- launches through the API ------------------------------------------------------ */
template <class... P>
static inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                           cudaStream_t stream = 0, CUDAEMU_HERE)
{
    return cudaemu::launch_with_pointers(kernel, cudaemu::config(grid, block, shmem, stream), args, false, file, line);
}
template <class... P>
static inline cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args,
                                                      size_t shmem = 0, cudaStream_t stream = 0, CUDAEMU_HERE)
{
    return cudaemu::launch_with_pointers(kernel, cudaemu::config(grid, block, shmem, stream), args, true, file, line);
}
static inline cudaError_t cudaLaunchKernel(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                           cudaStream_t stream = 0, CUDAEMU_HERE)
{
    return cudaemu::launch_registered(kernel, cudaemu::config(grid, block, shmem, stream), args, false, file, line);
}
static inline cudaError_t cudaLaunchCooperativeKernel(const void *kernel, dim3 grid, dim3 block, void **args,
                                                      size_t shmem = 0, cudaStream_t stream = 0, CUDAEMU_HERE)
{
    return cudaemu::launch_registered(kernel, cudaemu::config(grid, block, shmem, stream), args, true, file, line);
}

/* cudaLaunchKernelEx: a launch with attributes.  Cooperative launches and
 * priorities work; thread block clusters are refused. */
typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;
namespace cudaemu {
cudaError_t launch_attributes(const cudaLaunchConfig_t *config, bool *cooperative, const char *file,
                              int line) CUDAEMU_HIDDEN;
template <class... P, size_t... I>
static inline cudaError_t launch_ex(const cudaLaunchConfig_t *config, void (*kernel)(P...),
                                    std::tuple<std::decay_t<P>...> &args, std::index_sequence<I...>, const char *file,
                                    int line)
{
    bool cooperative = false;
    if (cudaError_t err = launch_attributes(config, &cooperative, file, line))
        return err;
    void *addresses[sizeof...(P) + 1] = {(void *)&std::get<I>(args)...};
    return launch_with_pointers(kernel, cudaemu::config(config->gridDim, config->blockDim, config->dynamicSmemBytes,
                                                        config->stream),
                                addresses, cooperative, file, line);
}
template <class... P> struct launch_ex_call {
    const cudaLaunchConfig_t *config;
    void (*kernel)(P...);
    const char *file;
    int line;
    template <class... A> cudaError_t operator()(A &&...a) const
    {
        std::tuple<std::decay_t<P>...> args(std::forward<A>(a)...); /* converted as in a call */
        return launch_ex(config, kernel, args, std::index_sequence_for<P...>{}, file, line);
    }
};
} // namespace cudaemu
template <class... P, class... A>
static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...), A &&...args)
{
    return cudaemu::launch_ex_call<P...>{config, kernel, __builtin_FILE(), __builtin_LINE()}(std::forward<A>(args)...);
}

/* ---- kernels given as functions (CUDA's C++ forms) ------------------------------------------- */
template <class T> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *kernel)
{
    return cudaFuncGetAttributes(attr, (const void *)kernel);
}
template <class T> static inline cudaError_t cudaFuncSetAttribute(T *kernel, enum cudaFuncAttribute attr, int value)
{
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}
template <class T> static inline cudaError_t cudaFuncSetCacheConfig(T *kernel, enum cudaFuncCache config)
{
    return cudaFuncSetCacheConfig((const void *)kernel, config);
}
template <class T> static inline cudaError_t cudaFuncSetSharedMemConfig(T *kernel, enum cudaSharedMemConfig config)
{
    return cudaFuncSetSharedMemConfig((const void *)kernel, config);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, T kernel, int block_size,
                                                                        size_t dynamic_smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)kernel, block_size, dynamic_smem);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, T kernel, int block_size,
                                                                                 size_t dynamic_smem, unsigned flags)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, (const void *)kernel, block_size, dynamic_smem,
                                                                  flags);
}
template <class T>
static inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, T kernel, int blocks, int block_size)
{
    return cudaOccupancyAvailableDynamicSMemPerBlock(bytes, (const void *)kernel, blocks, block_size);
}

/* The block size with the most resident threads per SM, as CUDA's own
 * header computes it: try every multiple of the warp size from the largest
 * down, keep the first that gives the most threads. */
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *min_grid_size, int *block_size,
                                                                                  T kernel, UnaryFunction smem_for,
                                                                                  int block_size_limit = 0,
                                                                                  unsigned int flags = 0)
{
    if (!min_grid_size || !block_size || !kernel)
        return cudaErrorInvalidValue;
    int device = 0, max_threads_sm = 0, warp = 0, max_threads_block = 0, sms = 0;
    cudaError_t err;
    if ((err = cudaGetDevice(&device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&max_threads_block, cudaDevAttrMaxThreadsPerBlock, device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
        return err;
    cudaFuncAttributes attr;
    if ((err = cudaFuncGetAttributes(&attr, (const void *)kernel)) != cudaSuccess)
        return err;
    int limit = max_threads_block < attr.maxThreadsPerBlock ? max_threads_block : attr.maxThreadsPerBlock;
    if (block_size_limit > 0 && block_size_limit < limit)
        limit = block_size_limit;
    int best_threads = 0, best_block = 0, best_blocks = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        int size = limit < aligned ? limit : aligned;
        int blocks = 0;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, (const void *)kernel, size,
                                                                     (size_t)smem_for(size), flags);
        if (err != cudaSuccess)
            return err;
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best_block = size;
            best_blocks = blocks;
        }
        if (best_threads == max_threads_sm)
            break;
    }
    *min_grid_size = best_blocks * sms;
    *block_size = best_block;
    return cudaSuccess;
}
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *min_grid_size, int *block_size, T kernel,
                                                                         UnaryFunction smem_for,
                                                                         int block_size_limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(min_grid_size, block_size, kernel, smem_for,
                                                                   block_size_limit, 0);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid_size, int *block_size, T kernel,
                                                             size_t dynamic_smem = 0, int block_size_limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid_size, block_size, kernel, [dynamic_smem](int) { return dynamic_smem; }, block_size_limit, 0);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid_size, int *block_size, T kernel,
                                                                      size_t dynamic_smem = 0,
                                                                      int block_size_limit = 0, unsigned flags = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid_size, block_size, kernel, [dynamic_smem](int) { return dynamic_smem; }, block_size_limit, flags);
}

#endif /* CUDAEMU_LAUNCH_H */
