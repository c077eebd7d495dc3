#!/bin/sh
# tests/check-backend.sh: the cpu backend's own tests (tests/backend/*.cu).
#   - basics, shared, warp, coop: every feature, results asserted;
#   - compat: what GPU programs from outside the kit use (CUDA's header guards,
#     mapped host memory, stream callbacks, ...), results asserted;
#   - intrinsics: CUDA's integer intrinsics (__byte_perm, __funnelshift_*,
#     __dp4a, __fns, __mul24, ...) and cudaLaunchHostFunc, results asserted;
#   - simd: the SIMD intrinsics (__vadd4, __vabsdiffs2, __vcmpgtu4, __vsads4,
#     ...) against values worked out by hand, saturation and signs included;
#   - fidelity: where the backend once differed from a GPU (meta groups of a
#     tile of a tile, clock()), results asserted; its atomics and votes give
#     no TSan report, its never-destroyed stream no leak report;
#   - exposure: student bugs the backend once hid, results asserted: shared
#     memory's fill differs between schedule orders, the watchdog stops an
#     endless kernel and a barrier one thread never reaches (1 s limit; its census
#     counts threads that ended with no record written as exited), and a
#     write far past a device array is reported with the runtime intact;
#   - params: a kernel's by-value arguments are copied once per launch (a
#     textbook Lock whose destructor frees its mutex works, destructors run
#     as often as on a GPU); groups: cg::thread_group as a type, run-time
#     tiles, meta groups of a tile of a tile, binary_partition; stack: a
#     kernel with more locals than the default stack runs once
#     cudaLimitStackSize is raised (its overflow is a diagnostic below);
#   - pipeline: cuda_pipeline.h's copies wait for their group's wait (a
#     destination read early holds its old contents), zfill, sizes, and a
#     misaligned copy fails its launch at its line; libcu++ is refused at
#     its #include;
#   - graph: CUDA graphs' refusals with CUDA's codes (a capture of the legacy
#     stream, one ended on a joined stream, a callback in a capture, a
#     template kernel's node, a cycle); programs/graphs.cu does the work;
#   - texture: arrays, texture and surface objects: the API's refusals with
#     CUDA's codes, a read of the wrong shape, a destroyed object and a
#     surface write outside each fail their launch at their line; texture
#     references are refused at the binding call;
#   - nccl: the kit's NCCL refuses each mistake with NCCL's code and a message
#     naming the ranks and calls (a hang on a GPU: one thread making every
#     rank's calls outside a group, mismatched collectives, a send without
#     its receive; a buffer of another device, mismatched counts), with 1
#     to 4 emulated devices, and programs/nccl_*.cu's results with as many;
#   - cputime: the watchdog counts CPU time, not time on the clock: with a
#     limit of 1 s and three busy processes on the program's one CPU, a
#     kernel that needs 0.6 s of CPU time (over 2 s on the clock) runs to its
#     end, and an endless loop is stopped after 1 s of CPU time;
#   - spread: a launch's blocks spread over host threads (CUDAEMU_CPUS=4):
#     several threads ran them, atomics across blocks, counts, kernel printf
#     in block order, an assert, a far write and an endless block each
#     stop the launch with one message; one thread when an order is set;
#   - diagnostics: each planted bug is reported at its own file and line, and
#     the launch fails with a sticky error whose message names that line;
#   - race: a reduction missing a __syncthreads gives a wrong sum in some
#     schedule order, and the TSan build names the racing line (also PMPP's
#     domino scan's read after the loop); warpsync: the TSan build says of
#     a race between lanes of one warp on shared memory that the code relies
#     on warp-synchronous execution and needs __syncwarp();
#   - fill: device and managed memory start zeroed in every build;
#   - coroutines: a kernel with barriers only in its own body runs as
#     coroutines (cudaemu/coroutine.h) in every schedule order, with the
#     results and barrier counts of fibers (those of __syncthreads_count,
#     _and, _or included); one calling a function with a barrier, one with a
#     warp operation, and any with CUDAEMU_COROUTINES=0 run on fibers;
#   - asan: out-of-bounds global and shared accesses and a leak, in the ASan build;
#   - a compile error in a kernel with barriers (which has a twin) is said once;
#   - rewrite/*.cu: CUDA forms the rewrite step must read (long comments before
#     a kernel's body, one kernel name in two namespaces, aligned and struct
#     __shared__ variables, braced launch configurations, '>' in template
#     arguments), and the messages it stops with on forms it cannot read;
#   - devices: the emulated devices (CUDAEMU_DEVICES, 2 by default): with 1,
#     2, 3 and 8 devices, memory, streams and events per device, a kernel
#     each, peer access and peer copies, per-device synchronization and
#     reset; two host threads on two devices; a kernel handed another
#     device's memory without peer access fails at its launch line, and
#     cudaSetDevice(N), a peer copy naming the wrong device and a launch into
#     another device's stream fail with CUDA's codes and their messages; a
#     bad CUDAEMU_DEVICES stops the program with the reason.  basics and
#     compat assert the single-device answers (device 1 refused), so they run
#     with CUDAEMU_DEVICES=1;
#   - the micro-benchmark builds and runs (its numbers are not checked);
#   - the feature tests again with ASan and with TSan: the same results, no
#     report (TSan: also at -O0, and races it must still name);
#   - cucc includes cuda_runtime.h precompiled (the text with other flags: -G);
#   - programs/*.cu, self-checking programs in the style of textbooks and the
#     vendor's samples, built with cucc plain, with ASan and with TSan: each
#     exits 0 with no report, and prints what it printed on a GPU where
#     that output is kept beside it (.gpu-output).
# Only meaningful for the cpu backend; with BACKEND=gpu it has nothing to do.
set -u
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
if [ "$BACKEND" != cpu ]; then
    ok "# SKIP the cpu backend's tests run with BACKEND=cpu"
    finish
