/* nodeview.c - copying, freeing and looking things up in node views. */
#include <stdlib.h>
#include <string.h>
#include "nodeview.h"

static void kv_free(mk_nv_kv *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].value);
    }
    free(v);
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void mk_nv_node_free(mk_nv_node *n)
{
    free(n->name);
    for (size_t i = 0; i < n->nres; i++) {
        mk_nv_resource *r = &n->res[i];
        free(r->name);
        free(r->endpoint);
        free(r->plugin);
        for (size_t j = 0; j < r->ndev; j++)
            free(r->dev[j].id);
        free(r->dev);
    }
    free(n->res);
    kv_free(n->labels, n->nlabels);
    kv_free(n->annotations, n->nannotations);
    for (size_t i = 0; i < n->nconditions; i++) {
        mk_nv_condition *c = &n->conditions[i];
        free(c->type); free(c->status); free(c->reason); free(c->message);
    }
    free(n->conditions);
    for (size_t i = 0; i < n->ntaints; i++) {
        free(n->taints[i].key); free(n->taints[i].value); free(n->taints[i].effect);
    }
    free(n->taints);
    memset(n, 0, sizeof *n);
}

void mk_nv_pod_free(mk_nv_pod *p)
{
    free(p->ns);
    free(p->name);
    free(p->node);
    for (size_t i = 0; i < p->nreq; i++)
        free(p->req[i].name);
    free(p->req);
    kv_free(p->labels, p->nlabels);
    free(p->unschedulable);
    memset(p, 0, sizeof *p);
}

void mk_nv_nodes_free(mk_nv_nodes *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        mk_nv_node_free(&ns->node[i]);
    free(ns->node);
    for (size_t i = 0; i < ns->npods; i++)
        mk_nv_pod_free(&ns->pod[i]);
    free(ns->pod);
    memset(ns, 0, sizeof *ns);
}

void mk_nv_alloc_free(mk_nv_alloc *a)
{
    strv_free(a->ids, a->nids);
    kv_free(a->envs, a->nenvs);
    kv_free(a->mounts, a->nmounts);
    kv_free(a->devices, a->ndevices);
    kv_free(a->annotations, a->nannotations);
    strv_free(a->cdi, a->ncdi);
    memset(a, 0, sizeof *a);
}

/* Deep copies. Each returns -1 on allocation failure, leaving what was copied
 * so far owned by dst, so that the caller's free releases it. */
static int sdup(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = strdup(src);
    return *dst ? 0 : -1;
}

static int kv_copy(mk_nv_kv **dst, size_t *ndst, const mk_nv_kv *src, size_t n)
{
    *ndst = 0;
    *dst = n ? calloc(n, sizeof **dst) : NULL;
    if (n && !*dst)
        return -1;
    *ndst = n;
    for (size_t i = 0; i < n; i++)
        if (sdup(&(*dst)[i].key, src[i].key) || sdup(&(*dst)[i].value, src[i].value))
            return -1;
    return 0;
}

static int res_copy(mk_nv_resource *d, const mk_nv_resource *s)
{
    *d = *s;
    d->name = d->endpoint = d->plugin = NULL;
    d->ndev = 0;
    d->dev = s->ndev ? calloc(s->ndev, sizeof *d->dev) : NULL;
    if (s->ndev && !d->dev)
        return -1;
    d->ndev = s->ndev;
    for (size_t j = 0; j < s->ndev; j++) {
        d->dev[j] = s->dev[j];
        if (sdup(&d->dev[j].id, s->dev[j].id))
            return -1;
    }
    return sdup(&d->name, s->name) || sdup(&d->endpoint, s->endpoint) ||
           sdup(&d->plugin, s->plugin) ? -1 : 0;
}

