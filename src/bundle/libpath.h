/* libpath.h - a real file holding Mokka's libnvidia-ml.so.1 for programs to
 * load. mokka carries the library inside its own binary; a copy beside the
 * binary (../lib/mokka/ when installed, lib/ in a build tree) is preferred
 * when it has the same contents, else the embedded copy is written once to
 * a per-user cache keyed by its hash and reused. */
#ifndef MOKKA_LIBPATH_H
#define MOKKA_LIBPATH_H

#include <stddef.h>

/* Path of a directory containing libnvidia-ml.so.1 (for LD_LIBRARY_PATH)
 * and of the file itself (for LD_PRELOAD). 0 or -1 with err. */
int mk_lib_path(char *dir, size_t dirlen, char *file, size_t filelen, char *err, size_t errlen);
/* Writes the embedded library to DIR/libnvidia-ml.so.1; 0 or -1 with err. */
int mk_lib_extract(const char *dir, char *err, size_t errlen);

#endif
