/* sides.c: the student's code and the reference solution, each in runner
 * processes of its own.
 *
 * The grader never loads the student's code, nor the reference's.
 * grade_student() starts the kit's runner (build/host/runner, run as a copy
 * named as the lab program: runner.c) for the student's shared object the
 * first time an item asks for it, contained (contain.c); grade_reference()
 * starts the lab's reference runner, which has the reference built in (or
 * takes over the one the grader keeps from item to item:
 * sides_keep_reference()).  Every call of an entry
 * point, every harness setting and
 * every look at the records is a request to that runner and its reply, read
 * with bounds and a deadline.  What the code printed lands in in-memory files
 * the grader made and reads itself, so it survives a crash. */
#include "grader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contain.h"
#include "wire.h"

#define OUTPUT_KEEP (64 * 1024)     /* bytes of each stream a suite or the feedback sees */
#define RECORDS_MAX 100000          /* launches or snapshots in one record */
#define RECORDS_BYTES_MAX WIRE_RECORDS_MAX /* all of them, snapshots' data included, in one reply */
#define RECORDS_ITEM_MAX ((double)(1 << 30)) /* all the replies with records of one item: the labs' take KB */
#define STARTUP_SECONDS 30.0        /* loading a shared object: its constructors, not CUDA yet */

typedef struct {
    double timed_ms;
    long long device_bytes;
    char *todo;
    kit_launch *launches;
    char **launch_files;
    int n_launches;
    kit_snapshot *snapshots;
    int n_snapshots;
    kit_copy *copies;
    int n_copies;
} records;
static void free_records(records *r);

struct grade_side {
    const char *label;   /* how feedback names it */
    const char *program; /* the runner that serves it */
    const char *shown_as; /* the runner's argv[0] */
    const char *path;    /* the shared object it loads, or NULL where its code is built into the runner */
    int is_student;
    pid_t pid;           /* 0: not started */
    int request_fd, reply_fd;
    int out_fd, err_fd;  /* in-memory files: the runner's stdout and stderr */
    int arena_fd;        /* an in-memory file for the arrays of a call (the runner maps it) */
    unsigned char *arena_map; /* the grader's mapping of it: the file never shrinks (sealed) */
    size_t arena_mapped;
    int records_valid;
    records rec;
    double bytes_in;     /* bytes of input arrays sent in calls so far */
    char *last_out, *last_err;
    long long kept_sizes[2]; /* the output files' sizes when last read */
    int replies_owed;        /* to settings sent without waiting for their "done" */
    int reset_pending;       /* the records are to be forgotten before the next call */
    int kept;                /* started by the grader for every item: never stopped at an item's end */
    int synced;              /* kept, and brought back to a new runner's state in this item */
    /* The channel's sequence numbers (wire.h): the last request sent, and
     * the last one whose answer was read whole.  Requests are answered in
     * order, so the next reply answers seq_answered + 1. */
    uint32_t seq_sent, seq_answered;
    /* Time, per item (each item runs in a process of its own, so these
     * start at 0): how long the grader waited for this side's answers, and
     * its longest call, for feedback on an item that ran out of time. */
    double used_s;
    double longest_s;
    char longest[160];
    double waiting_since;    /* when the request being waited for was sent */
    double records_read;     /* bytes of records read in this item */
    double timed_recorded_ms, timed_outside_ms; /* the last grade_time_ms: medians, ms */
    int timed;
};

static grade_side student = {.label = "your code", .is_student = 1, .request_fd = -1, .reply_fd = -1, .out_fd = -1, .err_fd = -1, .arena_fd = -1};
static grade_side reference = {.label = "the reference", .request_fd = -1, .reply_fd = -1, .out_fd = -1, .err_fd = -1, .arena_fd = -1};
static const char *lab_dir, *scratch_dir;
static const char *error_hint; /* grade_hint_on_error() */

void grade_hint_on_error(const char *hint) { error_hint = hint; }

static int error_expected;  /* grade_expect_error(): the next call of the student's may stop with an error */
static char *caught_error;  /* what stopped it */

void grade_expect_error(void)
{
    error_expected = 1;
    free(caught_error);
    caught_error = NULL;
}

const char *grade_caught_error(void) { return caught_error; }

void sides_set_paths(const lab_result *lab, const char *kit_runner, const char *scratch)
{
    lab_dir = lab->lab->dir;
    /* the student's: the kit's runner as the lab program (runner.c) */
    student.program = lab->student_runner ? lab->student_runner : kit_runner;
    student.shown_as = lab->student_runner ? lab->student_shown_as : kit_runner;
    student.path = lab->student_so;
    /* the reference's: its own runner, or a shared object in the kit's */
    reference.program = lab->reference_runner ? lab->reference_runner : kit_runner;
    reference.shown_as = reference.program;
    reference.path = lab->reference_runner ? NULL : lab->reference_so;
    scratch_dir = scratch;
}

const char *sides_student_so(void) { return student.path; }

/* ---- failing the item for one side -------------------------------------------------- */

static void side_fail(const grade_side *side, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void side_fail(const grade_side *side, const char *fmt, ...)
{
    static char message[8192];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (side->is_student)
        grade_fail("%s", message);
    char *text = str_printf("the reference solution failed (a fault of the kit or this machine, not of your "
                            "code): %s", message);
    outcome_fail_kit(text);
}

/* ---- output ------------------------------------------------------------------------------ */

static char *read_start(int fd, long long *total)
{
    struct stat st;
    *total = fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
    char *text = malloc(OUTPUT_KEEP + 1);
    ssize_t n = text ? pread(fd, text, OUTPUT_KEEP, 0) : -1;
    if (!text)
        return str_dup("");
    text[n > 0 ? n : 0] = 0;
    return text;
}

static long long file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
}

/* The runner's fds 1 and 2 share these files' offsets (one open file
 * each), so rewinding here rewinds its writes too. */
static void clear_output(grade_side *side)
{
    int fds[2] = {side->out_fd, side->err_fd};
    for (int k = 0; k < 2; k++)
        if (side->kept_sizes[k] != 0 /* empty when last looked at, after the last reply: no need to ask */
            && file_size(fds[k]) != 0 && (ftruncate(fds[k], 0) != 0 || lseek(fds[k], 0, SEEK_SET) != 0)) {
            /* a stale start stays visible: harmless */
        }
    side->kept_sizes[0] = side->kept_sizes[1] = -2; /* a new call: read what it prints */
}

/* After every reply; read again only when something more was printed (most
 * calls print nothing, and a call is several replies). */
