/* service.c - the stand-in's DevicePlugin service and its registration:
 * options (GetPreferredAllocation available), ListAndWatch (the full list,
 * then again on every health change), GetPreferredAllocation (same NUMA
 * node first, then by index), Allocate (NVIDIA_VISIBLE_DEVICES=<UUIDs>),
 * PreStartContainer (nothing to do). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "deviceplugin/deviceplugin.h"
#include "plugin.h"

static int options(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                   char *msg, size_t ml)
{
    V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;
    o.get_preferred_allocation_available = 1;
    return mk_dp_pack(&o, resp) ? MK_RPC_INTERNAL : MK_RPC_OK;
}

static int pack_list_locked(mk_plugin *p, mk_rpc_buf *out)
{
    mk_nv_device *dev = calloc(p->ngpu + 1, sizeof *dev);
    if (!dev)
        return -1;
    for (size_t i = 0; i < p->ngpu; i++)
        dev[i] = (mk_nv_device){ p->gpu[i].uuid, p->gpu[i].healthy, p->gpu[i].numa };
    int rc = mk_dp_pack_devices(dev, p->ngpu, out);
    free(dev);
    return rc;
}

void mk_service_send_locked(mk_plugin *p)
{
    mk_rpc_buf m;
    if (!p->srv || pack_list_locked(p, &m))
        return;
    mk_rpc_server_broadcast(p->srv, MK_DP_LIST_AND_WATCH, m.data, m.len);
    free(m.data);
}

static int list_and_watch(void *ctx, mk_rpc_stream *st, const uint8_t *req, size_t len,
                          char *msg, size_t ml)
{
    mk_plugin *p = ctx;
    mk_rpc_buf m;
    int sent = 0;
    pthread_mutex_lock(&p->mu);
    if (pack_list_locked(p, &m) == 0) {
        sent = mk_rpc_stream_send(st, m.data, m.len) == 0;
        free(m.data);
    }
    pthread_mutex_unlock(&p->mu);
    return sent ? MK_RPC_OK : MK_RPC_INTERNAL;
}

static long find_gpu(const mk_plugin *p, const char *id)
{
    for (size_t i = 0; i < p->ngpu; i++)
        if (strcmp(p->gpu[i].uuid, id) == 0)
            return (long)i;
    return -1;
}

/* Adds GPU i to the pick unless it is there; returns the new size. */
static size_t pick_add(long *pick, size_t n, long i)
{
    for (size_t j = 0; j < n; j++)
        if (pick[j] == i)
            return n;
    pick[n] = i;
    return n + 1;
}

/* The must-include GPUs, then available ones on the NUMA node of the
 * first of them (or the node with the most available GPUs), then the rest,
 * each group by GPU index. */
static size_t choose(const mk_plugin *p, const V1beta1__ContainerPreferredAllocationRequest *c,
                     long *pick)
{
    size_t n = 0, size = c->allocation_size > 0 ? (size_t)c->allocation_size : 0;
    char *avail = calloc(p->ngpu + 1, 1);
    if (!avail)
        return 0;
    for (size_t i = 0; i < c->n_must_include_deviceids; i++) {
        long g = find_gpu(p, c->must_include_deviceids[i]);
        if (g >= 0)
            n = pick_add(pick, n, g);
    }
    for (size_t i = 0; i < c->n_available_deviceids; i++) {
        long g = find_gpu(p, c->available_deviceids[i]);
        if (g >= 0)
            avail[g] = 1;
    }
    int target = n ? p->gpu[pick[0]].numa : -1;
    size_t best = 0;
    for (size_t i = 0; !n && i < p->ngpu; i++) {
        size_t same = 0;
        for (size_t j = 0; j < p->ngpu; j++)
            same += avail[j] && p->gpu[j].numa == p->gpu[i].numa;
        if (avail[i] && same > best) {
            best = same;
            target = p->gpu[i].numa;
        }
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < p->ngpu && n < size; i++)
            if (avail[i] && (pass == 1 || p->gpu[i].numa == target))
                n = pick_add(pick, n, (long)i);
    free(avail);
    return n;
}

