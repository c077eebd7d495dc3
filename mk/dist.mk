# mk/dist.mk: the student copy.
#
#   make dist        dist/cuda-labs-student.tar.gz: no solution source, prebuilt
#                    references, rendered handouts (tools/dist.sh says what is in it)

.PHONY: dist
dist: deps
	@sh tools/dist.sh

# In a student copy there is no solutions/ folder: whatever needs a solution
# source (make labN SOLUTION=1) stops with this instead of make's "No rule".
ifeq ($(wildcard solutions/.),)
solutions/%:
	@echo "This is a student copy: it has no reference solution ($@)." >&2
	@echo "./grader grades your code against the prebuilt reference in prebuilt/$(BACKEND)/." >&2
	@exit 1
endif
