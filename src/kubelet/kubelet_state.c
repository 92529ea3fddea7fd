/* kubelet_state.c - what the built-in kubelet's halves share, below all of
 * them: finding a resource in the table, telling waiters it changed, and
 * reporting events. kubelet.c (Registration), kubelet_plugin.c (plugin
 * connections) and kubelet_nodesrc.c (the node source) call down into this
 * file and never into each other's shared state. */
#include <string.h>
#include "kubelet_impl.h"

void mk_kl_changed_locked(mk_kubelet *k)
{
    k->version++;
    pthread_cond_broadcast(&k->cv);
}

void mk_kl_emit(mk_kubelet *k, mk_kubelet_event_kind kind, const char *resource,
                const char *endpoint, size_t healthy, size_t total, const char *msg)
{
    if (!k->opts.on_event)
        return;
    mk_kubelet_event ev = { kind, resource, endpoint, healthy, total, msg, NULL, NULL };
    k->opts.on_event(k->opts.event_ctx, &ev);
}

void mk_kl_emit_conn(const mk_kl_conn *c, mk_kubelet_event_kind kind, size_t healthy,
                     size_t total, const char *other, const char *msg)
{
    if (!c->k->opts.on_event)
        return;
    mk_kubelet_event ev = { kind, c->resource, c->endpoint, healthy, total, msg,
                            *c->plugin ? c->plugin : NULL, other };
    c->k->opts.on_event(c->k->opts.event_ctx, &ev);
}

mk_kl_resource *mk_kl_find_locked(mk_kubelet *k, const char *name)
{
    for (size_t i = 0; i < k->nres; i++)
        if (strcmp(k->res[i].name, name) == 0)
            return &k->res[i];
    return NULL;
}
