# CUDA Labs: everything builds from here.
#
#   make lab3            build lab 3's program from your code and run it (ARGS="n seed")
#   make lab3 SOLUTION=1 the same with the reference solution
#   make all             build every lab, solution and the grader
#   make test            the kit's own tests (what CI runs)
#   make check           the quick tier: every lab graded, the cpu backend's features
#   make bench           performance of every lab on a GPU
#   make bench-cpu       the cpu backend's speed, beside PoCL's where it can be had
#   make doctor          what this machine has, and what is missing
#   make handouts        the handouts as HTML (and PDF where possible) in build/handouts
#   make dist            a student copy without solution sources, in dist/
#   make gradescope|prairielearn|github LAB=lab3        a package for a platform
#   make batch LAB=lab3 SUBMISSIONS=dir                grade many submissions
#
# BACKEND=gpu|cpu picks the backend (default: gpu where a GPU is present).
# ARCH=-arch=sm_90 overrides the GPU architecture (default: this machine's).
# SANITIZE=address|thread builds the cpu backend with a sanitizer.

SHELL := /bin/sh
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:

# Asked once (a recursive variable would run the script at every use).
ifeq ($(origin BACKEND),undefined)
BACKEND := $(shell sh tools/detect-backend.sh)
endif
SANITIZE ?=
B := build/$(BACKEND)$(if $(SANITIZE),-$(SANITIZE))
HOST := build/host

LABS := $(sort $(notdir $(patsubst %/,%,$(wildcard labs/lab*/))))
lab_short = $(firstword $(subst -, ,$1))

# ---- Check, from the system or from a staged copy in .deps/check --------------
STAGED_CHECK := $(CURDIR)/.deps/check/usr
ifneq ($(wildcard $(STAGED_CHECK)/include/check.h),)
CHECK_CFLAGS := -I$(STAGED_CHECK)/include
CHECK_LIBS := $(STAGED_CHECK)/lib/x86_64-linux-gnu/libcheck.a $(STAGED_CHECK)/lib/x86_64-linux-gnu/libsubunit.a -lm -lrt -lpthread
else
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
endif

CC := gcc
CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -fPIC -Icommon/harness
# The harness's headers: a student's code compiles with kit.h and
# kit_hooks.h (a submission's build has only these, common/grading/build.c);
# kit_internal.h is the harness's, the runner's and the grader's own;
# kit_program.h is the labs' fixed programs' (main.c) and the bench programs'.
KIT_PUBLIC_HEADERS := common/harness/kit.h common/harness/kit_hooks.h
KIT_PROGRAM_HEADER := common/harness/kit_program.h
KIT_HEADERS := $(KIT_PUBLIC_HEADERS) common/harness/kit_internal.h $(KIT_PROGRAM_HEADER)

# ---- The two backends -------------------------------------------------------------
# Each defines: cu_compile (src, obj, extra flags), so_link (out, objs),
# exe_link (out, objs) and BACKEND_DEPS (what links need built first).
ifeq ($(BACKEND),gpu)
NVCC ?= nvcc
# Asked once, and only for the gpu backend (the script compiles a probe).
ifeq ($(origin ARCH),undefined)
ifeq ($(BACKEND),gpu)
ARCH := $(shell sh tools/cuda-arch.sh)
endif
endif
NVCC_FLAGS := $(ARCH) -O3 -std=c++17 -lineinfo -Xcompiler -fPIC -Icommon/harness $(NVCC_EXTRA)
cu_compile = $(NVCC) $(NVCC_FLAGS) $3 -c $1 -o $2
so_link = $(NVCC) $(ARCH) -shared -Xlinker -Bsymbolic -o $1 $2
exe_link = $(NVCC) $(ARCH) -o $1 $2
BACKEND_DEPS :=
# The machine code of a lab's kernels, which the grader reads to see how they
# work (float4 loads, warp shuffles, shared memory); none where cuobjdump is
# missing, and the grader then does not look.
CUOBJDUMP ?= $(dir $(shell command -v $(NVCC) 2>/dev/null))cuobjdump
%.sass: %.so
	@$(CUOBJDUMP) -sass $< > $@ 2>/dev/null || rm -f $@
else ifeq ($(BACKEND),cpu)
include common/cpu/cpu.mk
else
$(error BACKEND must be gpu or cpu, not "$(BACKEND)")
endif

# ---- The harness -------------------------------------------------------------------
HARNESS_OBJS := $(B)/harness/kit.o $(B)/harness/kit_cuda.o

