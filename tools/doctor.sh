#!/bin/sh
# make doctor: what this machine has for CUDA Labs, and what is missing.
#
# It looks, it never installs: every missing piece is listed at the end with
# the exact command that installs it.  Exit 0 when the kit can build and
# grade here (at least on the cpu backend), 1 when something it needs is
# missing.  Safe to run anywhere, as any user, with or without a GPU.
set -u
cd "$(dirname "$0")/.." || exit 2

missing_apt=""    # Debian/Ubuntu packages the kit needs
advice=""         # other things to do, one per line
required_missing=0

say()  { printf '  %-22s %s\n' "$1" "$2"; }
need_package() { missing_apt="$missing_apt $1"; required_missing=1; }
advise() { advice="$advice
  - $*"; }
first_line() { "$@" 2>&1 | head -n 1; }

echo "CUDA Labs doctor"
echo
echo "The system"
say "system" "$(uname -sm)$( [ -r /etc/os-release ] && . /etc/os-release && printf ', %s' "${PRETTY_NAME:-}")"
for tool in gcc g++ make perl; do
    if command -v "$tool" >/dev/null 2>&1; then
        case "$tool" in
        perl) say perl "$(perl -e 'printf "perl %vd", $^V')" ;;
        *) say "$tool" "$(first_line "$tool" --version)" ;;
        esac
    else
        say "$tool" "MISSING"
        case "$tool" in make) need_package make ;; perl) need_package perl ;; *) need_package "$tool" ;; esac
    fi
done
if command -v perl >/dev/null 2>&1 && ! perl -MJSON::PP -e 1 2>/dev/null; then
    say "perl JSON::PP" "MISSING (the kit's tests read JSON with it)"
    need_package perl
fi

echo
echo "The grading library"
if [ -f .deps/check/usr/include/check.h ]; then
    say "Check" "staged copy in .deps/check"
elif ! command -v pkg-config >/dev/null 2>&1; then
    say "pkg-config" "MISSING (the Makefile finds Check with it)"
    say "Check" "unknown without pkg-config"
    need_package pkg-config
    need_package check
    need_package libsubunit-dev
elif pkg-config --exists check 2>/dev/null; then
    say "pkg-config" "$(first_line pkg-config --version)"
    say "Check" "$(pkg-config --modversion check 2>/dev/null) ($(pkg-config --libs check 2>/dev/null))"
else
    say "pkg-config" "$(first_line pkg-config --version)"
    say "Check" "MISSING: pkg-config does not know 'check'; the grader cannot be built"
    need_package check
    need_package libsubunit-dev
fi

echo
echo "NVIDIA GPU and CUDA"
gpu_present=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    gpu_present=1
    driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
    say "driver" "${driver:-unknown} (nvidia-smi)"
    nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader 2>/dev/null |
    while IFS=, read -r index name cc memory; do
        say "GPU $index" "$(echo $name), compute capability $(echo $cc), $(echo $memory)"
    done
elif [ -r /proc/driver/nvidia/version ]; then
    say "driver" "$(head -n 1 /proc/driver/nvidia/version) (no nvidia-smi)"
    say "GPU" "the driver is loaded but nvidia-smi is missing or sees no GPU"
    advise "install nvidia-smi (it comes with the NVIDIA driver utilities, e.g. sudo apt-get install nvidia-utils-<version>)"
else
    say "driver" "none (no NVIDIA driver loaded)"
    say "GPU" "none: the kit runs on its cpu backend"
fi

nvcc_present=0
if command -v nvcc >/dev/null 2>&1; then
    nvcc_present=1
    say "CUDA toolkit" "$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p' | head -n 1) at $(command -v nvcc)"
    arch=$(tools/cuda-arch.sh 2>/dev/null)
    [ "$gpu_present" = 1 ] && say "build flag" "${arch:-nvcc's default}  (override with ARCH=...)"
else
    say "CUDA toolkit" "none (no nvcc on PATH)"
    if [ "$gpu_present" = 1 ]; then
        advise "this machine has a GPU but no nvcc: install the CUDA Toolkit (11.x to 13.x) from https://developer.nvidia.com/cuda-downloads, or on Debian/Ubuntu: sudo apt-get install -y nvidia-cuda-toolkit; then put its bin/ on PATH (export PATH=/usr/local/cuda/bin:\$PATH)"
    fi
fi

