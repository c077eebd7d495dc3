# lab.mk: lab 9 uses NCCL where there is one: LAB9_NCCL=1 turns its NCCL
# steps on (many_gpus.cu), and on the gpu backend the lab links the
# system's NCCL (the Makefile's LAB_LIBS_<lab>) where nvcc finds nccl.h and
# libnccl (the CUDA toolkit's folders or the system's).  The cpu backend
# brings its own nccl.h and NCCL emulation.  Without NCCL the lab still
# builds, and its NCCL steps say so when they run; `make doctor` says how
# to install it.
ifeq ($(BACKEND),gpu)
LAB9_CUDA_HOME := $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC) 2>/dev/null)))
LAB9_NCCL_LIB := $(firstword $(dir $(wildcard $(LAB9_CUDA_HOME)/lib64/libnccl.so /usr/lib/x86_64-linux-gnu/libnccl.so \
                                             /usr/lib/aarch64-linux-gnu/libnccl.so /usr/local/lib/libnccl.so)))
ifneq ($(and $(LAB9_NCCL_LIB),$(wildcard $(LAB9_CUDA_HOME)/include/nccl.h /usr/include/nccl.h /usr/local/include/nccl.h)),)
LAB_FLAGS_lab9-many-gpus := -DLAB9_NCCL=1
LAB_LIBS_lab9-many-gpus := -L$(LAB9_NCCL_LIB) -Xlinker -rpath=$(LAB9_NCCL_LIB) -lnccl
endif
else ifneq ($(wildcard common/cpu/include/nccl.h),)
LAB_FLAGS_lab9-many-gpus := -DLAB9_NCCL=1
endif
