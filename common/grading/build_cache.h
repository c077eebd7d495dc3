/* build_cache.h: a submission's finished build, kept by a hash of all it was
 * made from, so that the same files graded again (each platform package, each
 * host the kit's tests stand in for, a class where many hand in the skeleton)
 * are compiled once.
 *
 * Only where CUDALABS_BUILD_CACHE names a folder (the kit's own tests set it;
 * a course may), and only for a build walled in by namespaces and Landlock:
 * there it reads nothing but its scratch folder and the system's compilers, so
 * its outputs follow from the key.  A failed build is never kept: its log is
 * the student's feedback, and a build stopped by a limit is rebuilt each time.
 * Besides builds it keeps, empty, that nvcc's front check passed on a
 * submission's files (build.c, front_check_key): build_cache_store with no
 * paths, build_cache_fetch with none says whether it was kept.  Root keeps
 * these in a folder of its own that every user reads (a verdict root's
 * grader reached holds for any user's grade of the same files); a user
 * trusts no other's. */
#ifndef BUILD_CACHE_H
#define BUILD_CACHE_H

/* The key of the build about to run in `scratch` (a copy of the kit's files
 * at their kit paths, beside the submission's folder `submission`), or NULL
 * where there is no cache or the build is not walled in enough.  `facts`:
 * NULL-terminated texts that also decide the outputs (make's arguments, the
 * limits). */
char *build_cache_key(const char *scratch, const char *submission, const char *const facts[]);

/* Puts the outputs kept under `key` at their `paths` (count of them; one
 * kept as absent is removed).  Returns 1 when the key was found. */
int build_cache_fetch(const char *key, const char *const paths[], int count);

/* Keeps the outputs at `paths` that exist, under `key`. */
void build_cache_store(const char *key, const char *const paths[], int count);

/* What decides which `name` a build with this PATH runs: the program found
 * first, by its real path and identity ("g++ = /usr/bin/g++-12 (...)"), or
 * "g++: none".  The PATH's text itself may differ between hosts and packages
 * that run the same compilers. */
char *build_cache_tool(const char *name, const char *path);

#endif /* BUILD_CACHE_H */
