#!/bin/sh
# Where nvcc exists, every .cu of the kit must compile with it too, even on a
# machine with no GPU: CUDA-only compile errors never reach a student.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the gpu pass compiles everything with nvcc already)"; finish; }
if ! command -v nvcc >/dev/null 2>&1; then
    ok "nvcc compile check # SKIP nvcc is not installed here"
    finish
fi
out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT
# Known-bad versions and alternatives are patches to a solution: compile them patched.
for patch_file in tests/mutants/*/*.patch tests/alternatives/*/*.patch; do
    [ -f "$patch_file" ] || continue
    lab=$(basename "$(dirname "$patch_file")")
    replaces=$(sed -n 's|^// replaces: *||p' "$patch_file" | head -n 1)
    kind=$(basename "$(dirname "$(dirname "$patch_file")")")
    mkdir -p "$out/$kind/$lab"
    patch -s -o "$out/$kind/$lab/$(basename "$patch_file" .patch).cu" "solutions/$lab/$replaces" < "$patch_file" >/dev/null 2>&1
done
for file in common/harness/*.cu labs/*/*.cu solutions/*/*.cu "$out"/mutants/*/*.cu "$out"/alternatives/*/*.cu; do
    [ -f "$file" ] || continue
    lab=$(echo "$file" | sed -n 's|^.*/\(lab[0-9][^/]*\)/[^/]*$|\1|p')
    obj="$out/$(echo "$file" | tr / _).o"
    if nvcc -std=c++17 -Icommon/harness ${lab:+-Ilabs/$lab} -c "$file" -o "$obj" >"$obj.log" 2>&1; then
        ok "nvcc compiles $file"
    else
        not_ok "nvcc compiles $file"
        head -20 "$obj.log" | sed 's/^/    /'
    fi
done
# What g++ accepts and nvcc does not (a host function called from a kernel)
# must not build on the cpu backend either, and the student sees nvcc's words.
sub="$out/host-call-in-kernel"
mkdir -p "$sub"
{ cat solutions/lab3-folding/fold.cu
  printf '\nstatic int host_only(int x) { return x + 1; }\n__global__ void uses_host(int *a) { a[0] = host_only(a[0]); }\n'
} > "$sub/fold.cu"
./grader lab3 --backend=cpu --student-dir="$sub" > "$out/host-call.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "does not compile" "$out/host-call.out" && grep -q "__host__ function" "$out/host-call.out"; then
    ok "a file nvcc rejects does not build on the cpu backend, with nvcc's message"
else
    not_ok "a file nvcc rejects does not build on the cpu backend, with nvcc's message (exit $rc)"
    head -20 "$out/host-call.out" | sed 's/^/    /'
fi

# The README promises CUDA 11.x to 13.x: every lab file also compiles with
# each other nvcc named in NVCCS (paths, space-separated; by default
# Debian's nvidia-cuda-toolkit where it is installed: nvcc 11.8, whose host
# compiler is g++ 11; docs/developing.md says how to add it).
nvccs=${NVCCS-$( [ -x /usr/lib/nvidia-cuda-toolkit/bin/nvcc ] && echo /usr/lib/nvidia-cuda-toolkit/bin/nvcc )}
if [ -z "$nvccs" ]; then
    ok "other CUDA toolkits # SKIP none named in NVCCS (apt-get install nvidia-cuda-toolkit g++-11, from Debian's non-free)"
    finish
fi
ccbin=""
command -v g++-11 >/dev/null 2>&1 && ccbin="-ccbin g++-11"
# compile_with NVCC FILE LAB OBJ: that toolkit's own tools first on PATH.  A
# newer toolkit's headers in /usr/local/include would come before an older
# one's in /usr/include: hidden where this user can unshare.
compile_with() {
    cmd="PATH=$(dirname "$1"):/usr/bin:\$PATH '$1' $ccbin -std=c++17 -arch=sm_80 -Icommon/harness ${3:+-Ilabs/$3} -c '$2' -o '$4'"
    if [ -f /usr/local/include/cuda_runtime.h ] && [ "$(dirname "$1")" != /usr/local/cuda/bin ]; then
        unshare -m sh -c "mount -t tmpfs none /usr/local/include && $cmd"
    else
        sh -c "$cmd"
    fi
}
for other in $nvccs; do
    version=$("$other" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
    if [ -z "$version" ]; then
        not_ok "$other (in NVCCS) runs"
        continue
    fi
    if [ -f /usr/local/include/cuda_runtime.h ] && ! unshare -m true 2>/dev/null; then
        ok "nvcc $version compiles the labs # SKIP a newer CUDA's headers in /usr/local/include hide its own, and this user cannot unshare"
        continue
    fi
    for file in common/harness/*.cu labs/*/*.cu solutions/*/*.cu; do
        lab=$(basename "$(dirname "$file")")
        case $lab in lab*) ;; *) lab="" ;; esac
        obj="$out/$version-$(echo "$file" | tr / _).o"
        if compile_with "$other" "$file" "$lab" "$obj" >"$obj.log" 2>&1; then
            ok "nvcc $version compiles $file"
        else
            not_ok "nvcc $version compiles $file"
            grep -i -m 5 error "$obj.log" | sed 's/^/    /'
        fi
    done
done
finish
