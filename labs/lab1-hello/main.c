/* main.c: the lab 1 program (do not edit).
 *
 *     lab [blocks] [threads_per_block]        (defaults: 2 4)
 *
 * Runs the three parts of hello.cu: the device query, the hello kernel on
 * `blocks` blocks of `threads_per_block` threads (then a launch CUDA must
 * refuse), and the global indices of a two-dimensional launch built from the
 * same numbers.  Exits 0 when everything is right, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "lab1.h"

#define POISON (-1) /* what an element holds before any thread writes it */

static int part1_device(lab1_device_info *info)
{
    describe_device(info);
    printf("Part 1: the device\n");
    printf("  name                    %s\n", info->name);
    printf("  multiprocessors         %d\n", info->multiprocessor_count);
    printf("  compute capability      %d.%d\n", info->major, info->minor);
    printf("  warp size               %d\n", info->warp_size);
    printf("  max threads per block   %d\n", info->max_threads_per_block);
    printf("  global memory           %.1f GiB\n", (double)info->global_memory_bytes / (1024.0 * 1024 * 1024));
    int ok = strcmp(info->name, kit_device_name()) == 0 && info->multiprocessor_count > 0
             && info->warp_size > 0 && info->max_threads_per_block > 0 && info->global_memory_bytes > 0;
    if (!ok)
        printf("  WRONG: the kit sees \"%s\"; every number above should be positive\n", kit_device_name());
    return ok;
}

static int part2_hello(int blocks, int threads, int refused_threads)
{
    printf("\nPart 2: hello from %d block(s) of %d thread(s)\n", blocks, threads);
    fflush(stdout); /* so the kernel's lines come after this one */
    int err = hello(blocks, threads);
    fflush(stdout);
    int ok = err == 0;
    printf("  hello returned %d%s\n", err, ok ? "" : "  WRONG: a launch of this shape should work");

    printf("  now a launch CUDA must refuse: 1 block of %d threads\n", refused_threads);
    fflush(stdout);
    err = hello(1, refused_threads);
    fflush(stdout);
    /* CUDA refuses such a launch with cudaErrorInvalidValue (1) since CUDA
     * 12, cudaErrorInvalidConfiguration (9) before; this file is plain C, so
     * the numbers themselves */
    if (err == 1 || err == 9) {
        printf("  hello returned %d: the error was caught and reported\n", err);
    } else if (err != 0) {
        printf("  WRONG: hello returned %d, which is not the error CUDA gives for this launch (1 or 9): return "
               "the cudaError_t itself\n", err);
        ok = 0;
    } else {
        printf("  WRONG: hello returned 0, so the refused launch went unnoticed\n");
        ok = 0;
    }
    return ok;
}

static int part3_indices(int blocks, int threads)
{
    lab1_shape grid = {blocks, 2, 1}, block = {threads, 2, 1};
    int total = blocks * 2 * threads * 2;
    int n = total > 3 ? total - 3 : total; /* a few threads past n show the bound check */
    int *out = malloc((size_t)total * sizeof *out);
    for (int i = 0; i < total; i++)
        out[i] = POISON;

    printf("\nPart 3: global indices, grid (%d, 2, 1) of blocks (%d, 2, 1): %d threads, n = %d\n",
           blocks, threads, total, n);
    kit_set_timing(1);
    kit_reset_records();
    double started = kit_wall_ms();
    fill_global_indices(out, n, grid, block);
    double wall = kit_wall_ms() - started;

    int first_wrong = -1;
    for (int i = 0; i < total && first_wrong < 0; i++)
        if (out[i] != (i < n ? i : POISON))
            first_wrong = i;

    if (total <= 64) {
        printf("  out[] (elements from n on, marked *, must keep %d):\n", POISON);
        for (int row = 0; row < total; row += 16) {
            int count = total - row < 16 ? total - row : 16;
            int from = n - row, to = count;
            if (from >= count) from = to = -1;
            if (from < 0 && to >= 0) from = 0;
            printf("  out[%d..%d]\n", row, row + count - 1);
            kit_draw_ints(stdout, "    ", out + row, count, from, to);
        }
    }
    printf("  launches: %d; kernel time %.3f ms, whole call %.3f ms (%s)\n", kit_launch_count(), kit_timed_ms(),
           wall, kit_device_name());
    if (first_wrong >= 0)
        printf("  WRONG: out[%d] = %d, expected %d\n", first_wrong, out[first_wrong],
               first_wrong < n ? first_wrong : POISON);
    else
        printf("  every thread below n wrote its own index, and nothing past n changed\n");
    free(out);
    return first_wrong < 0;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 2;
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    if (blocks < 1 || threads < 1 || blocks > 65535 || threads > 512) {
        fprintf(stderr, "usage: %s [blocks (1..65535)] [threads_per_block (1..512)]\n", argv[0]);
        return 2;
    }

    lab1_device_info info;
    int ok = part1_device(&info);
    int limit = info.max_threads_per_block > 0 ? info.max_threads_per_block : 1024;
    ok &= part2_hello(blocks, threads, 2 * limit);
    ok &= part3_indices(blocks, threads);

    if (kit_todo_pending())
        printf("\nreminder: not every TODO is done yet, %s among them (see the handout).\n", kit_todo_pending());
    printf("\n%s\n", ok ? "lab 1: all right" : "lab 1: something is wrong (see WRONG above)");
    return ok ? 0 : 1;
}
