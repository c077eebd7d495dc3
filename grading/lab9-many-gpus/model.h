/* grading/lab9-many-gpus/model.h: the grader's model of lab 9's split and
 * ring, which grading/lab9-many-gpus/suite.c checks the student's results
 * against.  A student copy holds this header and the compiled model, not
 * its source: the source answers the lab's TODOs (docs/developing.md). */
#ifndef MODELS_LAB9_MANY_GPUS_H
#define MODELS_LAB9_MANY_GPUS_H

#include "lab9.h"

/* split_slices as lab9.h defines it: first[0..devices]. */
void lab9_split(int n, int devices, int *first);

/* The chunk device r sends to device r + 1 at `step` (1 .. 2(devices-1)). */
int lab9_chunk_sent(int devices, int r, int step);

/* Which devices' share each chunk holds after `step` steps of the ring:
 * masks[r][c], bit k set when device r's chunk c includes device k's chunk c. */
void lab9_ring_masks(int devices, int step, unsigned masks[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES]);

/* The ring's state after `step` steps from original (devices buffers of
 * count floats), into state. */
void lab9_ring_state(const float *original, int count, int devices, int step, float *state);

#endif
