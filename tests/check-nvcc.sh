#!/bin/sh
# Every .cu of the kit compiles with every CUDA toolkit this machine has or
# can get, for the architectures each builds that the labs can use: the
# README promises CUDA 11.x to 13.x, and CUDA-only compile errors never reach
# a student, even from a machine with no GPU.
#
# The toolkits:
#   the nvcc on the PATH  the machine's own (CUDA 13.0 on the GPU machines)
#   CUDA 11.8   Debian 12's nvidia-cuda-toolkit (non-free; host compiler
#               g++ 11), unpacked into /opt/cuda-labs/cuda-11 by
#               tools/setup.sh cuda11, which this test runs as root where it
#               is missing (a 0.9 GB download, once)
#   CUDA 12.4   Debian 13's, unpacked beside the system by tools/setup.sh
#               cuda12 (Debian 12 cannot install it), which this test runs as
#               root where it is missing and CUDA12=yes (a 930 MB download)
#   NVCCS="PATH ..."      any other nvcc
# CUDA_INSTALL=no: install nothing; a toolkit that is not here is a SKIP.
#
# With each toolkit: every lab's skeleton and solution and every .cu of the
# harness, for the oldest and the newest architecture of
# tools/cuda-arch.sh --list (sm_60, or sm_75 from CUDA 13 on, to the newest
# this nvcc builds); and, with the oldest toolkit, the nvcc
# part of make dist: every lab's reference and given objects, built as
# tools/dist.sh builds them, for the whole list.
# With the nvcc on the PATH, also the known-bad versions and alternatives (for
# the oldest architecture only, and their device code only: they are there to
# compile at all, and they are many).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
[ "$BACKEND" = cpu ] || { echo "# (the toolkits compile the same on either pass: run on the cpu pass)"; finish; }
out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT
started=$(date +%s)
# Where a toolkit's install leaves its log and verdict: make test starts
# CUDA 11.8's before it builds the kit (CUDA_SETUP_DIR, --install-only
# below), so that its minutes of download run beside the build.
setup=${CUDA_SETUP_DIR:-$out}

# ---- the toolkits ------------------------------------------------------------------------
CUDA11_NVCC=/opt/cuda-labs/cuda-11/usr/lib/nvidia-cuda-toolkit/bin/nvcc
CUDA12_NVCC=/opt/cuda-labs/cuda-12/usr/lib/nvidia-cuda-toolkit/bin/nvcc
# install_start NVCC SETUP: where NVCC is missing and this user may install
# it (root, and CUDA_INSTALL is not no), its setup step starts now, in the
# background: it is mostly a download, and the toolkits already here compile
# meanwhile.  have waits for it.
install_start() {
    [ -x "$1" ] || [ "${CUDA_INSTALL:-yes}" = no ] || [ "$(id -u)" != 0 ] && return 0
    [ -e "$setup/setup-$2.log" ] && return 0   # (under way already)
    : > "$setup/setup-$2.log"   # (now: its being there says an install is under way)
    (t0=$(date +%s)
     tools/setup.sh "$2" > "$setup/setup-$2.log" 2>&1
     echo "$? $(( $(date +%s) - t0 ))" > "$setup/setup-$2.part" && mv "$setup/setup-$2.part" "$setup/setup-$2.done") &
}
# have NAME NVCC SETUP: NVCC when it is here or its setup step makes it so
# (as root, unless CUDA_INSTALL=no); else a SKIP that says why.
have() {
    [ -x "$2" ] && [ ! -e "$setup/setup-$3.log" ] && return 0
    if [ "${CUDA_INSTALL:-yes}" = no ]; then
        ok "$1 # SKIP not installed, and CUDA_INSTALL=no (tools/setup.sh $3 installs it)"
        return 1
    fi
    if [ "$(id -u)" != 0 ]; then
        ok "$1 # SKIP not installed, and only root installs it (sudo tools/setup.sh $3)"
        return 1
    fi
    [ -e "$setup/setup-$3.log" ] || install_start "$2" "$3"
    while [ ! -e "$setup/setup-$3.done" ]; do sleep 2; done
    read -r status took < "$setup/setup-$3.done"
    if [ "$status" = 0 ] && [ -x "$2" ]; then
        echo "# tools/setup.sh $3 installed $1 in $took s"
        return 0
    fi
    ok "$1 # SKIP tools/setup.sh $3 could not install it: $(tail -n 1 "$setup/setup-$3.log")"
    return 1
}
# tests/check-nvcc.sh --install-only: starts CUDA 11.8's install where it
# is missing (in the background, its files in CUDA_SETUP_DIR) and returns.
if [ "${1:-}" = --install-only ]; then
    [ -n "${CUDA_SETUP_DIR:-}" ] || { echo "check-nvcc.sh --install-only needs CUDA_SETUP_DIR" >&2; exit 2; }
    trap - EXIT
    rm -rf "$out"
    install_start "$CUDA11_NVCC" cuda11
    exit 0