$(B)/harness/kit.o: common/harness/kit.c $(KIT_HEADERS) | $(B)/harness/
	$(CC) $(CFLAGS) $(EMU_SANITIZE_FLAGS) -c $< -o $@
$(B)/harness/kit_cuda.o: common/harness/kit_cuda.cu $(KIT_HEADERS) $(BACKEND_DEPS) | $(B)/harness/
	$(call cu_compile,$<,$@,)

# ---- The labs ------------------------------------------------------------------------
# For lab L: the student's code builds from labs/L/*.cu (or, when STUDENT_DIR
# is set, from the files of that folder that have the same names), the
# reference from solutions/L/*.cu.  The student's side gives a shared object
# for the grader (which the kit's runner loads) and a program for people; the
# reference gives a program for people, the reference runner that the grader
# runs (the runner with the reference and the harness linked in, exporting
# none of their functions: common/runner/code.h), and a shared object for
# ./grader --solution, which grades the reference as a student's code (never
# in a student copy).  STUDENT_TAG keeps submissions apart.
STUDENT_DIR ?=
STUDENT_TAG ?=
# A submission's __FILE__ names its file alone, not the folder it was copied to.
STUDENT_PATH_FLAGS = $(if $(STUDENT_DIR),$(if $(filter gpu,$(BACKEND)),-Xcompiler )-fmacro-prefix-map=$(STUDENT_DIR)/=)

# The runner's own objects in every reference runner (the Makefile's last part builds them).
REFERENCE_RUNNER_OBJS := $(HOST)/common/runner/runner.o $(HOST)/common/grading/filter.o $(HOST)/common/grading/wire.o

