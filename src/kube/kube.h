/* kube.h - cluster mode: what the nodes of a real cluster advertise, through
 * the Kubernetes API server, as node views (nodeview.h).
 *
 * Cluster access works like kubectl's (--kubeconfig, $KUBECONFIG, ~/.kube/config,
 * in-cluster; --context). mk_kube_open lists the selected nodes, then one
 * background thread watches them, so that waiting on any number of nodes
 * costs one LIST and one WATCH, not a poll per node.
 *
 *     mk_kube_opts o = { .node = "gpu-1", .verbose = 1 };
 *     mk_kube *k = mk_kube_open(&o, err, sizeof err);   // NULL: exit 3 with err
 *     mk_nodesrc *src = mk_kube_nodesrc(k);             // snapshot, wait_change
 *     ...
 *     mk_kube_close(k);
 */
#ifndef MOKKA_KUBE_H
#define MOKKA_KUBE_H

#include <stddef.h>
#include "nodeview/nodeview.h"
/* Beyond nodes: requests on any object and list+watch of any collection
 * (for GPU faults), names in paths, label selectors, and the API server's
 * times. */
#include "kube_frame.h"
#include "kube_name.h"
#include "kube_obj.h"
#include "kube_selector.h"
#include "kube_time.h"
#include "kube_watch.h"

typedef struct mk_kube mk_kube;

/* How long mk_kube_open may take when the caller does not say. */
#define MK_KUBE_OPEN_TIMEOUT_MS 10000

typedef struct mk_kube_opts {
    const char *kubeconfig;  /* --kubeconfig; NULL: $KUBECONFIG, ~/.kube/config, in-cluster */
    const char *context;     /* --context; NULL: the current-context */
    const char *node;        /* only this node (fieldSelector metadata.name=NODE), or NULL */
    const char *selector;    /* label selector ("k=v,k2!=v2,k3"), or NULL; both may be set */
    int open_timeout_ms;     /* how long mk_kube_open may take: the first LIST's
                                retries (connection errors, 5xx, 429), transfers
                                and plugin runs; 0: MK_KUBE_OPEN_TIMEOUT_MS. A
                                caller with a sooner deadline passes what is left */
    int watch_timeout_s;     /* timeoutSeconds of each WATCH request; 0: 300 */
    /* Also one list+watch of pods, for the fleet expectations: the
     * snapshots then carry them (has_pods). */
    enum { MK_KUBE_PODS_NONE, MK_KUBE_PODS_ALL, MK_KUBE_PODS_ON_NODE } pods;
                             /* ALL: every pod of the cluster (unscheduled ones
                                too); ON_NODE: those bound to `node` only
                                (fieldSelector spec.nodeName) */
    int verbose;             /* report requests, retries and re-lists through log */
    /* Warnings (always) and progress (when verbose), one line each, without
     * a trailing newline; may be called from the watch thread. NULL: stderr. */
    void (*log)(void *ctx, int warning, const char *msg);
    void *log_ctx;
} mk_kube_opts;

/* Requests made so far (both watches together), for progress lines and
 * `make bench`. */
typedef struct mk_kube_counts {
    unsigned long lists;     /* LIST requests, re-lists and retries included */
    unsigned long relists;   /* lists after the first (410 Gone, ERROR events) */
    unsigned long watches;   /* WATCH requests, re-watches and retries included */
    unsigned long retries;   /* requests repeated after a connection error,
                                5xx, 429 or 401, or after a broken stream */
    unsigned long events;    /* ADDED, MODIFIED and DELETED events received */
    unsigned long bookmarks; /* BOOKMARK events received */
    unsigned long credential_loads; /* token file reads and exec plugin runs */
} mk_kube_counts;

/* Load the cluster's access, LIST the selected nodes (and the pods asked
 * for) and start watching them. NULL with err (naming the kubeconfig and object at fault, or the
 * server and what failed; never a secret) when that cannot be done: the
 * caller's "environment or infrastructure error". */
mk_kube *mk_kube_open(const mk_kube_opts *o, char *err, size_t errlen);

/* The node views (kind "API server"). snapshot copies the latest view, also
 * after the watch failed (the last value seen); wait_change returns -1 once
 * the watch failed for good. preferred and allocate are NULL: the API server
 * cannot ask a device plugin. Valid until mk_kube_close. */
mk_nodesrc *mk_kube_nodesrc(mk_kube *k);

void mk_kube_stats(const mk_kube *k, mk_kube_counts *out);

/* "https://10.0.0.1:6443 (kubeconfig /x, context 'c', user 'u': token (redacted))". */
void mk_kube_describe(const mk_kube *k, char *buf, size_t len);

/* Stop watching (at once, also mid-request) and free everything. */
void mk_kube_close(mk_kube *k);

/* --- any object: a client for requests and watches (kube_client.c) ----------------
 *
 *     mk_kclient *c = mk_kclient_open(&o, err, sizeof err);   // o.node, o.selector unused
 *     mk_kobj_req r = { .method = "POST", .path = "/apis/g/v/things", .body = obj };
 *     mk_kobj_request(mk_kclient_http(c), &r, &status, &answer, reason, sizeof reason, err, sizeof err);
 *     mk_kwatch *w = mk_kclient_watch(c, &wo, &sink, err, sizeof err);   // its own connection
 *     ...
 *     mk_kwatch_free(w);
 *     mk_kclient_close(c);
 */
typedef struct mk_kclient mk_kclient;

/* Loads the cluster's access (as mk_kube_open does) and opens the client's
 * own connection. NULL with err. */
mk_kclient *mk_kclient_open(const mk_kube_opts *o, char *err, size_t errlen);
/* The client's connection, for requests from one thread at a time. */
mk_khttp *mk_kclient_http(mk_kclient *c);
/* A list+watch on a connection of its own (its first LIST in this thread,
 * until o->first_deadline_ms). NULL with err. Free it before the client. */
mk_kwatch *mk_kclient_watch(mk_kclient *c, const mk_kwatch_opts *o, const mk_kwatch_sink *sink,
                            char *err, size_t errlen);
/* A connection of its own for another thread (mk_khttp_free it). */
mk_khttp *mk_kclient_connect(mk_kclient *c, char *err, size_t errlen);
void mk_kclient_describe(const mk_kclient *c, char *buf, size_t len);
void mk_kclient_close(mk_kclient *c);

/* "/api/v1/nodes[?fieldSelector=metadata.name%3DNODE][&labelSelector=...]",
 * malloc'd (NULL when out of memory); node and selector may be NULL. */
char *mk_knodes_path(const char *node, const char *selector);

#endif
