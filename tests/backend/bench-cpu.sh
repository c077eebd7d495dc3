#!/bin/sh
# tests/backend/bench-cpu.sh (make bench-cpu): the cpu backend's speed, and
# beside it, where it can be had, PoCL's (OpenCL on the CPU) on the same
# three kernels (tests/backend/bench_opencl.c), with the ratios.
#   sh tests/backend/bench-cpu.sh [threads-log2 [matrix-size [runs]]]   (bench.cu's arguments)
# PoCL comes from Debian's packages (pocl-opencl-icd, ocl-icd-opencl-dev):
# installed with apt-get where this user may (root, or sudo without a
# password), else the backend's table alone, and a line saying why.
# A measurement, not a test: nothing here fails on a number.
set -u
cd "$(dirname "$0")/../.." || exit 2
log2n=${1:-20} size=${2:-1024} runs=${3:-7}
T=build/cpu/backend-tests
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Built with cucc, as a learner's own program is: a lab's build adds the
# alignment check at every load and store (common/cpu/cpu.mk), which keeps
# g++ from vectorising a barrier-free kernel's loop over threads.
mkdir -p $T && common/cpu/cucc -O2 -Itests/backend -o $T/bench-cucc tests/backend/bench.cu || exit 2
echo "== the cpu backend (tests/backend/bench.cu built with cucc; CPU time per thread, medians of $runs)"
$T/bench-cucc "$log2n" "$size" "$runs" | tee "$out/emu" || exit 1

# ---- PoCL, where it is or can be installed ------------------------------------------------
have_pocl() { [ -e /etc/OpenCL/vendors/pocl.icd ] && [ -e /usr/include/CL/cl.h ]; }
if ! have_pocl; then
    packages="pocl-opencl-icd ocl-icd-opencl-dev"
    if [ "$(id -u)" = 0 ]; then apt="apt-get"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then apt="sudo -n apt-get"
    else apt=""; fi
    if [ -n "$apt" ]; then
        echo "== installing PoCL from Debian's packages ($packages)"
        $apt install -y --no-install-recommends $packages > "$out/apt" 2>&1 || sed 's/^/   /' "$out/apt" | tail -5
    fi
fi
if ! have_pocl; then
    echo "== no comparison with PoCL: it is not installed and cannot be from here (as root or with sudo:"
    echo "   apt-get install pocl-opencl-icd ocl-icd-opencl-dev, then make bench-cpu again)"
    exit 0
fi
if ! ${CC:-cc} -O2 -o "$out/bench_opencl" tests/backend/bench_opencl.c -lOpenCL > "$out/cc" 2>&1; then
    echo "== no comparison with PoCL: tests/backend/bench_opencl.c does not build here:"
    sed 's/^/   /' "$out/cc" | head -5
    exit 0
fi
echo "== PoCL, the same kernels in OpenCL (tests/backend/bench_opencl.c)"
"$out/bench_opencl" "$log2n" "$runs" | tee "$out/pocl" || { echo "== PoCL's run failed"; exit 1; }

# ---- side by side --------------------------------------------------------------------------
# The lines both print: "2^N threads, <what>:  <ns> ns CPU per thread (...)".
echo "== side by side (ns of CPU time per thread; the issue's targets: within 3x, 10x, 10x)"
awk '
    function kind(line) { sub(/^2\^[0-9]+ threads, /, "", line); sub(/:.*/, "", line); return line }
    function ns(line) { sub(/^[^:]*: */, "", line); return line + 0 }
    FNR == NR && /^2\^[0-9]+ threads,/ { emu[kind($0)] = ns($0); next }
    /^2\^[0-9]+ threads,/ { pocl[kind($0)] = ns($0); order[++n] = kind($0) }
    END {
        printf "%-12s %12s %12s %10s\n", "kernel", "cpu backend", "PoCL", "ratio"
        for (i = 1; i <= n; i++) {
            k = order[i]
            if (!(k in emu)) continue
            printf "%-12s %12.2f %12.2f %9.1fx\n", k, emu[k], pocl[k], (pocl[k] > 0 ? emu[k] / pocl[k] : 0)
        }
    }' "$out/emu" "$out/pocl"
