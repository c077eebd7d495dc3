/* errors.cpp: CUDA's error reporting on the cpu backend, and kernel printf.
 *
 * As on a GPU, a failed launch configuration is reported once by the next
 * cudaGetLastError(), while a kernel that fails (a diagnostic of the
 * emulator, a device-side assert) leaves a sticky error that every later
 * call returns.  cudaGetErrorString() of that error gives the detailed
 * message, with the student's file and line. */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

namespace cudaemu {

static __thread cudaError_t last_error = cudaSuccess; /* each host thread's, as CUDA keeps it */
static cudaError_t sticky = cudaSuccess;
static char sticky_message[4096];
static cudaError_t detail_error = cudaSuccess; /* the error the detail below explains */
static char detail[1024];

cudaError_t api_result(cudaError_t err)
{
    if (err != cudaSuccess)
        last_error = err;
    return err;
}

cudaError_t api_fail(cudaError_t err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    detail_error = err;
    return api_result(err);
}

cudaError_t sticky_error(void) { return sticky; }

void set_sticky_error(cudaError_t err, const char *message)
{
    if (sticky != cudaSuccess)
        return;
    sticky = err;
    snprintf(sticky_message, sizeof sticky_message, "%s", message);
    last_error = err;
}

void clear_errors(void)
{
    sticky = last_error = detail_error = cudaSuccess;
    sticky_message[0] = detail[0] = 0;
}

#ifdef CUDAEMU_ASAN
/* LeakSanitizer checks at exit, in a handler registered before this one,
 * and ends a program with leaks without flushing stdio: the program's
 * buffered output (a pipe's, a file's) would be lost with its report.  This
 * handler runs first. */
static void flush_before_leak_check(void) { fflush(0); }
__attribute__((constructor)) static void register_flush(void) { atexit(flush_before_leak_check); }
#endif

/* ---- kernel printf: a buffer flushed at synchronisation points, as CUDA does ---- */
static char *printf_buffer;
static size_t printf_used, printf_capacity = 1 << 20;
static bool printf_overflowed;

/* The buffer is the runtime's, shared by all threads that print: its
 * writes are hidden from ThreadSanitizer, which would see them as a race
 * between the threads of the student's kernel. */
static int buffer_printf(const char *format, va_list args)
{
    if (!printf_buffer)
        printf_buffer = (char *)malloc(printf_capacity);
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(0, 0, format, copy);
    va_end(copy);
    if (n < 0)
        return -1;
    if (printf_used + (size_t)n + 1 > printf_capacity) {
        printf_overflowed = true; /* CUDA drops what does not fit, too */
        return -1;
    }
    vsnprintf(printf_buffer + printf_used, (size_t)n + 1, format, args);
    printf_used += (size_t)n;
    return n;
}

static __thread printf_log *log_here;
void printf_log_here(printf_log *log) { log_here = log; }

/* Appends to this host thread's log, marking where each block's text ends. */
static int log_printf(printf_log *log, const char *format, va_list args)
{
    char small[256];
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(small, sizeof small, format, copy);
    va_end(copy);
    if (n < 0)
        return -1;
    if ((size_t)n < sizeof small) {
        log->text.append(small, (size_t)n);
    } else {
        size_t at = log->text.size();
        log->text.resize(at + (size_t)n + 1);
        vsnprintf(&log->text[at], (size_t)n + 1, format, args);
        log->text.resize(at + (size_t)n);
    }
    unsigned long long block = current_block_number();
    if (log->marks.empty() || log->marks.back().first != block)
        log->marks.push_back({block, 0});
    log->marks.back().second = log->text.size();
    return n;
}

int printf_in_kernel(const char *format, va_list args)
{
    if (log_here)
        return log_printf(log_here, format, args);
    tsan_ignore_begin();
    int n = buffer_printf(format, args);
    tsan_ignore_end();
    return n;
}

/* Each log holds its blocks in increasing order (the blocks are handed out
 * in order): a merge, taking the lowest block next. */
void printf_merge(printf_log *logs, unsigned count)
{
    std::vector<size_t> next(count, 0), from(count, 0);
    for (;;) {
        unsigned pick = count;
        for (unsigned i = 0; i < count; i++)
            if (next[i] < logs[i].marks.size() &&
                (pick == count || logs[i].marks[next[i]].first < logs[pick].marks[next[pick]].first))
                pick = i;
        if (pick == count)
            break;
        size_t end = logs[pick].marks[next[pick]++].second;
        size_t n = end - from[pick];
        if (!printf_buffer)
            printf_buffer = (char *)malloc(printf_capacity);
        if (printf_used + n + 1 > printf_capacity) {
            printf_overflowed = true;
            n = printf_capacity - 1 - printf_used;
        }
        memcpy(printf_buffer + printf_used, logs[pick].text.data() + from[pick], n);
        printf_used += n;
        from[pick] = end;
    }
    for (unsigned i = 0; i < count; i++) {
        logs[i].text.clear();
        logs[i].marks.clear();
    }
}

void printf_flush(void)
{
    device_lock locked;
    if (printf_used)
        fwrite(printf_buffer, 1, printf_used, stdout);
    if (printf_overflowed)
        fprintf(stderr, "cudaemu: kernel printf output beyond %zu bytes was dropped (cudaLimitPrintfFifoSize)\n",
                printf_capacity);
    printf_used = 0;
    printf_overflowed = false;
}

void printf_set_limit(size_t bytes)
{
    device_lock locked;
    printf_flush();
    free(printf_buffer);
    printf_buffer = 0;
    printf_capacity = bytes < 4096 ? 4096 : bytes;
}
size_t printf_limit(void) { return printf_capacity; }

} // namespace cudaemu

