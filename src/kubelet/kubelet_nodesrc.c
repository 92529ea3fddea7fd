/* kubelet_nodesrc.c - the built-in kubelet as a node source (nodeview.h):
 * snapshots of what the node advertises, waiting for changes, and asking a
 * plugin for a preferred allocation or to allocate devices for one
 * container, as the kubelet's device manager does at admission. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/util.h"
#include "deviceplugin/deviceplugin.h"
#include "kubelet_impl.h"

static int snapshot(mk_nodesrc *s, mk_nv_nodes *out, char *err, size_t errlen)
{
    mk_kubelet *k = s->impl;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&k->mu);
    /* A shallow view of the table, deep-copied while the lock is held. */
    mk_nv_resource *res = k->nres ? calloc(k->nres, sizeof *res) : NULL;
    int rc = -1;
    if (!k->nres || res) {
        for (size_t i = 0; i < k->nres; i++) {
            const mk_kl_resource *r = &k->res[i];
            long long healthy = 0;
            for (size_t j = 0; j < r->ndev; j++)
                healthy += r->dev[j].healthy;
            res[i] = (mk_nv_resource){
                .name = r->name, .capacity = (long long)r->ndev, .allocatable = healthy,
                .ndev = r->ndev, .dev = r->dev,
                .endpoint = r->conn ? r->conn->endpoint : NULL,
                .plugin = r->conn && *r->conn->plugin ? r->conn->plugin : NULL,
                .get_preferred_allocation = r->conn && r->conn->get_preferred_allocation,
                .pre_start_required = r->conn && r->conn->pre_start_required,
            };
        }
        mk_nv_node node = { .name = k->node_name, .nres = k->nres, .res = res };
        mk_nv_nodes view = { .version = k->version, .n = 1, .node = &node };
        rc = mk_nv_nodes_copy(out, &view);
    }
    pthread_mutex_unlock(&k->mu);
    free(res);
    if (rc)
        snprintf(err, errlen, "out of memory");
    return rc;
}

static int wait_change(mk_nodesrc *s, uint64_t seen, int timeout_ms, char *err, size_t errlen)
{
    mk_kubelet *k = s->impl;
    struct timespec until = mk_abstime_in(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&k->mu);
    k->users++;
    while (k->version == seen && !k->stopping)
        if (pthread_cond_timedwait(&k->cv, &k->mu, &until) == ETIMEDOUT)
            break;
    int rc = k->version != seen ? 1 : k->stopping ? -1 : 0;
    k->users--;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    if (rc < 0)
        snprintf(err, errlen, "the built-in kubelet has stopped");
    return rc;
}

/* Takes a reference on the resource's registration for a call to its
 * plugin; mk_kubelet_stop waits until it is given back. */
static mk_kl_conn *take_locked(mk_kubelet *k, const char *resource, mk_kl_resource **res,
                               char *err, size_t errlen)
{
    *res = mk_kl_find_locked(k, resource);
    if (k->stopping) {
        snprintf(err, errlen, "the built-in kubelet has stopped");
        return NULL;
    }
    if (!*res || !(*res)->conn) {
        snprintf(err, errlen, "no device plugin has registered %s", resource);
        return NULL;
    }
    (*res)->conn->refs++;
    k->users++;
    return (*res)->conn;
}

