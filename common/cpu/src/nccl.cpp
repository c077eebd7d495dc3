/* nccl.cpp: NCCL's collectives and point-to-point calls on the cpu backend.
 *
 * Device memory is host memory and every call finishes before it returns,
 * so a collective reads and writes its ranks' buffers itself.  What the
 * emulation keeps from a GPU is the matching: a rank's call is held until
 * every rank of its communicator has made the matching one, then it runs
 * for all of them at once (on whichever host thread made the last call).
 *
 *   - Outside a group a call is posted and waited for.  With one host thread
 *     per rank, that is what the GPU's kernel does: it waits for its peers.
 *   - Inside ncclGroupStart/End (nesting counts) calls are only collected;
 *     the outermost ncclGroupEnd posts them all, in call order, then waits.
 *   - Collectives match in call order per communicator: the k-th collective
 *     of every rank run together, checked to be the same call with the same
 *     count, type, operation and root.  A send matches the receive posted by
 *     its peer for it, in order between each pair of ranks.
 *
 * Where a GPU would hang, this says why instead: a call waits while every
 * rank's thread is itself waiting in NCCL (or has ended, or has destroyed
 * its communicator), so nobody can make the call it waits for.  When no
 * other thread of the program could make it, that is certain at once; when
 * others exist, a thread might yet take a rank over, so the verdict comes
 * after a grace with no new call anywhere (GRACE).  Every call still
 * waiting in that communicator then fails with ncclInvalidUsage and a
 * message naming each rank and the call it is stuck in.
 *
 * Reductions run in rank order (((r0 op r1) op r2) ...), so integer-valued
 * data is exact, results are deterministic, and every rank of an
 * all-reduce receives the same bits.  ncclAvg divides once, after the sum.
 *
 * Errors are NCCL's codes; the detail is kept per host thread, as the CUDA
 * side's api_fail keeps it: ncclGetErrorString() of the error just returned
 * gives "invalid argument (the detail)", and ncclGetLastError() the detail.
 * Each API function is a plain extern "C" function, so a harness can wrap
 * it to record the calls. */
#include "internal.h"

#include <nccl.h>

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace cudaemu {
namespace nccl_emu {
struct clique;
}
} // namespace cudaemu

/* The type behind ncclComm_t: one rank of a communicator. */
struct ncclComm {
    cudaemu::nccl_emu::clique *clique;
    int rank, device;
    bool destroyed;
};

