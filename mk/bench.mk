# mk/bench.mk: the bench programs (GPU only).
#
#   make bench           build, check and time every lab on this GPU (tools/bench.sh; BENCH_QUICK=1 for a short run)
#   make bench-report    docs/performance.md from the last run's results (tools/bench-report.sh)
#
# One program per lab, build/bench/bin/<lab>, from grading/<lab>/bench.c (which
# includes the lab's fixed header), the shared bench code, the libraries it
# is compared with (CUB, cuBLAS) and the harness, and the lab's going-further
# files: every solutions/<lab>/X.cu with no labs/<lab>/X.cu (the fastest
# versions, beyond what the lab's steps teach; not part of the lab build).

BENCH_DIR := build/bench
BENCH_PROGRAM_LABS := $(filter $(patsubst grading/%/bench.c,%,$(wildcard grading/lab*/bench.c)),$(LABS))
BENCH_HEADERS := $(wildcard bench/*.h) $(KIT_HEADERS)
BENCH_OBJS := $(BENCH_DIR)/obj/bench.o $(BENCH_DIR)/obj/ceiling.o $(BENCH_DIR)/obj/dot.o $(BENCH_DIR)/obj/libraries.o

$(BENCH_DIR)/obj/bench.o $(BENCH_DIR)/obj/ceiling.o $(BENCH_DIR)/obj/dot.o: $(BENCH_DIR)/obj/%.o: bench/%.c $(BENCH_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ibench -c $< -o $@
$(BENCH_DIR)/obj/libraries.o: bench/libraries.cu $(BENCH_HEADERS)
	@mkdir -p $(@D)
	$(NVCC) $(ARCH) -O3 -std=c++17 -Icommon/harness -Ibench -c $< -o $@
# The compiler's resource report of each (registers, spills) lands beside its object.
$(BENCH_DIR)/obj/beyond/%.o: solutions/%.cu $(KIT_PUBLIC_HEADERS) $(KIT_PROGRAM_HEADER)
	@mkdir -p $(@D)
	$(NVCC) $(ARCH) -O3 -std=c++17 -lineinfo -Xptxas -v -Icommon/harness -c $< -o $@ > $(@:.o=.ptxas.txt) 2>&1 \
	    || { cat $(@:.o=.ptxas.txt); exit 1; }

define BENCH_LAB_RULES
$1_BEYOND := $$(filter-out $$(patsubst labs/%,solutions/%,$$(wildcard labs/$1/*.cu)),$$(wildcard solutions/$1/*.cu))
$(BENCH_DIR)/obj/$1.o: grading/$1/bench.c $(BENCH_HEADERS) $(wildcard labs/$1/*.h)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -Ibench -Ilabs/$1 -c $$< -o $$@
$(BENCH_DIR)/bin/$1: $(BENCH_DIR)/obj/$1.o $(BENCH_OBJS) $(HARNESS_OBJS) $$(patsubst solutions/%.cu,$(BENCH_DIR)/obj/beyond/%.o,$$($1_BEYOND))
	@mkdir -p $$(@D)
	$$(NVCC) $$(ARCH) -o $$@ $$(filter %.o,$$^) -lcublas -ldl $$(LAB_LIBS_$1)
endef
$(foreach L,$(BENCH_PROGRAM_LABS),$(eval $(call BENCH_LAB_RULES,$L)))

.PHONY: bench-programs bench-report
bench-programs: $(addprefix $(BENCH_DIR)/bin/,$(BENCH_PROGRAM_LABS))
bench-report:
	@tools/bench-report.sh
