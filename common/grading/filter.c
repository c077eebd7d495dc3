/* filter.c: see filter.h.  The programs are classic BPF, built here one
 * rule at a time: each rule loads what it tests, so rules stay independent
 * and their jumps short.  A rule that does not match falls through to the
 * next; the last instruction allows the call. */
#include "filter.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__linux__)

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define MAX_INSTRUCTIONS 512
#define X32_SYSCALL_BIT 0x40000000u
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define NO_SUCH_CALL (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
/* The namespaces a clone() may not ask for (unshare and setns are denied whole). */
#define NEW_NAMESPACES (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER \
                        | CLONE_NEWPID | CLONE_NEWNET)

typedef struct {
    struct sock_filter code[MAX_INSTRUCTIONS];
    unsigned short length;
    int overflow;
} program;

static void emit(program *p, struct sock_filter instruction)
{
    if (p->length >= MAX_INSTRUCTIONS) {
        p->overflow = 1;
        return;
    }
    p->code[p->length++] = instruction;
}

static void load_number(program *p) { emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))); }

/* The low 32 bits of argument `i` (x86_64 is little-endian).  Every argument
 * tested here is an int or flags the kernel reads as 32 bits, so the high
 * half does not matter to the kernel and must not matter here either. */
static void load_argument(program *p, int i)
{
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i])));
}

static void jump_equal(program *p, uint32_t value, uint8_t if_equal, uint8_t if_not)
{
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, if_equal, if_not));
}

static void jump_any_bit(program *p, uint32_t bits, uint8_t if_set, uint8_t if_clear)
{
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, if_set, if_clear));
}

static void give(program *p, uint32_t action) { emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action)); }

/* The start of every program: the call must come through x86_64's own
 * table.  Another architecture's numbers mean other calls (int 0x80 reaches
 * the 32-bit table, where 11 is execve), so such a call kills the process
 * rather than being judged by the wrong list. */
static void require_native_calls(program *p)
{
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    jump_equal(p, AUDIT_ARCH_X86_64, 1, 0);
    give(p, SECCOMP_RET_KILL_PROCESS);
    load_number(p);
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1));
    give(p, SECCOMP_RET_KILL_PROCESS);
}

/* Call `nr` answers `action`, whatever its arguments. */
static void answer(program *p, int nr, uint32_t action)
{
    load_number(p);
    jump_equal(p, (uint32_t)nr, 0, 1);
    give(p, action);
}
static void deny(program *p, int nr) { answer(p, nr, DENY); }

/* Call `nr` is denied when argument `arg` has any of `bits`, and, where
 * `also_arg` >= 0, argument `also_arg` has any of `also_bits` too. */
static void deny_with_bits(program *p, int nr, int arg, uint32_t bits, int also_arg, uint32_t also_bits)
{
    int two = also_arg >= 0;
    load_number(p);
    jump_equal(p, (uint32_t)nr, 0, two ? 5 : 3);
    load_argument(p, arg);
    jump_any_bit(p, bits, 0, two ? 3 : 1);
    if (two) {
        load_argument(p, also_arg);
        jump_any_bit(p, also_bits, 0, 1);
    }
    give(p, DENY);
}

/* Call `nr` is allowed only where argument `arg` is one of `values`. */
static void allow_only_values(program *p, int nr, int arg, const uint32_t *values, int count)
{
    load_number(p);
    jump_equal(p, (uint32_t)nr, 0, (uint8_t)(count + 3));
    load_argument(p, arg);
    for (int i = 0; i < count; i++)
        jump_equal(p, values[i], (uint8_t)(count - i), 0); /* to the allow below */
    give(p, DENY);
    give(p, SECCOMP_RET_ALLOW);
}

/* Call `nr` is denied where argument `arg` equals `value`. */
static void deny_value_not(program *p, int nr, int arg, uint32_t allowed)
{
    load_number(p);
    jump_equal(p, (uint32_t)nr, 0, 3);
    load_argument(p, arg);
    jump_equal(p, allowed, 1, 0);
    give(p, DENY);
}

