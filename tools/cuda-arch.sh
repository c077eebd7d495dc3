#!/bin/sh
# The GPU architectures the kit builds for, asked of one nvcc ($NVCC, else
# the nvcc on the PATH).
#
#   tools/cuda-arch.sh          nvcc's architecture flag for this machine
#   tools/cuda-arch.sh --list   the real architectures (60 75 80 ...) this nvcc
#                               builds and the labs can use, one a line, oldest first
#
# The labs need sm_60 or newer: lab 7's given kernels add doubles with
# atomicAdd, which sm_60 brought (and lab 7 asks for a grid-wide sync, a
# cooperative launch that needs sm_60 too).  Each toolkit builds its own
# range: CUDA 11.x sm_35 up (so from sm_60 here), CUDA 12.x sm_50 up (sm_60
# here), CUDA 13.x sm_75 up.
#
# For this machine: -arch=sm_XY from the compute capability nvidia-smi reports
# (8.6 -> sm_86), when this nvcc knows it.  With no GPU visible (a build that
# only compiles, CI): the oldest usable architecture of the list, whose PTX
# the driver compiles for any newer GPU; a GPU newer than this nvcc: the
# newest of the list, for the same reason.
# Never nvcc's own default, which is sm_52 up to CUDA 12 and cannot build
# lab 7.  (-arch=native is no help either: with no GPU visible nvcc accepts it
# and quietly falls back to that default.)
NVCC=${NVCC:-nvcc}
OLDEST=60

# The real architectures of this nvcc (sm_NN with a compute_NN beside it),
# from its own lists where it has them (CUDA 11.0 and later), else from its
# version.
list() {
    codes=$("$NVCC" --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$/\1/p' | sort -n -u)
    archs=$("$NVCC" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([0-9]*\)$/\1/p' | sort -n -u)
    if [ -z "$codes" ]; then
        major=$("$NVCC" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
        case $major in
            '') return 1 ;;
            9 | 10) codes="60 61 70 75" ;;
            11) codes="60 61 70 75 80" ;;
            12) codes="60 61 70 75 80 86 89 90" ;;
            *) codes="75 80 86 89 90" ;;
        esac
        archs=$codes
    fi
    for c in $codes; do
        [ "$c" -ge "$OLDEST" ] || continue
        echo "$archs" | grep -qx "$c" && echo "$c"
    done
}

if [ "${1:-}" = --list ]; then
    list
    exit $?
fi

oldest=$(list | head -n 1)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
case $cc in
    '' | *[!0-9]*) # no GPU visible, or an old driver that does not say
        [ -n "$oldest" ] && echo "-arch=sm_$oldest"
        exit 0 ;;
esac
if [ "$cc" -lt "$OLDEST" ]; then
    echo "cuda-arch: this GPU is sm_$cc; the labs need sm_$OLDEST or newer (lab 7 adds doubles atomically)" >&2
    echo "-arch=sm_$cc"
    exit 0
fi
probe=$(mktemp -d) || exit 0
trap 'rm -rf "$probe"' EXIT
echo '__global__ void k(void) {}' > "$probe/k.cu"
if "$NVCC" -arch=sm_$cc -c "$probe/k.cu" -o "$probe/k.o" >/dev/null 2>&1; then
    echo "-arch=sm_$cc"
else
    # a GPU newer than this nvcc: the newest architecture it knows, whose
    # PTX the driver compiles for this GPU
    newest=$(list | tail -n 1)
    echo "cuda-arch: this nvcc does not know sm_$cc (the GPU here); building for sm_$newest," >&2
    echo "cuda-arch: whose PTX the driver compiles at the first launch (a newer CUDA Toolkit avoids that)" >&2
    [ -n "$newest" ] && echo "-arch=sm_$newest"
fi
