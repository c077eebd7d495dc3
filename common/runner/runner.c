/* runner.c: the runner, the only program that runs student code.
 *
 * The grader starts one runner per side (the student's code, the reference)
 * for each item, in a session of its own, under resource limits and, where
 * the grader runs as root, as an unprivileged user.  Its first request
 * (WIRE_LOAD, on fd 0) names the lab and the code: the student's shared
 * object (which carries the kit's harness), loaded by the kit's runner, or
 * none, for a reference runner, whose code is linked in (code.h).  The
 * runner loads it, answers "ready", then serves requests read from fd 0,
 * one reply each on fd 3 (see wire.h): calls of the lab's entry points and
 * the harness's settings and records.  What the code printed goes to fds 1
 * and 2, in-memory files that the grader made and reads itself.
 *
 * Nothing on its command line or in its environment says that it grades:
 * the grader starts the student's runner as a copy named "lab", shown as
 * the lab program is (argv "./build/<backend>/<lab>/lab", no argument), so
 * that code which looks at its own name, arguments or environment sees
 * what it sees when a student runs the lab program.
 *
 * Nothing the runner says is a verdict: the grader decides from the answers.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "code.h"
#include "filter.h"
#include "kit_internal.h"
#include "serve.h"
#include "wire.h"

#define REQUEST_FD 0
#define REPLY_FD 3
#define ARENA_FD 4   /* the arrays of each call, at the offsets the request names */

struct serve_state {
    wire_msg *request;
    int bad;
    int answered;
    unsigned char *arena;
    size_t arena_size;
};

/* wire.h: every reply carries the number of the request it answers (the
 * grader checks it); 0 until the first request ("ready" answers none). */
static uint32_t answering;

/* ---- replies ---------------------------------------------------------------------- */

static void send_or_die(wire_msg *m)
{
    m->seq = answering;
    if (wire_send(REPLY_FD, m) != 0)
        _exit(70); /* the grader is gone or the channel was closed under us */
    wire_free(m);
}

static void send_text(uint32_t tag, const char *text)
{
    wire_msg m;
    wire_begin(&m, tag);
    wire_put_str(&m, text);
    send_or_die(&m);
}

/* What the code printed is in the grader's hands already (fds 1 and 2 are
 * in-memory files the grader made); only stdio's buffers need emptying. */
static void flush_output(void)
{
    fflush(stdout);
    fflush(stderr);
}

/* The harness's error handler: a failed CHECK or LAUNCH, kit_fail, or an
 * emulator diagnostic.  It may run deep in an emulated thread: small frames. */
static void on_kit_error(const char *message)
{
    wire_msg m;
    wire_begin(&m, WIRE_ERROR);
    wire_put_str(&m, message);
    flush_output();
    send_or_die(&m);
    _exit(0);
}

/* ---- the harness of the loaded code ----------------------------------------------- */

/* The cpu backend's alignment check (common/cpu/cpu.mk) stops a misaligned
 * access with this exit status instead of 1, so that the grader can tell it
 * from a call of exit(1).  Its runtime asks the program for its options
 * here (the environment is not read inside the sandbox). */
#define STRING(x) #x
#define EXIT_STATUS(x) STRING(x)
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "exitcode=" EXIT_STATUS(WIRE_EXIT_MISALIGNED) ":print_stacktrace=0"; }

/* The harness's functions, looked up once each: a call's records take a
 * dozen of them, and a grade makes thousands of calls. */
static void *harness(const char *name)
{
    static struct {
        const char *name;
        void *fn;
    } known[32];
    static int n_known;
    for (int i = 0; i < n_known; i++)
        if (strcmp(known[i].name, name) == 0)
            return known[i].fn;
    void *fn = code_symbol(name);
    if (fn && n_known < 32)
        known[n_known].name = name, known[n_known++].fn = fn; /* names are string literals */
    if (!fn) {
        char text[256];
        snprintf(text, sizeof text, "the shared object lacks the kit's harness function %s(); "
                 "was it built with the kit's Makefile?", name);
        send_text(WIRE_ERROR, text);
        _exit(0);
    }
    return fn;
}