/* Call `nr` is denied where its pointer argument `arg` is not NULL (both
 * halves of the 64 bits: an address may have a low half of zero). */
static void deny_with_pointer(program *p, int nr, int arg)
{
    load_number(p);
    jump_equal(p, (uint32_t)nr, 0, 5);
    load_argument(p, arg);
    jump_equal(p, 0, 0, 2); /* low half set: denied */
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[arg]) + 4));
    jump_equal(p, 0, 1, 0);
    give(p, DENY);
}

static int install(program *p)
{
    give(p, SECCOMP_RET_ALLOW);
    if (p->overflow) {
        errno = E2BIG;
        return -1;
    }
    struct sock_fprog prog = {p->length, p->code};
    /* no new privileges: required of an unprivileged process, and wanted anyway */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    /* every thread at once: CUDA's driver and the cpu backend's pool have
     * started threads by the serve stage */
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0 ? 0 : -1;
}

/* The socket families of a network of its own: unix (CUDA's driver), IPv4
 * and IPv6 on the loopback, and netlink, through which the C library lists
 * the interfaces (getifaddrs: NCCL looks for one to bootstrap on). */
#define OWN_NETWORK_FAMILIES 4
static const uint32_t own_network_families[OWN_NETWORK_FAMILIES] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};

int filter_enter_load_stage(int own_network)
{
    static program p; /* 4 KiB: off the stack */
    p.length = 0;
    require_native_calls(&p);

    /* no other program: the runner is the only one this process runs */
    deny(&p, SYS_execve);
    deny(&p, SYS_execveat);
    /* code from bytes: anonymous memory made executable, or a file with no
     * name on any disk to hold it */
    deny(&p, SYS_memfd_create);
    deny_with_bits(&p, SYS_mmap, 2, PROT_EXEC, 3, MAP_ANONYMOUS);
    deny_with_bits(&p, SYS_mprotect, 2, PROT_EXEC, -1, 0);
    deny_with_bits(&p, SYS_pkey_mprotect, 2, PROT_EXEC, -1, 0);

    if (own_network) {
        /* a network of its own with nothing in it but its loopback
         * (filter.h): sockets reach only this process */
        allow_only_values(&p, SYS_socket, 0, own_network_families, OWN_NETWORK_FAMILIES);
        deny_value_not(&p, SYS_socketpair, 0, AF_UNIX);
    } else {
        /* no network: unix sockets only (a GPU's driver uses them locally);
         * the namespaces, where present, keep even those inside */
        deny_value_not(&p, SYS_socket, 0, AF_UNIX);
        deny_value_not(&p, SYS_socketpair, 0, AF_UNIX);
        /* and those reach no other process: no connection (to a socket named
         * in a shared folder or in the abstract namespace, where there are no
         * namespaces), no datagram sent to an address.  CUDA's driver makes
         * and binds a socket of its own as it starts, but connects nowhere
         * (seen on an H100); "connection refused", as where nothing listens. */
        answer(&p, SYS_connect, SECCOMP_RET_ERRNO | (ECONNREFUSED & SECCOMP_RET_DATA));
        deny_with_pointer(&p, SYS_sendto, 4);
    }

    /* SysV IPC outlives the process and reaches every process of the user */
    static const int ipc[] = {SYS_shmget, SYS_shmat, SYS_shmctl, SYS_shmdt, SYS_msgget, SYS_msgsnd,
                              SYS_msgrcv, SYS_msgctl, SYS_semget, SYS_semop, SYS_semtimedop, SYS_semctl};
    for (size_t i = 0; i < sizeof ipc / sizeof ipc[0]; i++)
        deny(&p, ipc[i]);

    /* other processes: no tracing, reading or writing their memory, taking
     * their descriptors */
    static const int others[] = {SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_pidfd_getfd,
                                 SYS_pidfd_send_signal, SYS_kcmp};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        deny(&p, others[i]);

    /* signals only to itself (pid or 0) and to its own process group: never
     * the grader, the other side's runner or another student's grader */
    uint32_t me = (uint32_t)getpid(), group = (uint32_t)-getpgrp();
    uint32_t kill_targets[] = {me, 0, group};
    allow_only_values(&p, SYS_kill, 0, kill_targets, 3);
    allow_only_values(&p, SYS_tgkill, 0, &me, 1);
    allow_only_values(&p, SYS_tkill, 0, &me, 1);
    allow_only_values(&p, SYS_rt_sigqueueinfo, 0, &me, 1);
    allow_only_values(&p, SYS_rt_tgsigqueueinfo, 0, &me, 1);

    /* the kernel's larger surfaces, none of which a lab needs */
    static const int kernel[] = {SYS_keyctl, SYS_add_key, SYS_request_key, SYS_personality, SYS_mount,
                                 SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns, SYS_bpf,
                                 SYS_perf_event_open, SYS_userfaultfd, SYS_io_uring_setup, SYS_io_uring_enter,
                                 SYS_io_uring_register, SYS_open_by_handle_at, SYS_fanotify_init,
                                 SYS_init_module, SYS_finit_module, SYS_kexec_load, SYS_swapon, SYS_syslog};
    for (size_t i = 0; i < sizeof kernel / sizeof kernel[0]; i++)
        deny(&p, kernel[i]);
    deny_with_bits(&p, SYS_clone, 0, NEW_NAMESPACES, -1, 0);
    /* clone3's flags are in memory a filter cannot read: "no such call", so
     * that the C library falls back to clone, whose flags it can */
    answer(&p, SYS_clone3, NO_SUCH_CALL);
    return install(&p);
}

