/* kube_nodesink.c - the watch of Node objects as a store of node views:
 * the sink (kube_watch.h) that parses each Node (kube_node.c) and keeps the
 * latest views for readers (kube_store.c), and the nodes' list path with
 * the caller's selectors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "kube.h"
#include "kube_node.h"
#include "kube_nodesink.h"

#define LIST_CAP0 500

struct mk_knodesink {
    mk_kstore *store;
    mk_nv_nodes list;        /* the LIST in progress */
    size_t cap;
};

static int on_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_knodesink *s = ctx;
    char why[512];
    (void)index;
    if (s->list.n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : LIST_CAP0;
        mk_nv_node *grown = realloc(s->list.node, cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "could not be held: out of memory");
            return -1;
        }
        s->list.node = grown;
        s->cap = cap;
    }
    if (mk_knode_from_json(obj, &s->list.node[s->list.n], why, sizeof why)) {
        snprintf(err, errlen, "is not a Node: %s", why);
        return -1;
    }
    s->list.n++;
    return 0;
}

static void on_list_abort(void *ctx)
{
    mk_knodesink *s = ctx;
    mk_nv_nodes_free(&s->list);
    s->list = (mk_nv_nodes){ 0 };
    s->cap = 0;
}

static int on_list_end(void *ctx)
{
    mk_knodesink *s = ctx;
    int rc = mk_kstore_replace(s->store, &s->list);   /* takes the nodes */
    s->list = (mk_nv_nodes){ 0 };
    s->cap = 0;
    return rc;
}

static int on_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_knodesink *s = ctx;
    if (!strcmp(type, "DELETED")) {
        const char *name = mk_kobj_name(obj);
        if (name && mk_kstore_delete(s->store, name)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        return 0;
    }
    mk_nv_node n;
    char why[512] = "out of memory";
    if (mk_knode_from_json(obj, &n, why, sizeof why) || mk_kstore_put(s->store, &n)) {
        snprintf(err, errlen, "%s event: %s", type, why);
        return -1;
    }
    return 0;
}

static void on_fail(void *ctx, const char *why)
{
    mk_knodesink *s = ctx;
    mk_kstore_fail(s->store, why);
}

mk_knodesink *mk_knodesink_new(mk_kstore *store, mk_kwatch_sink *out)
{
    mk_knodesink *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->store = store;
    *out = (mk_kwatch_sink){ .item = on_item, .list_end = on_list_end, .list_abort = on_list_abort,
                             .event = on_event, .fail = on_fail, .ctx = s };
    return s;
}

void mk_knodesink_free(mk_knodesink *s)
{
    if (!s)
        return;
    mk_nv_nodes_free(&s->list);
    free(s);
}

char *mk_knodes_path(const char *node, const char *selector)
{
    char *field = NULL, *fe = NULL, *le = NULL, *path = NULL;
    if (node && asprintf(&field, "metadata.name=%s", node) < 0)
        field = NULL;
    fe = field ? curl_easy_escape(NULL, field, 0) : NULL;
    le = selector ? curl_easy_escape(NULL, selector, 0) : NULL;
    if ((!node || fe) && (!selector || le) &&
        asprintf(&path, "/api/v1/nodes%s%s%s%s%s%s", fe || le ? "?" : "",
                 fe ? "fieldSelector=" : "", fe ? fe : "", fe && le ? "&" : "",
                 le ? "labelSelector=" : "", le ? le : "") < 0)
        path = NULL;
    free(field);
    curl_free(fe);
    curl_free(le);
    return path;
}