fi

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
show() { sed 's/^/#   /' "$1" | head -${2:-15}; }

# ---- build: plain, ASan, TSan ------------------------------------------------------------
# (CHECK_BACKEND_QUICK=1, make check's tier: the plain build and its features only)
sanitizers="address thread"
[ -n "${CHECK_BACKEND_QUICK:-}" ] && sanitizers=""
for san in "" $sanitizers; do
    if make -s -j2 -f tests/backend/backend.mk SANITIZE=$san tests > "$log/build" 2>&1; then
        ok "backend tests build${san:+ with SANITIZE=$san}"
    else
        not_ok "backend tests build${san:+ with SANITIZE=$san}"
        show "$log/build" 30
        finish
    fi
done
T=build/cpu/backend-tests

# ---- features ------------------------------------------------------------------------------
# basics and compat assert what one device answers (cudaSetDevice(1) and
# peer access to device 1 refused): they run with one emulated device.
devices_for() { case $1 in basics|compat) echo CUDAEMU_DEVICES=1 ;; *) echo CUDAEMU_DEVICES=${CUDAEMU_DEVICES:-2} ;; esac; }
for t in basics shared warp coop compat intrinsics simd fidelity exposure params groups stack pipeline texture graph graph_memory devices nccl fill coroutines batch; do
    if env $(devices_for $t) timeout 60 $T/$t > "$log/out" 2>&1; then ok "$t: every feature gives the asserted result"
    else not_ok "$t"; show "$log/out"; fi
done
if timeout 60 $T/pipeline misaligned > "$log/out" 2>&1; then
    ok "pipeline: a misaligned asynchronous copy fails its launch at its line"
else not_ok "pipeline misaligned"; show "$log/out"; fi
for part in shape stale trap; do
    if timeout 60 $T/texture $part > "$log/out" 2>&1; then
        ok "texture $part: the launch fails at the kernel's line with the reason"
    else not_ok "texture $part"; show "$log/out"; fi
done
# (a batch's thread stopped mid-batch: the census names it and counts the
# threads before it as ended, the rest as not started)
CUDAEMU_WATCHDOG_SECONDS=1 timeout 60 $T/batch endless > "$log/out" 2>&1
if [ $? = 0 ] && grep -q "in block 1, 1 thread still running (37: .*), 37 exited, 218 not started yet" "$log/out"; then
    ok "batch endless: a thread stopped in the middle of a batch is named, with the block's counts"
else
    not_ok "batch endless: a thread stopped in the middle of a batch is named, with the block's counts"; show "$log/out"
fi
timeout 60 $T/shared printf > "$log/out" 2>&1
if printf 'before the synchronisation\nhello from thread 0 of block 0\nhello from thread 1 of block 0\nhello from thread 0 of block 1\nhello from thread 1 of block 1\n' | cmp -s - "$log/out"; then
    ok "kernel printf: thread order, shown at the synchronisation, lost without one (as on a GPU)"
else
    not_ok "kernel printf"; show "$log/out"
fi

[ -n "${CHECK_BACKEND_QUICK:-}" ] && finish

# ---- a launch's blocks spread over host threads (4, even where there are fewer CPUs) ------------
for part in results assert far wild endless; do
    if CUDAEMU_CPUS=4 timeout 60 $T/spread $part > "$log/out" 2>&1; then
        ok "spread $part: the asserted results over 4 host threads"
    else not_ok "spread $part"; show "$log/out"; fi
done
CUDAEMU_CPUS=4 timeout 60 $T/spread assert > "$log/out" 2>&1
if [ "$(grep -c 'error:' "$log/out")" = 1 ]; then ok "spread assert: one message, though other blocks run on"
else not_ok "spread assert: one message"; show "$log/out"; fi
CUDAEMU_CPUS=4 timeout 60 $T/spread printf > "$log/out" 2>&1
if seq 0 63 | sed 's/^/block /' | cmp -s - "$log/out"; then
    ok "spread printf: kernel printf of 64 blocks on 4 host threads comes out in block order"
else
    not_ok "spread printf: block order"; show "$log/out"
fi

# ---- NCCL with 1 to 4 emulated devices: the errors, every collective, one thread per rank ------------
if timeout 60 $T/nccl init_alone > "$log/out" 2>&1; then
    ok "nccl init_alone: ncclCommInitRank waiting for a rank no thread can join is an error at once"
else not_ok "nccl init_alone"; show "$log/out"; fi
for program in nccl_collectives nccl_threads; do
    common/cpu/cucc -o "$log/$program" tests/backend/programs/$program.cu > "$log/out" 2>&1 ||
        { not_ok "programs/$program.cu builds with cucc"; show "$log/out"; }
done
for n in 1 2 3 4; do
    for prog in "$T/nccl" "$log/nccl_collectives" "$log/nccl_threads"; do
        if CUDAEMU_DEVICES=$n timeout 120 $prog > "$log/out" 2>&1; then
            ok "$(basename $prog) with CUDAEMU_DEVICES=$n: the asserted results and messages"
        else not_ok "$(basename $prog) with CUDAEMU_DEVICES=$n"; show "$log/out"; fi
    done
done

# ---- the watchdog on a busy machine: CPU time counts, not time on the clock --------------------
if timeout 60 $T/cputime > "$log/out" 2>&1; then
    ok "cputime: on a busy CPU a kernel within the watchdog's CPU time runs to its end, an endless one is stopped"
    show "$log/out" 2
else not_ok "cputime"; show "$log/out"; fi

# ---- the same features with ASan and with TSan: the same results, and not one report ----------
# (exposure's poison part only: its others stop kernels the sanitizers stop
# on their own, and the TSan build has no watchdog)
for san in address thread; do
    for t in basics shared warp coop compat intrinsics simd fidelity params groups stack pipeline texture graph graph_memory nccl "exposure poison" devices "devices threads" fill coroutines batch; do
        if env $(devices_for $t) timeout 300 build/cpu-$san/backend-tests/$t > "$log/out" 2>&1 && ! grep -q "Sanitizer" "$log/out"; then
            ok "$t with SANITIZE=$san: the asserted results, no report"
        else
            not_ok "$t with SANITIZE=$san: the asserted results, no report"; show "$log/out" 30
        fi
    done