fi
path_nvcc=$(command -v nvcc 2>/dev/null)
toolkits=""
[ -n "$path_nvcc" ] && toolkits=$path_nvcc
[ -z "$path_nvcc" ] && ok "the nvcc on the PATH # SKIP there is none here"
# (CUDA 11.8, the oldest, comes last: its install runs while the others compile)
install_start "$CUDA11_NVCC" cuda11
# (12.4 is installed only when asked, CUDA12=yes: a 1 GB download and about
# 200 s that CI's time limit does not leave; where it is here it is used)
if [ -x "$CUDA12_NVCC" ] || [ "${CUDA12:-no}" = yes ]; then
    have "CUDA 12.4 (Debian 13's nvidia-cuda-toolkit, unpacked)" "$CUDA12_NVCC" cuda12 && toolkits="$toolkits $CUDA12_NVCC"
else
    ok "CUDA 12.4 # SKIP not installed; CUDA12=yes installs it (tools/setup.sh cuda12) and compiles with it"
fi
toolkits="$toolkits ${NVCCS:-}"

# release NVCC: "11.8"
release() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p'; }

# with_toolkit NVCC COMMAND...: COMMAND with that toolkit's tools first on
# the PATH: its own folder, and /usr/bin where that folder has no ptxas
# (Debian keeps it there, and another CUDA's ptxas may come first).  The
# headers of a CUDA of another version copied into /usr/local/include, which
# g++ searches before /usr/include where Debian's CUDA keeps its own, are
# hidden in a mount namespace.
with_toolkit() {
    nv=$1
    shift
    tool_path="$(dirname "$nv"):$PATH"
    [ -x "$(dirname "$nv")/ptxas" ] || tool_path="$(dirname "$nv"):/usr/bin:$PATH"
    there=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' /usr/local/include/cuda_runtime_api.h 2>/dev/null)
    mine=$(release "$nv" | awk -F. '{ print $1 * 1000 + $2 * 10 }')
    if [ -n "$there" ] && [ "$there" != "$mine" ]; then
        PATH=$tool_path unshare -m sh -c 'mount -t tmpfs none /usr/local/include && exec "$@"' sh "$@"
    else
        PATH=$tool_path "$@"
    fi
}