static int preferred(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                     char *msg, size_t ml)
{
    mk_plugin *p = ctx;
    V1beta1__PreferredAllocationRequest *r =
        v1beta1__preferred_allocation_request__unpack(NULL, len, req);
    if (!r) {
        snprintf(msg, ml, "malformed PreferredAllocationRequest");
        return MK_RPC_INVALID_ARGUMENT;
    }
    size_t nc = r->n_container_requests;
    V1beta1__ContainerPreferredAllocationResponse *cr = calloc(nc + 1, sizeof *cr);
    V1beta1__ContainerPreferredAllocationResponse **crp = calloc(nc + 1, sizeof *crp);
    char **ids = calloc(nc * p->ngpu + 1, sizeof *ids);
    long *pick = calloc(p->ngpu + 1, sizeof *pick);
    int code = MK_RPC_INTERNAL;
    if (cr && crp && ids && pick) {
        for (size_t c = 0; c < nc; c++) {
            size_t n = choose(p, r->container_requests[c], pick);
            v1beta1__container_preferred_allocation_response__init(&cr[c]);
            cr[c].deviceids = &ids[c * p->ngpu];
            for (size_t i = 0; i < n; i++)
                cr[c].deviceids[i] = p->gpu[pick[i]].uuid;
            cr[c].n_deviceids = n;
            crp[c] = &cr[c];
        }
        V1beta1__PreferredAllocationResponse out = V1BETA1__PREFERRED_ALLOCATION_RESPONSE__INIT;
        out.n_container_responses = nc;
        out.container_responses = crp;
        code = mk_dp_pack(&out, resp) ? MK_RPC_INTERNAL : MK_RPC_OK;
    }
    free(cr);
    free(crp);
    free(ids);
    free(pick);
    v1beta1__preferred_allocation_request__free_unpacked(r, NULL);
    return code;
}

/* NVIDIA_VISIBLE_DEVICES for one container; -1 with msg for an unknown id. */
static int visible_devices(const mk_plugin *p, const V1beta1__ContainerAllocateRequest *c,
                           char **out, char *msg, size_t ml)
{
    size_t need = 1;
    for (size_t i = 0; i < c->n_devices_ids; i++) {
        if (find_gpu(p, c->devices_ids[i]) < 0) {
            snprintf(msg, ml, "invalid allocation request for \"%s\": unknown device: %s",
                     p->resource, c->devices_ids[i]);
            return -1;
        }
        need += strlen(c->devices_ids[i]) + 1;
    }
    if (!(*out = malloc(need))) {
        snprintf(msg, ml, "out of memory");
        return -1;
    }
    (*out)[0] = 0;
    for (size_t i = 0; i < c->n_devices_ids; i++) {
        if (i)
            strcat(*out, ",");
        strcat(*out, c->devices_ids[i]);
    }
    return 0;
}

static int allocate(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                    char *msg, size_t ml)
{
    mk_plugin *p = ctx;
    V1beta1__AllocateRequest *r = v1beta1__allocate_request__unpack(NULL, len, req);
    if (!r) {
        snprintf(msg, ml, "malformed AllocateRequest");
        return MK_RPC_INVALID_ARGUMENT;
    }
    size_t nc = r->n_container_requests;
    V1beta1__ContainerAllocateResponse *cr = calloc(nc + 1, sizeof *cr);
    V1beta1__ContainerAllocateResponse **crp = calloc(nc + 1, sizeof *crp);
    V1beta1__ContainerAllocateResponse__EnvsEntry *env = calloc(nc + 1, sizeof *env);
    V1beta1__ContainerAllocateResponse__EnvsEntry **envp = calloc(nc + 1, sizeof *envp);
    char **values = calloc(nc + 1, sizeof *values);
    int code = MK_RPC_INTERNAL;
    if (cr && crp && env && envp && values) {
        code = MK_RPC_OK;
        for (size_t c = 0; c < nc && code == MK_RPC_OK; c++) {
            if (visible_devices(p, r->container_requests[c], &values[c], msg, ml)) {
                code = MK_RPC_INVALID_ARGUMENT;
                break;
            }
            v1beta1__container_allocate_response__envs_entry__init(&env[c]);
            env[c].key = "NVIDIA_VISIBLE_DEVICES";
            env[c].value = values[c];
            envp[c] = &env[c];
            v1beta1__container_allocate_response__init(&cr[c]);
            cr[c].n_envs = 1;
            cr[c].envs = &envp[c];
            crp[c] = &cr[c];
        }
        V1beta1__AllocateResponse out = V1BETA1__ALLOCATE_RESPONSE__INIT;
        out.n_container_responses = nc;
        out.container_responses = crp;
        if (code == MK_RPC_OK && mk_dp_pack(&out, resp))
            code = MK_RPC_INTERNAL;
    }
    for (size_t c = 0; values && c < nc; c++)
        free(values[c]);
    free(values);
    free(cr);
    free(crp);
    free(env);
    free(envp);
    v1beta1__allocate_request__free_unpacked(r, NULL);
    return code;
}