namespace cudaemu {
namespace nccl_emu {

using clock_type = std::chrono::steady_clock;
/* How long every rank may wait, with other threads in the program that
 * could still take a rank over, before a hang is declared. */
static const std::chrono::milliseconds GRACE(2000);
/* A call that sees nothing happen in its communicator for this long is
 * declared hung whatever the threads do (a rank's thread waiting outside
 * NCCL, in pthread_join say, is invisible to the check above).  Long: a
 * rank's thread may be running a large kernel here, slowly, before its call. */
static const std::chrono::seconds NO_PROGRESS_LIMIT(300);

/* ---- errors: the detail of the last error, per host thread ---- */
struct host_thread;
static host_thread *this_thread(void);

static const char *result_text(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

/* ---- calls ---- */
enum call_kind { ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, SEND, RECV, JOIN };
static bool is_collective(call_kind k) { return k <= REDUCE_SCATTER; }

struct call {
    call_kind kind;
    const char *api;     /* as the program called it (ncclBcast is a broadcast) */
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t type;
    ncclRedOp_t op;
    int root;            /* the root, or the peer of a send or receive */
    ncclComm *comm;
    unsigned long number; /* the rank's how-manieth collective, from 1 */
    bool in_group;
    host_thread *poster;
    bool done;
    ncclResult_t result;
    std::string message;
};
using call_ptr = std::shared_ptr<call>;

/* ---- the host threads that call NCCL ---- */
struct host_thread {
    int group_depth;
    std::vector<call_ptr> collected;  /* inside a group, in call order */
    ncclResult_t group_error;         /* the first call of the group that failed */
    bool waiting;                     /* in wait_for(): it can make no call */
    bool ended;
    ncclResult_t last_result;
    std::string last_message;
    std::string text;                 /* what ncclGetErrorString returned last */
};

/* ---- communicators ---- */
struct clique {
    int nranks, joined;
    bool formed;                      /* every rank has joined */
    std::string failed;               /* why it can never be formed, if so */
    std::string id;                   /* the unique id of ncclCommInitRank */
    std::vector<ncclComm *> rank;     /* null until that rank joins */
    std::vector<host_thread *> owner; /* the thread that made the rank's latest call */
    std::vector<std::deque<call_ptr>> collectives;    /* per rank, in call order */
    std::vector<std::deque<call_ptr>> sends, receives; /* per (from, to): [from * nranks + to] */
    std::vector<unsigned long> numbered;               /* collectives posted per rank */
    std::vector<call_ptr> joins;                       /* ncclCommInitRank calls, until formed */
    clock_type::time_point last_change;
};

/* Everything, under one lock; never destroyed, so that threads still
 * running at exit find it whole. */
struct state {
    std::mutex lock;
    std::condition_variable changed;
    std::set<ncclComm *> comms;          /* every communicator made (kept: a destroyed one is named as such) */
    std::map<std::string, clique *> forming; /* unique id -> communicator being formed by ncclCommInitRank */
    std::vector<clique *> cliques;
    std::mutex threads_lock;             /* for threads alone: taken with or without lock */
    std::vector<host_thread *> threads;
    unsigned long long posts;            /* calls posted so far, anywhere */
    unsigned long long next_id;
};
static state &S(void)
{
    static state *s = new state();
    return *s;
}

/* A host thread's record outlives it (a communicator may name it as a rank's
 * owner): its end only marks it, from a thread_local's destructor. */
struct thread_guard {
    host_thread *record = nullptr;
    ~thread_guard()
    {
        if (!record)
            return;
        std::lock_guard<std::mutex> held(S().lock);
        record->ended = true;
        S().changed.notify_all();
    }
};
static thread_local thread_guard guard;

static host_thread *this_thread(void)
{
    if (!guard.record) {
        host_thread *t = new host_thread();
        t->group_error = ncclSuccess;
        t->last_result = ncclSuccess;
        std::lock_guard<std::mutex> held(S().threads_lock);
        S().threads.push_back(t);
        guard.record = t;
    }
    return guard.record;
}

static ncclResult_t fail(ncclResult_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ncclResult_t fail(ncclResult_t r, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    host_thread *t = this_thread();
    t->last_result = r;
    t->last_message = buf;
    return r;
}
static ncclResult_t fail_with(ncclResult_t r, const std::string &message)
{
    return fail(r, "%s", message.c_str());
}

/* ---- names, for messages ---- */
static const char *type_name(ncclDataType_t t)
{
    static const char *const names[] = {"ncclInt8",  "ncclUint8",  "ncclInt32", "ncclUint32",
                                        "ncclInt64", "ncclUint64", "ncclHalf",  "ncclFloat",
                                        "ncclDouble", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "an unknown type";
}
static const char *op_name(ncclRedOp_t op)
{
    static const char *const names[] = {"ncclSum", "ncclProd", "ncclMax", "ncclMin", "ncclAvg"};
    return (unsigned)op < sizeof names / sizeof *names ? names[op] : "an unknown operation";
}
static size_t type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}
static std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static std::string strf(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}
/* "rank 1" / "ranks 1 and 2" / "ranks 1, 2 and 3" */
static std::string rank_list(const std::vector<int> &ranks)
{
    std::string s = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); i++) {
        if (i)
            s += i + 1 == ranks.size() ? " and " : ", ";
        s += std::to_string(ranks[i]);
    }
    return s;
}
static std::string describe_p2p(const call &c)
{
    return strf("%s %s rank %d (%zu x %s)", c.api, c.kind == SEND ? "to" : "from", c.root, c.count,
                type_name(c.type));
}

/* ---- reductions, in rank order ---- */
template <class T> static T combine(ncclRedOp_t op, T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type; /* wraps as the GPU does, no undefined overflow */
        switch (op) {
        case ncclProd: return (T)(U)((U)a * (U)b);
        case ncclMax: return a < b ? b : a;
        case ncclMin: return b < a ? b : a;
        default: return (T)(U)((U)a + (U)b); /* ncclSum, ncclAvg */
        }
    } else {
        switch (op) {
        case ncclProd: return a * b;
        case ncclMax: return fmax(a, b);
        case ncclMin: return fmin(a, b);
        default: return a + b;
        }
    }
}
template <class T> static void reduce_typed(void *out, const std::vector<const void *> &in, size_t count,
                                            ncclRedOp_t op)
{
    T *o = (T *)out;
    memcpy(o, in[0], count * sizeof(T));
    for (size_t r = 1; r < in.size(); r++) {
        const T *x = (const T *)in[r];
        for (size_t i = 0; i < count; i++)
            o[i] = combine<T>(op, o[i], x[i]);
    }
    if (op == ncclAvg)
        for (size_t i = 0; i < count; i++)
            o[i] = (T)(o[i] / (T)in.size());
}
/* Half precision: each step computed in float and rounded back, which is
 * the correctly rounded half result (cuda_fp16.h says why). */
static void reduce_half(void *out, const std::vector<const void *> &in, size_t count, ncclRedOp_t op)
{
    unsigned short *o = (unsigned short *)out;
    memcpy(o, in[0], count * 2);
    for (size_t r = 1; r < in.size(); r++) {
        const unsigned short *x = (const unsigned short *)in[r];
        for (size_t i = 0; i < count; i++)
            o[i] = float_to_half_bits(combine<float>(op, half_bits_to_float(o[i]), half_bits_to_float(x[i])));
    }
    if (op == ncclAvg)
        for (size_t i = 0; i < count; i++)
            o[i] = float_to_half_bits(half_bits_to_float(o[i]) / (float)in.size());
}
static void reduce(void *out, const std::vector<const void *> &in, size_t count, ncclDataType_t type,
                   ncclRedOp_t op)
{
    switch (type) {
    case ncclInt8: reduce_typed<int8_t>(out, in, count, op); break;
    case ncclUint8: reduce_typed<uint8_t>(out, in, count, op); break;
    case ncclInt32: reduce_typed<int32_t>(out, in, count, op); break;
    case ncclUint32: reduce_typed<uint32_t>(out, in, count, op); break;
    case ncclInt64: reduce_typed<int64_t>(out, in, count, op); break;
    case ncclUint64: reduce_typed<uint64_t>(out, in, count, op); break;
    case ncclFloat16: reduce_half(out, in, count, op); break;
    case ncclFloat32: reduce_typed<float>(out, in, count, op); break;
    case ncclFloat64: reduce_typed<double>(out, in, count, op); break;
    default: break; /* refused at the call */
    }
}

/* ---- running a matched set of calls ---- */
static void finish(call &c, ncclResult_t r, const std::string &message)
{
    c.done = true;
    c.result = r;
    c.message = message;
}

/* The k-th collective of every rank: the same call with the same arguments,
 * or every rank's call fails with what differs. */
static bool collectives_agree(const std::vector<call_ptr> &calls, std::string *why, ncclResult_t *code)
{
    const call &first = *calls[0];
    for (const call_ptr &c : calls)
        if (c->kind != first.kind) {
            std::string s = strf("collective call %lu differs between the ranks:", first.number);
            for (size_t r = 0; r < calls.size(); r++)
                s += strf("%s rank %zu calls %s", r ? "," : "", r, calls[r]->api);
            *why = s + "; every rank of a communicator must make the same collective calls in the same order";
            *code = ncclInvalidUsage;
            return false;
        }
    /* one argument compared across ranks: name every rank's value */
    auto differs = [&](const char *what, auto value, auto show) {
        for (const call_ptr &c : calls)
            if (value(*c) != value(first)) {
                std::string s = strf("%s (collective call %lu): the ranks pass different %s:", first.api,
                                     first.number, what);
                for (size_t r = 0; r < calls.size(); r++)
                    s += strf("%s rank %zu %s", r ? "," : "", r, show(*calls[r]).c_str());
                *why = s + "; every rank must pass the same";
                *code = ncclInvalidArgument;
                return true;
            }
        return false;
    };
    const char *count_name = first.kind == ALL_GATHER ? "sendcounts" : first.kind == REDUCE_SCATTER ? "recvcounts"
                                                                                                    : "counts";
    if (differs(count_name, [](const call &c) { return c.count; },
                [](const call &c) { return std::to_string(c.count); }) ||
        differs("datatypes", [](const call &c) { return (int)c.type; },
                [](const call &c) { return std::string(type_name(c.type)); }))
        return false;
    bool reduces = first.kind == ALL_REDUCE || first.kind == REDUCE || first.kind == REDUCE_SCATTER;
    if (reduces && differs("operations", [](const call &c) { return (int)c.op; },
                           [](const call &c) { return std::string(op_name(c.op)); }))
        return false;
    bool rooted = first.kind == REDUCE || first.kind == BROADCAST;
    if (rooted && differs("roots", [](const call &c) { return c.root; },
                          [](const call &c) { return std::to_string(c.root); }))
        return false;
    return true;
}

static void run_collective(const std::vector<call_ptr> &calls)
{
    std::string why;
    ncclResult_t code;
    if (!collectives_agree(calls, &why, &code)) {
        for (const call_ptr &c : calls)
            finish(*c, code, why);
        return;
    }
    const call &first = *calls[0];
    size_t n = calls.size(), bytes = first.count * type_size(first.type);
    std::vector<const void *> inputs;
    for (const call_ptr &c : calls)
        inputs.push_back(c->send);
    /* the result is made apart first: a buffer may be in place (recvbuff
     * == sendbuff, or inside it) */
    std::vector<unsigned char> result;
    switch (first.kind) {
    case ALL_REDUCE:
    case REDUCE:
        result.resize(bytes);
        reduce(result.data(), inputs, first.count, first.type, first.op);
        for (const call_ptr &c : calls)
            if (first.kind == ALL_REDUCE || c->comm->rank == first.root)
                memcpy(c->recv, result.data(), bytes);
        break;
    case BROADCAST:
        result.assign((const unsigned char *)calls[first.root]->send,
                      (const unsigned char *)calls[first.root]->send + bytes);
        for (const call_ptr &c : calls)
            memcpy(c->recv, result.data(), bytes);
        break;
    case ALL_GATHER:
        result.resize(bytes * n);
        for (size_t r = 0; r < n; r++)
            memcpy(result.data() + r * bytes, calls[r]->send, bytes);
        for (const call_ptr &c : calls)
            memcpy(c->recv, result.data(), bytes * n);
        break;
    case REDUCE_SCATTER:
        result.resize(bytes * n);
        reduce(result.data(), inputs, first.count * n, first.type, first.op);
        for (size_t r = 0; r < n; r++)
            memcpy(calls[r]->recv, result.data() + r * bytes, bytes);
        break;
    default:
        break;
    }
    for (const call_ptr &c : calls)
        finish(*c, ncclSuccess, "");
}

static void run_pair(call &send, call &receive)
{
    if (send.count != receive.count || send.type != receive.type) {
        std::string why = strf("ncclSend from rank %d to rank %d sends %zu x %s, but the matching ncclRecv on rank "
                               "%d receives %zu x %s: a send and its receive must have the same count and type",
                               send.comm->rank, receive.comm->rank, send.count, type_name(send.type),
                               receive.comm->rank, receive.count, type_name(receive.type));
        finish(send, ncclInvalidArgument, why);
        finish(receive, ncclInvalidArgument, why);
        return;
    }
    memmove(receive.recv, send.send, send.count * type_size(send.type));
    finish(send, ncclSuccess, "");
    finish(receive, ncclSuccess, "");
}

/* Runs whatever has been matched, until nothing more can run. */
static void progress(clique *c)
{
    bool ran_any = false;
    for (bool ran = true; ran && c->formed;) {
        ran = false;
        bool all = true;
        for (int r = 0; r < c->nranks; r++)
            all = all && !c->collectives[r].empty();
        if (all) {
            std::vector<call_ptr> calls;
            for (int r = 0; r < c->nranks; r++) {
                calls.push_back(c->collectives[r].front());
                c->collectives[r].pop_front();
            }
            run_collective(calls);
            ran = true;
        }
        for (size_t pair = 0; pair < c->sends.size(); pair++)
            while (!c->sends[pair].empty() && !c->receives[pair].empty()) {
                run_pair(*c->sends[pair].front(), *c->receives[pair].front());
                c->sends[pair].pop_front();
                c->receives[pair].pop_front();
                ran = true;
            }
        ran_any = ran_any || ran;
    }
    if (ran_any) {
        c->last_change = clock_type::now();
        S().changed.notify_all();
    }
}

static void post(const call_ptr &c)
{
    clique *q = c->comm->clique;
    int rank = c->comm->rank, n = q->nranks;
    if (is_collective(c->kind)) {
        c->number = ++q->numbered[rank];
        q->collectives[rank].push_back(c);
    } else if (c->kind == SEND) {
        q->sends[rank * n + c->root].push_back(c);
    } else if (c->kind == RECV) {
        q->receives[c->root * n + rank].push_back(c);
    }
    q->owner[rank] = c->poster;
    q->last_change = clock_type::now();
    S().posts++;
    S().changed.notify_all();
}

/* ---- hangs ---- */

/* Could a thread other than this one still make an NCCL call?  Only if the
 * process has threads besides this one and the backend's own pool. */
static bool other_threads_exist(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return true;
    int threads = 0;
    while (struct dirent *e = readdir(d))
        threads += e->d_name[0] != '.';
    closedir(d);
    clockid_t clocks[POOL_MAX];
    int pool_threads = (int)pool_cpu_clocks(clocks) - 1;
    return threads - 1 - pool_threads > 0;
}

static bool has_pending(const clique *c)
{
    for (const auto &q : c->collectives)
        if (!q.empty())
            return true;
    for (size_t p = 0; p < c->sends.size(); p++)
        if (!c->sends[p].empty() || !c->receives[p].empty())
            return true;
    return false;
}

/* Nobody can make another call in c: every rank's thread waits in NCCL
 * (this one included), has ended, or the rank's communicator is gone. */
static bool stuck(const clique *c)
{
    if (!c->formed || !has_pending(c))
        return false;
    for (int r = 0; r < c->nranks; r++) {
        const host_thread *o = c->owner[r];
        if (!c->rank[r]->destroyed && o && !o->waiting && !o->ended)
            return false;
    }
    return true;
}

/* What rank r is doing, for a hang's message. */
static std::string rank_state(const clique *c, int r)
{
    int n = c->nranks;
    std::vector<std::string> parts;
    if (!c->collectives[r].empty()) {
        const call &k = *c->collectives[r].front();
        parts.push_back(strf("rank %d waits in %s (its collective call %lu)", r, k.api, k.number));
    }
    for (int peer = 0; peer < n; peer++) {
        if (!c->sends[r * n + peer].empty())
            parts.push_back(strf("rank %d waits in %s, which rank %d has no ncclRecv for", r,
                                 describe_p2p(*c->sends[r * n + peer].front()).c_str(), peer));
        if (!c->receives[peer * n + r].empty())
            parts.push_back(strf("rank %d waits in %s, which rank %d has no ncclSend for", r,
                                 describe_p2p(*c->receives[peer * n + r].front()).c_str(), peer));
    }
    if (parts.empty()) {
        const host_thread *o = c->owner[r];
        if (c->rank[r]->destroyed)
            parts.push_back(strf("rank %d has destroyed its communicator", r));
        else if (o && o->ended)
            parts.push_back(strf("rank %d's thread has ended", r));
        else if (o && o->waiting && o != this_thread())
            parts.push_back(strf("rank %d's thread waits in a call of another communicator", r));
        else
            parts.push_back(strf("rank %d has made no matching call", r));
    }
    std::string s;
    for (const std::string &p : parts)
        s += (s.empty() ? "" : "; ") + p;
    return s;
}

/* The message for a hang in c, seen from the thread whose call `mine` waits. */
static std::string hang_message(const clique *c, const call &mine)
{
    host_thread *me = this_thread();
    bool all_mine = true;
    for (int r = 0; r < c->nranks; r++)
        all_mine = all_mine && c->owner[r] == me;
    int n = c->nranks, rank = mine.comm->rank;
    if (all_mine && !mine.in_group) {
        /* the classic mistake: one thread making every rank's calls, each alone */
        std::vector<int> others;
        for (int r = 0; r < n; r++)
            if (r != rank)
                others.push_back(r);
        if (!is_collective(mine.kind))
            others.assign(1, mine.root);
        std::string whose = others.size() == 1 ? strf("rank %d's call", others[0])
                                               : "the calls of " + rank_list(others);
        return strf("%s for rank %d of %d waits for %s, and this thread makes every rank's calls: put them "
                    "between ncclGroupStart and ncclGroupEnd", mine.api, rank, n, whose.c_str());
    }
    std::string s = strf("%s for rank %d of %d can never complete: ", mine.in_group ? "ncclGroupEnd" : mine.api,
                         rank, n);
    for (int r = 0; r < n; r++)
        s += (r ? "; " : "") + rank_state(c, r);
    return s + " (every rank must make the same collective calls in the same order, and each ncclSend needs "
               "the ncclRecv of its peer)";
}

/* Fails every call still waiting in c. */
static void declare_hang(clique *c, const std::string &message)
{
    fflush(stdout);
    fprintf(stderr, "cudaemu: NCCL: %s\n", message.c_str());
    for (auto &q : c->collectives) {
        for (call_ptr &k : q)
            finish(*k, ncclInvalidUsage, message);
        q.clear();
    }
    for (size_t p = 0; p < c->sends.size(); p++) {
        for (call_ptr &k : c->sends[p])
            finish(*k, ncclInvalidUsage, message);
        for (call_ptr &k : c->receives[p])
            finish(*k, ncclInvalidUsage, message);
        c->sends[p].clear();
        c->receives[p].clear();
    }
    c->last_change = clock_type::now();
    S().changed.notify_all();
}

/* A communicator of ncclCommInitRank that can never be formed: its joins fail. */
static void declare_unformed(clique *c, const std::string &message)
{
    fflush(stdout);
    fprintf(stderr, "cudaemu: NCCL: %s\n", message.c_str());
    for (call_ptr &j : c->joins)
        finish(*j, ncclInvalidUsage, message);
    c->joins.clear();
    c->failed = message;
    S().forming.erase(c->id);
    S().changed.notify_all();
}
static std::string unformed_message(const clique *c, const call &join, bool alone)
{
    std::vector<int> missing;
    for (int r = 0; r < c->nranks; r++)
        if (!c->rank[r])
            missing.push_back(r);
    std::string whose = missing.size() == 1 ? strf("rank %d's", missing[0]) : "the " + rank_list(missing) + "'";
    if (alone)
        return strf("ncclCommInitRank for rank %d of %d waits for %s ncclCommInitRank, and no other thread of this "
                    "program can make it: call it from one thread per rank, or put every rank's call between "
                    "ncclGroupStart and ncclGroupEnd", join.comm->rank, c->nranks, whose.c_str());
    return strf("ncclCommInitRank for rank %d of %d has waited %lld s for %s ncclCommInitRank", join.comm->rank,
                c->nranks, (long long)NO_PROGRESS_LIMIT.count(), whose.c_str());
}

/* Waits until every call in `calls` is done, declaring hangs as it goes;
 * returns the first failure, recorded as this thread's last error. */
static ncclResult_t wait_for(const std::vector<call_ptr> &calls, std::unique_lock<std::mutex> &held)
{
    host_thread *me = this_thread();
    me->waiting = true;
    S().changed.notify_all(); /* others may now see a hang */
    clock_type::time_point stuck_since{};
    unsigned long long posts_then = 0;
    for (;;) {
        const call *pending = nullptr;
        for (const call_ptr &k : calls)
            if (!k->done) {
                pending = k.get();
                break;
            }
        if (!pending)
            break;
        clique *c = pending->comm->clique;
        clock_type::time_point now = clock_type::now();
        if (pending->kind == JOIN) {
            bool alone = !other_threads_exist();
            if (alone || now - c->last_change >= NO_PROGRESS_LIMIT)
                declare_unformed(c, unformed_message(c, *pending, alone));
        } else if (stuck(c)) {
            if (!other_threads_exist())
                declare_hang(c, hang_message(c, *pending));
            else if (stuck_since == clock_type::time_point{} || S().posts != posts_then) {
                stuck_since = now; /* (re)start the grace */
                posts_then = S().posts;
            } else if (now - stuck_since >= GRACE)
                declare_hang(c, hang_message(c, *pending));
        } else {
            stuck_since = clock_type::time_point{};
            if (now - c->last_change >= NO_PROGRESS_LIMIT)
                declare_hang(c, hang_message(c, *pending) +
                                    strf(" (nothing has happened in this communicator for %lld s)",
                                         (long long)NO_PROGRESS_LIMIT.count()));
        }
        if (!pending->done)
            S().changed.wait_for(held, std::chrono::milliseconds(100));
    }
    me->waiting = false;
    for (const call_ptr &k : calls)
        if (k->result != ncclSuccess)
            return fail_with(k->result, k->message);
    return ncclSuccess;
}

/* ---- checking a call's arguments ---- */

/* The communicator, if it is a live one; else the failure. */
static ncclResult_t check_comm(const char *api, ncclComm_t comm)
{
    if (!comm)
        return fail(ncclInvalidArgument, "%s with a NULL communicator", api);
    std::lock_guard<std::mutex> held(S().lock);
    if (!S().comms.count(comm))
        return fail(ncclInvalidArgument, "%s: %p is not a communicator made by ncclCommInitAll or ncclCommInitRank",
                    api, (void *)comm);
    if (!comm->clique->failed.empty())
        return fail(ncclInvalidUsage, "%s on a communicator that was never made: %s", api,
                    comm->clique->failed.c_str());
    if (comm->destroyed)
        return fail(ncclInvalidArgument, "%s on the communicator of rank %d, which has been destroyed", api,
                    comm->rank);
    return ncclSuccess;
}

/* A buffer of `bytes` for `rank`: memory its device can use (of that device,
 * managed or pinned host memory), as long as that. */
static ncclResult_t check_buffer(const char *api, ncclComm *comm, const char *name, const void *p, size_t bytes)
{
    if (!p)
        return fail(ncclInvalidArgument, "%s: rank %d's %s is NULL", api, comm->rank, name);
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess || a.type == cudaMemoryTypeUnregistered || !a.devicePointer)
        return fail(ncclInvalidArgument, "%s: rank %d's %s (%p) is not device memory (a host array? NCCL reads "
                    "and writes memory of the rank's device, %d, from cudaMalloc)", api, comm->rank, name, p,
                    comm->device);
    if (a.type == cudaMemoryTypeDevice && a.device != comm->device)
        return fail(ncclInvalidArgument, "%s: rank %d's %s (%p) is memory of device %d, but rank %d's communicator "
                    "is on device %d", api, comm->rank, name, p, a.device, comm->rank, comm->device);
    /* its last byte must lie in memory too: past an allocation's end lie
     * guard bytes that are no allocation */
    cudaPointerAttributes end;
    if (cudaPointerGetAttributes(&end, (const char *)p + bytes - 1) != cudaSuccess ||
        end.type == cudaMemoryTypeUnregistered)
        return fail(ncclInvalidArgument, "%s: rank %d's %s (%p) is smaller than the %zu bytes the call reads or "
                    "writes there", api, comm->rank, name, p, bytes);
    return ncclSuccess;
}

