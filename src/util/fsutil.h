/* fsutil.h - small file-system helpers the CLI shares: directory trees,
 * the per-user directory under /tmp, and files published atomically. */
#ifndef MOKKA_FSUTIL_H
#define MOKKA_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p with `mode` for the directories it creates; 0 or -1 with err. */
int mk_mkdir_p(const char *path, mode_t mode, char *err, size_t errlen);
/* /tmp/mokka-<uid>, created 0700; refused when it exists but is not a
 * directory owned by this user that only this user can write. */
int mk_user_tmp_dir(char *out, size_t len, char *err, size_t errlen);
/* Writes len bytes to dir/name through a temporary file in dir and an
 * atomic rename, with exactly `mode`; 0 or -1 with err. */
int mk_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                    mode_t mode, char *err, size_t errlen);
/* 1 when the file at path holds exactly these bytes, 0 when not or
 * unreadable. */
int mk_file_equals(const char *path, const void *data, size_t len);

#endif