/* The harness keeps each kind of record as a list that a count function and
 * an at function read; this asks the count function (named count_fn) and
 * puts the count, which the list's records then follow. */
static int put_record_count(wire_msg *m, const char *count_fn)
{
    int count = ((int (*)(void))harness(count_fn))();
    wire_put_u32(m, (uint32_t)count);
    return count;
}

static void put_launches(wire_msg *m)
{
    int launches = put_record_count(m, "kit_launch_count");
    const kit_launch *(*launch_at)(int) = (const kit_launch *(*)(int))harness("kit_launch_at");
    for (int i = 0; i < launches; i++) {
        const kit_launch *l = launch_at(i);
        wire_put_str(m, l->kernel);
        for (int d = 0; d < 3; d++)
            wire_put_u32(m, l->grid[d]);
        for (int d = 0; d < 3; d++)
            wire_put_u32(m, l->block[d]);
        wire_put_u64(m, l->shmem);
        wire_put_u32(m, (uint32_t)l->cooperative);
        wire_put_u32(m, (uint32_t)l->device);
        wire_put_str(m, l->file);
        wire_put_u32(m, (uint32_t)l->line);
        wire_put_u64(m, (uint64_t)l->atomics);
        wire_put_u64(m, (uint64_t)l->shuffles);
        wire_put_u64(m, (uint64_t)l->barriers);
        wire_put_u64(m, (uint64_t)l->static_shared);
    }
}

/* Where the harness recorded something: its file and line. */
static void put_place(wire_msg *m, const char *file, int line)
{
    wire_put_str(m, file);
    wire_put_u32(m, (uint32_t)line);
}

static void put_snapshots(wire_msg *m)
{
    int snapshots = put_record_count(m, "kit_snapshot_count");
    const kit_snapshot *(*snapshot_at)(int) = (const kit_snapshot *(*)(int))harness("kit_snapshot_at");
    for (int i = 0; i < snapshots; i++) {
        const kit_snapshot *s = snapshot_at(i);
        wire_put_u32(m, (uint32_t)s->round);
        wire_put_u64(m, s->count);
        wire_put_u64(m, s->element_size);
        wire_put_block(m, s->data, s->count * s->element_size);
        wire_put_u64(m, s->device_address);
        put_place(m, s->file, s->line);
    }
}

/* The arrays the grader shares with each call, mapped once (serve_array), and
 * the copies recorded before the last call began: a copy of that call sends
 * where in those arrays its host side lay, so that the grader can name an
 * input array a copy wrote into. */
static unsigned char *arena_mapped;
static size_t arena_mapped_size;
static int copies_before_call;

static uint64_t shared_offset(int copy_index, const kit_copy *c)
{
    uintptr_t host = (uintptr_t)c->host_address, base = (uintptr_t)arena_mapped;
    if (copy_index < copies_before_call || !arena_mapped || host < base || host - base >= arena_mapped_size)
        return KIT_NOT_SHARED;
    return (uint64_t)(host - base);
}

static void put_copies(wire_msg *m)
{
    int copies = put_record_count(m, "kit_copy_count");
    const kit_copy *(*copy_at)(int) = (const kit_copy *(*)(int))harness("kit_copy_at");
    for (int i = 0; i < copies; i++) {
        const kit_copy *c = copy_at(i);
        wire_put_u32(m, (uint32_t)c->direction);
        wire_put_u64(m, c->bytes);
        wire_put_u64(m, c->device_address);
        wire_put_u32(m, (uint32_t)c->launches_before);
        wire_put_u32(m, (uint32_t)c->device);
        wire_put_u64(m, c->checksum);
        wire_put_u64(m, shared_offset(i, c));
        put_place(m, c->file, c->line);
    }
}

/* The harness's records (sides.c reads them in the same order). */
static void send_records(void)
{
    wire_msg m;
    wire_begin(&m, WIRE_OK);
    wire_put_f64(&m, ((double (*)(void))harness("kit_timed_ms"))());
    wire_put_u64(&m, (uint64_t)((long long (*)(void))harness("kit_device_bytes_in_use"))());
    const char *todo = ((const char *(*)(void))harness("kit_todo_pending"))();
    wire_put_block(&m, todo, todo ? strlen(todo) : 0);
    put_launches(&m);
    put_snapshots(&m);
    put_copies(&m);
    send_or_die(&m);
}

