/* grading/lab9-many-gpus/model.c: the grader's model of lab 9 (model.h).
 * (dist: compiled only: it answers the lab's TODOs 1, 5 and 6.) */
#include <string.h>

#include "lab9-many-gpus/model.h"

static int mod(int i, int m) { return ((i % m) + m) % m; }

void lab9_split(int n, int devices, int *first)
{
    first[0] = 0;
    for (int d = 0; d < devices; d++)
        first[d + 1] = first[d] + n / devices + (d < n % devices ? 1 : 0);
}

int lab9_chunk_sent(int devices, int r, int step)
{
    if (step <= devices - 1)
        return mod(r - step + 1, devices);
    return mod(r - (step - (devices - 1)) + 2, devices);
}

/* The ring played on sets of devices: each step, device r + 1 takes (adds or
 * overwrites) the set of the chunk device r sends. */
void lab9_ring_masks(int devices, int step, unsigned masks[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES])
{
    memset(masks, 0, sizeof(unsigned) * LAB9_MAX_DEVICES * LAB9_MAX_DEVICES);
    for (int r = 0; r < devices; r++)
        for (int c = 0; c < devices; c++)
            masks[r][c] = 1u << r;
    for (int s = 1; s <= step; s++) {
        unsigned before[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES];
        memcpy(before, masks, sizeof before);
        for (int r = 0; r < devices; r++) {
            int c = lab9_chunk_sent(devices, r, s), to = mod(r + 1, devices);
            masks[to][c] = s <= devices - 1 ? before[to][c] | before[r][c] : before[r][c];
        }
    }
}

void lab9_ring_state(const float *original, int count, int devices, int step, float *state)
{
    unsigned masks[LAB9_MAX_DEVICES][LAB9_MAX_DEVICES];
    int first[LAB9_MAX_DEVICES + 1];
    lab9_ring_masks(devices, step, masks);
    lab9_split(count, devices, first);
    for (int r = 0; r < devices; r++)
        for (int c = 0; c < devices; c++)
            for (int i = first[c]; i < first[c + 1]; i++) {
                /* added in the ring's order: the devices r, r - 1, ... that the chunk holds */
                float sum = 0.0f;
                for (int k = 0; k < devices; k++)
                    if (masks[r][c] >> mod(r - k, devices) & 1)
                        sum += original[(size_t)mod(r - k, devices) * count + i];
                state[(size_t)r * count + i] = sum;
            }
}