static int node_copy(mk_nv_node *d, const mk_nv_node *s)
{
    memset(d, 0, sizeof *d);
    if (sdup(&d->name, s->name))
        return -1;
    if (s->nres && !(d->res = calloc(s->nres, sizeof *d->res)))
        return -1;
    for (size_t i = 0; i < s->nres; i++, d->nres++)
        if (res_copy(&d->res[i], &s->res[i]))
            return -1;
    if (kv_copy(&d->labels, &d->nlabels, s->labels, s->nlabels) ||
        kv_copy(&d->annotations, &d->nannotations, s->annotations, s->nannotations))
        return -1;
    if (s->nconditions && !(d->conditions = calloc(s->nconditions, sizeof *d->conditions)))
        return -1;
    for (size_t i = 0; i < s->nconditions; i++, d->nconditions++) {
        const mk_nv_condition *c = &s->conditions[i];
        mk_nv_condition *o = &d->conditions[i];
        if (sdup(&o->type, c->type) || sdup(&o->status, c->status) ||
            sdup(&o->reason, c->reason) || sdup(&o->message, c->message))
            return -1;
    }
    if (s->ntaints && !(d->taints = calloc(s->ntaints, sizeof *d->taints)))
        return -1;
    for (size_t i = 0; i < s->ntaints; i++, d->ntaints++) {
        const mk_nv_taint *t = &s->taints[i];
        if (sdup(&d->taints[i].key, t->key) || sdup(&d->taints[i].value, t->value) ||
            sdup(&d->taints[i].effect, t->effect))
            return -1;
    }
    return 0;
}

int mk_nv_pod_copy(mk_nv_pod *d, const mk_nv_pod *s)
{
    memset(d, 0, sizeof *d);
    d->phase = s->phase;
    if (sdup(&d->ns, s->ns) || sdup(&d->name, s->name) || sdup(&d->node, s->node) ||
        sdup(&d->unschedulable, s->unschedulable) ||
        kv_copy(&d->labels, &d->nlabels, s->labels, s->nlabels))
        return -1;
    if (s->nreq && !(d->req = calloc(s->nreq, sizeof *d->req)))
        return -1;
    for (size_t i = 0; i < s->nreq; i++, d->nreq++) {
        d->req[i].value = s->req[i].value;
        if (sdup(&d->req[i].name, s->req[i].name))
            return -1;
    }
    return 0;
}

int mk_nv_nodes_copy(mk_nv_nodes *dst, const mk_nv_nodes *src)
{
    memset(dst, 0, sizeof *dst);
    dst->version = src->version;
    dst->has_pods = src->has_pods;
    if ((src->n && !(dst->node = calloc(src->n, sizeof *dst->node))) ||
        (src->npods && !(dst->pod = calloc(src->npods, sizeof *dst->pod))))
        goto fail;
    for (size_t i = 0; i < src->n; i++) {
        dst->n++;
        if (node_copy(&dst->node[i], &src->node[i]))
            goto fail;
    }
    for (size_t i = 0; i < src->npods; i++) {
        dst->npods++;
        if (mk_nv_pod_copy(&dst->pod[i], &src->pod[i]))
            goto fail;
    }
    return 0;
fail:
    mk_nv_nodes_free(dst);
    return -1;
}

long long mk_nv_pod_request(const mk_nv_pod *p, const char *resource)
{
    for (size_t i = 0; i < p->nreq; i++)
        if (strcmp(p->req[i].name, resource) == 0)
            return p->req[i].value;
    return 0;
}

const char *mk_nv_phase_name(mk_nv_phase ph)
{
    static const char *const names[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
    return ph <= MK_NV_POD_UNKNOWN ? names[ph] : "Unknown";
}

const mk_nv_resource *mk_nv_find_resource(const mk_nv_node *n, const char *name)
{
    for (size_t i = 0; i < n->nres; i++)
        if (strcmp(n->res[i].name, name) == 0)
            return &n->res[i];
    return NULL;
}

static const char *kv_find(const mk_nv_kv *v, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return v[i].value ? v[i].value : "";
    return NULL;
}

const char *mk_nv_label(const mk_nv_node *n, const char *key)
{
    return kv_find(n->labels, n->nlabels, key);
}

const char *mk_nv_annotation(const mk_nv_node *n, const char *key)
{
    return kv_find(n->annotations, n->nannotations, key);
}

const mk_nv_condition *mk_nv_condition_find(const mk_nv_node *n, const char *type)
{
    for (size_t i = 0; i < n->nconditions; i++)
        if (strcmp(n->conditions[i].type, type) == 0)
            return &n->conditions[i];
    return NULL;
}
