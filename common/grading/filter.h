/* filter.h: the runner's seccomp filters, the wall that holds where
 * Landlock, namespaces or a separate user are missing.
 *
 * Two stages, each a small classic-BPF program (no library: platform
 * images cannot install one).  Filters stack, so the second only adds.
 *
 *   load stage, before the student's object is loaded: no new programs
 *     (execve), no anonymous executable memory, no memfd, no sockets but
 *     unix ones, and those connect nowhere and send to no address (a
 *     datagram by sendmsg() still may: its address is out of a filter's
 *     reach), no SysV IPC, no tracing or reading other processes, no
 *     signals outside the runner's own process and group, no namespaces,
 *     mounts, keys, BPF, perf, userfaultfd or io_uring;
 *   serve stage, once the object is loaded and the device started: no new
 *     executable mapping at all, so code the submission carries as bytes
 *     (a reference's object, say) can never run; no new socket or
 *     connection.
 *
 * Denied calls fail with EPERM; a call made through another architecture's
 * system call table (32-bit int 0x80, x32) kills the process. */
#ifndef FILTER_H
#define FILTER_H

/* Each returns 0 once the filter is in force, -1 (errno set) otherwise.
 * `own_network`: the runner is in a network namespace of its own whose one
 * interface is its loopback (a lab that asked for it: grade_use_loopback,
 * and the runner saw it so), where sockets reach nothing outside the
 * process: then sockets of the unix, IP and netlink families may be made,
 * bound, connected and accepted in both stages (NCCL starts through its
 * loopback even between the devices of one process).  0: no sockets but
 * unix ones, and those connect nowhere. */
int filter_enter_load_stage(int own_network);
int filter_enter_serve_stage(int own_network);

/* Whether this build has filters at all (x86_64 only) and this kernel takes
 * them: 1 or 0.  CUDALABS_NO_SECCOMP=1 in the environment stands in for a
 * kernel without them (0), for the kit's tests of a weaker host. */
int filter_supported(void);

#endif /* FILTER_H */
