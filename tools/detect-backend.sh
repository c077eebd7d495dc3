#!/bin/sh
# Prints the backend to build for: "gpu" when an NVIDIA GPU and nvcc are both
# usable here, "cpu" (the kit's own CUDA emulation) otherwise.  The grader
# program applies the same rule itself (detect_backend() in
# common/grading/main.c): change both together.
if command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1 \
   && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo gpu
else
    echo cpu
fi