/* ---- calls ------------------------------------------------------------------------------- */

void serve_value(serve_state *s, void *out, size_t size)
{
    int present;
    size_t got;
    const void *bytes = wire_get_block(s->request, &got, &present);
    if (!present || got != size) {
        s->bad = 1;
        memset(out, 0, size);
        return;
    }
    memcpy(out, bytes, size);
}

void *serve_array(serve_state *s, size_t element_size)
{
    int present = (int)wire_get_u32(s->request);
    wire_get_u32(s->request); /* whether the grader reads it back: it does so itself */
    uint64_t offset = wire_get_u64(s->request), size = wire_get_u64(s->request);
    if (!present || s->bad || s->request->bad)
        return NULL;
    if (!s->arena) {
        /* mapped once and kept from call to call (mapping costs microseconds
         * a call); mapped again only when the grader has grown the file */
        struct stat st;
        if (fstat(ARENA_FD, &st) != 0 || st.st_size <= 0) {
            s->bad = 1;
            return NULL;
        }
        if ((size_t)st.st_size > arena_mapped_size) {
            if (arena_mapped) {
                void (*unpin)(void *) = (void (*)(void *))code_symbol("kit_unpin_host");
                if (unpin)
                    unpin(arena_mapped);
                munmap(arena_mapped, arena_mapped_size);
            }
            arena_mapped_size = (size_t)st.st_size;
            arena_mapped =
                mmap(NULL, arena_mapped_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ARENA_FD, 0);
            if (arena_mapped == MAP_FAILED) {
                arena_mapped = NULL;
                arena_mapped_size = 0;
                s->bad = 1;
                return NULL;
            }
            /* page-locked on a GPU: the labs' copies from and to it at full speed
             * (only a speed-up: an object without it is served all the same) */
            void (*pin)(void *, size_t) = (void (*)(void *, size_t))code_symbol("kit_pin_host");
            if (pin)
                pin(arena_mapped, arena_mapped_size);
        }
        s->arena = arena_mapped;
        s->arena_size = (size_t)st.st_size; /* what the file holds now: no access past it */
    }
    if (offset % 4096 || offset > s->arena_size || size > s->arena_size - offset || offset % element_size) {
        s->bad = 1;
        return NULL;
    }
    return s->arena + offset; /* page-aligned, as cudaMallocHost memory would be */
}

int serve_bad(const serve_state *s)
{
    if (s->bad || s->request->bad || s->request->at != s->request->size) {
        send_text(WIRE_BAD_REQUEST, "the call's arguments do not match the lab's description of it");
        ((serve_state *)s)->answered = 1;
        return 1;
    }
    return 0;
}

void serve_before(serve_state *s) { (void)s; }

void serve_after(serve_state *s, const void *ret, size_t ret_size)
{
    wire_msg m;
    wire_begin(&m, WIRE_OK);
    wire_put_block(&m, ret ? ret : "", ret_size);
    flush_output();
    send_or_die(&m);
    s->answered = 1;
    send_records(); /* the grader reads them next: no request, no wait */
}

static void serve_call(const serve_lab *lab, wire_msg *request)
{
    if (wire_get_u32(request) & 1) /* the grader's reset, sent with the call */
        ((void (*)(void))harness("kit_reset_records"))();
    copies_before_call = ((int (*)(void))harness("kit_copy_count"))();
    char *name = wire_get_str(request, 128);
    const serve_entry *entry = NULL;
    for (int i = 0; i < lab->count && !entry; i++)
        if (strcmp(lab->entries[i].name, name) == 0)
            entry = &lab->entries[i];
    if (!entry) {
        send_text(WIRE_BAD_REQUEST, "no such entry point in the lab's description");
    } else {
        void *fn = code_symbol(name);
        if (!fn) {
            send_text(WIRE_MISSING, name);
        } else {
            serve_state s = {request, 0, 0, NULL, 0};
            entry->serve(fn, &s);
            if (!s.answered)
                send_text(WIRE_BAD_REQUEST, "the call was not answered");
        }
    }
    free(name);
}

