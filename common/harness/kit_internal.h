/* kit_internal.h: the harness's side that labs never use: the grader's
 * records and hooks, the runner's calls, and the record keepers of the
 * harness itself.  Included by the harness (kit.c, kit_cuda.cu), the
 * runner (common/runner), the grader (common/grading/grade.h) and the
 * bench; never by a lab, and never needed to build a student's code.
 *
 *   the tolerance policy's unit      KIT_UNIT_ROUNDOFF
 *   the error handler                kit_set_error_handler
 *   the copy record                  kit_copy_count, kit_copy_at, kit_checksum
 *   the grader's tests of the checks kit_spoil
 *   the device, for the runner       kit_device_peak_gbs, kit_set_schedule, kit_pin_host, ...
 *   the record keepers               kit_keep_launch, ... (the harness's own)  */
#ifndef KIT_INTERNAL_H
#define KIT_INTERNAL_H

#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* u = 2^-24 of kit.h's tolerance policy (part 9) */
#define KIT_UNIT_ROUNDOFF (1.0 / 16777216.0)

/* Whether snapshots are on (kit_set_snapshots; kit_hooks.h declares it for
 * ASSERT_INVARIANT too). */
int kit_snapshots_on(void);

/* ---- The error handler ----------------------------------------------------------
 * A failed CHECK or LAUNCH, or kit_fail, calls it with "file:line: what";
 * by default (NULL) the message is printed and the program exits(1).  The
 * runner turns it into the item's feedback. */
typedef void (*kit_error_handler)(const char *message);
void kit_set_error_handler(kit_error_handler handler);

/* ---- The copy record --------------------------------------------------------------
 * In a .cu file that includes kit.h, every cudaMemcpy is recorded
 * (kit_hooks.h): which way it went, how many bytes, the device address, how
 * many launches came before it, and a checksum of the bytes.  The grader
 * uses the record to tell results the kernels computed from results the
 * host computed: what a lab function returns must be what came back from
 * the device.  Some other calls are noted in the same record (no bytes
 * copied):
 *   - every cudaEventRecord (KIT_EVENT), so that a lab that says "time the
 *     kernel with events" can be checked: two events around its launch;
 *   - every cudaEventCreate (or ...WithFlags) and cudaEventDestroy, and the
 *     same for streams (KIT_EVENT_CREATED ... KIT_STREAM_DESTROYED, the
 *     handle in device_address), so that the grader can see whether a call
 *     destroys every event and stream it creates;
 *   - what a call that waits for the device (cudaDeviceSynchronize,
 *     cudaStreamSynchronize, cudaEventSynchronize, cudaMemcpy,
 *     cudaDeviceReset) wrote on stdout while it waited (KIT_PRINTED: from
 *     offset device_address, `bytes` long).  CUDA shows kernel printf then,
 *     and only then, so lines the host printed never fall inside one.  Noted
 *     only where stdout is a file (as the grader's is), not a terminal.
 * kit_reset_records() forgets it with the other records. */
typedef enum {
    KIT_TO_DEVICE, KIT_TO_HOST, KIT_ON_DEVICE, KIT_ON_HOST, KIT_EITHER_WAY, KIT_EVENT,
    KIT_EVENT_CREATED, KIT_EVENT_DESTROYED, KIT_STREAM_CREATED, KIT_STREAM_DESTROYED, KIT_PRINTED
} kit_copy_direction;
typedef struct {
    kit_copy_direction direction;  /* KIT_EITHER_WAY: cudaMemcpyDefault */
    size_t bytes;                  /* KIT_PRINTED: the bytes written on stdout */
    uint64_t device_address;       /* the device side (the destination of a copy on the device); KIT_EVENT_*
                                      and KIT_STREAM_*: the handle; KIT_PRINTED: the offset in stdout */
    int launches_before;
    int device;                    /* the device current (cudaSetDevice) at the call */
    uint64_t checksum;             /* kit_checksum() of the bytes copied */
    uint64_t host_address;         /* the host side (the destination of a copy to the host); in the grader's
                                      records: its offset in the arrays the grader shared with the last call, or
                                      KIT_NOT_SHARED */
    const char *file;
    int line;
} kit_copy;
#define KIT_NOT_SHARED UINT64_MAX
int kit_copy_count(void);
const kit_copy *kit_copy_at(int i);
uint64_t kit_checksum(const void *bytes, size_t size); /* plain C, for the grader too */

