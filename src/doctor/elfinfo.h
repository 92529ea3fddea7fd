/* elfinfo.h - what doctor needs to know about an ELF file, read directly
 * from it: the machine it is built for, the SONAME, the program interpreter
 * (none: a static binary) and the exported dynamic symbols. 64-bit ELF in
 * the host's byte order. */
#ifndef MOKKA_ELFINFO_H
#define MOKKA_ELFINFO_H

#include <stddef.h>

typedef struct mk_elf {
    void *map;
    size_t size;
    unsigned machine;       /* e_machine: EM_X86_64, EM_AARCH64, ... */
    const char *soname;     /* DT_SONAME, or NULL */
    const char *interp;     /* PT_INTERP, or NULL */
    const char **exports;   /* sorted names other objects can bind to */
    size_t nexports;
} mk_elf;

/* 0, or -1 with err (unreadable, not ELF, malformed). */
int mk_elf_open(const char *path, mk_elf *e, char *err, size_t errlen);
int mk_elf_exports(const mk_elf *e, const char *name);
/* The machine in words: "x86-64", "arm64 (AArch64)", else "ELF machine N". */
const char *mk_elf_machine_name(unsigned machine, char *buf, size_t len);
void mk_elf_close(mk_elf *e);

#endif
