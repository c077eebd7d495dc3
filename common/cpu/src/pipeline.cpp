/* pipeline.cpp: the asynchronous copies of cuda_pipeline.h.  Each thread
 * keeps its copies not yet made, with the group each belongs to (the
 * number of commits before it); __pipeline_wait_prior(n) makes those of
 * every group but the last n committed, and the thread's end makes the rest
 * (a GPU completes them too). */
#include "internal.h"

#include <pthread.h>
#include <string.h>
#include <vector>

namespace cudaemu {

struct pending_copy {
    void *dst;
    const void *src;
    unsigned size, zfill;
    unsigned long long group;
};
struct pipeline_state {
    std::vector<pending_copy> copies;
    unsigned long long committed;
};

/* Every thread record's state, freed at exit: the records go with their
 * vectors' destructors before LeakSanitizer looks, and these would look leaked. */
static struct made_states {
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    std::vector<pipeline_state *> all;
    ~made_states()
    {
        for (pipeline_state *p : all)
            delete p;
    }
} made;
bool pipelines_made; /* (internal.h says why) */

static thread_state *running(const char *file, int line, const char *what)
{
    thread_state *t = current_thread();
    if (!t)
        kernel_fail(cudaErrorLaunchFailure, file, line, "%s called outside a kernel", what);
    return t;
}

void pipeline_copy(void *dst, const void *src, size_t size, size_t zfill, const char *file, int line)
{
    thread_state *t = running(file, line, "__pipeline_memcpy_async");
    if (size != 4 && size != 8 && size != 16)
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "__pipeline_memcpy_async of %zu bytes: a copy is 4, 8 or 16 bytes (several copies for more)", size);
    if ((uintptr_t)dst % size || (uintptr_t)src % size)
        kernel_fail(cudaErrorMisalignedAddress, file, line,
                    "__pipeline_memcpy_async of %zu bytes from %p to %p: both addresses must be multiples of %zu",
                    size, src, dst, size);
    if (zfill > size)
        kernel_fail(cudaErrorLaunchFailure, file, line,
                    "__pipeline_memcpy_async with zfill %zu, more than the %zu bytes of the copy", zfill, size);
    busy_scope busy;
    if (!t->pipeline) {
        t->pipeline = new pipeline_state();
        pthread_mutex_lock(&made.lock);
        made.all.push_back(t->pipeline);
        __atomic_store_n(&pipelines_made, true, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&made.lock);
    }
    pipeline_state *p = t->pipeline;
    p->copies.push_back(pending_copy{dst, src, (unsigned)size, (unsigned)zfill, p->committed});
}

void pipeline_commit(void)
{
    thread_state *t = running("", 0, "__pipeline_commit");
    if (t->pipeline)
        t->pipeline->committed++;
}

/* Makes the copies of groups below `group`, in the order they were asked for. */
static void complete_before(pipeline_state *p, unsigned long long group)
{
    size_t kept = 0;
    for (pending_copy &c : p->copies) {
        if (c.group < group) {
            memcpy(c.dst, c.src, c.size - c.zfill);
            memset((char *)c.dst + (c.size - c.zfill), 0, c.zfill);
        } else {
            p->copies[kept++] = c;
        }
    }
    p->copies.resize(kept);
}

void pipeline_wait_prior(size_t prior)
{
    thread_state *t = running("", 0, "__pipeline_wait_prior");
    pipeline_state *p = t->pipeline;
    if (p && p->committed > prior)
        complete_before(p, p->committed - prior);
}

void pipeline_thread_start(thread_state *t)
{
    t->pipeline->copies.clear(); /* a failed launch's, never made */
    t->pipeline->committed = 0;
}

void pipeline_thread_end(thread_state *t) { complete_before(t->pipeline, ~0ull); }

} // namespace cudaemu
