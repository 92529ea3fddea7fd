/* kubelet_impl.h - the built-in kubelet's state, shared by kubelet.c,
 * kubelet_plugin.c, kubelet_nodesrc.c and kubelet_state.c. Calls run one
 * way: kubelet.c -> kubelet_nodesrc.c -> kubelet_plugin.c -> kubelet_state.c
 * (kubelet.c also calls kubelet_plugin.c directly).
 *
 * Locking: k->mu guards the resource table, the version, every plugin
 * connection's reference count and `closing` flag, and `users`. Nothing
 * calls into gRPC or the event callback with k->mu held. */
#ifndef MOKKA_KUBELET_IMPL_H
#define MOKKA_KUBELET_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include "kubelet.h"
#include "deviceplugin/deviceplugin.h"

/* One registration of a plugin: its channel and ListAndWatch stream. A
 * Register for the same resource replaces it; calls in flight keep it alive
 * through refs. */
typedef struct mk_kl_conn {
    mk_kubelet *k;
    char *resource, *endpoint;
    char plugin[64];         /* opts.identify's answer; "" when unknown */
    char shadowed[64];       /* the plugin whose socket file this one's replaced; "" none */
    mk_rpc_channel *ch;
    mk_rpc_watch *watch;
    int pre_start_required, get_preferred_allocation;
    int refs;
    int closing;             /* closed on purpose: its stream's end is no news */
} mk_kl_conn;

typedef struct mk_kl_resource {
    char *name;
    mk_kl_conn *conn;        /* the current registration */
    size_t ndev;
    mk_nv_device *dev;
} mk_kl_resource;

struct mk_kubelet {
    char *dir, *sock, *node_name;
    mk_kubelet_opts opts;
    mk_rpc_server *srv;
    mk_nodesrc src;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* CLOCK_MONOTONIC; signalled on every change */
    uint64_t version;
    mk_kl_resource *res;     /* sorted by name */
    size_t nres;
    mk_kl_conn **stale;      /* replaced endpoints, still followed (v1.20 never stops them) */
    size_t nstale;
    int users;               /* node-source calls in progress; stop waits for them */
    int stopping;
};

/* kubelet_state.c (call with k->mu held: *_locked) */
void mk_kl_changed_locked(mk_kubelet *k);
void mk_kl_emit(mk_kubelet *k, mk_kubelet_event_kind kind, const char *resource,
                const char *endpoint, size_t healthy, size_t total, const char *msg);
/* The same for a connection: its resource, endpoint and plugin. */
void mk_kl_emit_conn(const mk_kl_conn *c, mk_kubelet_event_kind kind, size_t healthy,
                     size_t total, const char *other, const char *msg);
mk_kl_resource *mk_kl_find_locked(mk_kubelet *k, const char *name);

/* kubelet_plugin.c */
/* Dials <dir>/<endpoint> and asks for the plugin's options. NULL and err
 * on failure. */
mk_kl_conn *mk_kl_connect(mk_kubelet *k, const char *resource, const char *endpoint,
                          char *err, size_t errlen);
/* Closes every replaced endpoint still followed (at stop). */
void mk_kl_close_stale(mk_kubelet *k);
/* Makes conn the resource's registration (reporting MK_KL_REGISTERED) and
 * starts following its ListAndWatch; the registration it replaces stays
 * followed as a stale endpoint (kubelet v1.20 never stops it). A plugin
 * other than the one it replaces, or than one serving another resource
 * from the same endpoint, is reported (REPLACED, CLASH). Takes conn; -1
 * and err on failure. */
int mk_kl_install(mk_kubelet *k, mk_kl_conn *conn, char *err, size_t errlen);
/* Stops following the stream (joining its thread) and drops the resource's
 * reference. */
void mk_kl_close(mk_kl_conn *conn);
void mk_kl_conn_unref(mk_kl_conn *conn);
/* ListAndWatch's message callback (ctx: the conn): the plugin's device list
 * into its resource, when conn is still the registration; an error event
 * when the message is malformed. Also driven by tests/fuzz/kubelet/. */
void mk_kl_on_list(void *ctx, const uint8_t *msg, size_t len);

/* kubelet_nodesrc.c */
void mk_kl_nodesrc_init(mk_kubelet *k);

#endif
