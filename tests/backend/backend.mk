# tests/backend/backend.mk: builds the cpu backend's own test programs.
#   make -f tests/backend/backend.mk B=build/cpu SANITIZE= tests
# Each tests/backend/*.cu becomes $(B)/backend-tests/<name>, built like a lab
# (common/cpu/cpu.mk's rules).
SHELL := /bin/sh
.SUFFIXES:
.DELETE_ON_ERROR:
SANITIZE ?=
B ?= build/cpu$(if $(SANITIZE),-$(SANITIZE))
include common/cpu/cpu.mk

TB := $(B)/backend-tests
BACKEND_TESTS := $(sort $(basename $(notdir $(wildcard tests/backend/*.cu))))

$(TB)/%.o: tests/backend/%.cu tests/backend/check.h $(BACKEND_DEPS)
	@mkdir -p $(@D)
	@$(call cu_compile,$<,$@,-Itests/backend)
$(TB)/%: $(TB)/%.o $(BACKEND_DEPS)
	@$(call exe_link,$@,$<)

.PHONY: tests
tests: $(addprefix $(TB)/,$(BACKEND_TESTS))
$(TB)/%: ONLY = 1