done

# ---- expect_report PROGRAM CASE FILE: runs `PROGRAM CASE` and checks that its
# output has "FILE:LINE: ... REGEX" for the line marked "expect CASE: REGEX".
expect_report() {
    prog=$1 case=$2 src=$3 what=$4
    line=$(grep -n "expect $case: " "$src" | head -1 | cut -d: -f1)
    regex=$(grep "expect $case: " "$src" | head -1 | sed "s/.*expect $case: \(.*\) \*\/.*/\1/")
    timeout 60 $prog $case > "$log/out" 2> "$log/err"
    rc=$?
    if [ -z "$line" ]; then
        not_ok "$case: no 'expect $case:' mark in $src"
    elif ! grep -q -- "$src:$line" "$log/err" || ! grep -q -E -- "$regex" "$log/err"; then
        not_ok "$case: $what at $src:$line matching /$regex/"
        show "$log/err"
    else
        echo "$rc" > "$log/rc"
        return 0
    fi
    return 1
}

# ---- diagnostics ----------------------------------------------------------------------------
for c in divergence exited mask_exited mask_caller mask_absent read_outside width mixed deadlock tile_exited tile_elsewhere tile_uneven \
         grid_sync out_of_bounds stack assert graph_node; do
    src=tests/backend/diagnostics.cu
    if expect_report $T/diagnostics $c $src "an error"; then
        line=$(grep -n "expect $c: " $src | head -1 | cut -d: -f1)
        if [ "$(cat "$log/rc")" = 0 ] && grep -q -- "$src:$line: error: " "$log/err" &&
           grep -q "^message: $src:$line: " "$log/out"; then
            ok "diagnostic $c: reported at $src:$line, the launch fails with that message, the error is sticky"
        else
            not_ok "diagnostic $c: the CUDA side (error code, message, stickiness)"
            show "$log/out"; show "$log/err"
        fi
    fi
done

# ---- several devices (tests/backend/devices.cu) ------------------------------------------------
for n in 1 2 3 8; do
    if CUDAEMU_DEVICES=$n timeout 60 $T/devices work > "$log/out" 2>&1; then
        ok "devices: with $n emulated device(s), memory, streams, events, kernels and peer copies per device"
    else not_ok "devices work with CUDAEMU_DEVICES=$n"; show "$log/out"; fi
done
if timeout 60 $T/devices threads > "$log/out" 2>&1; then
    ok "devices: two host threads, each with a current device of its own"
else not_ok "devices threads"; show "$log/out"; fi
# a kernel handed another device's memory: at its launch line on stderr, a sticky error naming it
src=tests/backend/devices.cu
for n in 2 3; do
    export CUDAEMU_DEVICES=$n
    for c in foreign foreign_struct; do
        if expect_report $T/devices $c $src "a kernel handed another device's memory"; then
            line=$(grep -n "expect $c: " $src | head -1 | cut -d: -f1)
            if [ "$(cat "$log/rc")" = 0 ] && grep -q "^code: cudaErrorIllegalAddress" "$log/out" &&
               grep -q "^message: $src:$line: " "$log/out"; then
                ok "devices $c ($n devices): refused at $src:$line, a sticky cudaErrorIllegalAddress naming it"
            else
                not_ok "devices $c ($n devices): the CUDA side (error code, message, stickiness)"
                show "$log/out"; show "$log/err"
            fi
        fi
    done
done
unset CUDAEMU_DEVICES
# refused calls: CUDA's code (the program checks it), and the message printed
for n in 2 3; do
    export CUDAEMU_DEVICES=$n
    for c in set_device peer_copy stream; do
        line=$(grep -n "expect $c: " $src | head -1 | cut -d: -f1)
        regex=$(grep "expect $c: " $src | head -1 | sed "s/.*expect $c: \(.*\) \*\/.*/\1/")
        timeout 60 $T/devices $c > "$log/out" 2>&1
        rc=$?
        if [ $rc = 0 ] && grep "^message: " "$log/out" | grep -q -E -- "$regex" &&
           { [ $c != stream ] || grep -q "^message: .*$src:$line: launch" "$log/out"; }; then
            ok "devices $c ($n devices): CUDA's code, and the message /$regex/"
        else
            not_ok "devices $c ($n devices): CUDA's code and the message /$regex/"; show "$log/out"
        fi
    done
done
unset CUDAEMU_DEVICES
if CUDAEMU_DEVICES=3 timeout 60 $T/devices set_device | grep -q "there is no device 3; the cpu backend emulates 3 devices, 0 to 2"; then
    ok "devices: cudaSetDevice(3) with 3 devices names them"
else not_ok "devices: cudaSetDevice(3) with 3 devices names them"; fi
for bad in 0 9 two -1; do
    CUDAEMU_DEVICES=$bad timeout 60 $T/devices work > "$log/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -q "^cudaemu: CUDAEMU_DEVICES=\"$bad\": the number of emulated devices must be a whole number from 1 to 8" "$log/out" &&
       [ "$(wc -l < "$log/out")" = 1 ]; then
        ok "devices: CUDAEMU_DEVICES=\"$bad\" stops the program at its first CUDA call with the reason"
    else
        not_ok "devices: CUDAEMU_DEVICES=\"$bad\" is refused with the reason (exit $rc)"; show "$log/out"
    fi
done

# ---- races: schedule orders and TSan ------------------------------------------------------------
if timeout 60 $T/race schedules > "$log/out" 2>&1; then
    ok "a reduction missing __syncthreads: wrong in some schedule order, the correct one right in all"
    show "$log/out" 6