static ncclResult_t check_type_op(const char *api, ncclDataType_t type, const ncclRedOp_t *op)
{
    if (type == ncclBfloat16 || type == ncclFloat8e4m3 || type == ncclFloat8e5m2)
        return fail(ncclInvalidArgument, "%s with %s: the cpu backend does not emulate that type", api,
                    type_name(type));
    if (!type_size(type))
        return fail(ncclInvalidArgument, "%s with datatype %d, which is not an ncclDataType_t", api, (int)type);
    if (op && (unsigned)*op >= (unsigned)ncclNumOps)
        return fail(ncclInvalidArgument, "%s with reduction operation %d: the cpu backend has ncclSum, ncclProd, "
                    "ncclMax, ncclMin and ncclAvg", api, (int)*op);
    return ncclSuccess;
}

static int nranks_of(ncclComm *comm)
{
    std::lock_guard<std::mutex> held(S().lock);
    return comm->clique->nranks;
}

/* Posts a checked call (or collects it, inside a group) and waits for it. */
static ncclResult_t submit(call_ptr k)
{
    host_thread *me = this_thread();
    k->poster = me;
    k->in_group = me->group_depth > 0;
    k->done = false;
    k->result = ncclSuccess;
    if (k->in_group) {
        me->collected.push_back(k);
        return ncclSuccess;
    }
    std::unique_lock<std::mutex> held(S().lock);
    post(k);
    progress(k->comm->clique);
    return wait_for({k}, held);
}

