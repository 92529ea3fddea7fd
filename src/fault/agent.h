/* agent.h - a node's fault agent: keeps one watch on the GPUFault objects
 * and one on its own Node, applies the faults that select the node to its
 * live state (reconcile.h) within moments of a change, and writes what it
 * did into the node's own GPUFaultReport. Used by `mokka agent` (a live
 * state alone) and by `mokka run --cluster --hold` (the plugin's state).
 *
 *     mk_fagent_opts o = { .node = "gpu-1", .state_path = "/run/x/state", .mode = "agent" };
 *     mk_fagent *a = mk_fagent_start(&o, err, sizeof err);   // NULL: exit 3 with err
 *     while (!stop && mk_fagent_failed(a, err, sizeof err) == 0) sleep...;
 *     mk_fagent_stop(a);                                     // the report says: not running
 */
#ifndef MOKKA_FAULT_AGENT_H
#define MOKKA_FAULT_AGENT_H

#include <stddef.h>

typedef struct mk_fagent mk_fagent;

typedef struct mk_fagent_opts {
    const char *kubeconfig;     /* NULL: $KUBECONFIG, ~/.kube/config, in-cluster */
    const char *context;
    const char *node;           /* this node's name */
    const char *state_path;     /* the live state file the faults go to */
    const char *mode;           /* "agent" or "run", for the report */
    int open_timeout_ms;        /* for the first LISTs; 0: MK_KUBE_OPEN_TIMEOUT_MS */
    int watch_timeout_s;        /* 0: 300 (each watch asks for 300-600 s) */
    int verbose;                /* requests and re-lists too */
    /* Changes ("applied GPUFault x (xid 79) to GPU 3 ..."), warnings and,
     * when verbose, progress; one line each, from any thread. NULL: stderr. */
    void (*log)(void *ctx, int warning, const char *msg);
    void *log_ctx;
} mk_fagent_opts;

/* Lists the faults and the node, applies what holds, writes the first
 * report and starts watching. NULL with err when the cluster cannot be
 * reached or the faults cannot be listed (no CRD: says how to install it). */
mk_fagent *mk_fagent_start(const mk_fagent_opts *o, char *err, size_t errlen);

/* 0 while it works; -1 with err once a watch failed for good. */
int mk_fagent_failed(mk_fagent *a, char *err, size_t errlen);

/* Stops watching, writes a last report (running: false; a few seconds at
 * most) and frees everything. The faults stay on the state as they are. */
void mk_fagent_stop(mk_fagent *a);

#endif
