/* Carries the reference of lab 3 as make dist ships it (the test puts the
 * bytes of a stripped build/<backend>/lab3-folding/reference-runner here,
 * @REFERENCE_BYTES@) and tries to reuse its fold_sum: it reads the file's
 * dynamic symbol table for the lab's entry points, and, while the runner
 * still loads the submission, writes the file out (its working folder,
 * /tmp, /var/tmp, /dev/shm) and dlopen()s and dlsym()s it, and dlopen()s
 * the kit's own prebuilt/ and build/ copies through every process's
 * working folder.  A shipped reference gives it nothing: no entry point
 * among its dynamic symbols, nothing dlopen() loads.  Should any of it
 * find one, every answer is made wrong, so that the solution loses its
 * items and the test sees it.
 * Run with each wall missing too: where nothing hides the kit (an ordinary
 * user without Landlock or namespaces), the shipped file itself must give
 * nothing.
 * HIJACKS fold_sum */
// walls: yes (with each wall missing, the kit's reference runners are in reach: they must give nothing)
// costs: none
// lane: shared-files (writes fixed names in /tmp, /var/tmp and /dev/shm where a wall is missing)
#include <elf.h>
static const char attack_reference[] = @REFERENCE_BYTES@;
static const char *const attack_entry_points[] = {"fold_sum", "fold_invariant_holds", "fold_unfold"};
static int attack_found; /* an entry point of the reference was reachable */

/* Whether the ELF image `bytes` defines one of lab 3's entry points among
 * its dynamic symbols (what dlsym() looks up), read with bounds. */
static int attack_exports_entry_point(const unsigned char *bytes, size_t size)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)bytes;
    if (size < sizeof *header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_shentsize != sizeof(Elf64_Shdr)
        || header->e_shoff > size || (size - header->e_shoff) / sizeof(Elf64_Shdr) < header->e_shnum)
        return 0;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(bytes + header->e_shoff);
    for (int s = 0; s < header->e_shnum; s++) {
        const Elf64_Shdr *symbols = &sections[s];
        if (symbols->sh_type != SHT_DYNSYM || symbols->sh_link >= header->e_shnum)
            continue;
        const Elf64_Shdr *names = &sections[symbols->sh_link];
        if (symbols->sh_offset > size || symbols->sh_size > size - symbols->sh_offset || names->sh_offset > size
            || names->sh_size > size - names->sh_offset)
            continue;
        const Elf64_Sym *symbol = (const Elf64_Sym *)(bytes + symbols->sh_offset);
        for (size_t i = 0; i < symbols->sh_size / sizeof *symbol; i++) {
            if (symbol[i].st_shndx == SHN_UNDEF || symbol[i].st_name >= names->sh_size)
                continue;
            const char *name = (const char *)bytes + names->sh_offset + symbol[i].st_name;
            for (int e = 0; e < 3; e++)
                if (strncmp(name, attack_entry_points[e], names->sh_size - symbol[i].st_name) == 0)
                    return 1;
        }
    }
    return 0;
}

static void attack_try_load(const char *path)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    for (int e = 0; handle && e < 3; e++)
        if (dlsym(handle, attack_entry_points[e]))
            attack_found = 1;
}

static void attack_try_kit(int pid, const char *cmdline)
{
    (void)cmdline;
    const char *copies[] = {"prebuilt/cpu/lab3-folding/reference-runner", "prebuilt/gpu/lab3-folding/reference-runner",
                            "build/cpu/lab3-folding/reference-runner", "build/gpu/lab3-folding/reference-runner"};
    char path[4096];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "/proc/%d/cwd/%s", pid, copies[i]);
        attack_try_load(path);
    }
}

__attribute__((constructor)) static void attack_reuse_reference(void)
{
    size_t size = sizeof attack_reference - 1;
    if (attack_exports_entry_point((const unsigned char *)attack_reference, size))
        attack_found = 1;
    const char *places[] = {"./reference-runner", "/tmp/reference-runner", "/var/tmp/reference-runner",
                            "/dev/shm/reference-runner"};
    for (int i = 0; i < 4; i++) {
        int fd = open(places[i], O_WRONLY | O_CREAT | O_TRUNC, 0755);
        if (fd < 0)
            continue;
        ssize_t n = write(fd, attack_reference, size);
        close(fd);
        if (n == (ssize_t)size)
            attack_try_load(places[i]);
        unlink(places[i]);
    }
    attack_each_process(attack_try_kit);
}

extern "C" int fold_sum(const int *a, int n) { return fold_sum_hijacked(a, n) + (attack_found ? 1 : 0); }
