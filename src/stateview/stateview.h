/* stateview.h - live states seen from the CLI: where live-state
 * directories live, which processes are attached, other processes'
 * environments and views, and finding, opening and reading one state. */
#ifndef MOKKA_STATEVIEW_H
#define MOKKA_STATEVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "util/util.h"
#include "state.h"
#include "universe.h"
#include "expose.h"
#include "procview.h"

/* stateview.c: what `mokka stats`, `metrics` and `inject` share: the
 * --state-dir/--pid options, finding and opening a live state (statedir.h,
 * state.h) and the universe named in its header (for static fields such as
 * the memory total) as an mk_view, whose readings are expose.h's. */
enum { MK_OPT_STATE_DIR = 0x1100, MK_OPT_PID };
#define MK_VIEW_OPTS \
    {"state-dir", required_argument, 0, MK_OPT_STATE_DIR}, \
    {"pid", required_argument, 0, MK_OPT_PID}

typedef struct mk_view_where {
    const char *dir;   /* --state-dir */
    pid_t pid;         /* --pid, 0 when not given */
} mk_view_where;

/* For the default case of command `cmd`'s getopt loop: --state-dir and
 * --pid. Returns -1 when parsing goes on, MK_VIEW_NOT_MINE for any other
 * option (the caller passes it to the common options), else the exit code
 * to return (2 after a usage error). */
#define MK_VIEW_NOT_MINE (-2)
int mk_view_opt(const char *cmd, int c, const char *arg, mk_view_where *w);

/* Finds and maps the state (and, with want_u, loads its universe). Returns 0,
 * or prints what was looked at and returns MK_EXIT_ENV (2 for --state-dir
 * together with --pid). */
int mk_view_open(const char *cmd, const mk_view_where *w, int want_u, mk_view *v);
void mk_view_close(mk_view *v);





/* statedir.c: where live-state directories live and how the CLI finds the
 * one a program on the mock is using.
 *
 * `mokka exec` and `mokka run` give every program they start a fresh state
 * directory through MOKKA_STATE_DIR: <base>/<command>-<pid>, where <base> is
 * $MOKKA_RUNTIME_DIR, else $XDG_RUNTIME_DIR/mokka, else /tmp/mokka-<uid>
 * (created 0700). The library creates <dir>/state in it (state.h). `mokka
 * stats|metrics|inject` find it by --state-dir DIR, by --pid PID (read from
 * /proc/PID/environ), or as the only live one under <base>. */
/* The base directory (created if missing). 0 or -1 with err. */
int mk_statedir_base(char *out, size_t len, char *err, size_t errlen);
/* Creates <base>/<tag>-<pid> for a new program; 0 or -1 with err. */
int mk_statedir_new(const char *tag, char *out, size_t len, char *err, size_t errlen);
/* Removes a state directory made by mk_statedir_new and everything in it
 * (`mokka run` keeps the sandbox's trees there). */
void mk_statedir_remove(const char *dir);
/* Marks a directory as kept on purpose, so that the search below never
 * clears it away. */
void mk_statedir_keep(const char *dir);
/* Copies the universe's config into the directory as gpus.yaml, where the
 * node's container runtime shim finds it beside the state: a `mokka run`
 * in a pod reads its config from a ConfigMap the host cannot see. */
int mk_statedir_copy_config(const char *dir, const char *config, char *err, size_t errlen);

/* Finds the state file: --state-dir (dir != NULL), --pid (pid > 0), or the
 * only directory under the base whose state file has a live attached
 * process. That search removes the directories it passes that a mokka
 * which died (SIGKILL, a crash) left behind: owner gone, nothing attached,
 * not kept. Writes the state file's path; 0 or -1 with an error that says
 * what was looked at and what to pass instead. */
int mk_statedir_find(const char *dir, pid_t pid, char *path, size_t len, char *err, size_t errlen);


/* statepids.c: which processes a live-state file says are attached, and
 * which of them are still alive. */
/* Fills pids (up to max) with the live processes attached to the state file
 * at path; returns how many, or -1 with err when it is not a readable Mokka
 * state file. */
int mk_state_live_pids(const char *path, pid_t *pids, int max, char *err, size_t errlen);


/* procenv.c: where another process looks for files, and whether its
 * environment (procview.h) points the dynamic loader at Mokka's library. */

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