using namespace cudaemu;

extern "C" cudaError_t cudaGetLastError(void)
{
    cudaError_t err = last_error != cudaSuccess ? last_error : sticky;
    last_error = cudaSuccess;
    return err;
}

extern "C" cudaError_t cudaPeekAtLastError(void) { return last_error != cudaSuccess ? last_error : sticky; }

/* A code, its name as cudaGetErrorName gives it (the enumerator's own
 * spelling, so the two cannot differ), and CUDA's text for it. */
#define CUDA_ERROR(code, text) {code, #code, text}
static const struct {
    cudaError_t code;
    const char *name, *text;
} error_table[] = {
    CUDA_ERROR(cudaSuccess, "no error"),
    CUDA_ERROR(cudaErrorInvalidValue, "invalid argument"),
    CUDA_ERROR(cudaErrorMemoryAllocation, "out of memory"),
    CUDA_ERROR(cudaErrorInitializationError, "initialization error"),
    CUDA_ERROR(cudaErrorCudartUnloading, "driver shutting down"),
    CUDA_ERROR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    CUDA_ERROR(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    CUDA_ERROR(cudaErrorInvalidSymbol, "invalid device symbol"),
    CUDA_ERROR(cudaErrorInvalidHostPointer, "invalid host pointer"),
    CUDA_ERROR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    CUDA_ERROR(cudaErrorInvalidTexture, "invalid texture reference"),
    CUDA_ERROR(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    CUDA_ERROR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    CUDA_ERROR(cudaErrorInvalidFilterSetting, "linear filtering not supported for non-float type"),
    CUDA_ERROR(cudaErrorInvalidNormSetting, "read as normalized float not supported for 32-bit non float type"),
    CUDA_ERROR(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    CUDA_ERROR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    CUDA_ERROR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    CUDA_ERROR(cudaErrorInvalidDevice, "invalid device ordinal"),
    CUDA_ERROR(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    CUDA_ERROR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    CUDA_ERROR(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    CUDA_ERROR(cudaErrorNotReady, "device not ready"),
    CUDA_ERROR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    CUDA_ERROR(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    CUDA_ERROR(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    CUDA_ERROR(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    CUDA_ERROR(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    CUDA_ERROR(cudaErrorAssert, "device-side assert triggered"),
    CUDA_ERROR(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    CUDA_ERROR(cudaErrorMisalignedAddress, "misaligned address"),
    CUDA_ERROR(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped"),
    CUDA_ERROR(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    CUDA_ERROR(cudaErrorLaunchFailure, "unspecified launch failure"),
    CUDA_ERROR(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    CUDA_ERROR(cudaErrorNotPermitted, "operation not permitted"),
    CUDA_ERROR(cudaErrorNotSupported, "operation not supported"),
    CUDA_ERROR(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    CUDA_ERROR(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    CUDA_ERROR(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    CUDA_ERROR(cudaErrorStreamCaptureImplicit,
               "operation would make the legacy stream depend on a capturing blocking stream"),
    CUDA_ERROR(cudaErrorGraphExecUpdateFailure,
               "the graph update was not performed because it included changes which violated constraints specific to "
               "instantiated graph update"),
    CUDA_ERROR(cudaErrorUnknown, "unknown error"),
};
#undef CUDA_ERROR

extern "C" const char *cudaGetErrorName(cudaError_t error)
{
    for (const auto &e : error_table)
        if (e.code == error)
            return e.name;
    return "cudaErrorUnknown";
}

extern "C" const char *cudaGetErrorString(cudaError_t error)
{
    if (error != cudaSuccess && error == sticky && sticky_message[0])
        return sticky_message;
    const char *text = "unrecognized error code";
    for (const auto &e : error_table)
        if (e.code == error)
            text = e.text;
    if (error != cudaSuccess && error == detail_error && detail[0]) {
        static char both[sizeof detail + 128];
        snprintf(both, sizeof both, "%s (%s)", text, detail);
        return both;
    }
    return text;
}

/* assert() in a kernel: as on a GPU, the launch fails with
 * cudaErrorAssert and the message names the line; on the host, glibc's
 * behaviour (message, abort). */
extern "C" void __assert_fail(const char *expression, const char *file, unsigned int line, const char *function)
{
    if (cudaemu::in_kernel())
        cudaemu::kernel_fail(cudaErrorAssert, file, (int)line, "device-side assert: %s: Assertion `%s' failed",
                             function, expression);
    fflush(stdout);
    fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, expression);
    abort();
}
