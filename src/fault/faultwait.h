/* faultwait.h - following the agents' GPUFaultReports (one LIST, then one
 * WATCH) until a fault is applied, or cleared, on the nodes concerned. */
#ifndef MOKKA_FAULTWAIT_H
#define MOKKA_FAULTWAIT_H

#include <signal.h>
#include "kube/kube.h"
#include "util/util.h"

typedef struct mk_gfwait mk_gfwait;

/* Lists the reports and starts watching them over a client of its own for
 * `t` (which must outlive it). The LIST ends by deadline_ms (mk_kmono_ms()
 * clock) or in 10 s, whichever comes first. NULL with err when it fails. */
mk_gfwait *mk_gfwait_start(const mk_ktarget *t, const mk_klog *log, long long deadline_ms,
                           char *err, size_t errlen);
void mk_gfwait_free(mk_gfwait *w);

typedef enum {
    MK_GFW_DONE,        /* applied on every counted node (or cleared everywhere) */
    MK_GFW_REJECTED,    /* every counted node answered; some rejected it */
    MK_GFW_TIMEOUT,
    MK_GFW_CANCELLED,   /* *cancel was set */
    MK_GFW_FAILED       /* the watch failed for good */
} mk_gfw_outcome;

typedef struct mk_gfwait_req {
    const char *name, *uid;            /* the GPUFault */
    const char *const *nodes;          /* the nodes it selects, sorted (not for a clear) */
    size_t nnodes;
    int clear;                         /* wait until no running agent has it Applied */
    long long start_ms;                /* mk_now_ms() when the create or delete was sent */
    long long limit_ms;                /* from start_ms */
    volatile sig_atomic_t *cancel;     /* or NULL */
    int progress;                      /* progress on stderr (not under --quiet) */
} mk_gfwait_req;

/* Waits for r's outcome and appends what to say of it to msg, one line or
 * more without a final newline: "GPUFault x: applied on 5 of 5 nodes in
 * 1.4 s", "...; not applied within 60 s on: a, b", the rejections with
 * their reasons, the selected nodes that run no agent. */
mk_gfw_outcome mk_gfwait_run(mk_gfwait *w, const mk_gfwait_req *r, mk_sb *msg);

#endif
