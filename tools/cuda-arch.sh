#!/bin/sh
# Prints nvcc's architecture flag for the GPU in this machine: -arch=sm_XY
# from the compute capability nvidia-smi reports (8.6 -> sm_86), when this
# nvcc knows it.  Otherwise nothing: nvcc's default architecture, whose PTX
# the driver compiles for any newer GPU.  (-arch=native is no help here: with
# no GPU visible nvcc accepts it and quietly falls back to its default.)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
case $cc in
    '' | *[!0-9]*) exit 0 ;; # no GPU visible, or an old driver that does not say
esac
probe=$(mktemp -d) || exit 0
trap 'rm -rf "$probe"' EXIT
echo '__global__ void k(void) {}' > "$probe/k.cu"
if nvcc -arch=sm_$cc -c "$probe/k.cu" -o "$probe/k.o" >/dev/null 2>&1; then
    echo "-arch=sm_$cc"
else
    echo "cuda-arch: this nvcc does not know sm_$cc (the GPU here); building for its default architecture," >&2
    echo "cuda-arch: which the driver compiles from PTX at the first launch (a newer CUDA Toolkit avoids that)" >&2
fi
