/* sandbox.h: what a runner may touch, where the kernel can enforce it.
 *
 * With Landlock (Linux 5.13 and later, no privilege needed) a contained
 * program can read the system's libraries and devices, its own program and
 * shared object, and read and write its scratch folder; nothing else of the
 * file system (the kit, solutions/, the references, results files), no TCP,
 * and on Linux 6.12 and later no signals to processes outside its sandbox.
 * Where Landlock is missing, contain.c's other walls stand alone. */
#ifndef SANDBOX_H
#define SANDBOX_H

/* In the child, just before exec.  `readable`: NULL-terminated files and
 * folders it may read (and execute) besides the system's; `writable`: the
 * folders it may also write; `listable`: folders whose listings (names only,
 * at every depth) it may read, as make reads its working directory's.
 * `own_network`: the process is in a network namespace of its own whose one
 * interface is its loopback (grade_use_loopback): TCP's bind and connect
 * are left to that namespace's walls (NCCL listens and connects there);
 * 0: Landlock refuses both wherever the kernel can.
 * Returns the Landlock ABI version in force, or 0 where the kernel has none. */
int sandbox_enter(const char *const readable[], const char *const writable[], const char *const listable[],
                  int own_network);

/* Whether folder `dir` (absolute; a relative one counts as overlapping)
 * holds `kit` or lies inside it. */
int sandbox_overlaps(const char *dir, const char *kit);

/* The Landlock ABI version this kernel offers (0: none, or
 * CUDALABS_NO_LANDLOCK=1 in the environment, which stands in for a kernel
 * without it). */
int sandbox_abi(void);

#endif /* SANDBOX_H */
