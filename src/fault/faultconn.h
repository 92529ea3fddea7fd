/* faultconn.h - one client of the API server for GPUFaults: opening it,
 * creating and deleting GPUFaults, the nodes one selects, and what to say
 * when the API server refuses. Shared by the CLI and the suites. */
#ifndef MOKKA_FAULTCONN_H
#define MOKKA_FAULTCONN_H

#include "gpufault.h"

typedef struct mk_gfconn {
    mk_ktarget target;
    mk_klog log;
    mk_khttp *h;
    /* The command's time: no request (retries included) goes past
     * budget_ms (mk_kmono_ms() clock; 0: none, each request has its own
     * 30 s), and a request that it cuts short says so, naming what set it
     * (budget_what: "--wait 2s"). */
    long long budget_from_ms, budget_ms;
    char budget_what[64];
} mk_gfconn;

/* Loads the kubeconfig (NULLs: as kubectl finds it) and makes the client.
 * 0, or -1 with err. */
int mk_gfconn_open(mk_gfconn *c, const char *kubeconfig, const char *context, const mk_klog *log,
                   char *err, size_t errlen);
void mk_gfconn_close(mk_gfconn *c);
/* The command's time from now on: budget_ms = now + ms, set by `what`. */
void mk_gfconn_budget(mk_gfconn *c, long long ms, const char *what);
/* The deadline of one request (with its retries): 30 s from now, or the
 * budget's end when that comes first; mk_kmono_ms() clock. */
long long mk_gfconn_deadline(const mk_gfconn *c);
/* When the budget has run out, appends to err (what failed) that the
 * server did not answer within it and how long the command waited. */
void mk_gfconn_timed_out(const mk_gfconn *c, char *err, size_t errlen);

/* POSTs a GPUFault; 0 with *created (free with mk_gfault_free), else the
 * exit code with err: 2 AlreadyExists or Invalid, 3 the resource not
 * installed, forbidden or the cluster unreachable. `what` names the
 * object in messages ("GPUFault x"). */
int mk_gfconn_create(mk_gfconn *c, const json_t *body, const char *what, mk_gfault *created,
                     char *err, size_t errlen);
/* GETs GPUFault `name` into *f; 0, or the exit code (2: there is none, or
 * `name` cannot be one: mk_kpath_name). */
int mk_gfconn_get(mk_gfconn *c, const char *name, mk_gfault *f, char *err, size_t errlen);
/* DELETEs GPUFault `name`; 0, or the exit code (2: there is none, or `name`
 * cannot be one) with err. */
int mk_gfconn_delete(mk_gfconn *c, const char *name, char *err, size_t errlen);
/* A refusal of the API server (status not 2xx) for `verb` ("create",
 * "delete", "get", "list") on `what`: the exit code, err saying why. */
int mk_gfconn_refused(const mk_gfconn *c, const char *verb, const char *what, long status,
                      const char *reason, const char *msg, char *err, size_t errlen);
/* The nodes f selects (one LIST), sorted; free with mk_gfl_names_free.
 * 0, or -1 with err. */
int mk_gfconn_selected(mk_gfconn *c, const mk_gfault *f, char ***names, size_t *n, char *err,
                       size_t errlen);

#endif
