/* build_cache.c: see build_cache.h. */
#include "build_cache.h"
#include "grader.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cache of this user: a folder of its own in CUDALABS_BUILD_CACHE, so
 * that no user reads or fills another's. */
static char *cache_folder(void)
{
    const char *root = getenv("CUDALABS_BUILD_CACHE");
    if (!root || root[0] != '/')
        return NULL;
    mkdir(root, 0755);
    char *mine = str_printf("%s/uid-%ld", root, (long)geteuid());
    if (mkdir(mine, 0700) != 0 && errno != EEXIST) {
        free(mine);
        return NULL;
    }
    return mine;
}

/* The verdicts that root's graders keep (an entry with no outputs: nvcc's
 * front check passed, build.c), which every user may read: a folder of
 * root's own that only root writes.  NULL where there is none (or it is not
 * so: then no user trusts it). */
static char *verdicts_of_root(void)
{
    const char *root = getenv("CUDALABS_BUILD_CACHE");
    if (!root || root[0] != '/')
        return NULL;
    char *folder = str_printf("%s/verdicts-of-root", root);
    if (geteuid() == 0)
        mkdir(folder, 0755);
    struct stat st;
    if (lstat(folder, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
        free(folder);
        return NULL;
    }
    return folder;
}

static void add_number(sha256 *h, long long value) { sha256_add(h, &value, sizeof value); }

static void add_content(sha256 *h, int fd)
{
    char buffer[1 << 16];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0)
        sha256_add(h, buffer, (size_t)n);
    add_number(h, n); /* a read error changes the key */
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The SHA-256 of the kit file `rel` (whose lstat is `kit`), kept per file
 * identity (device, inode, size, times of change) in the cache folder: a
 * kit's big objects are read once, not at every grade, and every copy of
 * the kit with the same bytes (a package's, the tests' kits of other users)
 * gives the same key.  0, or -1 where it cannot say. */
static int kit_file_digest(const char *rel, const struct stat *kit, char hex[65])
{
    char *folder = cache_folder();
    if (!folder)
        return -1;
    char *memos = str_printf("%s/files", folder);
    mkdir(memos, 0700);
    char *memo = str_printf("%s/%llx-%llx-%llx-%lld.%09ld-%lld.%09ld", memos, (unsigned long long)kit->st_dev,
                            (unsigned long long)kit->st_ino, (unsigned long long)kit->st_size,
                            (long long)kit->st_mtim.tv_sec, kit->st_mtim.tv_nsec, (long long)kit->st_ctim.tv_sec,
                            kit->st_ctim.tv_nsec);
    int ok = -1, fd = open(memo, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ok = read(fd, hex, 64) == 64 ? 0 : -1;
        hex[64] = 0;
        close(fd);
    }
    struct stat now;
    fd = ok == 0 ? -1 : open(rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, &now) == 0 && same_file(&now, kit)) {
        sha256 h;
        sha256_begin(&h);
        add_content(&h, fd);
        sha256_end(&h, hex);
        ok = 0;
        char *fresh = str_printf("%s.new-XXXXXX", memo);
        int out = mkstemp(fresh);
        if (out >= 0 && write(out, hex, 64) == 64 && close(out) == 0)
            rename(fresh, memo); /* whole or not at all */
        else if (out >= 0)
            close(out);
        unlink(fresh);
        free(fresh);
    }
    if (fd >= 0)
        close(fd);
    free(memo);
    free(memos);
    free(folder);
    return ok;
}

/* A file of the scratch folder: the submission's by its bytes; a copy of a
 * kit file by the bytes of the kit's file (it was copied from it just
 * before), known from its identity after the first time, else by that
 * identity. */