/* A failed call inside a group fails the group too, as in NCCL. */
static ncclResult_t refused(ncclResult_t r)
{
    host_thread *me = this_thread();
    if (me->group_depth > 0 && me->group_error == ncclSuccess)
        me->group_error = r;
    return r;
}

struct buffer_need {
    const char *name;
    const void *p;
    size_t bytes;
};
static ncclResult_t collective(call_kind kind, const char *api, const void *send, void *recv, size_t count,
                               ncclDataType_t type, const ncclRedOp_t *op, int root, ncclComm_t comm)
{
    ncclResult_t r = check_comm(api, comm);
    if (r == ncclSuccess)
        r = check_type_op(api, type, op);
    if (r != ncclSuccess)
        return refused(r);
    int n = nranks_of(comm);
    bool rooted = kind == REDUCE || kind == BROADCAST;
    bool p2p = kind == SEND || kind == RECV;
    if ((rooted || p2p) && (root < 0 || root >= n))
        return refused(fail(ncclInvalidArgument, "%s: %s %d is not a rank of the communicator (0 to %d)", api,
                            p2p ? "peer" : "root", root, n - 1));
    if (count == 0) /* nothing to move: NCCL returns at once */
        return ncclSuccess;
    size_t bytes = count * type_size(type);
    if (count > (size_t)-1 / type_size(type) / (size_t)n)
        return refused(fail(ncclInvalidArgument, "%s: a count of %zu elements is too large", api, count));
    std::vector<buffer_need> needs;
    int rank = comm->rank;
    switch (kind) {
    case ALL_REDUCE: needs = {{"sendbuff", send, bytes}, {"recvbuff", recv, bytes}}; break;
    case REDUCE:
        needs = {{"sendbuff", send, bytes}};
        if (rank == root)
            needs.push_back({"recvbuff", recv, bytes});
        break;
    case BROADCAST:
        if (rank == root)
            needs.push_back({"sendbuff", send, bytes});
        needs.push_back({"recvbuff", recv, bytes});
        break;
    case ALL_GATHER: needs = {{"sendbuff", send, bytes}, {"recvbuff", recv, bytes * n}}; break;
    case REDUCE_SCATTER: needs = {{"sendbuff", send, bytes * n}, {"recvbuff", recv, bytes}}; break;
    case SEND: needs = {{"sendbuff", send, bytes}}; break;
    case RECV: needs = {{"recvbuff", recv, bytes}}; break;
    default: break;
    }
    for (const buffer_need &b : needs)
        if ((r = check_buffer(api, comm, b.name, b.p, b.bytes)) != ncclSuccess)
            return refused(r);
    call_ptr k = std::make_shared<call>();
    k->kind = kind;
    k->api = api;
    k->send = send;
    k->recv = recv;
    k->count = count;
    k->type = type;
    k->op = op ? *op : ncclSum;
    k->root = root;
    k->comm = comm;
    k->number = 0;
    return submit(k);
}