/* ---- the walls ----------------------------------------------------------------------- */

/* Folders whose files may be mapped executable: the system's libraries and
 * a GPU driver's (the same list the sandbox lets a runner read), and those
 * the grader's LD_LIBRARY_PATH names. */
static const char *const library_folders[] = {
    "/usr/lib/", "/usr/lib64/", "/usr/lib32/", "/usr/libexec/", "/usr/local/lib/", "/usr/local/cuda",
    "/usr/local/nvidia/", "/lib/", "/lib64/", "/lib32/", NULL};

static int in_folder(const char *path, const char *folder)
{
    size_t n = strlen(folder);
    return strncmp(path, folder, n) == 0 && (folder[n - 1] == '/' || path[n] == '/' || path[n] == 0);
}

static int may_be_code(const char *path, const char *object, const char *self)
{
    if ((object[0] && strcmp(path, object) == 0) || strcmp(path, self) == 0)
        return 1;
    for (int i = 0; library_folders[i]; i++)
        if (in_folder(path, library_folders[i]))
            return 1;
    const char *library_path = getenv("LD_LIBRARY_PATH");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", library_path ? library_path : "");
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
        if (dir[0] == '/' && in_folder(path, dir))
            return 1;
    return 0;
}

/* After loading: every executable mapping of a file is the object itself
 * (none for a reference runner: "" here), the runner or a system library.  Code loaded from anywhere else (bytes the
 * submission wrote out, a reference it found) was loaded while the object's
 * constructors ran, before the serve stage's filter; it is refused here.
 * Returns the first such file, or NULL. */
static const char *foreign_code(const char *object_path)
{
    static char found[4096];
    char object[4096] = "", self[4096], line[8192];
    if (object_path[0] && !realpath(object_path, object))
        snprintf(object, sizeof object, "%s", object_path);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return "/proc/self/maps (unreadable)";
    const char *bad = NULL;
    while (!bad && fgets(line, sizeof line, maps)) {
        char perms[8] = "";
        int path_at = 0;
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "%*s %7s %*s %*s %*s %n", perms, &path_at) < 1 || !strchr(perms, 'x'))
            continue;
        const char *path = line + path_at;
        if (path[0] != '/')
            continue; /* [vdso], [vsyscall]: the kernel's; anonymous code cannot be made after the load stage */
        if (!may_be_code(path, object, self))
            bad = strncpy(found, path, sizeof found - 1);
    }
    fclose(maps);
    return bad;
}

/* The last step of loading, while new executable mappings are still
 * allowed: the device started (CUDA's driver and the program's modules
 * loaded, eagerly: see eager_modules_while_loading), and the unwinder that
 * the C library loads on a thread's exit or cancellation loaded now. */
static void finish_loading(void)
{
    void (*start_device)(void) = (void (*)(void))code_symbol("kit_start_device");
    if (start_device)
        start_device();
    dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_GLOBAL); /* kept loaded; absent: nothing lost */
}

/* In a PID namespace of its own the runner is pid 1, which the kernel
 * spares every signal with the default action that it did not force:
 * abort() would end in the SIGSEGV of glibc's last resort, and a write past
 * the file size limit would fail quietly and go on (a flood of output
 * until the item's time ran out).  Said in words instead, as the grader
 * says a crash with SIGABRT or SIGXFSZ. */
static void on_signal_as_pid_1(int sig)
{
    on_kit_error(sig == SIGABRT ? "abort() was called (a failed assert?)"
                                : "it wrote more than the output limit (the file size limit stopped it)");
}

static void signals_in_words_as_pid_1(void)
{
    if (getpid() != 1)
        return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal_as_pid_1;
    sigaction(SIGABRT, &action, NULL);
    sigaction(SIGXFSZ, &action, NULL);
}

static void refuse_without_filter(const char *stage)
{
    char text[256];
    snprintf(text, sizeof text, "grading error: the runner could not install its %s system call filter", stage);
    send_text(WIRE_ERROR, text);
    _exit(0);
}

/* ---- main ------------------------------------------------------------------------------------ */

