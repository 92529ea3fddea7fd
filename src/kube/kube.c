/* kube.c - cluster mode's node source: a client (kube_client.c) and one
 * list+watch of the selected nodes into a store (kube_nodesink.c), with one
 * of pods beside it where asked (kube_podsink.c), offered to the suite
 * engine as a node source (mk_nodesrc). */
#include <stdio.h>
#include <stdlib.h>
#include "kube.h"
#include "kube_nodesink.h"
#include "kube_pod.h"
#include "kube_podsink.h"
#include "kube_store.h"

#define DEFAULT_WATCH_TIMEOUT_S 300

struct mk_kube {
    mk_kclient *client;
    mk_kstore *store;
    mk_knodesink *sink;
    mk_kwatch *watch;
    mk_kpodsink *podsink;
    mk_kwatch *podwatch;     /* NULL: pods are not watched */
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

/* The pods' list+watch, into the same store, within the same deadline. */
static int watch_pods(mk_kube *k, const mk_kube_opts *o, mk_kwatch_opts *wo, char *err,
                      size_t errlen)
{
    mk_kwatch_sink sink;
    char *path = mk_kpods_path(o->pods == MK_KUBE_PODS_ON_NODE ? o->node : NULL);
    if (!path || !(k->podsink = mk_kpodsink_new(k->store, &sink))) {
        free(path);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    wo->path = path;
    wo->what = "pods";
    k->podwatch = mk_kclient_watch(k->client, wo, &sink, err, errlen);
    free(path);
    return k->podwatch ? 0 : -1;
}

mk_kube *mk_kube_open(const mk_kube_opts *o, char *err, size_t errlen)
{
    mk_kube *k = calloc(1, sizeof *k);
    mk_kwatch_sink sink;
    char *path = NULL;
    if (!k || !(k->store = mk_kstore_new()) || !(k->sink = mk_knodesink_new(k->store, &sink)) ||
        !(path = mk_knodes_path(o->node, o->selector))) {
        snprintf(err, errlen, "out of memory");
        mk_kube_close(k);
        return NULL;
    }
    if (!(k->client = mk_kclient_open(o, err, errlen))) {
        free(path);
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
    k->watch = mk_kclient_watch(k->client, &wo, &sink, err, errlen);
    free(path);
    if (!k->watch || (o->pods && watch_pods(k, o, &wo, err, errlen))) {
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
    mk_kwatch_counts w, p = { 0 };
    mk_kwatch_counts_get(k->watch, &w);
    if (k->podwatch)
        mk_kwatch_counts_get(k->podwatch, &p);
    *out = (mk_kube_counts){
        .lists = w.http.lists + p.http.lists, .relists = w.relists + p.relists,
        .watches = w.http.watches + p.http.watches, .retries = w.http.retries + p.http.retries,
        .events = w.events + p.events, .bookmarks = w.bookmarks + p.bookmarks,
        .credential_loads = w.http.credential_loads + p.http.credential_loads,
    };
}

void mk_kube_describe(const mk_kube *k, char *buf, size_t len)
{
    mk_kclient_describe(k->client, buf, len);
}

void mk_kube_close(mk_kube *k)
{
    if (!k)
        return;
    mk_kwatch_free(k->podwatch);
    mk_kwatch_free(k->watch);
    mk_kclient_close(k->client);
    mk_kpodsink_free(k->podsink);
    mk_knodesink_free(k->sink);
    mk_kstore_free(k->store);
    free(k);
}
