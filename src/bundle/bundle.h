/* bundle.h - the libnvidia-ml.so.1 that travels inside mokka: the
 * embedded copy, the mark every build carries, and a real file of it for
 * programs to load. */
#ifndef MOKKA_BUNDLE_H
#define MOKKA_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

/* libblob.c: the copy of libnvidia-ml.so.1 that travels inside mokka
 * (linked in from build/gen/libblob.S as mk_libblob..mk_libblob_end), its
 * hash, and telling a file on disk apart: this very library, Mokka's library
 * from another build, or somebody else's (the real NVIDIA driver's). */
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


/* libmark.c: whether a file is a Mokka libnvidia-ml.so.1 of any build, by
 * a mark every build carries. No need for the embedded copy, so that the
 * engines can tell without linking it. */
#define MK_LIB_SONAME "libnvidia-ml.so.1"

/* 1: a Mokka library, 0: another file (the real driver's), -1: unreadable. */
int mk_lib_marked(const char *path);


/* libpath.c: a real file holding Mokka's libnvidia-ml.so.1 for programs to
 * load. mokka carries the library inside its own binary; a copy beside the
 * binary (in its own directory in a release archive, ../lib/mokka/ or the
 * LIBDIR of make install when installed, lib/ in a build tree) is preferred
 * when it has the same contents, else the embedded copy is written once to
 * a per-user cache keyed by its hash and reused. */
/* Path of a directory containing libnvidia-ml.so.1 (for LD_LIBRARY_PATH)
 * and of the file itself (for LD_PRELOAD). 0 or -1 with err. */
int mk_lib_path(char *dir, size_t dirlen, char *file, size_t filelen, char *err, size_t errlen);
/* Writes the embedded library to DIR/libnvidia-ml.so.1; 0 or -1 with err. */
int mk_lib_extract(const char *dir, char *err, size_t errlen);


#endif
