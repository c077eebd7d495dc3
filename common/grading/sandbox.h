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

/* In the child, just before exec.  `files`: NULL-terminated paths it may
 * read (and execute); `folder`: the one it may write.  Returns the Landlock
 * ABI version in force, or 0 where the kernel has none. */
int sandbox_enter(const char *const files[], const char *folder);

#endif /* SANDBOX_H */
