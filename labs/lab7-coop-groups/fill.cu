/* fill.cu: how many blocks fill the device, given whole: it is lab 6's
 * step 5, which lab 7 uses as it is.  Nothing to do here.
 * (dist: compiled only: it is lab 6's answer, so a student copy holds its
 * object, prebuilt/<backend>/lab7-coop-groups/fill.o, not this source.) */
#include "kit.h"
#include "lab7.h"

int blocks_to_fill(dot_kernel kernel, int block_size, size_t shared, long long work)
{
    int device, sms, per_sm;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, shared));
    long long chunks = (work + block_size - 1) / block_size;
    long long blocks = (long long)sms * per_sm;
    if (blocks > chunks)
        blocks = chunks;
    return blocks < 1 ? 1 : (int)blocks;
}
