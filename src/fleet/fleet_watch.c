/* fleet_watch.c - the fleet's own Nodes, watched (one watch, by the label
 * mokka.io/fleet=NAME): a node that is gone - deleted by hand, or lost
 * with an API server's data - is registered again, so that a fleet keeps
 * every node it was asked for; and the labels others put on a node
 * (kubectl label) count for the GPUFaults that select nodes by label, as
 * on a real node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet_int.h"

#define WATCH_TIMEOUT_S 300
#define LIST_DEADLINE_MS 60000

static fnode *ours(mk_fleet *f, const json_t *obj)
{
    const char *name = mk_kobj_name(obj);
    json_t *at = name ? json_object_get(f->by_name, name) : NULL;
    return at ? &f->node[json_integer_value(at)] : NULL;
}

static void seen(mk_fleet *f, fnode *n, const json_t *obj)
{
    json_t *l = json_object_get(json_object_get(obj, "metadata"), "labels");
    n->seen_gen = f->node_list_gen;
    if (json_is_object(l) && !(n->seen_labels && json_equal(l, n->seen_labels))) {
        json_decref(n->seen_labels);
        n->seen_labels = json_deep_copy(l);
        f->fault_version++;             /* the faults that select by label look again */
        pthread_cond_broadcast(&f->tick);
    }
}

/* A node of the fleet that is not there (any more). */
static void gone(mk_fleet *f, fnode *n)
{
    if (!n->registered || f->stop)
        return;
    say(f, 1, "node %s: gone from the API server; registering it again", n->name);
    n->registered = 0;
    f->registered--;
    fleet_queue(f, W_NODE_CREATE, (int)(n - f->node));
}

static int w_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    (void)err;
    (void)errlen;
    pthread_mutex_lock(&f->mu);
    if (index == 0)
        f->node_list_gen++;
    fnode *n = ours(f, obj);
    if (n)
        seen(f, n, obj);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static int w_end(void *ctx)
{
    mk_fleet *f = ctx;
    pthread_mutex_lock(&f->mu);
    if (f->node_list_gen == 0)          /* an empty list: no item came */
        f->node_list_gen++;
    for (size_t i = 0; i < f->nnodes; i++)
        if (f->node[i].seen_gen != f->node_list_gen)
            gone(f, &f->node[i]);
    f->node_list_gen++;                 /* the next list counts afresh */
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void w_abort(void *ctx)
{
    (void)ctx;
}

static int w_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    (void)err;
    (void)errlen;
    pthread_mutex_lock(&f->mu);
    fnode *n = ours(f, obj);
    if (n && !strcmp(type, "DELETED"))
        gone(f, n);
    else if (n)
        seen(f, n, obj);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void w_fail(void *ctx, const char *why)
{
    fleet_fail(ctx, "the watch of the fleet's nodes failed: %.900s", why);
}

/* Started once every node was registered: the first list sees them all. */
int fleet_watch_start(mk_fleet *f, char *err, size_t errlen)
{
    char path[600];
    snprintf(path, sizeof path, "/api/v1/nodes?labelSelector=" FLEET_LABEL "%%3D%s", f->name);
    mk_kwatch_sink sink = { .item = w_item, .list_end = w_end, .list_abort = w_abort,
                            .event = w_event, .fail = w_fail, .ctx = f };
    mk_kwatch_opts wo = { .path = path, .what = "the fleet's nodes", .watch_timeout_s = WATCH_TIMEOUT_S,
                          .jitter = 1, .first_deadline_ms = mk_kmono_ms() + LIST_DEADLINE_MS };
    return (f->nodes_watch = mk_kclient_watch(f->client, &wo, &sink, err, errlen)) ? 0 : -1;
}

void fleet_watch_stop(mk_fleet *f)
{
    if (f->nodes_watch)
        mk_kwatch_free(f->nodes_watch);
    f->nodes_watch = NULL;
    for (size_t i = 0; i < f->nnodes; i++) {
        json_decref(f->node[i].seen_labels);
        f->node[i].seen_labels = NULL;
    }
}
