/* kubelet_plugin.c - the built-in kubelet's connections to device plugins:
 * dialling a plugin back, its options, following its ListAndWatch stream
 * into the resource table, replacing a registration (the replaced one
 * stays followed, as in kubelet v1.20), and what a plugin's disappearance
 * does to its devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deviceplugin/deviceplugin.h"
#include "kubelet_impl.h"

static void conn_free(mk_kl_conn *c)
{
    mk_rpc_channel_close(c->ch);
    free(c->resource);
    free(c->endpoint);
    free(c);
}

void mk_kl_conn_unref(mk_kl_conn *c)
{
    pthread_mutex_lock(&c->k->mu);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&c->k->mu);
    if (last)
        conn_free(c);
}

static int get_options(mk_kl_conn *c, char *err, size_t errlen)
{
    V1beta1__Empty empty = V1BETA1__EMPTY__INIT;
    mk_rpc_buf req, resp;
    char why[512];
    if (mk_dp_pack(&empty, &req)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int code = mk_rpc_call(c->ch, MK_DP_GET_OPTIONS, req.data, req.len,
                           c->k->opts.call_timeout_ms, &resp, why, sizeof why);
    free(req.data);
    if (code != MK_RPC_OK) {
        snprintf(err, errlen, "GetDevicePluginOptions failed for %s: %s", c->resource, why);
        return -1;
    }
    V1beta1__DevicePluginOptions *o =
        v1beta1__device_plugin_options__unpack(NULL, resp.len, resp.data);
    free(resp.data);
    if (!o) {
        snprintf(err, errlen, "the device plugin for %s sent malformed DevicePluginOptions",
                 c->resource);
        return -1;
    }
    c->pre_start_required = o->pre_start_required;
    c->get_preferred_allocation = o->get_preferred_allocation_available;
    v1beta1__device_plugin_options__free_unpacked(o, NULL);
    return 0;
}

mk_kl_conn *mk_kl_connect(mk_kubelet *k, const char *resource, const char *endpoint,
                          char *err, size_t errlen)
{
    mk_kl_conn *c = calloc(1, sizeof *c);
    if (!c || !(c->resource = strdup(resource)) || !(c->endpoint = strdup(endpoint))) {
        if (c)
            conn_free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->k = k;
    c->refs = 1;
    char addr[4200], why[512];
    snprintf(addr, sizeof addr, "unix:%s/%s", k->dir, endpoint);
    if (k->opts.identify)
        k->opts.identify(k->opts.event_ctx, addr + 5, c->plugin, sizeof c->plugin, c->shadowed,
                         sizeof c->shadowed);
    c->ch = mk_rpc_dial(addr, k->opts.dial_timeout_ms, why, sizeof why);
    if (!c->ch) {
        snprintf(err, errlen, "cannot reach the device plugin for %s: %s", resource, why);
        conn_free(c);
        return NULL;
    }
    if (get_options(c, err, errlen)) {
        conn_free(c);
        return NULL;
    }
    return c;
}

static int is_current_locked(mk_kl_conn *c)
{
    mk_kl_resource *r = mk_kl_find_locked(c->k, c->resource);
    return r && r->conn == c && !c->closing && !c->k->stopping;
}

/* A replaced endpoint still followed: kubelet v1.20's device callback
 * takes its lists like the current one's (it never asks who sent them). */
static int is_stale_locked(mk_kl_conn *c)
{
    for (size_t i = 0; i < c->k->nstale; i++)
        if (c->k->stale[i] == c)
            return !c->closing && !c->k->stopping;
    return 0;
}

void mk_kl_on_list(void *ctx, const uint8_t *msg, size_t len)
{
    mk_kl_conn *c = ctx;
    mk_kubelet *k = c->k;
    mk_nv_device *dev;
    size_t n, healthy;
    char err[128];
    if (mk_dp_unpack_devices(msg, len, &dev, &n, &healthy, err, sizeof err)) {
        mk_kl_emit(k, MK_KL_ERROR, c->resource, c->endpoint, 0, 0, err);
        return;
    }
    size_t total = n;

    pthread_mutex_lock(&k->mu);
    int current = is_current_locked(c), stale = !current && is_stale_locked(c);
    if (current || stale) {
        /* Swap the new list in; the old one is freed below. */
        mk_kl_resource *res = mk_kl_find_locked(k, c->resource);
        mk_nv_device *old = res->dev;
        size_t nold = res->ndev;
        res->dev = dev;
        res->ndev = n;
        dev = old;
        n = nold;
        mk_kl_changed_locked(k);
    }
    pthread_mutex_unlock(&k->mu);
    mk_dp_free_devices(dev, n);
    if (current)
        mk_kl_emit_conn(c, MK_KL_DEVICES, healthy, total, NULL, NULL);
    else if (stale)
        mk_kl_emit_conn(c, MK_KL_STALE_LIST, healthy, total, NULL,
                        "a replaced endpoint sent its device list and it replaced the "
                        "resource's, as kubelet v1.20 does (it never stops a replaced endpoint)");
}

/* The plugin is gone: its devices stay in capacity but none is
 * allocatable, until it registers again. */
static int plugin_gone(mk_kl_conn *c)
{
    mk_kubelet *k = c->k;
    pthread_mutex_lock(&k->mu);
    int current = is_current_locked(c);
    if (current) {
        mk_kl_resource *res = mk_kl_find_locked(k, c->resource);
        for (size_t i = 0; i < res->ndev; i++)
            res->dev[i].healthy = 0;
        mk_kl_changed_locked(k);
    }
    pthread_mutex_unlock(&k->mu);
    return current;
}

