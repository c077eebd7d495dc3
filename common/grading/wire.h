/* wire.h: the messages between the grader and a runner.
 *
 * A message is a tag, a length and that many bytes.  The grader sends
 * requests (a call, a harness setting, "send your records"); the runner
 * answers each with one reply.  Everything a reply holds is read with
 * bounds: a runner's bytes are untrusted, and a reply that does not parse
 * is a broken channel, never a crash of the grader.
 *
 * Used by both programs: the grader (trusted) and the runner (which hosts
 * student code). */
#ifndef WIRE_H
#define WIRE_H

#include <stddef.h>
#include <stdint.h>

enum wire_tag {
    /* requests */
    WIRE_CALL = 1,       /* flags (1: reset the records first), the entry point name, its arguments as its description says; answered by the result, then the records */
    WIRE_RESET,          /* forget launches, snapshots, copies and timed time */
    WIRE_SNAPSHOTS,      /* u32 on */
    WIRE_TIMING,         /* u32 on */
    WIRE_SCHEDULE,       /* string: "fwd", "rev", "rand:SEED" (cpu backend) */
    WIRE_RECORDS,        /* reply: the harness's records */
    WIRE_DEVICE,         /* reply: the device's name, whether it is a GPU */
    WIRE_SYNC,           /* u64 token: settings and records back to a new runner's; answered by WIRE_SYNCED
                          * with the token, after every earlier request's answer (a runner kept from item to item) */
    WIRE_SPOIL,          /* u32 kind, u32 at: kit_spoil() (kit_internal.h, the grader's tests) */
    WIRE_LOAD,           /* the first request (seq 0): string lab folder, string shared object ("" for a runner
                          * with its code built in); answered by "ready" (runner.c says why not argv) */
    /* replies */
    WIRE_OK = 100,       /* a call returned: its return value, outputs, what it printed */
    WIRE_MISSING,        /* string: the entry point is not defined */
    WIRE_ERROR,          /* string: the harness stopped the code (a failed CHECK, kit_fail) */
    WIRE_BAD_REQUEST,    /* string: the grader asked for something the runner cannot do */
    WIRE_SYNCED          /* u64: the token of the WIRE_SYNC answered */
};

#define WIRE_MESSAGE_MAX ((size_t)1 << 31) /* 2 GiB: larger than any array a lab grades */
/* The most the grader reads of one reply holding the harness's records
 * (launches, snapshots with their data, copies): the labs' largest is a few
 * MB; more is a flood, and the grader's memory stays bounded by this. */
#define WIRE_RECORDS_MAX ((size_t)64 << 20)

/* The exit status of a runner that the cpu backend's alignment check
 * stopped (common/cpu/cpu.mk): the runner asks for it, the grader names it. */
#define WIRE_EXIT_MISALIGNED 86

/* Every request carries a sequence number of the grader's choosing, and
 * every reply the number of the request it answers (the runner's "ready",
 * answering none, carries 0): a reply is taken as the answer to a call only
 * when it carries that call's number, so bytes that something in the
 * runner's process wrote into the channel early are told from the answer.
 * It travels in the header's first word, above the tag. */
typedef struct {
    uint32_t tag;
    uint32_t seq;     /* the request's number; in a reply, the number of the request answered */
    unsigned char *data;
    size_t size;      /* bytes in data */
    size_t at;        /* read position */
    int bad;          /* a read went past the end: the message does not parse */
} wire_msg;

/* Building a message (its seq is 0 until set). */
void wire_begin(wire_msg *m, uint32_t tag);
void wire_put(wire_msg *m, const void *bytes, size_t size);
void wire_put_u32(wire_msg *m, uint32_t x);
void wire_put_u64(wire_msg *m, uint64_t x);
void wire_put_f64(wire_msg *m, double x);
void wire_put_str(wire_msg *m, const char *s); /* NULL is sent as "" */
/* A byte block with its length; NULL is sent as "absent" (length all ones). */
void wire_put_block(wire_msg *m, const void *bytes, size_t size);
void wire_free(wire_msg *m);

/* Reading one: each getter returns zero bytes and sets m->bad past the end. */
uint32_t wire_get_u32(wire_msg *m);
uint64_t wire_get_u64(wire_msg *m);
double wire_get_f64(wire_msg *m);
int wire_get(wire_msg *m, void *out, size_t size);
/* A string of at most `max` bytes, in a new allocation (free it); "" when bad. */
char *wire_get_str(wire_msg *m, size_t max);
/* A block: *present is 0 for an absent one; returns a pointer into the message. */
const void *wire_get_block(wire_msg *m, size_t *size, int *present);

/* Sending and receiving whole messages.  wire_send returns 0 or -1.
 * wire_receive waits until `deadline` (seconds of CLOCK_MONOTONIC; 0 waits
 * for ever) and returns 0, or -1 with `why` set: "closed", "timeout",
 * "too large", "read error".  A message longer than `max_size` is refused
 * from its header, before any of it is read or memory taken for it. */
int wire_send(int fd, const wire_msg *m);
/* Writes all `size` bytes (again after a signal); 0 or -1. */
int wire_write_all(int fd, const void *bytes, size_t size);
int wire_receive(int fd, wire_msg *m, double deadline, const char **why, size_t max_size);

double wire_now(void);

#endif /* WIRE_H */
