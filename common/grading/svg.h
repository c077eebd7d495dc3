/* svg.h: a figure record (figure.h) drawn as SVG (svg.c). */
#ifndef SVG_H
#define SVG_H

#include <stdio.h>

#include "figure.h"

/* One <svg> element, well-formed XML on its own. */
void svg_figure(FILE *out, const figure_record *figure);
/* `s` as XML text (and attribute) content: markup escaped, control bytes dropped. */
void svg_text(FILE *out, const char *s);

#endif