/* ---- The grader's tests of the code's checks ------------------------------------
 * Does the code notice when something goes wrong?  The grader asks the
 * harness to spoil one thing, once, and watches what the code does:
 *   KIT_SPOIL_SNAPSHOT, at = r: SNAPSHOT(d_a, n, r) first changes d_a's n
 *       elements in device memory (every 4-byte word XOR 0x40000000), so the
 *       state the code's check reads is wrong: the code must report it;
 *   KIT_SPOIL_COPY_BACK, at = k: the k-th cudaMemcpy to the host after the
 *       first launch (from 0) arrives changed in the same way;
 *   KIT_SPOIL_SYNC: the next cudaDeviceSynchronize() returns
 *       cudaErrorLaunchFailure, as if the kernel had failed while it ran: the
 *       code must report it;
 *   KIT_SLOW_COPIES, at = ms: from now on every cudaMemcpy takes `at` ms
 *       longer, so the phase times that cover copies must grow by as much.
 * kit_reset_records() does not undo it; kit_spoil(KIT_SPOIL_NONE, 0) does. */
typedef enum { KIT_SPOIL_NONE, KIT_SPOIL_SNAPSHOT, KIT_SPOIL_COPY_BACK, KIT_SPOIL_SYNC, KIT_SLOW_COPIES } kit_spoil_kind;
void kit_spoil(int kind, int at);

/* ---- The device, for the runner ----------------------------------------------------- */
double kit_device_peak_gbs(void);          /* the device memory's peak bandwidth in GB/s (0: unknown) */
int kit_device_multiprocessors(void);      /* its streaming multiprocessors (SMs) */
void kit_set_schedule(const char *order);  /* cpu backend: "fwd", "rev", "rand:SEED"; gpu: no-op */
long long kit_device_bytes_in_use(void);   /* the device memory the code's cudaMalloc calls hold now (-1: unknown) */
/* Page-locks the memory through which the grader passes arrays, so that a
 * lab's copies of them run at the bus's speed whatever their size. */
void kit_pin_host(void *host, size_t bytes);
void kit_unpin_host(void *host);
/* For a lab's given timer: while off, a copy of more than KIT_SUMMED_ALWAYS
 * bytes keeps no checksum of its bytes (0).  Summing is host work in the
 * caller's thread, a pass over every byte (a third of a second for lab 9's
 * 2 GB), which would time the host and make the devices' copies take
 * turns; small copies (a result, a partial) are always summed, so the
 * checks that read them hold inside a timed span too.  On by default. */
#define KIT_SUMMED_ALWAYS 65536
void kit_set_copy_sums(int on);
/* Starts the device now, while the runner still allows new executable
 * mappings (its filter forbids them once the student's code runs). */
void kit_start_device(void);

/* ---- The record keepers: kit.c keeps the records, kit_cuda.cu fills them -----------
 * Hidden from a shared object's exported symbols, so that only the
 * harness's own calls reach them (code in the same shared object still
 * can: the grader treats the records as evidence to cross-check, never as
 * a verdict). */
#define KIT_INTERNAL __attribute__((visibility("hidden")))
/* Takes ownership of `data` (malloc'ed by the caller). */
KIT_INTERNAL void kit_keep_snapshot(void *data, size_t count, size_t element_size, int round,
                                    const void *device_array, const char *file, int line);
KIT_INTERNAL void kit_keep_launch(const kit_launch *launch);
KIT_INTERNAL kit_launch *kit_latest_launch(void);
KIT_INTERNAL void kit_add_timed_ms(double ms);
KIT_INTERNAL void kit_keep_copy(const kit_copy *copy);

#ifdef __cplusplus
}
#endif

#endif /* KIT_INTERNAL_H */
