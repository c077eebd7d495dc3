# common/cpu/cpu.mk: build rules of the cpu backend (the kit's CUDA emulation).
# Included by the top Makefile when BACKEND=cpu, with B = build/cpu or
# build/cpu-<sanitizer> and SANITIZE = "" | address | thread.  Defines:
#   cu_compile  $(call cu_compile,SRC.cu,OBJ.o,EXTRA_FLAGS)   compile one .cu
#   so_link     $(call so_link,OUT.so,OBJS)                   a shared object for the grader
#   exe_link    $(call exe_link,OUT,OBJS)                     a program
#   BACKEND_DEPS                                             built before any of these run
#   front_check $(call front_check,SRC.cu,FLAGS)             nvcc's verdict on a student's file
#   FRONT_CHECK                                              what front_check needs, built with the kit
#   EMU_SANITIZE_FLAGS                                       added to C objects linked with them
#
# A .cu file builds in three steps, all next to the object:
#   1. g++ -E with cuda_runtime.h included first, as nvcc does     -> OBJ.ii
#   2. rewrite.pl: <<<...>>> and __shared__ into plain C++         -> OBJ.emu.cpp
#   3. g++ -c, with the sanitizer if any, cuda_runtime.h precompiled -> OBJ.o
# Line markers carry the .cu file's name and lines through all three, so
# compiler messages, __LINE__ and the emulator's diagnostics name the
# student's own file and line.  The emulator's runtime (common/cpu/src) is an
# archive linked into every shared object, so each has its own device.
EMU_DIR := common/cpu
EMU_CXX ?= g++
# DWARF 4: addr2line (binutils 2.40) reads DWARF 5's line markers wrong and
# names the rewritten file instead of the student's, so a fault's line
# (scheduler.cpp, source_line_of) would point nowhere useful.
EMU_OPT ?= -O2 -g -gdwarf-4
EMU_SANITIZE_address := -fsanitize=address -fno-omit-frame-pointer
EMU_SANITIZE_thread := -fsanitize=thread
EMU_SANITIZE_FLAGS := $(EMU_SANITIZE_$(SANITIZE))
EMU_RUNTIME_address := -DCUDAEMU_ASAN
EMU_RUNTIME_thread := -DCUDAEMU_TSAN
# A barrier-free kernel's threads run as a loop with the kernel inlined in
# it (include/cudaemu/launch.h, thread_loop), which the compiler can turn
# into vector code: at -O2, g++ 12 vectorises only loops that need no
# run-time check (the arrays' overlap, the loop's count) and does not move
# a test that does not change out of a loop (the loop's test for a thread
# that called into the runtime).  These two ask for both, as -O3 does.
EMU_VECTORIZE := -funswitch-loops -fvect-cost-model=dynamic
EMU_CXXFLAGS := -std=c++17 -fcoroutines -fPIC -ftls-model=initial-exec $(EMU_OPT) $(EMU_VECTORIZE) -D__CUDAEMU__=1 -I$(EMU_DIR)/include -Icommon/harness
# A GPU stops a load or store at an address that is not a multiple of its
# type's alignment (a float4 at a + 1); a CPU quietly allows it.  The
# compiler's alignment check makes such an access stop here too, with the
# student's file and line ("load of misaligned address ... for type 'const
# float4', which requires 16 byte alignment").
EMU_CHECKS := -fsanitize=alignment -fno-sanitize-recover=alignment
# What nvcc defines for a .cu file (include/cudaemu/as_nvcc.h says why).
EMU_AS_NVCC := -include cudaemu/as_nvcc.h
# A thread's stack has a guard page below it (src/fiber.cpp); a function
# whose frame is larger than a page must touch it page by page, or it could
# jump over the guard into another thread's stack.
EMU_STACK_CHECK := -fstack-clash-protection

# What the kit reads of its builds' debug information (the runtime's, a
# lab's files') is their line tables: a fault's file and line, through
# addr2line, and a sanitizer's report.  The locations of variables in
# optimised code, which var-tracking-assignments works out, nothing reads,
# and they cost up to two thirds of a compile (an ASan build of a large test
# file: 6.3 -> 2.3 CPU-s; a lab's file: a sixth).  The code made is the same
# (-g never changes it).  cucc keeps them where -g or -G asks for them.
EMU_LINES_ONLY := -fno-var-tracking-assignments