/* ---- communicators ---- */
static clique *new_clique(int nranks)
{
    clique *c = new clique();
    c->nranks = nranks;
    c->joined = 0;
    c->formed = false;
    c->rank.assign(nranks, nullptr);
    c->owner.assign(nranks, nullptr);
    c->collectives.resize(nranks);
    c->sends.resize((size_t)nranks * nranks);
    c->receives.resize((size_t)nranks * nranks);
    c->numbered.assign(nranks, 0);
    c->last_change = clock_type::now();
    S().cliques.push_back(c);
    return c;
}
static ncclComm *new_comm(clique *c, int rank, int device, host_thread *owner)
{
    ncclComm *comm = new ncclComm();
    comm->clique = c;
    comm->rank = rank;
    comm->device = device;
    comm->destroyed = false;
    c->rank[rank] = comm;
    c->owner[rank] = owner;
    c->joined++;
    S().comms.insert(comm);
    return comm;
}

static const char ID_MAGIC[] = "cudaemu NCCL unique id";

/* Every rank has joined: the communicator is formed, unless two ranks share
 * a device (NCCL refuses that too). */
static void form(clique *c)
{
    S().forming.erase(c->id);
    for (int a = 0; a < c->nranks; a++)
        for (int b = a + 1; b < c->nranks; b++)
            if (c->rank[a]->device == c->rank[b]->device) {
                std::string why = strf("ncclCommInitRank: ranks %d and %d are both on device %d; a communicator "
                                       "has one rank per device (cudaSetDevice before ncclCommInitRank)",
                                       a, b, c->rank[a]->device);
                for (call_ptr &j : c->joins)
                    finish(*j, ncclInvalidUsage, why);
                c->joins.clear();
                c->failed = why;
                S().changed.notify_all();
                return;
            }
    c->formed = true;
    for (call_ptr &j : c->joins)
        finish(*j, ncclSuccess, "");
    c->joins.clear();
    c->last_change = clock_type::now();
    S().changed.notify_all();
}

} // namespace nccl_emu
} // namespace cudaemu