/* The first request, WIRE_LOAD: the lab's folder name and the shared object
 * to load ("" where the code is built in), in *lab_dir and *object.  They
 * come through the channel, not the command line or the environment, which
 * stay the lab program's (see the top). */
static int receive_load(char **lab_dir, char **object)
{
    wire_msg load;
    const char *why;
    if (wire_receive(REQUEST_FD, &load, 0, &why, 1 << 16) != 0)
        return -1;
    int ok = load.tag == WIRE_LOAD;
    *lab_dir = wire_get_str(&load, 256);
    *object = wire_get_str(&load, 4096);
    ok = ok && !load.bad && load.at == load.size;
    wire_free(&load);
    return ok ? 0 : -1;
}

/* CUDA loads every module when it starts, not at a kernel's first launch,
 * which would come after the serve stage's filter.  Said for the load only,
 * and what the environment held before put back after it: the code's own
 * calls see the environment that the lab program would. */
static void eager_modules_while_loading(int loading)
{
    static char *before;
    static int had;
    if (loading) {
        const char *value = getenv("CUDA_MODULE_LOADING");
        had = value != NULL;
        before = value ? strdup(value) : NULL;
        setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    } else if (had && before) {
        setenv("CUDA_MODULE_LOADING", before, 1);
    } else {
        unsetenv("CUDA_MODULE_LOADING");
    }
}

/* The lab the load request named, among those this runner serves. */
static const serve_lab *find_lab(const char *lab_dir)
{
    const serve_lab *lab = NULL;
    for (int i = 0; serve_labs[i]; i++)
        if (strcmp(serve_labs[i]->dir, lab_dir) == 0)
            lab = serve_labs[i];
    if (!lab) {
        send_text(WIRE_ERROR, code_built_in() ? "grading error: this reference runner is another lab's"
                                              : "the runner knows no such lab");
        exit(2);
    }
    return lab;
}

/* Whether this runner may use sockets in a network of its own: the grader
 * asked for it (grade_use_loopback: CUDALABS_LOOPBACK, set before this
 * process started, out of the submission's reach) and the runner sees it
 * so, with its own eyes: its one network interface is the loopback, so no
 * socket can reach another machine or the host's own services. */
static int own_network(void)
{
    const char *asked = getenv("CUDALABS_LOOPBACK");
    if (!asked || strcmp(asked, "1") != 0)
        return 0;
    struct if_nameindex *interfaces = if_nameindex();
    if (!interfaces)
        return 0;
    int only_loopback = interfaces[0].if_index != 0;
    for (struct if_nameindex *i = interfaces; i->if_index != 0; i++)
        if (strcmp(i->if_name, "lo") != 0)
            only_loopback = 0;
    if_freenameindex(interfaces);
    return only_loopback;
}

/* Loads the code (`object`, or the code built in) under the load stage's
 * filter, refuses code that brought in foreign code, then enters the
 * serve stage's filter. */
static void load_code(const char *object)
{
    eager_modules_while_loading(1);
    signals_in_words_as_pid_1();
    int filtered = filter_supported(), network = own_network();
    if (filtered && filter_enter_load_stage(network) != 0)
        refuse_without_filter("first");
    const char *why = code_load(object);
    if (why) {
        char text[4096];
        snprintf(text, sizeof text, "the shared object could not be loaded:\n%s", why);
        send_text(WIRE_ERROR, text);
        exit(0);
    }
    ((void (*)(kit_error_handler))harness("kit_set_error_handler"))(on_kit_error);
    finish_loading();
    eager_modules_while_loading(0);
    const char *foreign = foreign_code(object);
    if (foreign) {
        char text[4400];
        snprintf(text, sizeof text, "the shared object loaded code from %s while it was loaded; "
                 "only its own code and the system's libraries may run", foreign);
        send_text(WIRE_ERROR, text);
        _exit(0);
    }
    /* NCCL opens the driver's management library as it starts, after this
     * stage has refused new code: opened now, its later open finds it */
    if (network)
        dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (filtered && filter_enter_serve_stage(network) != 0)
        refuse_without_filter("second");
}

