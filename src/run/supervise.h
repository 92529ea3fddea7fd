/* supervise.h - running the device plugin: start it (in the sandbox) in a
 * process group of its own, capture its stdout and stderr with timestamps,
 * restart it with backoff when it crashes (up to a limit), forward signals,
 * and reap the whole group on stop so that nothing is left behind. */
#ifndef MOKKA_SUPERVISE_H
#define MOKKA_SUPERVISE_H

#include <stddef.h>
#include <sys/types.h>
#include "sandbox.h"

typedef struct mk_super mk_super;

typedef struct mk_super_opts {
    char *const *argv;            /* plugin command line */
    char *const *envp;            /* its whole environment */
    const mk_sandbox *sandbox;    /* entered in the child before exec */
    const char *log_path;         /* every line also goes here (may be NULL) */
    int verbose;                  /* echo lines live on stderr */
    unsigned restart_limit;       /* crashes restarted before giving up */
    double backoff_s;             /* first restart delay; doubles each time, max 30 s */
} mk_super_opts;

typedef enum {
    MK_SUPER_RUNNING,
    MK_SUPER_BACKOFF,   /* crashed, restart pending */
    MK_SUPER_FAILED,    /* crashed more often than the limit allows */
    MK_SUPER_STOPPED
} mk_super_state;

/* Starts the plugin and a thread that watches it. NULL with err on failure
 * (the executable is missing, fork failed...). */
mk_super *mk_super_start(const mk_super_opts *o, char *err, size_t errlen);
/* Stops it (the given signal to the group, then SIGKILL after timeout_ms),
 * reaps it, and starts it again; a requested restart is not a crash. */
int mk_super_restart(mk_super *s, char *err, size_t errlen);
/* Sends sig to the plugin's group, waits up to timeout_ms, then SIGKILLs. */
void mk_super_stop(mk_super *s, int sig, int timeout_ms);
void mk_super_free(mk_super *s);

mk_super_state mk_super_status(mk_super *s, unsigned *crashes, unsigned *restarts,
                               char *last_exit, size_t len);
/* The last max_lines lines of output, oldest first, in buf; what the
 * plugin wrote until the call is read first. */
size_t mk_super_log_tail(mk_super *s, char *buf, size_t len, size_t max_lines);

#endif
