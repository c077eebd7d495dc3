#!/bin/sh
# Prints nvcc's architecture flag for the GPU in this machine.
# -arch=native exists from CUDA 11.5; older toolkits get the compute
# capability that nvidia-smi reports (e.g. 8.6 -> sm_86).
probe=$(mktemp -d) || exit 1
trap 'rm -rf "$probe"' EXIT
echo '__global__ void k(void) {}' > "$probe/k.cu"
if nvcc -arch=native -c "$probe/k.cu" -o "$probe/k.o" >/dev/null 2>&1; then
    echo "-arch=native"
    exit 0
fi
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
if [ -n "$cc" ]; then
    echo "-arch=sm_$cc"
else
    echo ""   # no GPU visible: nvcc's own default architecture
fi
