/* libblob.h - the copy of libnvidia-ml.so.1 that travels inside mokka
 * (linked in from build/gen/libblob.S as mk_libblob..mk_libblob_end), its
 * hash, and telling a file on disk apart: this very library, Mokka's library
 * from another build, or somebody else's (the real NVIDIA driver's). */
#ifndef MOKKA_LIBBLOB_H
#define MOKKA_LIBBLOB_H

#include <stddef.h>
#include <stdint.h>

#include "libmark.h"

const unsigned char *mk_lib_bytes(size_t *len);
/* 64-bit FNV-1a over the bytes, mixed (not a security boundary: it names
 * cache directories and catches stale or truncated copies). */
uint64_t mk_hash_bytes(const void *p, size_t len);
uint64_t mk_lib_hash(void);

typedef enum {
    MK_LIB_UNREADABLE,  /* cannot open or read the file */
    MK_LIB_THIS,        /* byte for byte the library inside this mokka */
    MK_LIB_MOKKA,       /* a Mokka library from another build */
    MK_LIB_FOREIGN      /* not Mokka's: the real driver library or another mock */
} mk_lib_kind;
mk_lib_kind mk_lib_identify(const char *path);

#endif