else
    not_ok "schedule orders expose the missing __syncthreads"; show "$log/out"
fi
racy_line=$(grep -n "racy: no barrier" tests/backend/race.cu | cut -d: -f1)
timeout 120 build/cpu-thread/backend-tests/race racy > "$log/out" 2>&1
if grep -q "WARNING: ThreadSanitizer: data race" "$log/out" && grep -q "SUMMARY: ThreadSanitizer: data race tests/backend/race.cu:$racy_line" "$log/out"; then
    ok "TSan build: the missing __syncthreads is a data race at tests/backend/race.cu:$racy_line"
else
    not_ok "TSan build names the racing line $racy_line"; show "$log/out" 30
fi
if timeout 120 build/cpu-thread/backend-tests/race correct > "$log/out" 2>&1 && ! grep -q ThreadSanitizer "$log/out"; then
    ok "TSan build: no report on the correct reduction"
else
    not_ok "TSan build reports a race on the correct reduction"; show "$log/out" 30
fi
# races TSan must still name: between two threads that run one after the
# other without waiting (in the program's first launch), a plain write
# among atomics (an atomic shows itself to TSan as an atomic read), and a
# read after a loop of barriers (or __syncwarp) of what another thread wrote
# after the loop's last one, a barrier following (PMPP's domino scan)
for c in neighbours zeroed domino warp_domino; do
    line=$(grep -n "/\* $c: " tests/backend/race.cu | cut -d: -f1)
    timeout 120 build/cpu-thread/backend-tests/race $c > "$log/out" 2>&1
    # (the domino's report is at the later access, the write, and names the read)
    read_line=$(grep -n "/\* $c read: " tests/backend/race.cu | cut -d: -f1)
    if grep -q "SUMMARY: ThreadSanitizer: data race tests/backend/race.cu:$line" "$log/out" &&
       { [ -z "$read_line" ] || grep -q "race.cu:$read_line " "$log/out"; }; then
        ok "TSan build: the race '$c' is reported at tests/backend/race.cu:$line${read_line:+ with the read at $read_line}"
    else
        not_ok "TSan build names the race '$c' at tests/backend/race.cu:$line"; show "$log/out" 30
    fi
done
if timeout 120 build/cpu-thread/backend-tests/race domino_fixed > "$log/out" 2>&1 && ! grep -q ThreadSanitizer "$log/out"; then
    ok "TSan build: no report on the domino scan with its barrier"
else
    not_ok "TSan build reports a race on the domino scan with its barrier"; show "$log/out" 30
fi
# warp-synchronous code (the unrolled last-warp reduction on volatile shared
# memory, no __syncwarp): TSan's report and the backend's line on it, at the
# racing line; with __syncwarp, right and no report; a race between two
# warps gets TSan's report and no such line
W=build/cpu-thread/backend-tests/warpsync
line=$(grep -n "/\* warpsync: " tests/backend/warpsync.cu | cut -d: -f1)
TSAN_OPTIONS="halt_on_error=1" timeout 120 $W racy > "$log/out" 2>&1
if grep -q "SUMMARY: ThreadSanitizer: data race tests/backend/warpsync.cu:$line" "$log/out" &&
   grep -q "^tests/backend/warpsync.cu:$line: warning: .*(lanes [0-9]* and [0-9]* of warp 0.*relies on warp-synchronous execution.*add __syncwarp()" "$log/out"; then
    ok "TSan build: warp-synchronous code is named at tests/backend/warpsync.cu:$line as needing __syncwarp()"
else
    not_ok "TSan build: a word on warp-synchronous code at tests/backend/warpsync.cu:$line"; show "$log/out" 40
fi
if timeout 120 $W fixed > "$log/out" 2>&1 && ! grep -q "ThreadSanitizer\|warp-synchronous" "$log/out" &&
   timeout 60 $T/warpsync fixed > "$log/out" 2>&1; then
    ok "warpsync fixed: the reduction with __syncwarp is right (plain and TSan), no report"
else
    not_ok "warpsync fixed"; show "$log/out" 30
fi
timeout 120 $W blocks > "$log/out" 2>&1
if grep -q "SUMMARY: ThreadSanitizer: data race" "$log/out" && ! grep -q "warp-synchronous" "$log/out"; then
    ok "TSan build: a race between two warps is not called warp-synchronous"
else
    not_ok "TSan build: a race between two warps"; show "$log/out" 30
fi
# the backend's own atomics (a compare-and-swap loop for float, max, ...) and
# votes pass through its code and the fibers' stacks, and a kernel's locals
# and the programming guide's atomicCAS loop (a plain read first) are no
# race either: none may be reported, at -O2 (the kit's builds) nor at -O0
# (cucc -G, nvcc's device debugging: every local is on the thread's stack;
# -O0 alone is for host code, as nvcc's, and leaves a .cu file at -O2)
if common/cpu/cucc -G --sanitize=thread -Itests/backend -o "$log/fidelity-O0" tests/backend/fidelity.cu > "$log/out" 2>&1; then
    ok "cucc -G --sanitize=thread builds tests/backend/fidelity.cu"
else
    not_ok "cucc -G --sanitize=thread builds tests/backend/fidelity.cu"; show "$log/out"
fi
for part in atomics votes locals cas_loop; do
    for build in build/cpu-thread/backend-tests/fidelity "$log/fidelity-O0"; do
        level=-O2; [ "$build" = "$log/fidelity-O0" ] && level=-O0
        if timeout 120 $build $part > "$log/out" 2>&1 && ! grep -q ThreadSanitizer "$log/out"; then
            ok "TSan build ($level): no report on $part"
        else
            not_ok "TSan build ($level) reports a race in $part"; show "$log/out" 30
        fi
    done
done