using namespace cudaemu::nccl_emu;

/* ---- the API ---- */
extern "C" {

ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return fail(ncclInvalidArgument, "ncclGetVersion with a NULL address");
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result)
{
    host_thread *me = this_thread();
    const char *text = result_text(result);
    if (result == ncclSuccess || result != me->last_result || me->last_message.empty())
        return text;
    me->text = std::string(text) + " (" + me->last_message + ")";
    return me->text.c_str();
}

const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm; /* NCCL keeps it per thread too */
    return this_thread()->last_message.c_str();
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    ncclResult_t r = check_comm("ncclCommGetAsyncError", comm);
    if (r != ncclSuccess)
        return r;
    if (!asyncError)
        return fail(ncclInvalidArgument, "ncclCommGetAsyncError with a NULL address for the error");
    *asyncError = ncclSuccess; /* every call has finished by the time it returns */
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    if (!uniqueId)
        return fail(ncclInvalidArgument, "ncclGetUniqueId with a NULL address");
    memset(uniqueId, 0, sizeof *uniqueId);
    unsigned long long serial;
    {
        std::lock_guard<std::mutex> held(S().lock);
        serial = ++S().next_id;
    }
    snprintf(uniqueId->internal, sizeof uniqueId->internal, "%s %ld %llu", ID_MAGIC, (long)getpid(), serial);
    return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
    const char *api = "ncclCommInitAll";
    if (!comm)
        return fail(ncclInvalidArgument, "%s with a NULL address for the communicators", api);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess)
        return fail(ncclUnhandledCudaError, "%s: cudaGetDeviceCount failed", api);
    if (ndev < 1 || ndev > devices)
        return fail(ncclInvalidArgument, "%s for %d devices: there are %d (CUDAEMU_DEVICES sets how many the cpu "
                    "backend emulates)", api, ndev, devices);
    std::vector<int> device(ndev);
    for (int i = 0; i < ndev; i++) {
        device[i] = devlist ? devlist[i] : i;
        if (device[i] < 0 || device[i] >= devices)
            return fail(ncclInvalidArgument, "%s: devlist[%d] is %d, not a device (0 to %d)", api, i, device[i],
                        devices - 1);
        for (int j = 0; j < i; j++)
            if (device[j] == device[i])
                return fail(ncclInvalidUsage, "%s: device %d is in devlist twice (%d and %d); a communicator has "
                            "one rank per device", api, device[i], j, i);
    }
    host_thread *me = this_thread();
    std::lock_guard<std::mutex> held(S().lock);
    clique *c = new_clique(ndev);
    for (int i = 0; i < ndev; i++)
        comm[i] = new_comm(c, i, device[i], me);
    c->formed = true;
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    const char *api = "ncclCommInitRank";
    if (!comm)
        return fail(ncclInvalidArgument, "%s with a NULL address for the communicator", api);
    if (nranks < 1)
        return refused(fail(ncclInvalidArgument, "%s with nranks %d", api, nranks));
    if (rank < 0 || rank >= nranks)
        return refused(fail(ncclInvalidArgument, "%s: rank %d is not in 0 to %d (nranks %d)", api, rank,
                            nranks - 1, nranks));
    char expected[NCCL_UNIQUE_ID_BYTES];
    snprintf(expected, sizeof expected, "%s %ld ", ID_MAGIC, (long)getpid());
    if (strncmp(commId.internal, expected, strlen(expected)) != 0)
        return refused(fail(ncclInvalidArgument, "%s: the unique id does not come from ncclGetUniqueId in this "
                            "program (on the cpu backend, every rank is a thread of one program)", api));
    int device = 0;
    cudaGetDevice(&device);
    host_thread *me = this_thread();
    std::string id(commId.internal, strnlen(commId.internal, sizeof commId.internal));
    std::unique_lock<std::mutex> held(S().lock);
    clique *c;
    auto it = S().forming.find(id);
    if (it == S().forming.end()) {
        c = new_clique(nranks);
        c->id = id;
        S().forming[id] = c;
    } else {
        c = it->second;
    }
    if (c->nranks != nranks)
        return refused(fail(ncclInvalidArgument, "%s for rank %d with nranks %d, but an earlier rank of this unique "
                            "id gave nranks %d", api, rank, nranks, c->nranks));
    if (c->rank[rank])
        return refused(fail(ncclInvalidArgument, "%s: rank %d of this unique id has joined already", api, rank));
    *comm = new_comm(c, rank, device, me);
    call_ptr join = std::make_shared<call>();
    join->kind = JOIN;
    join->api = api;
    join->comm = *comm;
    join->poster = me;
    join->in_group = me->group_depth > 0;
    join->done = false;
    join->result = ncclSuccess;
    c->joins.push_back(join);
    c->last_change = clock_type::now();
    S().posts++;
    if (c->joined == nranks)
        form(c);
    if (join->in_group) {
        me->collected.push_back(join);
        return ncclSuccess;
    }
    return wait_for({join}, held);
}