static void on_end(void *ctx, int code, const char *msg)
{
    mk_kl_conn *c = ctx;
    if (plugin_gone(c))
        mk_kl_emit_conn(c, MK_KL_STREAM_ENDED, 0, 0, NULL, msg);
}

/* The resource's slot in the sorted table, added if new. */
static mk_kl_resource *slot_locked(mk_kubelet *k, const char *name)
{
    mk_kl_resource *r = mk_kl_find_locked(k, name);
    if (r)
        return r;
    size_t at = 0;
    while (at < k->nres && strcmp(k->res[at].name, name) < 0)
        at++;
    char *copy = strdup(name);
    mk_kl_resource *grown = copy ? realloc(k->res, (k->nres + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(copy);
        return NULL;
    }
    k->res = grown;
    memmove(&k->res[at + 1], &k->res[at], (k->nres - at) * sizeof *grown);
    k->res[at] = (mk_kl_resource){ .name = copy };
    k->nres++;
    return &k->res[at];
}

/* Another plugin's current registration served from c's endpoint: the
 * socket path c's plugin now listens on was theirs (the newer plugin
 * unlinked it; identify may see that too, as c->shadowed, even when the
 * other plugin's registration reached c's plugin). Its name into other;
 * 0 when none. */
static int clash_locked(mk_kubelet *k, const mk_kl_conn *c, char *other, size_t len)
{
    for (size_t i = 0; i < k->nres; i++) {
        const mk_kl_conn *o = k->res[i].conn;
        if (o && o != c && strcmp(o->endpoint, c->endpoint) == 0 && *o->plugin && *c->plugin &&
            strcmp(o->plugin, c->plugin) != 0) {
            snprintf(other, len, "%s", o->plugin);
            return 1;
        }
    }
    return 0;
}

/* Keeps the replaced endpoint followed; 0, or -1 when out of memory (then
 * it is closed, the one thing v1.20 would not do). */
static int keep_stale_locked(mk_kubelet *k, mk_kl_conn *old)
{
    mk_kl_conn **grown = realloc(k->stale, (k->nstale + 1) * sizeof *grown);
    if (!grown)
        return -1;
    k->stale = grown;
    k->stale[k->nstale++] = old;
    return 0;
}

int mk_kl_install(mk_kubelet *k, mk_kl_conn *c, char *err, size_t errlen)
{
    char replaced[64] = "", clashed[64] = "";
    pthread_mutex_lock(&k->mu);
    mk_kl_resource *res = k->stopping ? NULL : slot_locked(k, c->resource);
    mk_kl_conn *old = res ? res->conn : NULL;
    if (res) {
        if (old && strcmp(old->plugin, c->plugin) != 0)
            snprintf(replaced, sizeof replaced, "%s", old->plugin);
        if (*c->shadowed)
            snprintf(clashed, sizeof clashed, "%s", c->shadowed);
        else
            clash_locked(k, c, clashed, sizeof clashed);
        res->conn = c;
        if (old && keep_stale_locked(k, old) == 0)
            old = NULL;
        mk_kl_changed_locked(k);
    }
    pthread_mutex_unlock(&k->mu);
    if (!res) {
        snprintf(err, errlen, k->stopping ? "the kubelet is stopping" : "out of memory");
        mk_kl_conn_unref(c);
        return -1;
    }
    /* Before the stream starts, so that progress reads "registered", then
     * "devices". */
    mk_kl_emit_conn(c, MK_KL_REGISTERED, 0, 0, NULL, NULL);
    if (*replaced)
        mk_kl_emit_conn(c, MK_KL_REPLACED, 0, 0, replaced, NULL);
    if (*clashed) {
        char msg[512];
        snprintf(msg, sizeof msg, "plugins '%s' and '%s' both serve from the socket %s: '%s' "
                 "removed the socket file of '%s' and bound its own, so the kubelet reaches "
                 "only '%s' there", clashed, c->plugin, c->endpoint, c->plugin, clashed, c->plugin);
        mk_kl_emit_conn(c, MK_KL_CLASH, 0, 0, clashed, msg);
    }

    V1beta1__Empty empty = V1BETA1__EMPTY__INIT;
    mk_rpc_buf req = { 0 };
    char why[512] = "out of memory";
    if (mk_dp_pack(&empty, &req) == 0)
        c->watch = mk_rpc_watch_open(c->ch, MK_DP_LIST_AND_WATCH, req.data, req.len,
                                     mk_kl_on_list, on_end, c, why, sizeof why);
    free(req.data);
    if (old)
        mk_kl_close(old);
    if (!c->watch) {
        snprintf(err, errlen, "cannot call ListAndWatch on the device plugin for %s: %s",
                 c->resource, why);
        plugin_gone(c);
        return -1;
    }
    return 0;
}

void mk_kl_close_stale(mk_kubelet *k)
{
    pthread_mutex_lock(&k->mu);
    mk_kl_conn **stale = k->stale;
    size_t n = k->nstale;
    k->stale = NULL;
    k->nstale = 0;
    pthread_mutex_unlock(&k->mu);
    for (size_t i = 0; i < n; i++)
        mk_kl_close(stale[i]);
    free(stale);
}

void mk_kl_close(mk_kl_conn *c)
{
    pthread_mutex_lock(&c->k->mu);
    c->closing = 1;
    pthread_mutex_unlock(&c->k->mu);
    mk_rpc_watch_close(c->watch);
    mk_kl_conn_unref(c);
}