# The host compiler: each nvcc accepts only some GCC versions (11.8 up to
# GCC 11, for example).  Asking nvcc itself is the only sure answer.
if [ "$nvcc_present" = 1 ]; then
    probe=$(mktemp -d) || exit 2
    echo '__global__ void k(void) {} int main(void) { k<<<1, 1>>>(); return 0; }' > "$probe/k.cu"
    if nvcc ${NVCC_EXTRA:-} -c "$probe/k.cu" -o "$probe/k.o" >"$probe/log" 2>&1; then
        say "host compiler" "g++ $(g++ -dumpfullversion 2>/dev/null), accepted by this nvcc"
    else
        say "host compiler" "REFUSED by nvcc: $(grep -m 1 -i 'error' "$probe/log" | cut -c 1-100)"
        advise "this nvcc does not accept g++ $(g++ -dumpfullversion 2>/dev/null); install a GCC it supports (for nvcc 11.8: sudo apt-get install -y g++-11) and export NVCC_EXTRA='-ccbin g++-11' before make and ./grader"
    fi
    rm -rf "$probe"
fi

if command -v compute-sanitizer >/dev/null 2>&1; then
    say "compute-sanitizer" "$(command -v compute-sanitizer)"
elif [ "$nvcc_present" = 1 ] && [ -x "$(dirname "$(command -v nvcc)")/compute-sanitizer" ]; then
    say "compute-sanitizer" "$(dirname "$(command -v nvcc)")/compute-sanitizer"
elif [ "$gpu_present" = 1 ]; then
    say "compute-sanitizer" "none: the grader's sanitizer items will be skipped"
    advise "for the sanitizer items: compute-sanitizer ships with the CUDA Toolkit; put the toolkit's bin/ on PATH"
else
    say "compute-sanitizer" "not needed without a GPU"
fi

# NCCL (lab 9's combining steps): found where labs/lab9-many-gpus/lab.mk
# looks for it, the toolkit's folders or the system's, header and library.
if [ "$nvcc_present" = 1 ]; then
    cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
    nccl_header= nccl_lib=
    for h in "$cuda_home/include/nccl.h" /usr/include/nccl.h /usr/local/include/nccl.h; do
        [ -f "$h" ] && { nccl_header=$h; break; }
    done
    for l in "$cuda_home/lib64/libnccl.so" /usr/lib/x86_64-linux-gnu/libnccl.so /usr/lib/aarch64-linux-gnu/libnccl.so \
             /usr/local/lib/libnccl.so; do
        [ -e "$l" ] && { nccl_lib=$l; break; }
    done
    if [ -n "$nccl_header" ] && [ -n "$nccl_lib" ]; then
        nccl_version=$(sed -n 's/^#define NCCL_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$nccl_header" | paste -sd. -)
        say "NCCL" "${nccl_version:+$nccl_version, }$nccl_header, $nccl_lib"
    else
        say "NCCL" "none${nccl_header:+ (only $nccl_header: no libnccl.so)}${nccl_lib:+ (only $nccl_lib: no nccl.h)}: lab 9's NCCL steps will say so"
        advise "for lab 9's NCCL steps: on Debian, sudo apt-get install -y libnccl-dev (from the non-free component); on Ubuntu or with NVIDIA's CUDA repository, sudo apt-get install -y libnccl2 libnccl-dev; or NVIDIA's packages from https://developer.nvidia.com/nccl"
    fi
elif [ "$gpu_present" = 1 ]; then
    say "NCCL" "unknown (no nvcc)"
else
    say "NCCL" "emulated by the cpu backend"
fi

# Cooperative launch (lab 7's grid-wide sync): ask the device, then really
# run a tiny cooperative kernel with a grid-wide barrier.
if [ "$gpu_present" = 1 ] && [ "$nvcc_present" = 1 ]; then
    probe=$(mktemp -d) || exit 2
    cat > "$probe/coop.cu" <<'EOF'
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void grid_sum(int *count) {
    atomicAdd(count, 1);
    cg::this_grid().sync();               /* every block must arrive here first */
    if (blockIdx.x == 0 && threadIdx.x == 0) count[1] = count[0];
}
int main(void) {
    int device = 0, supported = 0, *d = 0, h[2] = {0, 0};
    if (cudaGetDevice(&device) != cudaSuccess) { printf("no device\n"); return 1; }
    cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device);
    if (!supported) { printf("not supported by this device\n"); return 1; }
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);
    void *args[] = { &d };
    cudaError_t err = cudaLaunchCooperativeKernel((void *)grid_sum, dim3(2), dim3(64), args, 0, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) { printf("launch failed: %s\n", cudaGetErrorString(err)); return 1; }
    printf(h[1] == 128 ? "supported (a grid-wide sync ran)\n" : "ran, but the grid sync gave %d, not 128\n", h[1]);
    return h[1] == 128 ? 0 : 1;
}
EOF
    if nvcc $(tools/cuda-arch.sh 2>/dev/null) -o "$probe/coop" "$probe/coop.cu" >"$probe/log" 2>&1; then
        say "cooperative launch" "$("$probe/coop" 2>&1 | head -n 1)"
    else
        say "cooperative launch" "the probe did not compile: $(head -n 1 "$probe/log")"
    fi
    rm -rf "$probe"
