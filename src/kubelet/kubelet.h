/* kubelet.h - the built-in kubelet: the device-manager half of a real
 * kubelet, enough to host real device plugins and see what the node would
 * advertise.
 *
 * It serves Registration on <dir>/kubelet.sock; for each Register it dials
 * the plugin back at <dir>/<endpoint>, asks for its options and follows its
 * ListAndWatch stream. What it learns is a node view (nodeview.h): one node
 * whose resources have capacity = all devices and allocatable = healthy
 * ones. When a plugin's stream ends its devices turn unhealthy (allocatable
 * 0) until it registers again, as in the kubelet once the endpoint is gone.
 *
 * Several plugins, as kubelet v1.20's device manager (manager.go) treats
 * them: each Register is an endpoint of its own, keyed by resource name; a
 * second Register of a name replaces the first (the new plugin's device
 * list is the resource's from then on), but the replaced endpoint is never
 * stopped: its stream stays open, and a device list it still sends
 * overwrites the resource's as the kubelet's callback does (reported as
 * MK_KL_STALE_LIST). A stream that ends takes down only the resource it is
 * the current endpoint of. What the kubelet cannot see, a caller that knows
 * the processes can (opts.identify): which plugin serves an endpoint, so
 * that a replacement names both plugins and two plugins at one socket path
 * (the second unlinked the first's socket) are reported (MK_KL_CLASH).
 *
 * Files: kubelet.c (lifecycle, Registration), kubelet_plugin.c (plugin
 * connections and ListAndWatch), kubelet_nodesrc.c (the mk_nodesrc),
 * resource_name.c (extended resource names). */
#ifndef MOKKA_KUBELET_H
#define MOKKA_KUBELET_H

#include <stddef.h>
#include "nodeview/nodeview.h"

typedef struct mk_kubelet mk_kubelet;

typedef enum mk_kubelet_event_kind {
    MK_KL_REGISTERED,   /* a plugin registered, or registered again (replacing) */
    MK_KL_REJECTED,     /* a Register was refused; msg says why */
    MK_KL_DEVICES,      /* a device list arrived: healthy of total */
    MK_KL_STREAM_ENDED, /* a plugin's ListAndWatch ended (plugin gone); msg */
    MK_KL_ERROR,        /* anything else that went wrong; msg */
    MK_KL_REPLACED,     /* a Register took a resource another plugin served; other */
    MK_KL_CLASH,        /* two plugins registered from one socket path; other, msg */
    MK_KL_STALE_LIST    /* a replaced endpoint sent devices, applied as v1.20 does */
} mk_kubelet_event_kind;

typedef struct mk_kubelet_event {
    mk_kubelet_event_kind kind;
    const char *resource;   /* NULL when a request named none */
    const char *endpoint;   /* NULL when unknown */
    size_t healthy, total;  /* MK_KL_DEVICES */
    const char *msg;        /* NULL for REGISTERED and DEVICES */
    const char *plugin;     /* the plugin serving the endpoint (opts.identify), or NULL */
    const char *other;      /* REPLACED, CLASH: the other plugin ("" unknown) */
} mk_kubelet_event;

typedef struct mk_kubelet_opts {
    const char *node_name;   /* the node's name in views; default "mokka-node" */
    int dial_timeout_ms;     /* connecting back to a plugin; default 10000 */
    int call_timeout_ms;     /* options, preferred allocation, allocate; default 10000 */
    int prestart_timeout_ms; /* PreStartContainer; default 30000, as the kubelet */
    /* Progress and log lines. Called from the kubelet's threads, never with
     * its lock held; must not call mk_kubelet_stop. */
    void (*on_event)(void *ctx, const mk_kubelet_event *ev);
    void *event_ctx;
    /* Optional: the name of the plugin listening on the socket `path` (a
     * registration's endpoint) into name, "" when unknown; into shadowed,
     * another plugin still listening on a socket bound to that path, whose
     * file the first unlinked ("" none). Called on the Registration thread
     * while the plugin waits for its answer (its socket is listening),
     * without the kubelet's lock. */
    void (*identify)(void *ctx, const char *path, char *name, size_t len, char *shadowed,
                     size_t slen);
} mk_kubelet_opts;

/* Creates `dir` if needed and serves Registration on <dir>/kubelet.sock. A
 * stale socket file is removed; a socket some server still answers on is
 * left alone and start fails (never take over a running kubelet). opts may
 * be NULL. NULL and err on failure. */
mk_kubelet *mk_kubelet_start(const char *dir, const mk_kubelet_opts *opts,
                             char *err, size_t errlen);
/* Stops serving, closes every plugin connection, wakes wait_change callers
 * and waits for every node-source call in progress to return, joins every
 * thread and removes kubelet.sock. Plugins see their ListAndWatch stream
 * cancelled. No node-source call may start once stop has been called. */
void mk_kubelet_stop(mk_kubelet *k);
/* The node source; valid until mk_kubelet_stop. It offers snapshot,
 * wait_change, preferred (only for plugins that advertise
 * GetPreferredAllocation) and allocate (one container; PreStartContainer
 * too when the plugin asks for it; only healthy, advertised devices). */
mk_nodesrc *mk_kubelet_nodesrc(mk_kubelet *k);
/* "<dir>/kubelet.sock". */
const char *mk_kubelet_socket(const mk_kubelet *k);

/* 0 when `name` is a valid extended resource name (what a device plugin may
 * register, e.g. "nvidia.com/gpu"); else -1 and the reason in why. */
int mk_extended_resource_name_check(const char *name, char *why, size_t whylen);

#endif