# each thread's copy of a by-value struct argument sits where the previous
# thread's did: no report either
if timeout 120 build/cpu-thread/backend-tests/params > "$log/out" 2>&1 && ! grep -q ThreadSanitizer "$log/out"; then
    ok "TSan build: no report on kernels' by-value struct arguments"
else
    not_ok "TSan build reports a race on by-value struct arguments"; show "$log/out" 30
fi

# ---- ASan -----------------------------------------------------------------------------------------
A=build/cpu-address/backend-tests/asan
for c in global shared dynamic leak; do
    if expect_report $A $c tests/backend/asan.cu "an ASan report"; then
        if [ "$(cat "$log/rc")" != 0 ]; then ok "ASan build: $c reported at its line"
        else not_ok "ASan build: $c reported but the program exited 0"; fi
    fi
done
if timeout 60 $A clean > "$log/out" 2>&1; then ok "ASan build: no report on correct kernels"
else not_ok "ASan build reports correct kernels"; show "$log/out" 30; fi
# a stream and an event never destroyed are no leak (CUDA frees them with the
# context), and the program's buffered output survives LeakSanitizer
if timeout 60 build/cpu-address/backend-tests/fidelity streams > "$log/out" 2> "$log/err" &&
   ! grep -q LeakSanitizer "$log/err" && [ "$(cat "$log/out")" = "fidelity: done" ]; then
    ok "ASan build: no leak report on streams and events never destroyed, output kept"
else
    not_ok "ASan build: streams and events never destroyed"; show "$log/out"; show "$log/err" 30
fi
if timeout 60 $A leak > "$log/out" 2> "$log/err"; [ "$(cat "$log/out")" = "before the leak" ]; then
    ok "ASan build: the program's buffered output comes out before LeakSanitizer's report"
else
    not_ok "ASan build: output lost to a leak report"; show "$log/out"
fi

# ---- cucc: a standalone program, compiled as with nvcc ---------------------------------------
# (and the spaced forms nvcc reads too: --relocatable-device-code true, -rdc false)
if common/cpu/cucc -O2 -arch=sm_90 -lineinfo --relocatable-device-code true -rdc false -o "$log/race" \
       tests/backend/race.cu -Itests/backend > "$log/out" 2>&1 &&
   timeout 60 "$log/race" schedules > "$log/out2" 2>&1; then
    ok "cucc compiles and links a standalone .cu program with nvcc's flags"
else
    not_ok "cucc"; show "$log/out"; show "$log/out2" 2>/dev/null
fi
# cucc includes cuda_runtime.h precompiled (g++ -H marks a header it took
# precompiled with "!"); with -G (other flags) it reads the text, and the
# program still builds and runs
for opt in "" -G; do
    if common/cpu/cucc $opt -Xcompiler -H -o "$log/pch$opt" tests/backend/programs/dot_shared.cu > "$log/out" 2>&1 \
       && timeout 60 "$log/pch$opt" > "$log/out2" 2>&1; then
        used=$(grep -c '^! .*/pch-cucc/cuda_runtime\.h\.gch' "$log/out")
        if [ "$opt" = "" ] && [ "$used" = 1 ]; then ok "cucc includes cuda_runtime.h precompiled"
        elif [ "$opt" = -G ] && [ "$used" = 0 ]; then ok "cucc -G reads cuda_runtime.h as text (other flags), and the program runs"
        else not_ok "cucc $opt: the precompiled cuda_runtime.h taken $used times"; show "$log/out"; fi
    else
        not_ok "cucc $opt -Xcompiler -H builds and runs programs/dot_shared.cu"; show "$log/out"; show "$log/out2"
    fi
done
# a program guarded as the CUDA samples' helper_cuda.h is: without CUDA's
# include guards it has no main
cat > "$log/guards.cu" <<'EOF'
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <stdio.h>
#ifndef __DRIVER_TYPES_H__
#error "no __DRIVER_TYPES_H__"
#endif
#ifdef __CUDA_RUNTIME_H__
int main(void)
{
    int mode = -1;
    cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);
    printf("compute mode %s\n", mode == cudaComputeModeDefault ? "default" : "other");
    return cudaProfilerStart() != cudaSuccess || cudaProfilerStop() != cudaSuccess;
}
#endif
EOF
if common/cpu/cucc -o "$log/guards" "$log/guards.cu" > "$log/out" 2>&1 &&
   [ "$(timeout 60 "$log/guards" 2>&1)" = "compute mode default" ]; then
    ok "cucc compiles a program guarded as helper_cuda.h is (__CUDA_RUNTIME_H__, __DRIVER_TYPES_H__)"
else
    not_ok "cucc and CUDA's header guards"; show "$log/out"
fi
# a host .cpp file gets the backend's cuda_runtime.h, not a CUDA toolkit's
# from the default include path (its structs differ), as nvcc gives it CUDA's
cat > "$log/host.cpp" <<'EOF'
#include <cuda_runtime.h>
#include <stdio.h>
void fill(int *out);
int main(void)
{
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
        return 1;
    int *d, h = 0;
    cudaMalloc(&d, sizeof h);
    fill(d);
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s, warp size %d, %d\n", prop.name, prop.warpSize, h);
    return 0;
}
EOF
cat > "$log/fill.cu" <<'EOF'
static __global__ void set(int *out) { *out = 42; }
void fill(int *out) { set<<<1, 1>>>(out); }
EOF
if common/cpu/cucc -o "$log/host" "$log/host.cpp" "$log/fill.cu" > "$log/out" 2>&1 &&
   [ "$(timeout 60 "$log/host" 2>&1)" = "CUDA Labs emulated GPU (cpu backend), warp size 32, 42" ]; then
    ok "cucc compiles a host .cpp with the backend's cuda_runtime.h (not a toolkit's in the default path)"
else
    not_ok "cucc: a host .cpp and the backend's headers"; show "$log/out"