static void keep_output(grade_side *side)
{
    long long out_size = file_size(side->out_fd), err_size = file_size(side->err_fd);
    if (side->last_out && out_size == side->kept_sizes[0] && err_size == side->kept_sizes[1])
        return;
    long long total;
    free(side->last_out);
    free(side->last_err);
    side->last_out = out_size ? read_start(side->out_fd, &total) : str_dup("");
    side->last_err = err_size ? read_start(side->err_fd, &total) : str_dup("");
    side->kept_sizes[0] = out_size, side->kept_sizes[1] = err_size;
    outcome_add_output(side->is_student, side->last_out, side->last_err);
}

const char *grade_output(grade_side *side, int stream)
{
    const char *text = stream == 2 ? side->last_err : side->last_out;
    return text ? text : "";
}

/* ---- starting and stopping a runner --------------------------------------------------------- */

static void stop_side(grade_side *side)
{
    if (side->pid > 0) {
        kill(-side->pid, SIGKILL);
        kill(side->pid, SIGKILL);
        waitpid(side->pid, NULL, 0);
    }
    side->pid = 0;
    side->replies_owed = 0;
    side->reset_pending = 0;
    side->seq_sent = side->seq_answered = 0; /* a new runner numbers from its "ready" (0) */
    if (side->request_fd >= 0) close(side->request_fd);
    if (side->reply_fd >= 0) close(side->reply_fd);
    side->request_fd = side->reply_fd = -1;
}

/* ---- time: each side's calls have deadlines of their own ------------------------------------ */

/* The item's end is a hard limit (Check stops the item's process there).
 * The student's calls must answer this much earlier, so that a call of the
 * student's that ends just in time still leaves the reference's next calls
 * time of their own: the reference's calls wait until the item's end. */
static double reference_reserve(void)
{
    double tenth = run_item_seconds() / 10;
    return tenth < 2.0 ? tenth : 2.0;
}

static double side_deadline(const grade_side *side)
{
    return side->is_student ? run_item_deadline() - reference_reserve() : run_item_deadline();
}

/* A call of `side` ran into its deadline: the item's time is up (for the
 * student's calls, up to the reserve).  Whichever side's calls used more of
 * the item pays: the student loses the item, saying whose calls took the
 * time ("your code's calls took 9.8 s of the item's 10 s"); the reference
 * makes the item "not graded" (a fault of the kit or this machine).  A
 * student's call that sleeps until just before the end can thus never make
 * the reference look failed. */
static void out_of_time(grade_side *side, const char *during)
{
    double ran = wire_now() - side->waiting_since;
    stop_side(side);
    keep_output(side);
    outcome_mark_error();
    int digits = run_item_seconds() < 10 ? 1 : 0;
    if (student.used_s >= reference.used_s) {
        outcome_mark_hung();
        if (side->is_student)
            grade_fail("%s did not finish within %.*f s (the item's time limit%s): an endless loop, a deadlock, or far "
                       "too slow? In this item your code's calls took %.1f s of the item's %.*f s (this one %.1f s), "
                       "the reference's %.1f s", during, digits, run_item_seconds(),
                       outcome_item_shortened() ? ", shortened because your code already hung in an earlier item" : "",
                       student.used_s, digits, run_item_seconds(), ran, reference.used_s);
        grade_fail("the item ran out of time: your code's calls took %.1f s of the item's %.*f s (the longest, %s, "
                   "%.1f s), so the reference's %s, which the item needs after them, could not finish (it had run "
                   "%.1f s; the reference's calls took %.1f s in all): an endless loop, a sleep, or far too slow?",
                   student.used_s, digits, run_item_seconds(), student.longest[0] ? student.longest : "a setting",
                   student.longest_s, during, ran, reference.used_s);
    }
    side_fail(&reference, "its calls took %.1f s of the item's %.*f s and %s %s did not finish in time (your code's "
              "calls took %.1f s)", reference.used_s, digits, run_item_seconds(),
              side->is_student ? "then your code's call" : "its call", during, student.used_s);
}

/* Something other than the runner wrote into the channel (a reply that
 * arrived unasked, or that answers another request): a fault of the side's
 * own process, which ends the item for that side. */
static void protocol_error(grade_side *side, const char *during, const char *what)
{
    stop_side(side);
    keep_output(side);
    outcome_mark_error();
    side_fail(side, "%s wrote into the grader's channel (%s, during %s): only the kit's runner may answer the grader",
              side->is_student ? "something in your code's process" : "something in the reference's process", what,
              during);
}

/* A reply longer than the grader reads: the records are capped (a flood of
 * SNAPSHOTs or launches would hold the grader's memory), any other reply is
 * a few KB at most. */
static void too_large(grade_side *side, const char *during, size_t max_size)
{
    stop_side(side);
    keep_output(side);
    outcome_mark_error();
    if (max_size >= RECORDS_BYTES_MAX)
        side_fail(side, "%s sent more than %zu MB of records during %s (launches, snapshots with their data, and "
                  "copies the harness recorded): the grader reads at most that much per call; SNAPSHOT or a launch "
                  "in a loop that never ends?", side->is_student ? "your code" : "it", max_size >> 20, during);
    protocol_error(side, during, "a reply longer than any answer");
}

/* Why the runner is gone, in the student's terms, with the call it was in. */
static void runner_gone(grade_side *side, const char *during, const char *why)
{
    int status = 0;
    pid_t pid = side->pid;
    if (strcmp(why, "timeout") == 0)
        out_of_time(side, during);
    if (pid <= 0) /* no runner: a request on a side the item already saw stop */
        outcome_fail_not_student(str_printf("grading error: a request to a stopped runner during %s", during));
    kill(pid, SIGKILL); /* a runner that closed its channel but lives on is stopped too */
    waitpid(pid, &status, 0);
    side->pid = 0;
    stop_side(side);
    keep_output(side);
    outcome_mark_error();
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *hint = sig == SIGSEGV || sig == SIGBUS ? ": an access outside an array, or a device pointer used on the host?"
                         : sig == SIGFPE ? ": a division by zero?"
                         : sig == SIGABRT ? ": abort() or a failed assert"
                         : sig == SIGXCPU ? ": it used up its CPU time (an endless loop?)"
                         : sig == SIGXFSZ ? ": it wrote more than the output limit"
                         : "";
        side_fail(side, "crashed with signal %d (%s) during %s%s", sig, strsignal(sig), during, hint);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 125)
        side_fail(side, "the runner could not be started (limits, user or folder): a fault of the kit or this machine");
    if (WIFEXITED(status) && WEXITSTATUS(status) == WIRE_EXIT_MISALIGNED)
        side_fail(side, "stopped at a misaligned memory access during %s (its line is in the error output): a value "
                  "read or written at an address that is not a multiple of its size, such as a float4 that does not "
                  "start on a 16-byte boundary; a GPU stops it too (cudaErrorMisalignedAddress)", during);
    if (WIFEXITED(status))
        side_fail(side, "the code called exit(%d) or _exit(%d) during %s: the functions you write must return to "
                  "their caller, never end the program", WEXITSTATUS(status), WEXITSTATUS(status), during);
    side_fail(side, "the runner's channel broke (%s) during %s", why, during);
}