static ncclResult_t destroy(const char *api, ncclComm_t comm)
{
    if (!comm)
        return ncclSuccess;
    ncclResult_t r = check_comm(api, comm);
    if (r != ncclSuccess)
        return r;
    std::lock_guard<std::mutex> held(S().lock);
    comm->destroyed = true;
    S().changed.notify_all(); /* a rank waiting for this one may now see a hang */
    return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) { return destroy("ncclCommDestroy", comm); }
ncclResult_t ncclCommAbort(ncclComm_t comm) { return destroy("ncclCommAbort", comm); }
ncclResult_t ncclCommFinalize(ncclComm_t comm) { return check_comm("ncclCommFinalize", comm); }

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    ncclResult_t r = check_comm("ncclCommCount", comm);
    if (r != ncclSuccess)
        return r;
    if (!count)
        return fail(ncclInvalidArgument, "ncclCommCount with a NULL address for the count");
    *count = nranks_of(comm);
    return ncclSuccess;
}
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    ncclResult_t r = check_comm("ncclCommCuDevice", comm);
    if (r != ncclSuccess)
        return r;
    if (!device)
        return fail(ncclInvalidArgument, "ncclCommCuDevice with a NULL address for the device");
    *device = comm->device;
    return ncclSuccess;
}
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    ncclResult_t r = check_comm("ncclCommUserRank", comm);
    if (r != ncclSuccess)
        return r;
    if (!rank)
        return fail(ncclInvalidArgument, "ncclCommUserRank with a NULL address for the rank");
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    (void)stream; /* the work runs now, as everything on this backend */
    return collective(ALL_REDUCE, "ncclAllReduce", sendbuff, recvbuff, count, datatype, &op, 0, comm);
}
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    return collective(REDUCE, "ncclReduce", sendbuff, recvbuff, count, datatype, &op, root, comm);
}
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    return collective(BROADCAST, "ncclBroadcast", sendbuff, recvbuff, count, datatype, nullptr, root, comm);
}
ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream)
{
    (void)stream;
    return collective(BROADCAST, "ncclBcast", buff, buff, count, datatype, nullptr, root, comm);
}
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    return collective(ALL_GATHER, "ncclAllGather", sendbuff, recvbuff, sendcount, datatype, nullptr, 0, comm);
}
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    return collective(REDUCE_SCATTER, "ncclReduceScatter", sendbuff, recvbuff, recvcount, datatype, &op, 0, comm);
}
ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    (void)stream;
    return collective(SEND, "ncclSend", sendbuff, nullptr, count, datatype, nullptr, peer, comm);
}
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    (void)stream;
    return collective(RECV, "ncclRecv", nullptr, recvbuff, count, datatype, nullptr, peer, comm);
}

ncclResult_t ncclGroupStart(void)
{
    host_thread *me = this_thread();
    if (me->group_depth++ == 0)
        me->group_error = ncclSuccess;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    host_thread *me = this_thread();
    if (me->group_depth == 0)
        return fail(ncclInvalidUsage, "ncclGroupEnd without an ncclGroupStart before it");
    if (--me->group_depth > 0)
        return ncclSuccess;
    std::vector<call_ptr> calls;
    calls.swap(me->collected);
    std::unique_lock<std::mutex> held(S().lock);
    if (me->group_error != ncclSuccess) {
        /* as NCCL: a call of the group failed, so none of it runs; the
         * message is that call's */
        ncclResult_t r = me->group_error;
        for (const call_ptr &k : calls)
            if (k->kind == JOIN && !k->done)
                finish(*k, r, me->last_message); /* (its communicator stays unformed) */
        me->group_error = ncclSuccess;
        return r;
    }
    std::set<clique *> touched;
    for (const call_ptr &k : calls)
        if (k->kind != JOIN) {
            post(k);
            touched.insert(k->comm->clique);
        }
    for (clique *c : touched)
        progress(c);
    return wait_for(calls, held);
}

} // extern "C"