fi
# __host__ __device__ (and a __device__ declaration) in a host .cpp that
# includes cuda_runtime.h, as nvcc's host compiler reads them: a plain function
printf '#include <cuda_runtime.h>\n#include <stdio.h>\n__host__ __device__ inline int twice(int x) { return 2 * x; }\n__device__ int on_device_only(int x);\n__global__ void kernel_elsewhere(int *out);\nint main(void) { printf("%%d\\n", twice(21)); return 0; }\n' > "$log/qualifiers.cpp"
if common/cpu/cucc -o "$log/qualifiers" "$log/qualifiers.cpp" > "$log/out" 2>&1 && [ "$(timeout 60 "$log/qualifiers" 2>&1)" = 42 ]; then
    ok "cucc compiles __host__ __device__ functions in a host .cpp, as nvcc's host compiler does"
else
    not_ok "cucc and __host__ __device__ in a host .cpp"; show "$log/out"
fi
# no g++ warning comes from the backend's headers in any build: a kernel
# with the three fences, atomics, barriers (and TSan once warned at every
# __threadfence, "atomic_thread_fence is not supported with -fsanitize=thread")
for san in "" address thread; do
    if common/cpu/cucc ${san:+--sanitize=$san} -Xcompiler -Wall,-Wextra,-Werror -o "$log/fences" \
           tests/backend/programs/threadfence_sum.cu > "$log/out" 2>&1 && ! grep -q "warning" "$log/out"; then
        ok "cucc${san:+ --sanitize=$san} -Wall -Wextra -Werror: no warning from the backend's headers (__threadfence and friends)"
    else
        not_ok "cucc${san:+ --sanitize=$san}: warnings from the backend's headers"; show "$log/out"
    fi
done
# ---- refused: what the backend does not provide stops the build with the reason ----------------
# refused NAME.EXT WHAT REGEX [CUCC FLAGS]: $log/NAME.EXT (written just before)
# must not build, and cucc's output must match REGEX
refused() {
    src=$1 what=$2 regex=$3
    shift 3
    if ! common/cpu/cucc "$@" -o "$log/refused" "$log/$src" > "$log/out" 2>&1 && grep -q -- "$regex" "$log/out"; then
        ok "cucc refuses $what with the reason"
    else
        not_ok "cucc and $what"; show "$log/out"
    fi
}
# coalesced_threads(), at the line that calls it
printf '#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *o)\n{\n    cg::coalesced_group g = cg::coalesced_threads();\n    o[g.thread_rank()] = 1;\n}\nint main(void) { return 0; }\n' > "$log/coalesced.cu"
refused coalesced.cu "coalesced_threads() at its line" "coalesced.cu:5:.*error: .*coalesced_threads() is not supported by the cpu backend"
# a warp's operation on a tile of more than one warp (CUDA has none either)
printf '#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *o)\n{\n    cg::thread_block_tile<64> t = cg::tiled_partition<64>(cg::this_thread_block());\n    o[t.thread_rank()] = t.shfl_down((int)t.thread_rank(), 1);\n}\nint main(void) { return 0; }\n' > "$log/bigtile.cu"
refused bigtile.cu "shfl_down on a tile of 64 threads" "a thread_block_tile of more than 32 threads has sync, shfl, any and all"
# ... and such a tile is not a cg::thread_group (in CUDA either)
printf '#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__device__ void f(cg::thread_group g) { g.sync(); }\n__global__ void k(int *o)\n{\n    f(cg::tiled_partition<64>(cg::this_thread_block()));\n}\nint main(void) { return 0; }\n' > "$log/bigtilegroup.cu"
refused bigtilegroup.cu "a tile of 64 threads passed as a cg::thread_group" "bigtilegroup.cu:6:.*error: could not convert .*thread_block_tile<64.* to .*thread_group"
printf '#include <cublas_v2.h>\nint main(void) { return 0; }\n' > "$log/blas.cu"
refused blas.cu "cuBLAS" "cuBLAS"
# a CUDA header the backend lacks, found in an installed toolkit (here a
# stand-in, a system header that says NVIDIA), in .cu and .cpp; the list
# of the headers it has leaves its refusals (mma.h, ...) out
mkdir -p "$log/toolkit"
printf '/* Copyright NVIDIA Corporation (a stand-in for a toolkit header) */\nstruct char1 { signed char x; };\n' > "$log/toolkit/cuda_occupancy.h"
printf '#include <cuda_occupancy.h>\nint main(void) { return 0; }\n' > "$log/occ.cu"
cp "$log/occ.cu" "$log/occ.cpp"
for f in occ.cu occ.cpp; do
    refused $f "a toolkit header it lacks ($f), naming it and the headers it has" \
        "$f includes $log/toolkit/cuda_occupancy.h, a header of the CUDA toolkit installed on this machine: the cpu backend does not provide cuda_occupancy.h. Its CUDA headers are: .*cuda_runtime.h" \
        -Xcompiler=-isystem,"$log/toolkit"
done
if grep -q "headers are: .* mma.h" "$log/out"; then not_ok "cucc's list of its headers names a refusal"; show "$log/out"; fi
# ... but a program's own header that says NVIDIA (the samples' helpers do)
# and uses a system macro (NULL, stderr) is the program's: it builds
mkdir -p "$log/own"
printf '/* Copyright NVIDIA Corporation (a helper of the program'"'"'s own) */\n#include <stdio.h>\nstatic int *nothing(void) { fprintf(stderr, "%%s", ""); return NULL; }\n' > "$log/own/helper.h"
printf '#include <helper.h>\nint main(void) { return nothing() != NULL; }\n' > "$log/own.cu"
if common/cpu/cucc -I "$log/own" -o "$log/own-prog" "$log/own.cu" > "$log/out" 2>&1 && "$log/own-prog"; then
    ok "cucc builds a program whose own header says NVIDIA and uses NULL and stderr"
else
    not_ok "cucc refuses a program's own header"; show "$log/out"