int filter_enter_serve_stage(int own_network)
{
    static program p;
    p.length = 0;
    require_native_calls(&p);
    /* no executable mapping of anything from here on: not a file the
     * submission wrote, not a library */
    deny_with_bits(&p, SYS_mmap, 2, PROT_EXEC, -1, 0);
    deny_with_bits(&p, SYS_mprotect, 2, PROT_EXEC, -1, 0);
    deny_with_bits(&p, SYS_pkey_mprotect, 2, PROT_EXEC, -1, 0);
    deny_with_bits(&p, SYS_remap_file_pages, 2, PROT_EXEC, -1, 0);
    /* no new connection either: a GPU's driver has made its own while
     * starting; the runner's channel is pipes.  (Where there is no network
     * namespace, a unix socket named in a shared folder is the one way out
     * a constructor still has before this stage.)  In a network of its own
     * the load stage's rule on families holds: NCCL connects its devices
     * through the loopback as the student's code calls it. */
    if (!own_network) {
        static const int sockets[] = {SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept,
                                      SYS_accept4};
        for (size_t i = 0; i < sizeof sockets / sizeof sockets[0]; i++)
            deny(&p, sockets[i]);
    }
    return install(&p);
}

int filter_supported(void)
{
    /* the kit's tests stand in for a kernel without seccomp filters with
     * CUDALABS_NO_SECCOMP=1, which the grader passes on to its runners */
    const char *off = getenv("CUDALABS_NO_SECCOMP");
    if (off && *off && strcmp(off, "0") != 0)
        return 0;
    uint32_t action = SECCOMP_RET_ERRNO;
    return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

#else /* not x86_64: the filters name x86_64's calls, so there are none */

int filter_enter_load_stage(int own_network)
{
    (void)own_network;
    errno = ENOSYS;
    return -1;
}
int filter_enter_serve_stage(int own_network)
{
    (void)own_network;
    errno = ENOSYS;
    return -1;
}
int filter_supported(void) { return 0; }

#endif