static int pre_start(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                     char *msg, size_t ml)
{
    V1beta1__PreStartContainerResponse out = V1BETA1__PRE_START_CONTAINER_RESPONSE__INIT;
    return mk_dp_pack(&out, resp) ? MK_RPC_INTERNAL : MK_RPC_OK;
}

static const mk_rpc_method methods[] = {
    { MK_DP_GET_OPTIONS, options, NULL },
    { MK_DP_LIST_AND_WATCH, NULL, list_and_watch },
    { MK_DP_GET_PREFERRED, preferred, NULL },
    { MK_DP_ALLOCATE, allocate, NULL },
    { MK_DP_PRE_START, pre_start, NULL },
};

static int register_with_kubelet(mk_plugin *p, char *err, size_t errlen)
{
    char addr[4200], why[512];
    snprintf(addr, sizeof addr, "unix:%s", p->kubelet_socket);
    /* Like NVIDIA's blocking dial: keep trying for 5 s, since the socket
     * file appears (and wakes us) a moment before the kubelet listens. */
    mk_rpc_channel *ch = NULL;
    for (int tries = 0; !ch && tries < 50; tries++) {
        if (tries) {
            struct timespec pause = { 0, 100 * 1000000L };
            nanosleep(&pause, NULL);
        }
        ch = mk_rpc_dial(addr, 5000, why, sizeof why);
    }
    if (!ch) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;
    o.get_preferred_allocation_available = 1;
    /* The kubelet dials us back before it answers: allow for that. */
    int code = mk_dp_register(ch, MK_DP_VERSION, p->resource, p->endpoint, &o, 30000,
                              err, errlen);
    mk_rpc_channel_close(ch);
    return code == MK_RPC_OK ? 0 : -1;
}

int mk_service_start(mk_plugin *p, char *err, size_t errlen)
{
    char addr[4500], why[512];
    if (unlink(p->socket) != 0 && errno != ENOENT)
        mk_log('W', "Could not remove %s: %s", p->socket, strerror(errno));
    snprintf(addr, sizeof addr, "unix:%s", p->socket);
    mk_rpc_server *srv = mk_rpc_server_start(addr, methods, sizeof methods / sizeof methods[0], p,
                                             why, sizeof why);
    if (!srv) {
        snprintf(err, errlen, "could not start device plugin for '%s': %s", p->resource, why);
        return -1;
    }
    pthread_mutex_lock(&p->mu);
    p->srv = srv;
    pthread_mutex_unlock(&p->mu);
    mk_log('I', "Starting to serve '%s' on %s", p->resource, p->socket);
    if (register_with_kubelet(p, why, sizeof why)) {
        mk_log('E', "Could not register device plugin: %s", why);
        snprintf(err, errlen, "could not register device plugin for '%s': %s", p->resource, why);
        mk_service_stop(p);
        return -1;
    }
    mk_log('I', "Registered device plugin for '%s' with Kubelet", p->resource);
    return 0;
}

void mk_service_stop(mk_plugin *p)
{
    pthread_mutex_lock(&p->mu);
    mk_rpc_server *srv = p->srv;
    p->srv = NULL;
    pthread_mutex_unlock(&p->mu);
    if (!srv)
        return;
    mk_log('I', "Stopping to serve '%s' on %s", p->resource, p->socket);
    mk_rpc_server_stop(srv);
}