fi
# inline PTX from a header of the program's (the .cu's own is refused
# before preprocessing), named at the header's line; x86 assembly in a host
# header is the host's and builds
mkdir -p "$log/asm"
printf 'static __device__ unsigned absdiff4(unsigned a, unsigned b)\n{\n    unsigned r;\n    asm("vabsdiff4.u32.u32.u32.add %%0, %%1, %%2, %%3;" : "=r"(r) : "r"(a), "r"(b), "r"(0));\n    return r;\n}\n' > "$log/asm/simd.h"
printf '#include "asm/simd.h"\n__global__ void k(unsigned *o) { *o = absdiff4(1, 2); }\nint main(void) { return 0; }\n' > "$log/ptxheader.cu"
refused ptxheader.cu "inline PTX in an included header, at its line" "asm/simd.h:4: inline PTX assembly"
printf 'static inline unsigned long long ticks(void)\n{\n    unsigned lo, hi;\n    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));\n    return ((unsigned long long)hi << 32) | lo;\n}\n' > "$log/asm/x86.h"
printf '#include "asm/x86.h"\n__global__ void k(int *o) { *o = 1; }\nint main(void) { return ticks() == 0; }\n' > "$log/x86header.cu"
if common/cpu/cucc -o "$log/x86header" "$log/x86header.cu" > "$log/out" 2>&1 && "$log/x86header"; then
    ok "cucc builds a program whose own host header holds x86 assembly"
else
    not_ok "cucc and x86 assembly in a host header"; show "$log/out"
fi
# what the backend does not emulate, at the #include
printf '#include <mma.h>\nint main(void) { return 0; }\n' > "$log/wmma.cu"
refused wmma.cu "mma.h (tensor cores) at its #include" "error: .*mma.h: the warp matrix functions (wmma::fragment, mma_sync) of tensor cores are not provided by the cpu backend"
# texture references (removed in CUDA 12), at the call that binds one
printf 'int main(void)\n{\n    float *d;\n    cudaMalloc(&d, 64);\n    cudaBindTexture(0, 0, d, 64);\n    return 0;\n}\n' > "$log/texref.cu"
refused texref.cu "texture references at the binding call" "texref.cu:5:.*error: .*texture references (texture<...> with cudaBindTexture) were removed in CUDA 12"
# libcu++: <cuda/std/atomic> in the .cu itself; <cuda/barrier> from a header
# of the program's, which only the backend's own cuda/barrier can stop
printf '#include <cuda/std/atomic>\nint main(void) { return 0; }\n' > "$log/libcudacxx.cu"
printf '#include <cuda/barrier>\n' > "$log/mine.h"
printf '#include "mine.h"\nint main(void) { return 0; }\n' > "$log/libcudacxx2.cu"
for f in libcudacxx libcudacxx2; do
    refused $f.cu "libcu++ ($(head -1 "$log/$f.cu"))" "libcu++ (<cuda/barrier>, <cuda/pipeline>.*) is not provided by the cpu backend"
done

# ---- the rewrite step (rewrite.pl) on valid CUDA forms, and its messages -----------------------
# tests/backend/rewrite/NAME.cu begins with "/* expect: runs" (built with cucc,
# it runs and its checks pass) or "/* expect error: MESSAGE */" (cucc stops
# with exactly "FILE:LINE: error: MESSAGE", LINE being the one marked
# "/* here */", and nothing else: no g++ error after it).
for src in tests/backend/rewrite/*.cu; do
    name=rewrite-$(basename "$src" .cu)
    want=$(sed -n '1s/^\/\* expect error: \(.*\) \*\/$/\1/p' "$src")
    if [ -n "$want" ]; then
        line=$(grep -n '/\* here \*/' "$src" | head -1 | cut -d: -f1)
        if ! common/cpu/cucc -o "$log/$name" "$src" > "$log/out" 2>&1 &&
           grep -Fxq -- "$src:$line: error: $want" "$log/out" && [ "$(grep -c error "$log/out")" = 1 ]; then
            ok "rewrite: $src stops at line $line with its message"
        else
            not_ok "rewrite: $src stops at line $line with: $want"; show "$log/out"
        fi
    elif head -1 "$src" | grep -q '^/\* expect: runs'; then
        if ! common/cpu/cucc -Itests/backend -o "$log/$name" "$src" > "$log/out" 2>&1; then
            not_ok "rewrite: $src builds with cucc"; show "$log/out"
        elif timeout 60 "$log/$name" > "$log/out" 2>&1; then
            ok "rewrite: $src builds and gives the asserted results"
        else
            not_ok "rewrite: $src gives the asserted results"; show "$log/out"
        fi
    else
        not_ok "rewrite: $src has no '/* expect: runs' or '/* expect error: ... */' first line"
    fi
done

# ---- a split kernel's diagnoses are the coroutines' -------------------------------------------
# (cucc's split form runs a block as loops over its threads, split.h: an
# endless loop in one stretch or the other, and a wild write, must be told
# as when the same kernel runs as coroutines, word for word: who runs, who
# waits at which barrier, who has exited, and the line)
cat > "$log/split_diag.cu" <<'EOF_SPLIT'
#include <stdio.h>
#include <string.h>
__global__ void spin(int *out, int where, int *bad)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    while (where == 1 && threadIdx.x == 7)
        s[threadIdx.x]++;
    __syncthreads();
    int v = s[63 - threadIdx.x];
    while (where == 2 && threadIdx.x == 7)
        v++;
    if (where == 3 && threadIdx.x == 9)
        bad[1 << 28] = 1;
    out[threadIdx.x] = v;
}
int main(int argc, char **argv)
{
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    spin<<<1, 64>>>(out, argc > 1 ? argv[1][0] - '0' : 0, out);
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(err));
    return err != cudaSuccess;
}
EOF_SPLIT
if common/cpu/cucc -o "$log/split_diag" "$log/split_diag.cu" > "$log/out" 2>&1; then
    for where in 1 2 3; do
        CUDAEMU_WATCHDOG_SECONDS=1 "$log/split_diag" $where > "$log/split" 2>&1
        CUDAEMU_COROUTINES=1 CUDAEMU_WATCHDOG_SECONDS=1 "$log/split_diag" $where > "$log/coroutines" 2>&1
        case $where in 1) what="an endless loop before the barrier" ;; 2) what="an endless loop after it" ;;
                       *) what="a wild write" ;; esac
        sed -i 's/0x[0-9a-f]*/ADDRESS/g' "$log/split" "$log/coroutines" # (where a wild write lands)
        if grep -q "split_diag.cu:21: error: .*kernel spin launched at [^ ]*split_diag.cu:21" "$log/split" &&
           cmp -s "$log/split" "$log/coroutines"; then
            ok "split kernel: $what is told as for coroutines"
        else
            not_ok "split kernel: $what is told as for coroutines"; show "$log/split"; show "$log/coroutines"
        fi
    done