EMU_HEADERS := $(wildcard $(EMU_DIR)/include/*.h $(EMU_DIR)/include/*/*.h)
EMU_SOURCES := $(wildcard $(EMU_DIR)/src/*.cpp $(EMU_DIR)/src/*.S)
EMU_OBJS := $(patsubst $(EMU_DIR)/src/%,$(B)/emu/%.o,$(EMU_SOURCES))
EMU_LIB := $(B)/emu/libcudaemu.a

# The runtime itself is not instrumented (it only tells the sanitizer about
# fibers and synchronisation); the students' code is.
$(B)/emu/%.cpp.o: $(EMU_DIR)/src/%.cpp $(EMU_DIR)/src/internal.h $(EMU_HEADERS)
	@mkdir -p $(@D)
	$(EMU_CXX) $(EMU_CXXFLAGS) $(EMU_LINES_ONLY) -Wall -Wextra -fno-omit-frame-pointer $(EMU_RUNTIME_$(SANITIZE)) -c $< -o $@
$(B)/emu/%.S.o: $(EMU_DIR)/src/%.S
	@mkdir -p $(@D)
	$(EMU_CXX) -fPIC -c $< -o $@
$(EMU_LIB): $(EMU_OBJS)
	@rm -f $@
	ar rcs $@ $(EMU_OBJS)

# cuda_runtime.h, precompiled: most of what step 3 compiles is that header
# and the C++ library it includes, the same for every .cu file (a third of
# a build's time).  Step 2 cuts its text out of OBJ.ii; step 3 includes it
# (EMU_PCH_HEADER, which includes the real one: where g++ cannot use the
# precompiled form, with other flags say, it reads the text instead, slower
# but the same) and then undefines its macros (EMU_PCH_UNDEF): the text
# that follows is already expanded, and must be compiled as before, with the
# compiler's macros alone (a macro's expansion may name a macro).
EMU_COMPILE_FLAGS = $(EMU_CXXFLAGS) $(EMU_LINES_ONLY) $(EMU_CHECKS) $(EMU_STACK_CHECK) $(EMU_SANITIZE_FLAGS)
EMU_PCH_HEADER := $(B)/pch/cuda_runtime.h
CUCC_PCH_HEADER := $(B)/pch-cucc/cuda_runtime.h
EMU_PCH := $(EMU_PCH_HEADER).gch
EMU_PCH_UNDEF := $(B)/pch/undef-macros.h
$(EMU_PCH_HEADER) $(CUCC_PCH_HEADER):
	@mkdir -p $(@D)
	echo '#include <cuda_runtime.h>' > $@
$(EMU_PCH): $(EMU_PCH_HEADER) $(EMU_HEADERS)
	$(EMU_CXX) -x c++-header $(EMU_COMPILE_FLAGS) $< -o $@
macro_names = $(EMU_CXX) -dM -E -x c++ $(EMU_CXXFLAGS) $1 /dev/null | sed -n 's/^\#define \([A-Za-z0-9_]*\).*/\1/p' | sort
$(EMU_PCH_UNDEF): $(EMU_PCH_HEADER) $(EMU_HEADERS)
	$(call macro_names,) > $@.compiler
	$(call macro_names,-include $<) > $@.header
	comm -13 $@.compiler $@.header | sed 's/^/\#undef /' > $@
	@rm -f $@.compiler $@.header

# The same for cucc (a program of one's own), whose flags leave out the
# alignment check; the macros to undefine after it are EMU_PCH_UNDEF's.  A
# compile whose flags differ (-G, another -std) reads the text, as above.
CUCC_PCH := $(CUCC_PCH_HEADER).gch
$(CUCC_PCH): $(CUCC_PCH_HEADER) $(EMU_HEADERS)
	$(EMU_CXX) -x c++-header $(EMU_CXXFLAGS) $(EMU_STACK_CHECK) $(EMU_SANITIZE_FLAGS) $< -o $@

BACKEND_DEPS := $(EMU_LIB) $(EMU_DIR)/rewrite.pl $(EMU_HEADERS) $(EMU_PCH) $(EMU_PCH_UNDEF)

# A kernel's twin (common/cpu/include/cudaemu/coroutine.h) repeats its
# lines: where the file does not compile, it is compiled again without
# twins, whose messages are the student's code's alone (and which builds
# if the twin alone was the trouble: its kernels then run on fibers).
# Where it compiles, its warnings are shown.
emu_compile = $(EMU_CXX) -include $(EMU_PCH_HEADER) -include $(EMU_PCH_UNDEF) -x c++ $(EMU_COMPILE_FLAGS) -I$(dir $1) $3 -c $(basename $2).emu.cpp -o $2
cu_compile = mkdir -p $(dir $2) && \
	$(EMU_CXX) -E -x c++ $(EMU_CXXFLAGS) $(EMU_AS_NVCC) -I$(dir $1) $3 -include cuda_runtime.h $1 -o $(basename $2).ii && \
	perl $(EMU_DIR)/rewrite.pl --after-pch $(basename $2).ii $(basename $2).emu.cpp && \
	{ { $(call emu_compile,$1,$2,$3) 2>$(basename $2).twins.log && cat $(basename $2).twins.log >&2; } || \
	  { perl $(EMU_DIR)/rewrite.pl --after-pch --no-twins $(basename $2).ii $(basename $2).emu.cpp && \
	    $(call emu_compile,$1,$2,$3); }; }
# The grader loads a lab's shared object in a new runner at every item: with
# the C++ and alignment-check runtimes linked in, that takes 0.25 ms instead of
# 1 ms (loading libstdc++.so is most of it).  Not with ASan or TSan, whose
# runtimes must be shared.
EMU_SO_STATIC := $(if $(SANITIZE),,-static-libubsan -static-libstdc++ -static-libgcc)
# The gold linker where it is installed (binutils' second linker: Debian's
# and Ubuntu's binutils include it): it links these in half the time of the
# default one (a lab's shared object, its C++ runtime included: 0.11 -> 0.06 CPU-s),
# and the grader links a submission at every grade that builds it.  Looked
# for as a file, not by running anything: make reads this file at each start.
EMU_LD := $(if $(wildcard /usr/bin/ld.gold),-fuse-ld=gold)
so_link = $(EMU_CXX) -shared $(EMU_LD) -Wl,-Bsymbolic $(EMU_CHECKS) $(EMU_SANITIZE_FLAGS) $(EMU_SO_STATIC) -o $1 $2 $(EMU_LIB) -lm
exe_link = $(EMU_CXX) $(EMU_LD) $(EMU_CHECKS) $(EMU_SANITIZE_FLAGS) -o $1 $2 $(EMU_LIB) -lm

# ---- nvcc as a front end ------------------------------------------------------------
# g++ accepts some code that is not CUDA (a host function called from a
# kernel); where nvcc is installed, a student's file must also pass nvcc's
# own checks (errors only, no code made), so that what builds here builds on
# a GPU.  The stamp records the nvcc that works with the kit's harness, or
# nothing: an nvcc that cannot compile the kit (no host compiler it
# supports) must not fail students.  NVCC_CHECK=no turns the check off.
FRONT_CHECK := $(B)/harness/nvcc-check
$(FRONT_CHECK): common/harness/kit_cuda.cu $(KIT_HEADERS) | $(B)/harness/
	@nvcc=$$(command -v nvcc 2>/dev/null); \
	 if [ -n "$$nvcc" ] && "$$nvcc" -std=c++17 -w -Icommon/harness -x cu -ptx -o /dev/null $< >/dev/null 2>&1; \
	 then echo "$$nvcc" > $@; else : > $@; fi
front_check = nvcc=$$(cat $(FRONT_CHECK)); [ -z "$$nvcc" ] || [ "$(NVCC_CHECK)" = no ] || \
	"$$nvcc" -std=c++17 -w -Icommon/harness $2 -x cu -ptx -o /dev/null $1
