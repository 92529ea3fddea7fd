/* kube.c - cluster mode's entry points: kubeconfig -> HTTP client -> list+
 * watch, offered to the suite engine as a node source (mk_nodesrc). */
#include <stdio.h>
#include <stdlib.h>
#include "kube.h"
#include "kube_http.h"
#include "kube_nodesink.h"
#include "kube_store.h"
#include "kube_watch.h"
#include "kubeconfig.h"

#define DEFAULT_WATCH_TIMEOUT_S 300

struct mk_kube {
    mk_ktarget target;
    mk_khttp *http;          /* owned by the watch once it started */
    mk_kstore *store;
    mk_knodesink *sink;
    mk_kwatch *watch;
    mk_nodesrc src;
};

static int src_snapshot(mk_nodesrc *s, mk_nv_nodes *out, char *err, size_t errlen)
{
    mk_kube *k = s->impl;
    return mk_kstore_snapshot(k->store, out, err, errlen);
}

static int src_wait(mk_nodesrc *s, uint64_t seen, int timeout_ms, char *err, size_t errlen)
{
    mk_kube *k = s->impl;
    return mk_kstore_wait(k->store, seen, timeout_ms, err, errlen);
}

mk_kube *mk_kube_open(const mk_kube_opts *o, char *err, size_t errlen)
{
    mk_klog log = { .fn = o->log, .ctx = o->log_ctx, .verbose = o->verbose };
    mk_kube *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!(k->store = mk_kstore_new())) {
        snprintf(err, errlen, "out of memory");
        mk_kube_close(k);
        return NULL;
    }
    if (mk_kubeconfig_load(o->kubeconfig, o->context, &k->target, err, errlen) ||
        !(k->http = mk_khttp_new(&k->target, &log, err, errlen))) {
        mk_kube_close(k);
        return NULL;
    }
    if (o->verbose) {
        char who[2048];
        mk_khttp_describe(k->http, who, sizeof who);
        mk_klogf(&log, 0, "API server %s", who);
    }
    mk_kwatch_sink sink;
    char *path = mk_knodes_path(o->node, o->selector);
    if (!path || !(k->sink = mk_knodesink_new(k->store, &sink))) {
        free(path);
        mk_khttp_free(k->http);
        k->http = NULL;
        snprintf(err, errlen, "out of memory");
        mk_kube_close(k);
        return NULL;
    }
    mk_kwatch_opts wo = {
        .path = path,
        .what = "nodes",
        .watch_timeout_s = o->watch_timeout_s > 0 ? o->watch_timeout_s : DEFAULT_WATCH_TIMEOUT_S,
        .first_deadline_ms = mk_kmono_ms() +
            (o->open_timeout_ms > 0 ? o->open_timeout_ms : MK_KUBE_OPEN_TIMEOUT_MS),
    };
    k->watch = mk_kwatch_start(k->http, &sink, &log, &wo, err, errlen);
    free(path);
    if (!k->watch) {
        k->http = NULL;     /* freed by mk_kwatch_start */
        mk_kube_close(k);
        return NULL;
    }
    k->src = (mk_nodesrc){ .kind = "API server", .snapshot = src_snapshot,
                           .wait_change = src_wait, .impl = k };
    return k;
}

mk_nodesrc *mk_kube_nodesrc(mk_kube *k)
{
    return &k->src;
}

void mk_kube_stats(const mk_kube *k, mk_kube_counts *out)
{
    mk_khttp_counts h;
    mk_kwatch_counts w;
    mk_khttp_counts_get(k->http, &h);
    mk_kwatch_counts_get(k->watch, &w);
    *out = (mk_kube_counts){
        .lists = h.lists, .relists = w.relists, .watches = h.watches, .retries = h.retries,
        .events = w.events, .bookmarks = w.bookmarks, .credential_loads = h.credential_loads,
    };
}

void mk_kube_describe(const mk_kube *k, char *buf, size_t len)
{
    mk_khttp_describe(k->http, buf, len);
}

void mk_kube_close(mk_kube *k)
{
    if (!k)
        return;
    if (k->watch)
        mk_kwatch_free(k->watch);
    else
        mk_khttp_free(k->http);
    mk_knodesink_free(k->sink);
    mk_kstore_free(k->store);
    mk_ktarget_free(&k->target);
    free(k);
}
