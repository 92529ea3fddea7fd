/* stateview.h - what `mokka stats`, `metrics` and `inject` share: the
 * --state-dir/--pid options, finding and opening a live state (statedir.h,
 * state.h), the universe named in its header (for static fields such as the
 * memory total), and readings derived from the state without writing to it. */
#ifndef MOKKA_STATEVIEW_H
#define MOKKA_STATEVIEW_H

#include <stdint.h>
#include <sys/types.h>
#include "cli.h"
#include "state.h"
#include "universe.h"

enum { MK_OPT_STATE_DIR = 0x1100, MK_OPT_PID };
#define MK_VIEW_OPTS \
    {"state-dir", required_argument, 0, MK_OPT_STATE_DIR}, \
    {"pid", required_argument, 0, MK_OPT_PID}

typedef struct mk_view_where {
    const char *dir;   /* --state-dir */
    pid_t pid;         /* --pid, 0 when not given */
} mk_view_where;

/* For the default case of a getopt loop: --state-dir and --pid, else the
 * common options (cli.h). Returns -1 when parsing goes on, else the exit
 * code to return (0 after --help, 2 after a usage error). */
int mk_view_opt(const mk_cmd *self, int c, const char *arg, mk_view_where *w);

typedef struct mk_view {
    mk_state st;
    mk_universe *u;          /* the universe the state was made from, or NULL */
    char why_no_u[1200];     /* why u is NULL */
    char path[4096];         /* the state file */
} mk_view;

/* Finds and maps the state (and, with want_u, loads its universe). Returns 0,
 * or prints what was looked at and returns MK_EXIT_ENV (2 for --state-dir
 * together with --pid). */
int mk_view_open(const char *cmd, const mk_view_where *w, int want_u, mk_view *v);
void mk_view_close(mk_view *v);

/* Attached processes still running: their count, and up to max pids. */
unsigned mk_view_alive(const mk_view *v, int *pids, unsigned max);
/* Every attached slot, running or not. */
unsigned mk_view_attached(const mk_view *v);

/* The current value of metric m on GPU i: 0, or -1 when the GPU has no such
 * sensor (known only with a universe). */
int mk_view_value(const mk_view *v, unsigned i, mk_metric m, int64_t *out);
int mk_view_pinned(const mk_view *v, unsigned i, mk_metric m);
/* Energy since the universe started (mJ), and volatile ECC counts. */
uint64_t mk_view_energy(const mk_view *v, unsigned i);
void mk_view_ecc(const mk_view *v, unsigned i, uint64_t *sbe, uint64_t *dbe);
/* NVML functions the programs called, most called first (then by name). */
typedef struct mk_call_row {
    const char *name;
    uint64_t calls, unsupported;   /* unsupported: answered NOT_SUPPORTED */
} mk_call_row;
/* A malloc'd array of *n rows (functions with calls only), or NULL. */
mk_call_row *mk_view_calls(const mk_view *v, size_t *n);

/* "healthy", "xid 79", "ecc" or "lost". */
void mk_view_health(const mk_view *v, unsigned i, char *buf, size_t len);

#endif