/* While the grader waits for a reference's call that takes a while, the
 * student's processes are stopped: nothing the student's code left running
 * (a thread that spins, a kernel launched in a loop) can slow the reference
 * down, nor make its calls look slow, nor use the item's time on the
 * reference's account.  The reference's quick answers (most of them, a
 * grade makes thousands) are awaited first, for a moment: stopping and
 * waking a process costs more than they take. */
#define QUICK_SECONDS 100e-6 /* as long as wire.c spins before it sleeps */

static int answered_quickly(int fd)
{
    struct pollfd pfd = {fd, POLLIN, 0};
    for (double until = wire_now() + QUICK_SECONDS; wire_now() < until; sched_yield())
        if (poll(&pfd, 1, 0) != 0)
            return 1;
    return 0;
}

static int pause_student(const grade_side *waiting_for)
{
    if (waiting_for->is_student || student.pid <= 0 || answered_quickly(waiting_for->reply_fd))
        return 0;
    kill(-student.pid, SIGSTOP);
    return 1;
}

static void resume_student(int paused)
{
    if (paused && student.pid > 0)
        kill(-student.pid, SIGCONT);
}

/* One reply, numbered `expect`, before `deadline`, or the item ends with
 * why there was none. */
static void receive_by(grade_side *side, wire_msg *reply, const char *during, size_t max_size, double deadline,
                       uint32_t expect)
{
    const char *why = "?";
    double started = wire_now();
    int paused = pause_student(side);
    int got = wire_receive(side->reply_fd, reply, deadline, &why, max_size);
    resume_student(paused);
    side->used_s += wire_now() - started;
    if (got != 0 && strcmp(why, "too large") == 0)
        too_large(side, during, max_size);
    if (got != 0)
        runner_gone(side, during, why);
    if (reply->seq != expect) {
        char what[96];
        snprintf(what, sizeof what, "a reply numbered %u where the answer to request %u was due", reply->seq, expect);
        wire_free(reply);
        protocol_error(side, during, what);
    }
    keep_output(side);
    if (reply->tag == WIRE_ERROR) {
        char *message = wire_get_str(reply, 8192);
        str_clean(message);
        stop_side(side);
        /* a watchdog stopped a kernel (the cpu backend's, or a GPU's): CUDA's
         * own name for it, which a failed CHECK or LAUNCH prints; later items
         * get less time */
        if (side->is_student && strstr(message, "cudaErrorLaunchTimeout"))
            outcome_mark_hung();
        if (side->is_student && error_expected) {
            caught_error = message; /* the caller's answer, not a failure */
            error_expected = 0;
            return;
        }
        if (side->is_student)
            grade_fail("your code stopped with an error during %s:\n%s%s%s", during, message, error_hint ? "\n" : "",
                       error_hint ? error_hint : "");
        side_fail(side, "it stopped with an error during %s:\n%s", during, message);
    }
    if (reply->tag == WIRE_BAD_REQUEST) {
        char *message = wire_get_str(reply, 1024);
        str_clean(message);
        outcome_fail_not_student(str_printf("grading error: the runner refused %s: %s", during, message));
    }
}

/* The next reply of `side`, after the answers owed to its settings.  The
 * caller counts the request answered (seq_answered) once it has read the
 * request's last reply (a call has two: its result, then the records). */
static void receive(grade_side *side, wire_msg *reply, const char *during, size_t max_size)
{
    while (side->replies_owed > 0) { /* the settings' answers come first, in order */
        side->replies_owed--;
        wire_msg done;
        receive_by(side, &done, during, 1 << 16, side_deadline(side), side->seq_answered + 1);
        side->seq_answered++;
        wire_free(&done);
    }
    receive_by(side, reply, during, max_size, side_deadline(side), side->seq_answered + 1);
}

/* Sends a request, numbered, on `side`'s channel.  A reply already waiting
 * when every request has its answer answers nothing: something in the
 * runner's process wrote it, early. */
static void send_request(grade_side *side, wire_msg *m, const char *during)
{
    if (side->seq_answered == side->seq_sent && side->pid > 0) {
        struct pollfd pfd = {side->reply_fd, POLLIN, 0};
        if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
            wire_free(m);
            protocol_error(side, during, "a reply that arrived before the request was sent");
        }
    }
    m->seq = ++side->seq_sent;
    side->waiting_since = wire_now();
    int sent = wire_send(side->request_fd, m);
    wire_free(m);
    if (sent != 0)
        runner_gone(side, during, "closed");
}

static const char *spawn_runner(grade_side *side, double cpu_seconds);
static void sync_side(grade_side *side);

static grade_side *open_side(grade_side *side)
{
    if (side->pid > 0 && side->kept && !side->synced)
        sync_side(side);
    if (side->pid > 0)
        return side;
    const char *problem = spawn_runner(side, 4 * run_item_seconds() + 10);
    if (problem)
        outcome_fail_not_student(str_printf("grading error: %s", problem));
    wire_msg ready;
    double by = wire_now() + STARTUP_SECONDS;
    side->waiting_since = wire_now();
    receive_by(side, &ready, "loading the code", 1 << 16, by < side_deadline(side) ? by : side_deadline(side), 0);
    wire_free(&ready);
    return side;
}

