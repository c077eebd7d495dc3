# lab.mk: lab 9 links NCCL on the gpu backend (the Makefile's LAB_LIBS_<lab>),
# where nvcc finds nccl.h: in the CUDA toolkit's include folder or the
# system's.  Without it the lab builds without NCCL, and its NCCL steps say
# so when they run (many_gpus.cu); `make doctor` says how to install it.
ifeq ($(BACKEND),gpu)
LAB9_CUDA_HOME := $(patsubst %/bin/,%,$(dir $(shell command -v $(NVCC) 2>/dev/null)))
LAB9_NCCL_LIB := $(firstword $(dir $(wildcard $(LAB9_CUDA_HOME)/lib64/libnccl.so /usr/lib/x86_64-linux-gnu/libnccl.so \
                                             /usr/lib/aarch64-linux-gnu/libnccl.so /usr/local/lib/libnccl.so)))
ifneq ($(and $(LAB9_NCCL_LIB),$(wildcard $(LAB9_CUDA_HOME)/include/nccl.h /usr/include/nccl.h /usr/local/include/nccl.h)),)
LAB_LIBS_lab9-many-gpus := -L$(LAB9_NCCL_LIB) -Xlinker -rpath=$(LAB9_NCCL_LIB) -lnccl
endif
endif
