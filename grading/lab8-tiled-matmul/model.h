/* grading/lab8-tiled-matmul/model.h: the grader's model of lab 8's tile rule,
 * which grading/lab8-tiled-matmul/suite.c checks tile_for_block_size against.  A
 * student copy holds this header and the compiled model, not its source: the
 * source answers the lab's TODO 8 (see docs/developing.md, "a lab's model"). */
#ifndef MODELS_LAB8_TILED_MATMUL_H
#define MODELS_LAB8_TILED_MATMUL_H

/* The tile side for a block of `threads` threads: the square root of the
 * largest power of four not above it, 0 for fewer than 1 thread: what
 * tile_for_block_size must return. */
int lab8_rule(int threads);

#endif