/* Starts `side`'s runner; returns what went wrong, or NULL. */
static const char *spawn_runner(grade_side *side, double cpu_seconds)
{
    if (!side->program || (side->is_student && !side->path))
        return "no code was given";
    if (side->out_fd < 0) {
        side->out_fd = memfd_create("stdout", MFD_CLOEXEC);
        side->err_fd = memfd_create("stderr", MFD_CLOEXEC);
        side->arena_fd = memfd_create("arrays", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (side->out_fd < 0 || side->err_fd < 0 || side->arena_fd < 0)
            return "the grader could not make in-memory files for a runner";
        /* no process can shrink it under the grader's mapping (SIGBUS), nor
         * seal it further */
        if (fcntl(side->arena_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
            return "the grader could not seal its in-memory file";
    }
    int requests[2], replies[2];
    if (pipe2(requests, O_CLOEXEC) != 0)
        return "the grader could not make pipes for a runner";
    if (pipe2(replies, O_CLOEXEC) != 0) {
        close(requests[0]), close(requests[1]);
        return "the grader could not make pipes for a runner";
    }
    /* The cpu backend's watchdog stops a kernel that runs too long, naming
     * it: 20 s at first (its default: the variable unset, as for the lab
     * program), 4 s once the student's code has hung in an item, so that
     * one endless loop costs a lab well under a minute in all (the grader's
     * value, whatever the environment says). */
    if (side->is_student && outcome_item_shortened())
        setenv("CUDAEMU_WATCHDOG_SECONDS", "4", 1);
    else if (side->is_student)
        unsetenv("CUDAEMU_WATCHDOG_SECONDS");
    /* the runner's command line is its name alone: what it serves comes in
     * its first request (runner.c) */
    char *argv[] = {(char *)side->shown_as, NULL};
    const char *readable[] = {side->path, NULL};
    contain_spec spec = {argv, requests[0], replies[1], side->arena_fd, side->out_fd, side->err_fd,
                         scratch_dir, cpu_seconds, grade_on_gpu() ? 0 : contain_memory_limit(), side->is_student,
                         side->is_student, readable, side->program};
    side->pid = contain_spawn(&spec);
    close(requests[0]);
    close(replies[1]);
    side->request_fd = requests[1];
    side->reply_fd = replies[0];
    if (side->pid > 0) {
        /* numbered 0, as the "ready" that answers it (a pipe holds it until read) */
        wire_msg load;
        wire_begin(&load, WIRE_LOAD);
        wire_put_str(&load, lab_dir);
        wire_put_str(&load, side->path ? side->path : "");
        load.seq = 0;
        wire_send(side->request_fd, &load); /* a runner already gone: its "ready" says so */
        wire_free(&load);
    }
    fcntl(side->reply_fd, F_SETFL, O_NONBLOCK); /* read with deadlines: wire.c */
    side->records_valid = 0;
    side->kept_sizes[0] = side->kept_sizes[1] = -2; /* what it prints while loading is cleared too */
    if (side->pid < 0) {
        side->pid = 0;
        stop_side(side);
        return "the grader could not start a runner";
    }
    return NULL;
}

/* A kept runner, first used in this item: whatever an earlier item left in
 * its channel (answers it did not read) is read and dropped up to the
 * answer to a token of this item's, and its settings are a new runner's.
 * Should that fail, this item starts a runner of its own. */
static void sync_side(grade_side *side)
{
    side->synced = 1;
    uint64_t token = ((uint64_t)getpid() << 32) ^ (uint64_t)(wire_now() * 1e6);
    wire_msg m;
    wire_begin(&m, WIRE_SYNC);
    wire_put_u64(&m, token);
    /* numbered on from whatever an earlier item's process sent: that
     * process's numbers died with it, and its unread answers are dropped */
    m.seq = ++side->seq_sent;
    int sent = wire_send(side->request_fd, &m) == 0;
    wire_free(&m);
    for (int answers = 0; sent && answers < 1000000; answers++) {
        wire_msg reply;
        const char *why;
        if (wire_receive(side->reply_fd, &reply, run_item_deadline(), &why, RECORDS_BYTES_MAX + (1 << 20)) != 0)
            break;
        int mine = reply.tag == WIRE_SYNCED && reply.seq == side->seq_sent && wire_get_u64(&reply) == token;
        wire_free(&reply);
        if (mine) {
            side->seq_answered = side->seq_sent;
            side->replies_owed = 0;
            side->reset_pending = 0;
            clear_output(side);
            return;
        }
    }
    kill(side->pid, SIGKILL); /* the grader reaps it after this item and starts another */
    side->pid = 0;
    side->seq_sent = side->seq_answered = 0; /* the next runner numbers from its "ready" */
    close(side->request_fd);
    close(side->reply_fd);
    side->request_fd = side->reply_fd = -1;
}

/* In the grader, between items: the reference's runner lives from item to
 * item (a GPU context costs a second or more to create; a CPU emulation
 * hundreds of microseconds): started when none is alive, and woken should
 * anything have stopped it.  `ended`: the one kept was reaped; `renew`: the
 * last item did not finish (a timeout, a crash), so the runner may still be
 * busy with its calls: a new one. */
void sides_keep_reference(double cpu_seconds, int ended, int renew)
{
    grade_side *side = &reference;
    side->kept = 1;
    side->synced = 0;
    if (ended || (side->pid > 0 && waitpid(side->pid, NULL, WNOHANG) == side->pid))
        side->pid = 0;
    if (renew || side->pid <= 0)
        stop_side(side);
    if (side->pid > 0) {
        kill(side->pid, SIGCONT);
        return;
    }
    if (!side->program || spawn_runner(side, cpu_seconds) != NULL)
        return; /* the items start runners of their own, and say what fails */
    wire_msg ready;
    const char *why;
    int ok = wire_receive(side->reply_fd, &ready, wire_now() + STARTUP_SECONDS, &why, 1 << 16) == 0;
    if (ok)
        ok = ready.tag == WIRE_OK, wire_free(&ready);
    if (!ok)
        stop_side(side);
}

pid_t sides_kept_reference(void) { return reference.kept ? reference.pid : 0; }

void sides_release_reference(void)
{
    stop_side(&reference);
    reference.kept = 0;
}

/* On a GPU: the first `devices` of the GPUs CUDA_VISIBLE_DEVICES lets the
 * grader see (all of them when it is unset), or 0 when there are fewer in
 * that list (the runners' device count says how many there are). */
static int visible_gpus(int devices)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char list[256] = "";
    if (visible && *visible) {
        const char *at = visible;
        for (int d = 0; d < devices; d++) {
            size_t len = strcspn(at, ",");
            if (len == 0 || strlen(list) + len + 2 > sizeof list)
                return 0;
            strncat(list, at, len);
            if (d + 1 < devices)
                strcat(list, ",");
            at += len;
            if (*at == ',')
                at++;
            else if (d + 1 < devices)
                return 0;
        }
    } else
        for (int d = 0; d < devices && strlen(list) + 8 < sizeof list; d++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", d ? "," : "", d);
    setenv("CUDA_VISIBLE_DEVICES", list, 1);
    return 1;
}

/* After a change to the runners' environment: both sides' runners stopped,
 * to start again with it at their next call.  The reference runner the
 * grader keeps was started with the grader's environment: this item starts
 * one of its own (the grader replaces the one it kept). */
static void restart_sides(void)
{
    stop_side(&student);
    stop_side(&reference);
    reference.kept = 0;
}

int grade_use_devices(int devices)
{
    char count[16];
    snprintf(count, sizeof count, "%d", devices);
    if (grade_on_gpu()) {
        if (devices < 1 || !visible_gpus(devices))
            return 0;
    } else
        setenv("CUDAEMU_DEVICES", count, 1); /* in the item's process: its runners' environment (contain.c) */
    restart_sides();
    return 1;
}

int grade_use_loopback(void)
{
    if (!contain_apart())
        return 0; /* no network of the runners' own: a socket would reach the host's */
    setenv("CUDALABS_LOOPBACK", "1", 1); /* as CUDAEMU_DEVICES above: the runners' environment */
    restart_sides();
    return 1;
}

grade_side *grade_student(void) { return open_side(&student); }
grade_side *grade_reference(void) { return open_side(&reference); }
const char *grade_side_name(const grade_side *side) { return side->label; }
int grade_side_is_student(const grade_side *side) { return side->is_student; }

/* At an item's end, in its process: the runners it started (not the one
 * the grader keeps). */
void sides_stop(void)
{
    stop_side(&student);
    if (!reference.kept)
        stop_side(&reference);
}

/* A request with no answer but "done": sent, and its answer read before
 * the next one that matters (a round trip less per setting; a grade makes
 * thousands). */
static void request(grade_side *side, wire_msg *m, const char *during)
{
    side->records_valid = 0;
    send_request(side, m, during);
    side->replies_owed++;
}

/* ---- calls ----------------------------------------------------------------------------------------- */

static void read_records(grade_side *side, const char *during);

#define ARRAYS_MAX 8

/* A call's arrays travel through the side's arena, each at a page-aligned
 * offset.  The grader maps it too: the file is sealed against shrinking, so
 * that mapping stays valid whatever a runner does to the file. */
struct grade_call {
    grade_side *side;
    const char *name;
    wire_msg request;
    struct { void *data; size_t size, offset; } back[ARRAYS_MAX];
    int n_back;
    struct { const void *data; size_t size, offset, element_size; const char *name; } in[ARRAYS_MAX];
    int n_in;
    size_t arena_used;
    int failed_write;
};

/* The side's arena holds at least `size` bytes, and the grader's mapping
 * covers them; 0 or -1. */
static int arena_reserve(grade_side *side, size_t size)
{
    struct stat st;
    if (fstat(side->arena_fd, &st) != 0)
        return -1;
    if ((size_t)st.st_size < size) {
        if (ftruncate(side->arena_fd, (off_t)size) != 0)
            return -1;
        st.st_size = (off_t)size;
    }
    if (side->arena_mapped < size) {
        if (side->arena_map)
            munmap(side->arena_map, side->arena_mapped);
        side->arena_mapped = (size_t)st.st_size;
        side->arena_map = mmap(NULL, side->arena_mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, side->arena_fd, 0);
        if (side->arena_map == MAP_FAILED) {
            side->arena_map = NULL;
            side->arena_mapped = 0;
            return -1;
        }
    }
    return 0;
}

grade_call *grade_call_begin(grade_side *side, const char *name)
{
    static grade_call call;
    call.side = side;
    call.name = name;
    call.n_back = call.n_in = 0;
    call.arena_used = 0;
    call.failed_write = 0; /* (the arena is sized by the arrays; what a last call left there is never read) */
    wire_begin(&call.request, WIRE_CALL);
    wire_put_u32(&call.request, (uint32_t)side->reset_pending); /* forget the records first */
    side->reset_pending = 0;
    wire_put_str(&call.request, name);
    return &call;
}

void grade_call_value(grade_call *c, const void *value, size_t size)
{
    wire_put_block(&c->request, value, size);
}

static int inputs_must_stay;
void grade_inputs_must_stay(void) { inputs_must_stay = 1; }

void grade_call_array(grade_call *c, const char *name, const void *array, long long count, size_t element_size,
                      int back)
{
    size_t size = count > 0 ? (size_t)count * element_size : 0;
    size_t offset = c->arena_used;
    wire_put_u32(&c->request, array != NULL);
    wire_put_u32(&c->request, (uint32_t)back);
    if (array)
        c->side->bytes_in += (double)size;
    wire_put_u64(&c->request, offset);
    wire_put_u64(&c->request, size);
    if (!array)
        return;
    c->arena_used = (offset + size + 4095) / 4096 * 4096 + 4096; /* a page apart */
    if (arena_reserve(c->side, c->arena_used) != 0) {
        c->failed_write = 1;
    } else if (size && memcmp(c->side->arena_map + offset, array, size) != 0) {
        /* written only when different: the same inputs, call after call (a
         * timing's repetitions), cost a read, not a write */
        memcpy(c->side->arena_map + offset, array, size);
    }
    if (back) {
        if (c->n_back == ARRAYS_MAX)
            outcome_fail_not_student("grading error: too many output arrays in one call");
        c->back[c->n_back].data = (void *)array;
        c->back[c->n_back].size = size;
        c->back[c->n_back].offset = offset;
        c->n_back++;
    } else if (c->n_in < ARRAYS_MAX) {
        c->in[c->n_in].data = array;
        c->in[c->n_in].size = size;
        c->in[c->n_in].offset = offset;
        c->in[c->n_in].element_size = element_size;
        c->in[c->n_in].name = name;
        c->n_in++;
    }
}

/* After a call of the student's: an input array it changed fails the item,
 * and so does one a cudaMemcpy wrote into, even where the bytes it wrote
 * happened to be the ones already there. */
static void check_inputs_stayed(const grade_call *c)
{
    for (int k = 0; k < c->side->rec.n_copies; k++) {
        const kit_copy *copy = &c->side->rec.copies[k];
        int to_host = copy->direction == KIT_TO_HOST || copy->direction == KIT_ON_HOST ||
                      copy->direction == KIT_EITHER_WAY;
        if (!to_host || copy->host_address == KIT_NOT_SHARED)
            continue;
        for (int i = 0; i < c->n_in; i++)
            if (c->in[i].size && copy->host_address < c->in[i].offset + c->in[i].size &&
                copy->host_address + copy->bytes > c->in[i].offset)
                grade_fail("%s() changed its input array %s[]: the cudaMemcpy at %s:%d wrote into it, and the "
                           "lab's header says the function only reads it. Copy back into memory of its own.",
                           c->name, c->in[i].name, copy->file, copy->line);
    }
    for (int i = 0; i < c->n_in; i++) {
        const unsigned char *now = c->side->arena_map + c->in[i].offset, *was = c->in[i].data;
        if (!c->in[i].size || memcmp(now, was, c->in[i].size) == 0)
            continue;
        size_t at = 0;
        while (at < c->in[i].size && now[at] == was[at])
            at++;
        grade_fail("%s() changed its input array %s[] (element %zu first): the lab's header says it only reads "
                   "it. Does a copy back from the device land in %s instead of in memory of its own?", c->name,
                   c->in[i].name, at / c->in[i].element_size, c->in[i].name);
    }
}

void grade_call_finish(grade_call *c, void *ret, size_t ret_size)
{
    grade_side *side = c->side;
    char during[160];
    snprintf(during, sizeof during, "%s()", c->name);
    side->records_valid = 0;
    clear_output(side);
    if (c->failed_write)
        outcome_fail_not_student(str_printf("grading error: no memory for the arrays of %s", during));
    double started = wire_now();
    send_request(side, &c->request, during);

    wire_msg reply;
    receive(side, &reply, during, 1 << 16);
    error_expected = 0;
    if (reply.tag == WIRE_ERROR) { /* expected (grade_expect_error): the runner is gone, and its records */
        wire_free(&reply);
        if (ret_size)
            memset(ret, 0, ret_size);
        free_records(&side->rec);
        memset(&side->rec, 0, sizeof side->rec);
        side->records_valid = 1;
        return;
    }
    if (reply.tag == WIRE_MISSING) {
        if (side->is_student)
            grade_fail("your code does not define %s(): the lab's header declares it; is it still there, with that "
                       "exact name?", c->name);
        side_fail(side, "it does not define %s()", c->name);
    }
    size_t size;
    int present, ok = reply.tag == WIRE_OK;
    const void *bytes = wire_get_block(&reply, &size, &present);
    ok = ok && present && size == ret_size;
    if (ok && ret_size)
        memcpy(ret, bytes, ret_size);
    for (int i = 0; ok && i < c->n_back; i++)
        if (c->back[i].size)
            memcpy(c->back[i].data, side->arena_map + c->back[i].offset, c->back[i].size);
    ok = ok && !reply.bad && reply.at == reply.size;
    wire_free(&reply);
    if (!ok)
        side_fail(side, "the runner's answer to %s does not parse: something in the process wrote into the "
                  "grader's channel", during);
    read_records(side, during);
    double took = wire_now() - started;
    if (took > side->longest_s) {
        side->longest_s = took;
        snprintf(side->longest, sizeof side->longest, "%s", during);
    }
    if (inputs_must_stay && side->is_student)
        check_inputs_stayed(c);
}

/* ---- the harness of each side --------------------------------------------------------------------- */

static void simple(grade_side *side, uint32_t tag, int value, const char *what)
{
    wire_msg m;
    wire_begin(&m, tag);
    wire_put_u32(&m, (uint32_t)value);
    request(side, &m, what);
}

void grade_reset_records(grade_side *side)
{
    side->reset_pending = 1; /* done by the next call, or by a request of its own */
    side->records_valid = 0;
}

void grade_set_snapshots(grade_side *side, int on) { simple(side, WIRE_SNAPSHOTS, on, "turning snapshots on"); }
void grade_set_timing(grade_side *side, int on) { simple(side, WIRE_TIMING, on, "turning timing on"); }

void grade_spoil(grade_side *side, int kind, int at)
{
    wire_msg m;
    wire_begin(&m, WIRE_SPOIL);
    wire_put_u32(&m, (uint32_t)kind);
    wire_put_u32(&m, (uint32_t)at);
    request(side, &m, "setting up a test of the code's own checks");
}

void grade_set_schedule(grade_side *side, const char *order)
{
    if (grade_on_gpu())
        return; /* the GPU has its own schedule */
    wire_msg m;
    wire_begin(&m, WIRE_SCHEDULE);
    wire_put_str(&m, order);
    request(side, &m, "setting the schedule order");
}

grade_side *grade_student_recording_rounds(const char *order)
{
    grade_side *you = grade_student();
    grade_reset_records(you);
    grade_set_snapshots(you, 1);
    grade_set_schedule(you, order);
    return you;
}

static void free_records(records *r)
{
    free(r->todo);
    for (int i = 0; i < r->n_launches; i++)
        free(r->launch_files[i]);
    free(r->launch_files);
    free(r->launches);
    for (int i = 0; i < r->n_snapshots; i++) {
        free((void *)r->snapshots[i].data);
        free((void *)r->snapshots[i].file);
    }
    free(r->snapshots);
    for (int i = 0; i < r->n_copies; i++)
        free((void *)r->copies[i].file);
    free(r->copies);
    memset(r, 0, sizeof *r);
}

static void send_reset(grade_side *side)
{
    wire_msg m;
    wire_begin(&m, WIRE_RESET);
    request(side, &m, "resetting the harness's records");
    side->reset_pending = 0;
}

/* A count of records; more than RECORDS_MAX spoils the reply. */
static uint32_t get_count(wire_msg *reply)
{
    uint32_t n = wire_get_u32(reply);
    if (n > RECORDS_MAX)
        reply->bad = 1;
    return n;
}

/* A file name the harness recorded, cleaned (to be freed). */
static char *get_clean_path(wire_msg *reply)
{
    char *file = wire_get_str(reply, PATH_MAX);
    str_clean(file);
    return file;
}

static void get_launches(wire_msg *reply, records *r)
{
    uint32_t n = get_count(reply);
    r->launches = calloc(n + 1, sizeof *r->launches);
    r->launch_files = calloc(n + 1, sizeof *r->launch_files);
    for (uint32_t i = 0; i < n && !reply->bad; i++) {
        kit_launch *l = &r->launches[i];
        char *kernel = wire_get_str(reply, sizeof l->kernel - 1);
        snprintf(l->kernel, sizeof l->kernel, "%s", kernel);
        str_clean(l->kernel);
        free(kernel);
        for (int d = 0; d < 3; d++)
            l->grid[d] = wire_get_u32(reply);
        for (int d = 0; d < 3; d++)
            l->block[d] = wire_get_u32(reply);
        l->shmem = wire_get_u64(reply);
        l->cooperative = (int)wire_get_u32(reply);
        l->device = (int)wire_get_u32(reply);
        r->launch_files[i] = get_clean_path(reply);
        l->file = r->launch_files[i];
        l->line = (int)wire_get_u32(reply);
        l->atomics = (long long)wire_get_u64(reply);
        l->shuffles = (long long)wire_get_u64(reply);
        l->barriers = (long long)wire_get_u64(reply);
        l->static_shared = (long long)wire_get_u64(reply);
        r->n_launches = (int)i + 1;
    }
}

static void get_snapshots(wire_msg *reply, records *r)
{
    uint32_t n = get_count(reply);
    r->snapshots = calloc(n + 1, sizeof *r->snapshots);
    for (uint32_t i = 0; i < n && !reply->bad; i++) {
        kit_snapshot *s = &r->snapshots[i];
        s->round = (int)wire_get_u32(reply);
        s->count = wire_get_u64(reply);
        s->element_size = wire_get_u64(reply);
        size_t size;
        int present;
        const void *data = wire_get_block(reply, &size, &present);
        if (!present || s->element_size == 0 || s->element_size > 64 || size != s->count * s->element_size) {
            reply->bad = 1;
            return;
        }
        void *copy = malloc(size ? size : 1);
        memcpy(copy, data, size);
        s->data = copy;
        s->device_address = wire_get_u64(reply);
        s->file = get_clean_path(reply);
        s->line = (int)wire_get_u32(reply);
        r->n_snapshots = (int)i + 1;
    }
}

static void get_copies(wire_msg *reply, records *r)
{
    uint32_t n = get_count(reply);
    r->copies = calloc(n + 1, sizeof *r->copies);
    for (uint32_t i = 0; i < n && !reply->bad; i++) {
        kit_copy *c = &r->copies[i];
        c->direction = (kit_copy_direction)wire_get_u32(reply);
        c->bytes = wire_get_u64(reply);
        c->device_address = wire_get_u64(reply);
        c->launches_before = (int)wire_get_u32(reply);
        c->device = (int)wire_get_u32(reply);
        c->checksum = wire_get_u64(reply);
        c->host_address = wire_get_u64(reply); /* an offset in the shared arrays (runner.c) */
        c->file = get_clean_path(reply);
        c->line = (int)wire_get_u32(reply);
        r->n_copies = (int)i + 1;
    }
}

/* The runner sends its records after every call that returned (and on
 * request): one message less to wait for per call. */
static void read_records(grade_side *side, const char *during)
{
    free_records(&side->rec);
    wire_msg reply;
    receive(side, &reply, during, RECORDS_BYTES_MAX);
    side->seq_answered++; /* the records are the last reply to a call, or the only one to a request for them */
    side->records_read += (double)reply.size;
    if (side->records_read > RECORDS_ITEM_MAX) {
        wire_free(&reply);
        stop_side(side);
        outcome_mark_error();
        side_fail(side, "%s sent more than %.0f MB of records in this item, the last during %s (launches, snapshots "
                  "with their data, and copies the harness recorded): SNAPSHOT or a launch in a loop?",
                  side->is_student ? "your code" : "it", RECORDS_ITEM_MAX / (1 << 20), during);
    }
    records *r = &side->rec;
    r->timed_ms = wire_get_f64(&reply);
    r->device_bytes = (long long)wire_get_u64(&reply);
    size_t size;
    int present;
    const void *todo = wire_get_block(&reply, &size, &present);
    if (present && size < 256) {
        r->todo = strndup(todo, size);
        str_clean(r->todo);
    }
    get_launches(&reply, r);
    get_snapshots(&reply, r);
    get_copies(&reply, r);
    int bad = reply.bad || reply.at != reply.size;
    wire_free(&reply);
    if (bad)
        side_fail(side, "the harness's records do not parse: something in the process wrote into the grader's "
                  "channel");
    side->records_valid = 1;
}

/* The records as of now. */
static records *fetch(grade_side *side)
{
    if (side->records_valid)
        return &side->rec;
    if (side->reset_pending)
        send_reset(side);
    wire_msg m;
    wire_begin(&m, WIRE_RECORDS);
    send_request(side, &m, "reading the harness's records");
    read_records(side, "reading the harness's records");
    return &side->rec;
}

double grade_timed_ms(grade_side *side) { return fetch(side)->timed_ms; }
int grade_launch_count(grade_side *side) { return fetch(side)->n_launches; }
int grade_snapshot_count(grade_side *side) { return fetch(side)->n_snapshots; }
long long grade_device_bytes_in_use(grade_side *side) { return fetch(side)->device_bytes; }
const char *grade_todo_pending(grade_side *side) { return fetch(side)->todo; }

void grade_require_written(grade_side *side, const char *fn, const char *meaning)
{
    const char *todo = grade_todo_pending(side);
    grade_check(!todo, "%s is not written yet: %s still calls kit_not_implemented (%s)", fn, todo ? todo : "", meaning);
}

const kit_launch *grade_launch_at(grade_side *side, int i)
{
    records *r = fetch(side);
    if (i < 0 || i >= r->n_launches)
        outcome_fail_not_student(str_printf("grading error: launch %d asked for, %d recorded", i, r->n_launches));
    return &r->launches[i];
}

int grade_copy_count(grade_side *side) { return fetch(side)->n_copies; }

const kit_copy *grade_copy_at(grade_side *side, int i)
{
    records *r = fetch(side);
    if (i < 0 || i >= r->n_copies)
        outcome_fail_not_student(str_printf("grading error: copy %d asked for, %d recorded", i, r->n_copies));
    return &r->copies[i];
}

const kit_snapshot *grade_snapshot_at(grade_side *side, int i)
{
    records *r = fetch(side);
    if (i < 0 || i >= r->n_snapshots)
        outcome_fail_not_student(str_printf("grading error: snapshot %d asked for, %d taken", i, r->n_snapshots));
    return &r->snapshots[i];
}

/* The pending TODO of the student's code, for hints: only when a runner of
 * the student's is alive and answers. */
const char *sides_student_todo(void)
{
    if (student.pid <= 0 || !student.records_valid)
        return NULL;
    return student.rec.todo;
}

/* ---- the kernels' machine code (gpu backend) --------------------------------------------- */

#define SASS_MAX ((long)64 << 20)

/* Whether a cuobjdump function name ("_ZL17dot_vector_kernelPKfS0_iPd", or
 * a plain extern "C" name) is that of `kernel`. */
static int names_kernel(const char *name, size_t length, const char *kernel)
{
    char mangled[96];
    size_t k = strlen(kernel);
    if (length == k && strncmp(name, kernel, k) == 0)
        return 1;
    int m = snprintf(mangled, sizeof mangled, "%zu%s", k, kernel);
    for (size_t i = 0; m > 0 && i + (size_t)m <= length; i++)
        if (strncmp(name + i, mangled, (size_t)m) == 0 && (i == 0 || name[i - 1] < '0' || name[i - 1] > '9'))
            return 1;
    return 0;
}

/* One function's machine code in cuobjdump's text: from its "Function :"
 * line to the next one. */
typedef struct {
    const char *name, *start, *end;
    size_t name_length;
    int taken;
} sass_function;

/* Appends f's code to *out, then that of the functions its CALLs name (a
 * call to an address alone: every function that is not a kernel, whose code
 * ends in RET rather than EXIT). */
static void take_function(sass_function *all, int count, int f, char **out, size_t *used, int depth)
{
    if (all[f].taken || depth > 8)
        return;
    all[f].taken = 1;
    size_t size = (size_t)(all[f].end - all[f].start);
    char *grown = realloc(*out, *used + size + 1);
    if (!grown)
        return;
    *out = grown;
    memcpy(*out + *used, all[f].start, size);
    *used += size;
    (*out)[*used] = '\0';
    for (const char *at = all[f].start; (at = strstr(at, "CALL")) && at < all[f].end; at++) {
        const char *line_end = strchr(at, '\n');
        size_t line = line_end ? (size_t)(line_end - at) : strlen(at);
        int named = 0;
        for (int g = 0; g < count; g++)
            if (g != f && memmem(at, line, all[g].name, all[g].name_length)) {
                named = 1;
                take_function(all, count, g, out, used, depth + 1);
            }
        if (!named)
            for (int g = 0; g < count; g++)
                if (!memmem(all[g].start, (size_t)(all[g].end - all[g].start), "EXIT", 4))
                    take_function(all, count, g, out, used, depth + 1);
    }
}

char *grade_kernel_code(grade_side *side, const char *kernel)
{
    if (!grade_on_gpu() || !side->path || strlen(side->path) < 3)
        return NULL;
    char *path = str_printf("%.*s.sass", (int)(strlen(side->path) - 3), side->path); /* x.so -> x.sass */
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return NULL;
    char *text = malloc(SASS_MAX + 1);
    size_t size = text ? fread(text, 1, SASS_MAX, f) : 0;
    fclose(f);
    if (!text)
        return NULL;
    text[size] = '\0';
    int count = 0, capacity = 0, kernel_at = -1;
    sass_function *all = NULL;
    for (char *at = strstr(text, "Function : "); at; at = strstr(at + 1, "Function : ")) {
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            sass_function *grown = realloc(all, (size_t)capacity * sizeof *all);
            if (!grown)
                break;
            all = grown;
        }
        sass_function *fn = &all[count];
        fn->name = at + strlen("Function : ");
        fn->name_length = strcspn(fn->name, " \r\n");
        fn->start = at;
        fn->taken = 0;
        if (count > 0)
            all[count - 1].end = at;
        if (kernel_at < 0 && names_kernel(fn->name, fn->name_length, kernel))
            kernel_at = count;
        count++;
    }
    if (count > 0)
        all[count - 1].end = text + size;
    char *code = NULL;
    size_t used = 0;
    if (kernel_at >= 0)
        take_function(all, count, kernel_at, &code, &used, 0);
    free(all);
    free(text);
    return code;
}

/* The device as `side`'s runner sees it: its name, whether it is a GPU,
 * its peak bandwidth and SMs. */
static void ask_device(grade_side *side, char *name, size_t size, int *gpu, double *peak_gbs, int *sms)
{
    wire_msg m;
    wire_begin(&m, WIRE_DEVICE);
    send_request(side, &m, "asking about the device");
    wire_msg reply;
    receive(side, &reply, "asking about the device", 4096);
    side->seq_answered++;
    char *text = wire_get_str(&reply, 255);
    str_clean(text);
    snprintf(name, size, "%s", text);
    free(text);
    *gpu = (int)wire_get_u32(&reply);
    *peak_gbs = wire_get_f64(&reply);
    *sms = (int)wire_get_u32(&reply);
    wire_free(&reply);
}

const char *grade_device_name(void)
{
    static char name[256];
    double peak;
    int gpu, sms;
    if (!name[0])
        ask_device(grade_student(), name, sizeof name, &gpu, &peak, &sms);
    return name;
}

/* The device as the reference's runner reads it (the student's runner could
 * say anything), asked once. */
typedef struct {
    char name[256];
    int gpu;
    double peak_gbs;
    int multiprocessors;
} device_facts;

static const device_facts *reference_device(void)
{
    static device_facts facts;
    static int asked;
    if (!asked)
        ask_device(grade_reference(), facts.name, sizeof facts.name, &facts.gpu, &facts.peak_gbs,
                   &facts.multiprocessors);
    asked = 1;
    return &facts;
}

int grade_device_multiprocessors(void) { return reference_device()->multiprocessors; }

/* Every timed call of a side's is timed twice: by the harness in the
 * side's own process (the kernels' time, which the student's code could
 * write) and by the grader's clock around the whole call.  On a GPU the
 * first is checked against the second and against the device's bandwidth
 * (evidence.c), and grade_perf_fraction never takes the student's time as
 * less than what the second allows. */
double grade_time_ms(grade_side *side, void (*call)(void *arg), void *arg, int warmup, int reps)
{
    if (reps < 1)
        reps = 1;
    double *times = calloc((size_t)reps, sizeof *times), *outside = calloc((size_t)reps, sizeof *outside);
    if (!times || !outside)
        outcome_fail_not_student("grading error: out of memory");
    grade_set_timing(side, 1);
    for (int i = 0; i < warmup; i++)
        call(arg);
    double bytes_before = side->bytes_in;
    int launches = 0;
    for (int i = 0; i < reps; i++) {
        grade_reset_records(side);
        double started = wire_now();
        call(arg);
        outside[i] = (wire_now() - started) * 1e3;
        times[i] = grade_timed_ms(side);
        launches += grade_launch_count(side);
    }
    grade_set_timing(side, 0);
    double bytes = (side->bytes_in - bytes_before) / reps;
    /* on a GPU, where the calls launched kernels (the grader's own test lab
     * times calls without any, on no GPU) */
    const device_facts *device = grade_on_gpu() && launches > 0 ? reference_device() : NULL;
    for (int i = 0; device && device->gpu && i < reps; i++) {
        char why[512];
        if (grade_timing_impossible(times[i], outside[i], bytes, device->peak_gbs, why, sizeof why))
            side_fail(side, "timed call %d of %d: %s", i + 1, reps, why);
    }
    double median = kit_median(times, reps);
    side->timed_recorded_ms = median;
    side->timed_outside_ms = kit_median(outside, reps);
    side->timed = 1;
    free(times);
    free(outside);
    return median;
}

double grade_student_time_floor_ms(void)
{
    if (!student.timed || !reference.timed)
        return 0;
    return grade_speed_floor_ms(student.timed_outside_ms, reference.timed_outside_ms, reference.timed_recorded_ms);
}

/* ---- helpers on the student's side ----------------------------------------------------- */

int grade_depends_on_order(void (*call)(void *arg, void *result), void *arg, size_t size)
{
    if (grade_on_gpu() || size == 0)
        return 0; /* a GPU's order cannot be chosen */
    unsigned char *first = malloc(size), *other = malloc(size);
    int differs = 0;
    for (int s = 0; first && other && s < grade_schedule_count() && !differs; s++) {
        grade_set_schedule(grade_student(), grade_schedule_name(s));
        call(arg, s ? other : first);
        differs = s && memcmp(first, other, size) != 0;
    }
    grade_set_schedule(grade_student(), grade_schedule_name(0));
    free(first);
    free(other);
    return differs;
}

double grade_perf_fraction(double student_ms, double reference_ms)
{
    /* the student's recorded time, but never less than the grader's own
     * clock allows (grade.h): a time its code wrote itself gains nothing */
    double floor_ms = grade_student_time_floor_ms();
    if (floor_ms > student_ms) {
        grade_note("your recorded kernel time, %.3f ms, is less than the grader's clock allows for your calls: %.3f ms "
                   "is taken", student_ms, floor_ms);
        student_ms = floor_ms;
    }
    if (!(student_ms > 0) || !(reference_ms > 0))
        return 0;
    if (student_ms <= 1.2 * reference_ms)
        return 1;
    if (student_ms > 10 * reference_ms)
        return 0;
    return reference_ms / student_ms;
}
