/* elfinfo.c - reading machine, SONAME, interpreter and exports from an ELF
 * file (see elfinfo.h). Every offset is checked against the file size: doctor
 * reads files it did not make. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfinfo.h"

/* The bytes [off, off+len) of the file, or NULL when they are not all in it. */
static const void *at(const mk_elf *e, uint64_t off, uint64_t len)
{
    if (off > e->size || len > e->size - off)
        return NULL;
    return (const char *)e->map + off;
}

/* A NUL-terminated string at off inside [base, base+limit), or NULL. */
static const char *str_at(const mk_elf *e, uint64_t base, uint64_t limit, uint64_t off)
{
    const char *s = off < limit ? at(e, base + off, limit - off) : NULL;
    return s && memchr(s, 0, limit - off) ? s : NULL;
}

static const Elf64_Shdr *section(const mk_elf *e, const Elf64_Ehdr *h, unsigned i)
{
    if (i >= h->e_shnum || h->e_shentsize != sizeof(Elf64_Shdr))
        return NULL;
    return at(e, h->e_shoff + (uint64_t)i * sizeof(Elf64_Shdr), sizeof(Elf64_Shdr));
}

static void read_interp(mk_elf *e, const Elf64_Ehdr *h)
{
    for (unsigned i = 0; i < h->e_phnum && h->e_phentsize == sizeof(Elf64_Phdr); i++) {
        const Elf64_Phdr *p = at(e, h->e_phoff + (uint64_t)i * sizeof *p, sizeof *p);
        if (p && p->p_type == PT_INTERP)
            e->interp = str_at(e, p->p_offset, p->p_filesz, 0);
    }
}

static void read_soname(mk_elf *e, const Elf64_Ehdr *h, const Elf64_Shdr *dyn)
{
    const Elf64_Shdr *strs = section(e, h, dyn->sh_link);
    if (!strs)
        return;
    for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dyn->sh_size; off += sizeof(Elf64_Dyn)) {
        const Elf64_Dyn *d = at(e, dyn->sh_offset + off, sizeof *d);
        if (!d || d->d_tag == DT_NULL)
            return;
        if (d->d_tag == DT_SONAME)
            e->soname = str_at(e, strs->sh_offset, strs->sh_size, d->d_un.d_val);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int read_exports(mk_elf *e, const Elf64_Ehdr *h, const Elf64_Shdr *sym)
{
    const Elf64_Shdr *strs = section(e, h, sym->sh_link);
    size_t n = sym->sh_entsize == sizeof(Elf64_Sym) ? sym->sh_size / sizeof(Elf64_Sym) : 0;
    if (!strs || !at(e, sym->sh_offset, sym->sh_size))
        return 0;
    e->exports = calloc(n ? n : 1, sizeof *e->exports);
    if (!e->exports)
        return -1;
    for (size_t i = 1; i < n; i++) {
        const Elf64_Sym *s = at(e, sym->sh_offset + i * sizeof *s, sizeof *s);
        unsigned bind = ELF64_ST_BIND(s->st_info), vis = ELF64_ST_VISIBILITY(s->st_other);
        const char *name = str_at(e, strs->sh_offset, strs->sh_size, s->st_name);
        if (name && *name && s->st_shndx != SHN_UNDEF && (bind == STB_GLOBAL || bind == STB_WEAK) &&
            (vis == STV_DEFAULT || vis == STV_PROTECTED))
            e->exports[e->nexports++] = name;
    }
    if (e->nexports > 1)
        qsort(e->exports, e->nexports, sizeof *e->exports, by_name);
    return 0;
}

static int parse(mk_elf *e, char *err, size_t errlen)
{
    const Elf64_Ehdr *h = at(e, 0, sizeof *h);
    if (!h || memcmp(h->e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "not an ELF file");
        return -1;
    }
    const unsigned one = 1;
    int little = *(const unsigned char *)&one == 1;
    if (h->e_ident[EI_CLASS] != ELFCLASS64 ||
        h->e_ident[EI_DATA] != (little ? ELFDATA2LSB : ELFDATA2MSB)) {
        snprintf(err, errlen, "not a 64-bit ELF file of this machine's byte order");
        return -1;
    }
    e->machine = h->e_machine;
    read_interp(e, h);
    for (unsigned i = 0; i < h->e_shnum; i++) {
        const Elf64_Shdr *s = section(e, h, i);
        if (s && s->sh_type == SHT_DYNAMIC)
            read_soname(e, h, s);
        if (s && s->sh_type == SHT_DYNSYM && !e->exports && read_exports(e, h, s) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

int mk_elf_open(const char *path, mk_elf *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    e->size = (size_t)sb.st_size;
    e->map = e->size ? mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (e->map == MAP_FAILED) {
        e->map = NULL;
        snprintf(err, errlen, "cannot read %s: %s", path, e->size ? strerror(errno) : "empty file");
        return -1;
    }
    char why[128];
    if (parse(e, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        mk_elf_close(e);
        return -1;
    }
    return 0;
}

int mk_elf_exports(const mk_elf *e, const char *name)
{
    return bsearch(&name, e->exports, e->nexports, sizeof *e->exports, by_name) != NULL;
}

const char *mk_elf_machine_name(unsigned machine, char *buf, size_t len)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "arm64 (AArch64)";
    }
    snprintf(buf, len, "ELF machine %u", machine);
    return buf;
}

void mk_elf_close(mk_elf *e)
{
    free(e->exports);
    if (e->map)
        munmap(e->map, e->size);
    memset(e, 0, sizeof *e);
}
