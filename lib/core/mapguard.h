/* mapguard.h - keeps a process alive when a file it maps shared (the live
 * state) shrinks under it: an access past the new end of the file would be
 * a SIGBUS; the guard turns the mapping into a private copy instead, says so
 * once on stderr, and lets the access run again (see mapguard.c). */
#ifndef MOKKA_MAPGUARD_H
#define MOKKA_MAPGUARD_H

#include <stddef.h>

/* Guards the MAP_SHARED mapping [addr, addr + len) of the file open as fd
 * (the guard keeps a duplicate) at path. `after` ends the stderr line (what
 * the process does from then on); it must be a string that outlives the
 * mapping (a literal). Installs the SIGBUS handler the first time. Returns
 * 0, or -1 when the mapping cannot be guarded (the table is full, no fd). */
int mk_mapguard_add(void *addr, size_t len, int fd, const char *path, const char *after);
/* Keeps a private copy of the mapping's first snap_len bytes (what stays
 * the same for its life: the header and the devices) to rebuild it from
 * when the file no longer holds them. The first key_len bytes identify the
 * contents: the file's bytes are used only while it still begins with
 * them (not when it was emptied, refilled or replaced by other contents). */
void mk_mapguard_snapshot(void *addr, size_t snap_len, size_t key_len);
/* Forgets the mapping at addr (before it is unmapped). */
void mk_mapguard_del(void *addr);
/* 1 once the mapping at addr has been replaced by a private copy: the
 * memory is no longer shared with other processes. */
int mk_mapguard_private(const void *addr);

#endif
