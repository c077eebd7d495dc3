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
 * Either way the arguments are evaluated once, on the host, as CUDA does;
 * every emulated thread then calls the kernel with its own copies. */
#ifndef CUDAEMU_LAUNCH_H
#define CUDAEMU_LAUNCH_H

#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>

#include "device.h"
#include "runtime_api.h"

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
/* Runs the whole grid before it returns; the result is also what the next
 * cudaGetLastError() reports. */
cudaError_t launch(const char *file, int line, const char *name, const void *kernel, const launch_config &config,
                   thread_body body, void *context, bool cooperative) CUDAEMU_HIDDEN;

template <class Eval, class Call>
static inline void launch_kernel(const char *file, int line, const char *name, const void *kernel, launch_config cfg,
                                 Eval eval, Call call)
{
    eval([&](auto &&...a) {
        std::tuple<std::decay_t<decltype(a)>...> args(std::forward<decltype(a)>(a)...);
        struct context {
            decltype(args) *values;
            Call *call;
        } ctx = {&args, &call};
        launch(file, line, name, kernel, cfg, [](void *p) { context *c = (context *)p; std::apply(*c->call, *c->values); },
               &ctx, false);
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

template <class... P>
static inline void launch_typed(const char *file, int line, const char *name, void (*kernel)(P...), launch_config cfg,
                                std::tuple<std::decay_t<P>...> args)
{
    struct context {
        void (*kernel)(P...);
        std::tuple<std::decay_t<P>...> *copies;
    } ctx = {kernel, &args};
    launch(file, line, name, (const void *)kernel, cfg,
           [](void *p) { context *c = (context *)p; std::apply(c->kernel, *c->copies); }, &ctx, false);
}

/* Launches through an array of argument addresses (cudaLaunchKernel and
 * cudaLaunchCooperativeKernel), for a kernel whose parameter types are known. */
template <class... P, size_t... I>
static inline cudaError_t launch_with_pointers(void (*kernel)(P...), const launch_config &cfg, void **args,
                                               bool cooperative, const char *file, int line, std::index_sequence<I...>)
{
    std::tuple<std::decay_t<P>...> values(*(std::decay_t<P> *)args[I]...);
    struct context {
        void (*kernel)(P...);
        decltype(values) *copies;
    } ctx = {kernel, &values};
    return launch(file, line, 0, (const void *)kernel, cfg,
                  [](void *p) { context *c = (context *)p; std::apply(c->kernel, *c->copies); }, &ctx, cooperative);
}
template <class... P>
static inline cudaError_t launch_pointers_erased(const void *kernel, const launch_config &cfg, void **args,
                                                 bool cooperative, const char *file, int line)
{
    return launch_with_pointers((void (*)(P...))kernel, cfg, args, cooperative, file, line,
                                std::index_sequence_for<P...>{});
}

/* What the build registers for every non-template kernel defined in a
 * file: its name, its static shared memory, and how to launch it from an
 * array of argument addresses.  Lets the occupancy API and
 * cudaLaunchCooperativeKernel((void *)k, ...) work as on a GPU. */
typedef cudaError_t (*pointer_launcher)(const void *kernel, const launch_config &cfg, void **args, bool cooperative,
                                        const char *file, int line);
void register_kernel(const void *kernel, const char *name, size_t static_shared, pointer_launcher launcher) CUDAEMU_HIDDEN;
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
        register_kernel((const void *)kernel, name, total, &launch_pointers_erased<P...>);
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
    return cudaemu::launch_with_pointers(kernel, cudaemu::config(grid, block, shmem, stream), args, false, file, line,
                                         std::index_sequence_for<P...>{});
}
template <class... P>
static inline cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args,
                                                      size_t shmem = 0, cudaStream_t stream = 0, CUDAEMU_HERE)
{
    return cudaemu::launch_with_pointers(kernel, cudaemu::config(grid, block, shmem, stream), args, true, file, line,
                                         std::index_sequence_for<P...>{});
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