define LAB_RULES
$1_CU := $$(notdir $$(wildcard labs/$1/*.cu))
$1_STUDENT_SRC := $$(foreach f,$$($1_CU),$$(if $$(and $$(STUDENT_DIR),$$(wildcard $$(STUDENT_DIR)/$$f)),$$(STUDENT_DIR)/$$f,labs/$1/$$f))
$1_SOUT := $$(if $$(STUDENT_TAG),$(B)/submissions/$$(STUDENT_TAG)/$1,$(B)/$1)
# In a student copy, a given file that holds another lab's answer comes compiled
# (prebuilt/<backend>/<lab>/*.o, tools/dist.sh) instead of as source.
$1_STUDENT_OBJS := $$(patsubst %.cu,$$($1_SOUT)/student/%.o,$$($1_CU)) $$(wildcard prebuilt/$(BACKEND)/$1/*.o)
$1_REFERENCE_OBJS := $$(patsubst %.cu,$(B)/$1/reference/%.o,$$($1_CU))
$1_HEADERS := $$(wildcard labs/$1/*.h) $(KIT_PUBLIC_HEADERS)
# (lab.mk first: its LAB_FLAGS_<lab> are read on the next line)
-include labs/$1/lab.mk
$1_INCLUDES := -Ilabs/$1 $$(LAB_FLAGS_$1)
# Libraries the lab's code links (LAB_LIBS_<lab>, set in its lab.mk: lab 9's NCCL), on the gpu
# backend only: the cpu backend brings its own emulation of them.
$1_LIBS = $$(if $$(filter gpu,$(BACKEND)),$$(LAB_LIBS_$1))

$$($1_SOUT)/student/%.o: $$(if $$(STUDENT_DIR),$$(STUDENT_DIR)/%.cu,labs/$1/%.cu) $$($1_HEADERS) $$(BACKEND_DEPS) $$(FRONT_CHECK)
	@mkdir -p $$(@D)
	$$(if $$(FRONT_CHECK),@$$(call front_check,$$<,$$($1_INCLUDES)))
	$$(call cu_compile,$$<,$$@,$$($1_INCLUDES) $$(STUDENT_PATH_FLAGS))
ifneq ($$(STUDENT_DIR),)
$$($1_SOUT)/student/%.o: labs/$1/%.cu $$($1_HEADERS) $$(BACKEND_DEPS)
	@mkdir -p $$(@D)
	$$(call cu_compile,$$<,$$@,$$($1_INCLUDES))
endif
$(B)/$1/reference/%.o: solutions/$1/%.cu $$($1_HEADERS) $$(BACKEND_DEPS)
	@mkdir -p $$(@D)
	$$(call cu_compile,$$<,$$@,$$($1_INCLUDES))
# A file with no TODO is given whole: the reference builds the student's
# copy (not in a student copy of the kit, which has no reference to build).
ifneq ($(wildcard solutions/$1),)
$(B)/$1/reference/%.o: labs/$1/%.cu $$($1_HEADERS) $$(BACKEND_DEPS)
	@mkdir -p $$(@D)
	$$(call cu_compile,$$<,$$@,$$($1_INCLUDES))
endif
$(B)/$1/main.o: labs/$1/main.c $$($1_HEADERS) $(KIT_PROGRAM_HEADER) | $$(FRONT_CHECK)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -Ilabs/$1 -c $$< -o $$@

$$($1_SOUT)/student.so: $$($1_STUDENT_OBJS) $(HARNESS_OBJS) $$(BACKEND_DEPS)
	$$(call so_link,$$@,$$($1_STUDENT_OBJS) $(HARNESS_OBJS) $$($1_LIBS))
$(B)/$1/reference.so: $$($1_REFERENCE_OBJS) $(HARNESS_OBJS) $$(BACKEND_DEPS)
	$$(call so_link,$$@,$$($1_REFERENCE_OBJS) $(HARNESS_OBJS) $$($1_LIBS))
# (a program, not -rdynamic: its dynamic symbols are the libraries' it imports)
$(B)/$1/reference-runner: $(REFERENCE_RUNNER_OBJS) $(HOST)/built-in/$1.o $(HOST)/calls/$1.o $$($1_REFERENCE_OBJS) \
                          $(HARNESS_OBJS) $$(BACKEND_DEPS)
	$$(call exe_link,$$@,$(REFERENCE_RUNNER_OBJS) $(HOST)/built-in/$1.o $(HOST)/calls/$1.o $$($1_REFERENCE_OBJS) $(HARNESS_OBJS) $$($1_LIBS) -ldl)
$$($1_SOUT)/lab: $(B)/$1/main.o $$($1_STUDENT_OBJS) $(HARNESS_OBJS) $$(BACKEND_DEPS)
	$$(call exe_link,$$@,$(B)/$1/main.o $$($1_STUDENT_OBJS) $(HARNESS_OBJS) $$($1_LIBS))
$(B)/$1/lab-solution: $(B)/$1/main.o $$($1_REFERENCE_OBJS) $(HARNESS_OBJS) $$(BACKEND_DEPS)
	$$(call exe_link,$$@,$(B)/$1/main.o $$($1_REFERENCE_OBJS) $(HARNESS_OBJS) $$($1_LIBS))

.PHONY: $(call lab_short,$1) $1 build-$1
build-$1: $$($1_SOUT)/student.so $(B)/$1/reference-runner $(B)/$1/reference.so $$($1_SOUT)/lab $(B)/$1/lab-solution
$(call lab_short,$1) $1: deps $$(if $$(SOLUTION),$(B)/$1/lab-solution,$$($1_SOUT)/lab)
	@echo "== $1 ($$(if $$(SOLUTION),reference solution,your code), $(BACKEND) backend): $$(if $$(SOLUTION),$(B)/$1/lab-solution,$$($1_SOUT)/lab) $$(ARGS)"
	@$$(if $$(SOLUTION),$(B)/$1/lab-solution,$$($1_SOUT)/lab) $$(ARGS) || \
	    echo "== the program reported a problem (see above); ./grader $(call lab_short,$1) tells you more"
endef
$(foreach L,$(LABS),$(eval $(call LAB_RULES,$L)))

# ---- The grader and the runner ------------------------------------------------------------
# Two host programs that never call CUDA themselves.  The grader (trusted)
# runs the suites; the runner loads the student's shared object and serves
# the calls the grader sends it (common/runner).  Each lab's calls are
# described once, in grading/labN-name/lab-calls.h, for both.  (The reference
# runners, above, are the same runner with a lab's reference linked in.)
# Each lab's grading lives in its own folder, grading/labN-name/ (its suite,
# calls, model, known-bad versions and benchmark: docs/developing.md).
SUITES := $(wildcard grading/lab*/suite.c)
SUITE_NAMES := $(patsubst grading/%/suite.c,%,$(SUITES))
GRADER_SRC := $(wildcard common/grading/*.c)
# A suite's model functions (the answers to its lab's TODOs) are in
# grading/<lab>/model.c; a student copy has only their objects, in
# prebuilt/host/grading/<lab>/model.o (tools/dist.sh), linked where the source is absent.
MODELS := $(wildcard grading/lab*/model.c)
PREBUILT_MODELS := $(filter-out $(patsubst %.c,prebuilt/host/%.o,$(MODELS)),$(wildcard prebuilt/host/grading/lab*/model.o))
GRADER_OBJS := $(patsubst %.c,$(HOST)/%.o,$(GRADER_SRC) $(SUITES) $(MODELS)) $(PREBUILT_MODELS) \
               $(HOST)/grading-table.o $(HOST)/kit.o
RUNNER_OBJS := $(REFERENCE_RUNNER_OBJS) $(HOST)/common/runner/loaded.o $(HOST)/runner-table.o \
               $(patsubst %,$(HOST)/calls/%.o,$(SUITE_NAMES))
# (-Igrading: the suites include their lab's files as "<lab>/model.h", "<lab>/lab-calls.h",
# so that an instructor's hidden suite, kept elsewhere, finds them too)
HOST_CFLAGS = $(CFLAGS) -MMD -MP -Icommon/grading -Icommon/runner -Igrading $(addprefix -Ilabs/,$(LABS))
lab_id = $(firstword $(subst -, ,$1))

# The grader's and the runner's tables of labs, one entry per suite:
# $(call lab_table,HEADER,PREFIX,EXTERN_TYPE) writes $@ with
# `extern EXTERN_TYPE PREFIX_labN;` for each, then `PREFIX_labs[]` of their
# addresses, null-terminated.
lab_table = @{ echo '\#include "$1"'; \
	for s in $(SUITE_NAMES); do echo "extern $3 $2_$${s%%-*};"; done; \
	echo 'const $2_lab *const $2_labs[] = {'; \
	for s in $(SUITE_NAMES); do echo "    &$2_$${s%%-*},"; done; \
	echo '    0 };'; } > $@
$(HOST)/grading-table.c: $(SUITES) Makefile | $(HOST)/
	$(call lab_table,grade.h,grade,grade_lab)
$(HOST)/runner-table.c: $(SUITES) Makefile | $(HOST)/
	$(call lab_table,serve.h,serve,const serve_lab)
$(HOST)/%-table.o: $(HOST)/%-table.c
	$(CC) $(HOST_CFLAGS) -c $< -o $@
# The style of the kit's HTML pages, one file for the grader's report and
# tools/grades-stats.sh --html: html.c builds it in (.incbin).
$(HOST)/common/grading/html.o: common/grading/report.css
$(HOST)/kit.o: common/harness/kit.c | $(HOST)/
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(HOST)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@
# One table of calls per lab, from the same source.
$(HOST)/calls/%.o: common/runner/lab_calls.c grading/%/lab-calls.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -DLAB_CALLS='"$*/lab-calls.h"' -DLAB_DIR='"$*"' -DLAB_TABLE=serve_$(call lab_id,$*) -c $< -o $@
# A reference runner's table of its lab's entry points, compiled in (common/runner/built_in.c).
$(HOST)/built-in/%.o: common/runner/built_in.c grading/%/lab-calls.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -DLAB_CALLS='"$*/lab-calls.h"' -DLAB_TABLE=serve_$(call lab_id,$*) -c $< -o $@
$(HOST)/grader: $(GRADER_OBJS) $(HOST)/runner
	$(CC) -o $@ $(GRADER_OBJS) $(CHECK_LIBS) -ldl
# (one symbol exported, for the cpu backend's alignment check: see runner.c)
$(HOST)/runner: $(RUNNER_OBJS)
	$(CC) -o $@ $(RUNNER_OBJS) -Wl,--export-dynamic-symbol=__ubsan_default_options -ldl

# (wildcard, not a shell: every make of a lab reads this line)
-include $(wildcard $(HOST)/*.d $(HOST)/*/*.d $(HOST)/*/*/*.d)

# ---- Top-level targets -------------------------------------------------------------------
.PHONY: help deps all grader test check bench bench-cpu doctor clean
help:
	@sed -n '1,19p' Makefile | sed 's/^# \{0,1\}//'
	@echo "Labs: $(LABS)"
deps:
	@tools/setup.sh
grader: deps $(HOST)/grader
all: deps $(HOST)/grader $(addprefix build-,$(LABS))
test: deps
	@tests/run.sh
check: deps
	@tests/quick.sh
bench:
	@tools/bench.sh
bench-cpu:
	@sh tests/backend/bench-cpu.sh
doctor:
	@tools/doctor.sh
clean:
	rm -rf build

%/:
	@mkdir -p $@

# Topic fragments (dist, handouts, bench...) add their own targets.
include $(wildcard mk/*.mk)
