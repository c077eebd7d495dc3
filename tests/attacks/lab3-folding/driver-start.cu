/* Not an attack: what CUDA's driver does when a program starts, which the
 * sandbox must allow (on an H100 it refused the driver's writes to its own
 * threads' files, and every runner failed with cudaErrorOperatingSystem).
 * Each step that fails makes the solution crash, so it would lose points. */
// costs: none
#include <pthread.h>
#include <sys/syscall.h>

/* Lives until it has been named (a thread that ended has no file left to
 * name): the constructor holds this lock until then. */
static pthread_mutex_t not_named_yet = PTHREAD_MUTEX_INITIALIZER;

static void *driver_start_thread(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&not_named_yet);
    pthread_mutex_unlock(&not_named_yet);
    return NULL;
}

__attribute__((constructor)) static void driver_start(void)
{
    /* name a thread of this process through its file, truncating it */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
    FILE *comm = fopen(path, "w");
    if (!comm || fputs("cuda-like", comm) < 0 || fclose(comm) != 0)
        abort();
    pthread_t thread;
    pthread_mutex_lock(&not_named_yet);
    if (pthread_create(&thread, NULL, driver_start_thread, NULL) != 0 || pthread_setname_np(thread, "cuda-evthandlr") != 0)
        abort();
    pthread_mutex_unlock(&not_named_yet);
    pthread_join(thread, NULL);
    /* devices opened for reading and writing, shared memory created and removed */
    int null = open("/dev/null", O_RDWR);
    if (null < 0)
        abort();
    close(null);
    snprintf(path, sizeof path, "/dev/shm/cudalabs-driver-start-%d", (int)getpid());
    int shm = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (shm < 0 || unlink(path) != 0)
        abort();
    close(shm);
}