elif [ "$gpu_present" = 1 ]; then
    say "cooperative launch" "unknown (no nvcc to build the probe)"
else
    say "cooperative launch" "emulated by the cpu backend"
fi

echo
echo "The kit here"
chosen=$(tools/detect-backend.sh)
if [ -n "${BACKEND:-}" ]; then
    say "backend" "${BACKEND} (forced by BACKEND=; detected: $chosen)"
else
    say "backend" "$chosen$( [ "$chosen" = cpu ] && echo ' (the kit'"'"'s CUDA emulation: correct results, timings without meaning)')"
fi
if [ "$gpu_present" = 1 ] && [ "$nvcc_present" = 0 ]; then
    say "" "a GPU is here but without nvcc the kit uses the cpu backend"
fi
if [ -d solutions ]; then
    say "copy" "full kit (with reference solutions)"
else
    say "copy" "student copy: graded against prebuilt/$chosen/ references"
    [ -n "$(ls prebuilt/"$chosen"/*/reference-runner 2>/dev/null | head -n 1)" ] \
        || advise "this student copy has no prebuilt/$chosen/ references: ask your instructor for a copy built for this backend"
fi
# A student copy's prebuilt references were built on another machine: they
# load here only if this system's C and C++ libraries are as new as theirs.
for reference in prebuilt/"$chosen"/*/reference-runner; do
    [ -f "$reference" ] || continue
    lab=$(basename "$(dirname "$reference")")
    if command -v perl >/dev/null 2>&1 && need=$(objdump -T "$reference" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -t. -k2,2n -k3,3n -u | tail -n 1) \
       && have=$(ldd --version 2>/dev/null | head -n 1 | grep -o '[0-9]*\.[0-9]*$') && [ -n "$need" ] && [ -n "$have" ] \
       && ! perl -e 'my ($n, $h) = @ARGV; $n =~ s/GLIBC_//; my @n = split /\./, $n; my @h = split /\./, $h;
                     exit(($n[0] <=> $h[0] || ($n[1] // 0) <=> ($h[1] // 0)) <= 0 ? 0 : 1)' "$need" "$have"; then
        say "reference $lab" "needs $need, this system has glibc $have: it cannot run here"
        advise "the prebuilt references need a newer Linux (glibc ${need#GLIBC_}) than this one ($have): ask your instructor for a copy built on an older system, or use a newer distribution"
        required_missing=1
    fi
done
[ -n "$(ls prebuilt/"$chosen"/*/reference-runner 2>/dev/null | head -n 1)" ] \
    && say "references" "prebuilt/$chosen/: $(ls prebuilt/"$chosen"/*/reference-runner | wc -l) labs$( [ -f prebuilt/gpu/ARCH ] && [ "$chosen" = gpu ] && printf ', built with %s' "$(cat prebuilt/gpu/ARCH | cut -c 1-60)")"
if command -v pandoc >/dev/null 2>&1; then
    engine=""
    for e in weasyprint wkhtmltopdf xelatex pdflatex; do command -v "$e" >/dev/null 2>&1 && { engine=$e; break; }; done
    say "pandoc" "$(first_line pandoc --version) (make handouts), PDF engine: ${engine:-none (HTML only; for PDF: sudo apt-get install -y weasyprint)}"
else
    say "pandoc" "none (optional, for make handouts: sudo apt-get install -y pandoc)"
fi
if [ -d solutions ]; then
    command -v zip >/dev/null 2>&1 && say "zip" "$(zip -v 2>/dev/null | sed -n 's/^This is \(Zip [0-9.]*\).*/\1/p') (make gradescope)" \
        || say "zip" "none (for make gradescope: sudo apt-get install -y zip)"
fi

echo
if [ -n "$missing_apt" ]; then
    packages=$(echo $missing_apt | tr ' ' '\n' | sort -u | tr '\n' ' ')
    echo "Missing: $packages"
    echo "Install with:"
    echo "    sudo apt-get install -y $packages"
    echo "(or run 'make deps' as root, which installs them itself)"
fi
if [ -n "$advice" ]; then
    echo "Also:$advice"
fi
if [ "$required_missing" = 0 ]; then
    echo "Ready: make lab1 && ./grader lab1"
    exit 0
fi
exit 1
