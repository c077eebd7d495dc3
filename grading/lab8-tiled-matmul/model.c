/* grading/lab8-tiled-matmul/model.c: the grader's model of lab 8's tile rule.
 * (dist: compiled only: lab8_rule is the answer to the lab's TODO 8,
 * tile_for_block_size, so a student copy holds its object,
 * prebuilt/host/grading/lab8-tiled-matmul/model.o, and
 * lab8-tiled-matmul/model.h, not this source.) */
#include "model.h"

int lab8_rule(int threads)
{
    int tile = 0;
    for (int t = 1; t * t <= threads; t *= 2)
        tile = t;
    return tile;
}
