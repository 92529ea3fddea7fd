/* procenv.h - another process's environment, read from /proc/PID/environ,
 * and whether it points the dynamic loader at Mokka's library. */
#ifndef MOKKA_PROCENV_H
#define MOKKA_PROCENV_H

#include <stddef.h>
#include <sys/types.h>

typedef struct mk_procenv {
    char *buf;     /* NAME=value entries, each NUL-terminated */
    size_t len;
} mk_procenv;

/* 0, or -1 with errno (ENOENT: no such process, EACCES: another user's). */
int mk_procenv_read(pid_t pid, mk_procenv *env);
/* The value of NAME, or NULL when the process does not have it. */
const char *mk_procenv_get(const mk_procenv *env, const char *name);
void mk_procenv_free(mk_procenv *env);

/* The path through which we see the file that process pid calls path:
 * relative to its cwd (/proc/PID/cwd/...), inside its root when that is not
 * ours (/proc/PID/root/..., a container's files, not ours), else path
 * itself (also when /proc/PID is closed to us: another user's process). */
void mk_proc_path(pid_t pid, const char *path, char *out, size_t len);
/* Whether LD_PRELOAD or LD_LIBRARY_PATH in the environment of process pid
 * leads to a Mokka libnvidia-ml.so.1; on 1 writes "LD_PRELOAD=<file>" or
 * "LD_LIBRARY_PATH entry <dir>" into how. */
int mk_procenv_mokka_lib(pid_t pid, const mk_procenv *env, char *how, size_t len);

#endif