else
    not_ok "cucc builds a program with a split kernel"; show "$log/out"
fi

# ---- a compile error in a kernel with a twin is said once ---------------------------------------
# (a kernel with barriers is compiled twice, itself and its twin: where the
# file does not compile it is compiled again without twins, for messages
# that are the code's own, cpu.mk's cu_compile)
cat > "$log/typo.cu" <<'EOF_TYPO'
__global__ void mirror(int *out)
{
    __shared__ int s[32];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIx.x];
}
int main(void) { return 0; }
EOF_TYPO
if ! common/cpu/cucc -o "$log/typo" "$log/typo.cu" > "$log/out" 2>&1 &&
   [ "$(grep -c "typo.cu:6:.*error: .threadIx. was not declared" "$log/out")" = 1 ] &&
   [ "$(grep -c 'error' "$log/out")" = 1 ]; then
    ok "a compile error in a kernel with barriers is reported once, at its line"
else
    not_ok "a compile error in a kernel with barriers is reported once, at its line"; show "$log/out"
fi

# ---- the kit's builds take cuda_runtime.h precompiled ---------------------------------------------
# (cpu.mk: where g++ cannot use build/cpu/pch's header it reads the text
# instead, correct but three times slower, and says nothing.)  The command
# that builds lab 3's reference fold.o, into a folder of this test's own,
# with -H in its compiles: g++ marks a precompiled header it used with
# "!", one it could not use with "x" (as with -fno-exceptions added).
pch_cmd=$(make -s -B -n BACKEND=cpu build/cpu/lab3-folding/reference/fold.o 2>/dev/null \
          | grep -- '-include build/cpu/pch/cuda_runtime.h' | tail -n 1 \
          | sed "s|build/cpu/lab3-folding/reference/|$log/pch-|g; s|-include build/cpu/pch/cuda_runtime.h|-H &|g")
if [ -n "$pch_cmd" ] && sh -c "$pch_cmd" > "$log/out" 2>&1 && grep -q '^! .*build/cpu/pch/cuda_runtime.h.gch' "$log/out"; then
    ok "the kit's build of a .cu takes cuda_runtime.h precompiled"
else
    not_ok "the kit's build of a .cu takes cuda_runtime.h precompiled"; show "$log/out" 10
fi

# ---- the micro-benchmark runs (its numbers are only printed) ------------------------------------
if timeout 60 $T/bench 14 256 7 1 > "$log/out" 2>&1; then ok "micro-benchmark runs"; show "$log/out" 7
else not_ok "micro-benchmark"; show "$log/out"; fi
# ---- programs in the style of textbooks and the vendor's samples ----------------------------------
# Each checks itself (exits nonzero when wrong) and runs built with cucc
# plain, with ASan and with TSan, with no report from either.  Where it was
# also compiled with nvcc and run on a GPU (an H100 or H200), its output there is kept beside
# it (.gpu-output) and each build must print the same, except the occupancy
# program, whose numbers belong to the device: there the verdict line must
# match.
for program in tests/backend/programs/*.cu; do
    name=$(basename "$program" .cu)
    expected="${program%.cu}.gpu-output"
    for san in "" address thread; do     # the three builds side by side
        (common/cpu/cucc -O2 ${san:+--sanitize=$san} -o "$log/$name$san" "$program" > "$log/$name$san.build" 2>&1
         echo $? > "$log/$name$san.rc") &
    done
    wait
    for san in "" address thread; do
        how="programs/$name${san:+ (SANITIZE=$san)}"
        if [ "$(cat "$log/$name$san.rc")" != 0 ]; then
            not_ok "$how builds with cucc"; show "$log/$name$san.build"; continue
        fi
        if grep -q "common/cpu/include/.*warning:" "$log/$name$san.build"; then
            not_ok "$how builds with no warning from the backend's headers"; show "$log/$name$san.build"
        fi
        timeout 300 "$log/$name$san" > "$log/got" 2>&1
        rc=$?
        if [ $rc != 0 ] || grep -q "Sanitizer" "$log/got"; then
            not_ok "$how runs, checks itself and exits 0 with no sanitizer report (exit $rc)"; show "$log/got" 30
            continue
        fi
        if [ ! -f "$expected" ]; then
            ok "$how runs, checks itself and exits 0 with no sanitizer report"
            continue
        fi
        cp "$expected" "$log/want"
        if [ "$name" = occupancy ]; then
            grep -v "blocks per SM\|suggested block" "$expected" > "$log/want"
            grep -v "blocks per SM\|suggested block" "$log/got" > "$log/got2" && mv "$log/got2" "$log/got"
        fi
        if diff "$log/want" "$log/got" > "$log/diff"; then
            ok "$how prints what it printed on an H200, with no sanitizer report"
        else
            not_ok "$how prints what it printed on an H200"; show "$log/diff"
        fi
    done
done

finish
