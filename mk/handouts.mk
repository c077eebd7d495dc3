# mk/handouts.mk: the handouts as standalone HTML (and PDF where a PDF engine exists).
#
#   make handouts          every handouts/*.md -> build/handouts/*.html (pandoc, installed as root when missing),
#                          with the figures below and the plots of make bench where it has made them
#   make handout-figures   the handouts' figures, build/handouts/figures/*.svg (tools/handout-figures.c)
#
# The figures are drawn by the report's code (common/grading/svg.c) from runs
# of the reference solutions, always on the cpu backend: it needs no GPU, it
# emulates lab 9's four devices, and the pictures are the algorithm's, the
# same on every device.  In a student copy (no solutions/) the figures that
# need a run are not made, and the handouts say so where they would be.

HANDOUT_FIGURES_DIR := build/handouts/figures
# the labs whose figures come from a run of the reference (the others need none)
HANDOUT_FIGURE_RUNS := lab3-folding lab4-tournament lab5-max-reduction lab6-shared-dot lab9-many-gpus
HANDOUT_REFERENCES := $(foreach L,$(HANDOUT_FIGURE_RUNS),$(if $(wildcard solutions/$L),build/cpu/$L/reference.so))

$(HOST)/handout-figures: $(HOST)/tools/handout-figures.o $(HOST)/common/grading/svg.o
	$(CC) -o $@ $^ -ldl -lm

.PHONY: handouts handout-figures
handout-figures: $(HOST)/handout-figures
ifneq ($(HANDOUT_REFERENCES),)
	@$(MAKE) -s --no-print-directory BACKEND=cpu $(HANDOUT_REFERENCES)
endif
	@mkdir -p $(HANDOUT_FIGURES_DIR) && $(HOST)/handout-figures $(HANDOUT_FIGURES_DIR) build/cpu
handouts:
	@sh tools/render-handout.sh --all build/handouts