static void give_back(mk_kubelet *k, mk_kl_conn *c)
{
    mk_kl_conn_unref(c);
    pthread_mutex_lock(&k->mu);
    k->users--;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

/* One unary call to the plugin; the response is malloc'd. */
static int call(mk_kl_conn *c, const char *method, const char *what, const void *msg,
                int timeout_ms, mk_rpc_buf *resp, char *err, size_t errlen)
{
    mk_rpc_buf req;
    char why[512];
    if (mk_dp_pack(msg, &req)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int code = mk_rpc_call(c->ch, method, req.data, req.len, timeout_ms, resp, why, sizeof why);
    free(req.data);
    if (code != MK_RPC_OK) {
        snprintf(err, errlen, "%s failed for %s: %s", what, c->resource, why);
        return -1;
    }
    return 0;
}

static int ask_preferred(mk_kl_conn *c, char **available, size_t navail, char **must,
                         size_t nmust, size_t size, char ***out, size_t *nout,
                         char *err, size_t errlen)
{
    V1beta1__ContainerPreferredAllocationRequest creq =
        V1BETA1__CONTAINER_PREFERRED_ALLOCATION_REQUEST__INIT;
    creq.n_available_deviceids = navail;
    creq.available_deviceids = available;
    creq.n_must_include_deviceids = nmust;
    creq.must_include_deviceids = must;
    creq.allocation_size = (int32_t)size;
    V1beta1__ContainerPreferredAllocationRequest *creqs[1] = { &creq };
    V1beta1__PreferredAllocationRequest req = V1BETA1__PREFERRED_ALLOCATION_REQUEST__INIT;
    req.n_container_requests = 1;
    req.container_requests = creqs;

    mk_rpc_buf resp;
    char why[256];
    if (call(c, MK_DP_GET_PREFERRED, "GetPreferredAllocation", &req, c->k->opts.call_timeout_ms,
             &resp, err, errlen))
        return -1;
    int rc = mk_dp_unpack_preferred(resp.data, resp.len, out, nout, why, sizeof why);
    free(resp.data);
    if (rc)
        snprintf(err, errlen, "GetPreferredAllocation for %s: %s", c->resource, why);
    return rc;
}

static int preferred(mk_nodesrc *s, const char *resource, char **available, size_t navail,
                     char **must, size_t nmust, size_t size,
                     char ***out, size_t *nout, char *err, size_t errlen)
{
    mk_kubelet *k = s->impl;
    mk_kl_resource *res;
    *out = NULL;
    *nout = 0;
    pthread_mutex_lock(&k->mu);
    mk_kl_conn *c = take_locked(k, resource, &res, err, errlen);
    pthread_mutex_unlock(&k->mu);
    if (!c)
        return -1;
    int rc = -1;
    if (!c->get_preferred_allocation)
        snprintf(err, errlen, "the device plugin for %s does not offer GetPreferredAllocation",
                 resource);
    else
        rc = ask_preferred(c, available, navail, must, nmust, size, out, nout, err, errlen);
    give_back(k, c);
    return rc;
}

/* The kubelet only hands out devices it has seen healthy. */
static int check_ids_locked(const mk_kl_resource *res, char **ids, size_t nids,
                            char *err, size_t errlen)
{
    if (nids == 0) {
        snprintf(err, errlen, "no devices to allocate");
        return -1;
    }
    for (size_t i = 0; i < nids; i++) {
        const mk_nv_device *d = NULL;
        for (size_t j = 0; j < res->ndev && !d; j++)
            if (strcmp(res->dev[j].id, ids[i]) == 0)
                d = &res->dev[j];
        if (!d) {
            snprintf(err, errlen, "%s has no device %s", res->name, ids[i]);
            return -1;
        }
        if (!d->healthy) {
            snprintf(err, errlen, "device %s of %s is unhealthy; the kubelet would not allocate it",
                     ids[i], res->name);
            return -1;
        }
    }
    return 0;
}

static int do_allocate(mk_kl_conn *c, char **ids, size_t nids, mk_nv_alloc *out,
                       char *err, size_t errlen)
{
    V1beta1__ContainerAllocateRequest creq = V1BETA1__CONTAINER_ALLOCATE_REQUEST__INIT;
    creq.n_devices_ids = nids;
    creq.devices_ids = ids;
    V1beta1__ContainerAllocateRequest *creqs[1] = { &creq };
    V1beta1__AllocateRequest req = V1BETA1__ALLOCATE_REQUEST__INIT;
    req.n_container_requests = 1;
    req.container_requests = creqs;

    mk_rpc_buf resp;
    char why[256];
    if (call(c, MK_DP_ALLOCATE, "Allocate", &req, c->k->opts.call_timeout_ms, &resp, err, errlen))
        return -1;
    int rc = mk_dp_unpack_allocation(resp.data, resp.len, ids, nids, out, why, sizeof why);
    free(resp.data);
    if (rc)
        snprintf(err, errlen, "Allocate for %s: %s", c->resource, why);
    return rc;
}

static int pre_start(mk_kl_conn *c, char **ids, size_t nids, char *err, size_t errlen)
{
    V1beta1__PreStartContainerRequest req = V1BETA1__PRE_START_CONTAINER_REQUEST__INIT;
    req.n_devices_ids = nids;
    req.devices_ids = ids;
    mk_rpc_buf resp;
    if (call(c, MK_DP_PRE_START, "PreStartContainer", &req, c->k->opts.prestart_timeout_ms,
             &resp, err, errlen))
        return -1;
    free(resp.data);
    return 0;
}

static int allocate(mk_nodesrc *s, const char *resource, char **ids, size_t nids,
                    mk_nv_alloc *out, char *err, size_t errlen)
{
    mk_kubelet *k = s->impl;
    mk_kl_resource *res;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&k->mu);
    mk_kl_conn *c = take_locked(k, resource, &res, err, errlen);
    int bad = c && check_ids_locked(res, ids, nids, err, errlen);
    pthread_mutex_unlock(&k->mu);
    if (!c)
        return -1;
    int rc = bad ? -1 : do_allocate(c, ids, nids, out, err, errlen);
    if (rc == 0 && c->pre_start_required)
        rc = pre_start(c, ids, nids, err, errlen);
    give_back(k, c);
    if (rc)
        mk_nv_alloc_free(out);
    return rc;
}

void mk_kl_nodesrc_init(mk_kubelet *k)
{
    k->src = (mk_nodesrc){
        .kind = "built-in kubelet",
        .snapshot = snapshot,
        .wait_change = wait_change,
        .preferred = preferred,
        .allocate = allocate,
        .impl = k,
    };
}

mk_nodesrc *mk_kubelet_nodesrc(mk_kubelet *k)
{
    return &k->src;
}
