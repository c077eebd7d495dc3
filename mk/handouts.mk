# mk/handouts.mk: the handouts as standalone HTML (and PDF where a PDF engine exists).
#
#   make handouts        every handouts/*.md -> build/handouts/*.html (pandoc, installed as root when missing)

.PHONY: handouts
handouts:
	@sh tools/render-handout.sh --all build/handouts
