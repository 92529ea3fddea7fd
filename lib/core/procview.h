/* procview.h - the processes attached to a live state seen from outside:
 * their environment (procenv.c) and the container's view it gives them
 * (procview.c), for mokka stats, mokka metrics and the library's own
 * debug: true server. */
#ifndef MOKKA_PROCVIEW_H
#define MOKKA_PROCVIEW_H

#include <stddef.h>
#include <sys/types.h>
#include "expose.h"

/* procenv.c: another process's environment, read from /proc/PID/environ. */
typedef struct mk_procenv {
    char *buf;     /* NAME=value entries, each NUL-terminated */
    size_t len;
} mk_procenv;

/* 0, or -1 with errno (ENOENT: no such process, EACCES: another user's). */
int mk_procenv_read(pid_t pid, mk_procenv *env);
/* The value of NAME, or NULL when the process does not have it. */
const char *mk_procenv_get(const mk_procenv *env, const char *name);
/* Its entries as environ holds them (NULL-terminated, into env->buf);
 * malloc'd, NULL when out of memory. */
char **mk_procenv_list(const mk_procenv *env);
void mk_procenv_free(mk_procenv *env);

/* procview.c: the container's view of attached processes: those whose
 * NVIDIA_VISIBLE_DEVICES or CDI variables (in their environment at start)
 * narrow what the library shows them (visible.h), and the GPUs they see. */
typedef struct mk_procview {
    pid_t pid;
    char *spec;          /* its NVIDIA_VISIBLE_DEVICES, with the CDI variables
                          * joined in (mk_visible_env_spec) */
    size_t n;            /* GPUs it sees */
    unsigned *gpus;      /* [n] their indexes in the universe, in its order; NULL
                          * when the view has no universe to read spec against */
} mk_procview;

/* The attached live processes with a restricted view; returns how many,
 * *out malloc'd (free with mk_procviews_free). */
size_t mk_view_procviews(const mk_view *v, mk_procview **out);
void mk_procviews_free(mk_procview *p, size_t n);

#endif