static void add_file(sha256 *h, int dir, const char *name, const char *rel, int from_submission, const struct stat *st)
{
    struct stat kit;
    char digest[65];
    if (!from_submission && lstat(rel, &kit) == 0 && S_ISREG(kit.st_mode) && kit.st_size == st->st_size &&
        kit_file_digest(rel, &kit, digest) == 0) {
        sha256_add_text(h, "kit file's bytes");
        sha256_add_text(h, digest);
        return;
    }
    if (!from_submission && lstat(rel, &kit) == 0 && S_ISREG(kit.st_mode) && kit.st_size == st->st_size) {
        sha256_add_text(h, "kit file");
        add_number(h, (long long)kit.st_dev);
        add_number(h, (long long)kit.st_ino);
        add_number(h, (long long)kit.st_size);
        add_number(h, (long long)kit.st_mtim.tv_sec);
        add_number(h, (long long)kit.st_mtim.tv_nsec);
        return;
    }
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    sha256_add_text(h, "file");
    add_number(h, (long long)st->st_size);
    if (fd >= 0) {
        add_content(h, fd);
        close(fd);
    } else {
        add_number(h, -1);
    }
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folder `dir` (at `rel` in the scratch folder), in name order, every
 * depth; the submission's folder is named the same in every grade. */
static void add_folder(sha256 *h, int dir, const char *rel, const char *submission, int depth)
{
    DIR *listing = fdopendir(dir);
    if (!listing || depth > 32) {
        sha256_add_text(h, "unreadable");
        if (listing)
            closedir(listing);
        else
            close(dir);
        return;
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(listing));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        names = realloc(names, (count + 1) * sizeof *names);
        names[count++] = str_dup(e->d_name);
    }
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        int top_submission = depth == 0 && strcmp(names[i], submission) == 0;
        int from_submission = top_submission || strncmp(rel, "submission/", 11) == 0 || strcmp(rel, "submission") == 0;
        char *child_rel = *rel ? str_printf("%s/%s", rel, names[i]) : str_dup(top_submission ? "submission" : names[i]);
        struct stat st;
        sha256_add_text(h, child_rel);
        if (fstatat(dirfd(listing), names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
            sha256_add_text(h, "gone");
        } else if (S_ISDIR(st.st_mode)) {
            int child = openat(dirfd(listing), names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            sha256_add_text(h, "folder");
            if (child >= 0)
                add_folder(h, child, child_rel, submission, depth + 1);
        } else if (S_ISREG(st.st_mode)) {
            add_file(h, dirfd(listing), names[i], child_rel, from_submission, &st);
        } else {
            char target[4096] = "";
            ssize_t n = S_ISLNK(st.st_mode) ? readlinkat(dirfd(listing), names[i], target, sizeof target - 1) : -1;
            target[n > 0 ? n : 0] = 0;
            sha256_add_text(h, "other");
            add_number(h, (long long)(st.st_mode & S_IFMT));
            sha256_add_text(h, target);
        }
        free(child_rel);
        free(names[i]);
    }
    free(names);
    closedir(listing);
}

char *build_cache_key(const char *scratch, const char *submission, const char *const facts[])
{
    char *folder = cache_folder();
    if (!folder)
        return NULL;
    free(folder);
    int dir = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return NULL;
    sha256 h;
    sha256_begin(&h);
    sha256_add_text(&h, "cudalabs build 1");
    for (int i = 0; facts[i]; i++)
        sha256_add_text(&h, facts[i]);
    add_folder(&h, dir, "", submission, 0);
    char hex[65];
    sha256_end(&h, hex);
    return str_dup(hex);
}

/* Copies the open file `in` to `to` (made anew, mode 0755). */
static int copy_to(int in, const char *to)
{
    unlink(to);
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    if (out < 0)
        return -1;
    char buffer[1 << 16];
    ssize_t n;
    int ok = 1;
    while (ok && (n = read(in, buffer, sizeof buffer)) > 0)
        ok = write(out, buffer, (size_t)n) == n;
    ok = ok && n == 0;
    ok = close(out) == 0 && ok;
    if (!ok)
        unlink(to);
    return ok ? 0 : -1;
}

/* A verdict (an entry with no outputs) kept under `key` in `folder`: kept
 * by that folder's owner, whom this user trusts (itself, or root). */
static int verdict_in(char *folder, const char *key)
{
    if (!folder)
        return 0;
    char *entry = str_printf("%s/%s", folder, key);
    struct stat st;
    int found = lstat(entry, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_uid == 0 || st.st_uid == geteuid());
    free(entry);
    free(folder);
    return found;
}

int build_cache_fetch(const char *key, const char *const paths[], int count)
{
    if (count == 0 && key) /* a verdict: this user's own, or root's (that every user reads) */
        return verdict_in(cache_folder(), key) || verdict_in(verdicts_of_root(), key);
    char *folder = cache_folder();
    if (!folder || !key)
        return 0;
    char *entry = str_printf("%s/%s", folder, key);
    int dir = open(entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), found = dir >= 0;
    for (int i = 0; found && i < count; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            unlink(paths[i]); /* it was absent when kept */
            continue;
        }
        found = copy_to(fd, paths[i]) == 0;
        close(fd);
    }
    if (dir >= 0)
        close(dir);
    free(entry);
    free(folder);
    return found;
}

void build_cache_store(const char *key, const char *const paths[], int count)
{
    /* (root's verdicts where every user reads them) */
    char *folder = count == 0 && geteuid() == 0 && verdicts_of_root() ? verdicts_of_root() : cache_folder();
    if (!folder || !key)
        return;
    char *entry = str_printf("%s/%s", folder, key), *fresh = str_printf("%s/.new-XXXXXX", folder);
    int ok = mkdtemp(fresh) != NULL;
    for (int i = 0; ok && i < count; i++) {
        int fd = open(paths[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue; /* kept as absent */
        char *copy = str_printf("%s/%d", fresh, i);
        ok = copy_to(fd, copy) == 0;
        close(fd);
        free(copy);
    }
    /* whole or not at all: another grade may keep the same key at once */
    if (!ok || rename(fresh, entry) != 0) {
        for (int i = 0; i < count; i++) {
            char *copy = str_printf("%s/%d", fresh, i);
            unlink(copy);
            free(copy);
        }
        rmdir(fresh);
    }
    free(entry);
    free(fresh);
    free(folder);
}

char *build_cache_tool(const char *name, const char *path)
{
    char *found = path_find(name, path ? path : "");
    char real[4096];
    struct stat st;
    char *fact = found && realpath(found, real) && stat(real, &st) == 0
                     ? str_printf("%s = %s (%llx %llx %lld %lld.%09ld)", name, real, (unsigned long long)st.st_dev,
                                  (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                                  st.st_mtim.tv_nsec)
                     : str_printf("%s: none", name);
    free(found);
    return fact;
}
