/* sandbox.c: see sandbox.h.  The constants are the kernel's (linux/landlock.h),
 * spelled out here because older system headers lack the newer ones. */
#include "sandbox.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CREATE_RULESET_VERSION (1U << 0)
#define RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_ABI1_ALL ((1ULL << 13) - 1)   /* execute ... make_sym */
#define FS_REFER (1ULL << 13)            /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)         /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15)        /* ABI 5 */
#define NET_BIND_TCP (1ULL << 0)         /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)  /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)

struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The system's parts a CUDA program reads: libraries, configuration,
 * devices, /proc and /sys.  Narrow on purpose: /usr/local/src or /opt may
 * hold a kit. */
static const char *const system_paths[] = {
    "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libexec", "/usr/share", "/usr/local/lib", "/usr/local/cuda",
    "/usr/local/nvidia", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys", "/dev", NULL};

int sandbox_overlaps(const char *dir, const char *kit)
{
    char real[4096];
    if (dir[0] != '/' || !realpath(dir, real))
        return 1;
    size_t a = strlen(real), b = strlen(kit), n = a < b ? a : b;
    return strncmp(real, kit, n) == 0 && (real[n] == 0 || real[n] == '/' || kit[n] == 0 || kit[n] == '/');
}

static int allow(int ruleset, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return 0; /* not on this machine: nothing to allow */
    struct path_beneath_attr rule = {access, fd};
    int ok = syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &rule, 0) == 0;
    if (!ok) /* a file (not a folder) takes file rights only */
        rule.allowed_access = access & (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV),
        ok = syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &rule, 0) == 0;
    close(fd);
    return ok;
}

int sandbox_abi(void)
{
    /* the kit's tests stand in for a kernel without Landlock (before 5.13, or
     * switched off) with CUDALABS_NO_LANDLOCK=1 */
    const char *off = getenv("CUDALABS_NO_LANDLOCK");
    if (off && *off && strcmp(off, "0") != 0)
        return 0;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

int sandbox_enter(const char *const readable[], const char *const writable[], const char *const listable[],
                  int own_network)
{
    long abi = sandbox_abi();
    if (abi < 1)
        return 0;
    uint64_t fs_all = FS_ABI1_ALL | (abi >= 2 ? FS_REFER : 0) | (abi >= 3 ? FS_TRUNCATE : 0)
                    | (abi >= 5 ? FS_IOCTL_DEV : 0);
    struct ruleset_attr attr = {fs_all, abi >= 4 && !own_network ? NET_BIND_TCP | NET_CONNECT_TCP : 0,
                                abi >= 6 ? SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL : 0};
    size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0)
        return 0;

    uint64_t read_only = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
    uint64_t devices = read_only | FS_WRITE_FILE | (abi >= 3 ? FS_TRUNCATE : 0) | (abi >= 5 ? FS_IOCTL_DEV : 0);
    for (int i = 0; system_paths[i]; i++)
        allow(ruleset, system_paths[i], strcmp(system_paths[i], "/dev") == 0 ? devices : read_only);
    allow(ruleset, "/dev/shm", fs_all & ~FS_REFER);
    /* CUDA's driver fails to start (cudaErrorOperatingSystem) unless it may
     * write files of its own threads; this process's own tasks only */
    allow(ruleset, "/proc/self/task", devices);
    /* driver libraries named by the environment (containers put them there) */
    const char *library_path = getenv("LD_LIBRARY_PATH");
    char here[4096];
    if (library_path && getcwd(here, sizeof here)) {
        char copy[4096];
        strncpy(copy, library_path, sizeof copy - 1);
        copy[sizeof copy - 1] = 0;
        for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
            if (!sandbox_overlaps(dir, here)) /* never the kit's own folders */
                allow(ruleset, dir, read_only);
    }
    for (int i = 0; readable && readable[i]; i++)
        allow(ruleset, readable[i], read_only);
    for (int i = 0; writable && writable[i]; i++)
        allow(ruleset, writable[i], fs_all & ~FS_REFER);
    for (int i = 0; listable && listable[i]; i++)
        allow(ruleset, listable[i], FS_READ_DIR);

    int ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
    close(ruleset);
    return ok ? (int)abi : 0;
}