/* WIRE_SYNC: the harness back to a new runner's state, the output flushed,
 * and the token sent back (a kept reference runner, at an item's start). */
static void serve_sync(wire_msg *request)
{
    uint64_t token = wire_get_u64(request);
    ((void (*)(void))harness("kit_reset_records"))();
    ((void (*)(int))harness("kit_set_snapshots"))(0);
    ((void (*)(int))harness("kit_set_timing"))(0);
    ((void (*)(int))harness("kit_set_copy_sums"))(1);
    ((void (*)(int, int))harness("kit_spoil"))(KIT_SPOIL_NONE, 0);
    ((void (*)(const char *))harness("kit_set_schedule"))(getenv("EMU_SCHED") ? getenv("EMU_SCHED") : "fwd");
    flush_output();
    wire_msg m;
    wire_begin(&m, WIRE_SYNCED);
    wire_put_u64(&m, token);
    send_or_die(&m);
}

static void send_device(void)
{
    wire_msg m;
    wire_begin(&m, WIRE_OK);
    wire_put_str(&m, ((const char *(*)(void))harness("kit_device_name"))());
    wire_put_u32(&m, (uint32_t)((int (*)(void))harness("kit_on_gpu"))());
    wire_put_f64(&m, ((double (*)(void))harness("kit_device_peak_gbs"))());
    wire_put_u32(&m, (uint32_t)((int (*)(void))harness("kit_device_multiprocessors"))());
    send_or_die(&m);
}

/* One request, one reply. */
static void serve_request(const serve_lab *lab, wire_msg *request)
{
    switch (request->tag) {
    case WIRE_CALL:
        serve_call(lab, request);
        break;
    case WIRE_RESET:
        ((void (*)(void))harness("kit_reset_records"))();
        send_text(WIRE_OK, "");
        break;
    case WIRE_SNAPSHOTS:
        ((void (*)(int))harness("kit_set_snapshots"))((int)wire_get_u32(request));
        send_text(WIRE_OK, "");
        break;
    case WIRE_TIMING:
        ((void (*)(int))harness("kit_set_timing"))((int)wire_get_u32(request));
        send_text(WIRE_OK, "");
        break;
    case WIRE_SCHEDULE: {
        static char *order; /* kept: the harness may keep the pointer */
        free(order);
        order = wire_get_str(request, 64);
        ((void (*)(const char *))harness("kit_set_schedule"))(order);
        send_text(WIRE_OK, "");
        break;
    }
    case WIRE_SPOIL: {
        int kind = (int)wire_get_u32(request), at = (int)wire_get_u32(request);
        ((void (*)(int, int))harness("kit_spoil"))(kind, at);
        send_text(WIRE_OK, "");
        break;
    }
    case WIRE_RECORDS:
        send_records();
        break;
    case WIRE_SYNC:
        serve_sync(request);
        break;
    case WIRE_DEVICE:
        send_device();
        break;
    default:
        send_text(WIRE_BAD_REQUEST, "unknown request");
    }
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc < 1 || fcntl(REPLY_FD, F_GETFD) < 0) {
        fprintf(stderr, "runner: the grader starts runners (their requests come on fd 0, their replies go to fd 3); "
                        "run the lab program, or ./grader, instead\n");
        return 2;
    }
    /* No other process of this user may read or trace this one (the other
     * side's runner included); nothing to dump either. */
    prctl(PR_SET_DUMPABLE, 0);
    char *lab_dir, *object;
    if (receive_load(&lab_dir, &object) != 0) {
        send_text(WIRE_ERROR, "grading error: the runner's first request did not name its lab and code");
        return 2;
    }
    const serve_lab *lab = find_lab(lab_dir);
    load_code(object);

    wire_msg ready;
    wire_begin(&ready, WIRE_OK);
    flush_output();
    send_or_die(&ready);
    for (;;) {
        wire_msg request;
        const char *why;
        if (wire_receive(REQUEST_FD, &request, 0, &why, WIRE_MESSAGE_MAX) != 0)
            _exit(0); /* the grader closed the channel: done */
        answering = request.seq;
        serve_request(lab, &request);
        wire_free(&request);
    }
}