# in_dist_build FILE: the object make dist's gpu build (in $build) made of
# FILE, where it made one: a lab's skeleton file is a given object, a
# solution file a reference object, the harness's .cu the harness's.
in_dist_build() {
    [ -d "$build" ] || return 0
    case $1 in
    common/harness/*.cu) obj=$build/harness/$(basename "$1" .cu).o ;;
    labs/lab*/*.cu) obj=$build/$(basename "$(dirname "$1")")/student/$(basename "$1" .cu).o ;;
    solutions/lab*/*.cu) obj=$build/$(basename "$(dirname "$1")")/reference/$(basename "$1" .cu).o ;;
    *) return 0 ;;
    esac
    [ -s "$obj" ] && echo "$obj"
}

# ---- the files -------------------------------------------------------------------------
# Known-bad versions and alternatives are patches to a solution: compile them patched.
for patch_file in grading/*/mutants/*.patch grading/*/alternatives/*.patch; do
    [ -f "$patch_file" ] || continue
    lab=$(basename "$(dirname "$(dirname "$patch_file")")")
    replaces=$(sed -n 's|^// replaces: *||p' "$patch_file" | head -n 1)
    kind=$(basename "$(dirname "$patch_file")")
    mkdir -p "$out/$kind/$lab"
    patch -s -o "$out/$kind/$lab/$(basename "$patch_file" .patch).cu" "solutions/$lab/$replaces" < "$patch_file" >/dev/null 2>&1
done

# dist_part NV NAME VERSION ARCHS: the nvcc part of make dist: tools/dist.sh's
# targets and fat binary, for the whole list of architectures (with the oldest
# toolkit, whose list is the longest), into $out/dist-VERSION.  What it
# compiles, each lab's skeleton and solution files and the harness's, it
# compiles for every architecture of the list, the oldest and the newest
# among them: compile_with does not compile those a second time.
dist_part() {
    nv=$1 name=$2 build=$out/dist-$3 archs=$4
    newest=$(echo "$archs" | tail -n 1)
    t0=$(date +%s)
    gencode=$(for c in $archs; do printf -- '-gencode arch=compute_%s,code=sm_%s ' "$c" "$c"; done)
    gencode="$gencode-gencode arch=compute_$newest,code=compute_$newest"
    failed=""
    for dir in solutions/lab*/; do
        lab=$(basename "$dir")
        targets="$build/$lab/reference-runner"
        for f in labs/"$lab"/*.cu; do
            [ -f "$f" ] && targets="$targets $build/$lab/student/$(basename "$f" .cu).o"
        done
        with_toolkit "$nv" make -s -j2 --no-print-directory BACKEND=gpu NVCC="$nv" B="$build" ARCH="$gencode" $targets \
            >"$build.$lab.log" 2>&1 || failed="$failed $lab"
    done
    if [ -z "$failed" ]; then
        ok "$name builds make dist's gpu references and given objects for sm_$(echo $archs | sed 's/ /, sm_/g') and PTX ($(( $(date +%s) - t0 )) s)"
    else
        not_ok "$name builds make dist's gpu references and given objects for its architectures: not$failed"
        for lab in $failed; do grep -i -m 5 error "$build.$lab.log" | sed 's/^/    /'; done
    fi
    dist_done=yes
}

# compile_file FILE: FILE compiled with toolkit $nv ($name, version
# $version) for the oldest and the newest architecture ($ends)
compile_file() {
    file=$1
    lab=$(echo "$file" | sed -n 's|^.*/\(lab[0-9][^/]*\)/[^/]*$|\1|p')
    obj="$out/$version-$(echo "$file" | tr / _).o"
    flags=$ends for="sm_$oldest and sm_$newest"
    # (a known-bad version or an alternative: its device code, through
    # nvcc's front end and ptxas, as a cubin; its host code is a
    # solution's with a small change, which g++ compiles in check-mutants:
    # a third of the time of a whole object, for 200 files)
    case $file in "$out"/*) flags="-arch=sm_$oldest -cubin" for="sm_$oldest (its device code)" ;; esac
    if [ -n "$(in_dist_build "$file")" ]; then
        ok "$name compiles $file for $for"   # (in make dist's build above, for every architecture)
    elif with_toolkit "$nv" "$nv" $flags -std=c++17 -Icommon/harness ${lab:+-Ilabs/$lab} -c "$file" -o "$obj" >"$obj.log" 2>&1; then
        ok "$name compiles $file for $for"
    else
        not_ok "$name compiles $file for $for"
        grep -i -m 5 error "$obj.log" | sed 's/^/    /'
    fi
}

# compile_with NV: every file with toolkit NV (and, with the oldest toolkit,
# make dist's part first).
compile_with() {
    nv=$1
    version=$(release "$nv")
    if [ -z "$version" ]; then
        not_ok "$nv runs (nvcc --version)"
        return
    fi
    case $done_versions in
        *" $version "*) echo "# $nv is nvcc $version again"; return ;;
    esac
    done_versions="$done_versions$version "
    name="nvcc $version"
    if [ -f /usr/local/include/cuda_runtime_api.h ] && ! unshare -m true 2>/dev/null \
        && ! grep -q "CUDART_VERSION *$(echo "$version" | awk -F. '{ print $1 * 1000 + $2 * 10 }')" /usr/local/include/cuda_runtime_api.h; then
        ok "$name # SKIP another CUDA's headers in /usr/local/include hide its own, and this user cannot unshare"
        return
    fi
    archs=$(NVCC=$nv tools/cuda-arch.sh --list)
    oldest=$(echo "$archs" | head -n 1) newest=$(echo "$archs" | tail -n 1)
    if [ -z "$oldest" ]; then
        not_ok "$name builds an architecture the labs can use (sm_60 or newer): it lists $("$nv" --list-gpu-code 2>/dev/null | tr '\n' ' ')"
        return
    fi
    build=$out/dist-$version
    if [ "$version" = "$oldest_version" ]; then
        dist_part "$nv" "$name" "$version" "$archs"
    else
        echo "# $name: make dist's gpu part is built with the oldest toolkit ($oldest_version), whose list is the longest"
    fi

    ends="-gencode arch=compute_$oldest,code=sm_$oldest -gencode arch=compute_$newest,code=[sm_$newest,compute_$newest]"
    t0=$(date +%s)
    files="common/harness/*.cu labs/*/*.cu solutions/*/*.cu"
    [ "$nv" = "$path_nvcc" ] && files="$files $out/mutants/*/*.cu $out/alternatives/*/*.cu"
    # (one nvcc per core at a time, in_parallel: once the other checks have
    # ended, this one is what is left; each file's object is its own)
    in_parallel compile_file $(for file in $files; do [ -f "$file" ] && echo "$file"; done)
    echo "# $name: the files in $(( $(date +%s) - t0 )) s"

    rm -rf "$build"
}

# The toolkits here now first, then CUDA 11.8 once its install (if any) has
# ended.  make dist's part is built with the oldest: CUDA 11.8 where it is
# here or being installed; where its install fails, the oldest of the others.
cuda11_coming=""
[ -x "$CUDA11_NVCC" ] || [ -e "$setup/setup-cuda11.log" ] && cuda11_coming=11.8
versions=$( { for nv in $toolkits; do release "$nv"; done; echo "$cuda11_coming"; } | grep . | sort -t . -k 1,1n -k 2,2n -u)
oldest_version=$(echo "$versions" | head -n 1) newest_version=$(echo "$versions" | tail -n 1)
done_versions=" " dist_done=""
# The toolkits here now and CUDA 11.8 side by side (in_parallel: one part
# each; CUDA 11.8's waits for its install, then builds make dist's part):
# each compiles in folders of its own.
toolkit_part() {
    if [ "$1" = here ]; then
        for nv in $toolkits; do compile_with "$nv"; done
        return
    fi
    for nv in $toolkits; do   # (CUDA 11.8 is one of those here: done above)
        [ "$(release "$nv")" = 11.8 ] && { echo "# $CUDA11_NVCC: nvcc 11.8 is compiled with above"; return; }
    done
    if have "CUDA 11.8 (Debian 12's nvidia-cuda-toolkit, unpacked)" "$CUDA11_NVCC" cuda11; then
        compile_with "$CUDA11_NVCC"
    elif [ -n "$toolkits" ]; then
        oldest_version=$( { for nv in $toolkits; do release "$nv"; done; } | grep . | sort -t . -k 1,1n -k 2,2n -u | head -n 1)
        for nv in $toolkits; do
            [ "$(release "$nv")" = "$oldest_version" ] || continue
            dist_part "$nv" "nvcc $oldest_version" "$oldest_version" "$(NVCC=$nv tools/cuda-arch.sh --list)"
            rm -rf "$out/dist-$oldest_version"
            break
        done
    fi
}
in_parallel toolkit_part here cuda11

# What g++ accepts and nvcc does not (a host function called from a kernel)
# must not build on the cpu backend either, and the student sees nvcc's words.
if [ -n "$path_nvcc" ]; then
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
fi
echo "# check-nvcc: $(( $(date +%s) - started )) s"
finish
