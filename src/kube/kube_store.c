/* kube_store.c - the latest view of the watched nodes (and pods, where they
 * are watched too).
 *
 * Published views are immutable and reference-counted, and so are the
 * tables of nodes and pods in them (kube_table.c) and the items. The writer
 * makes a new view for each change, sharing what did not change, and swaps
 * it in under the lock; a reader takes a reference under the lock and
 * copies outside it. So a slow reader of many nodes never holds up the
 * watch threads. One version counts the changes of both, so that a wait
 * wakes for either. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/util.h"
#include "kube_node.h"
#include "kube_pod.h"
#include "kube_store.h"
#include "kube_table.h"

typedef struct knode {
    mk_kitem item;
    mk_nv_node n;
} knode;

typedef struct kpod {
    mk_kitem item;
    mk_nv_pod p;
} kpod;

typedef struct kview {
    atomic_uint refs;
    uint64_t version;
    mk_ktab *nodes;          /* knode, by name */
    mk_ktab *pods;           /* kpod, by namespace and name */
    int has_pods;
} kview;

struct mk_kstore {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    kview *view;             /* the latest; replaced by the writers only */
    int failed;
    char failure[1024];
    pthread_mutex_t write_mu;   /* one writer at a time (the nodes' or the pods' watch) */
};

/* --- nodes and pods as table items -------------------------------------------------- */

static const mk_nv_node *node_of(const mk_kitem *k)
{
    return &((const knode *)k)->n;
}

static const mk_nv_pod *pod_of(const mk_kitem *k)
{
    return &((const kpod *)k)->p;
}

static int node_cmp(const mk_kitem *k, const void *key)
{
    return strcmp(node_of(k)->name, key);
}

static void node_free(mk_kitem *k)
{
    mk_nv_node_free(&((knode *)k)->n);
    free(k);
}

/* A pod's key: its namespace and name. */
typedef struct podkey {
    const char *ns, *name;
} podkey;

static int pod_cmp_key(const mk_nv_pod *p, const podkey *key)
{
    int c = strcmp(p->ns, key->ns);
    return c ? c : strcmp(p->name, key->name);
}

static int pod_cmp(const mk_kitem *k, const void *key)
{
    return pod_cmp_key(pod_of(k), key);
}

static void pod_free(mk_kitem *k)
{
    mk_nv_pod_free(&((kpod *)k)->p);
    free(k);
}

static const mk_ktab_ops node_ops = {node_cmp, node_free};
static const mk_ktab_ops pod_ops = {pod_cmp, pod_free};

/* Takes *n (freed on failure). */
static mk_kitem *knode_new(mk_nv_node *n)
{
    knode *k = malloc(sizeof *k);
    if (!k) {
        mk_nv_node_free(n);
        return NULL;
    }
    atomic_init(&k->item.refs, 1);
    k->n = *n;
    return &k->item;
}

static mk_kitem *kpod_new(mk_nv_pod *p)
{
    kpod *k = malloc(sizeof *k);
    if (!k) {
        mk_nv_pod_free(p);
        return NULL;
    }
    atomic_init(&k->item.refs, 1);
    k->p = *p;
    return &k->item;
}

/* --- views ------------------------------------------------------------------------- */

static void kview_unref(kview *v)
{
    if (!v || atomic_fetch_sub(&v->refs, 1) != 1)
        return;
    mk_ktab_unref(v->nodes);
    mk_ktab_unref(v->pods);
    free(v);
}

/* The view after `old` with these tables (taken; NULL: out of memory, and
 * the view is not made). */
static kview *kview_next(const kview *old, mk_ktab *nodes, mk_ktab *pods)
{
    kview *v = nodes && pods ? calloc(1, sizeof *v) : NULL;
    if (!v) {
        mk_ktab_unref(nodes);
        mk_ktab_unref(pods);
        return NULL;
    }
    atomic_init(&v->refs, 1);
    v->version = old ? old->version + 1 : 0;
    v->has_pods = old && old->has_pods;
    v->nodes = nodes;
    v->pods = pods;
    return v;
}

static void publish(mk_kstore *s, kview *v)
{
    pthread_mutex_lock(&s->mu);
    kview *old = s->view;
    s->view = v;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mu);
    kview_unref(old);
}

/* Publishes the next view with one table replaced (taken); -1 when memory
 * ran out (fresh NULL). */
static int publish_with(mk_kstore *s, mk_ktab *nodes, mk_ktab *pods, int has_pods)
{
    kview *v = kview_next(s->view, nodes, pods);
    if (!v)
        return -1;
    v->has_pods |= has_pods;
    publish(s, v);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const mk_nv_node *)a)->name, ((const mk_nv_node *)b)->name);
}

static int by_pod(const void *a, const void *b)
{
    const mk_nv_pod *q = b;
    return pod_cmp_key(a, &(podkey){q->ns, q->name});
}

/* --- the writer -------------------------------------------------------------------- */

mk_kstore *mk_kstore_new(void)
{
    mk_kstore *s = calloc(1, sizeof *s);
    pthread_condattr_t ca;
    if (!s || !(s->view = kview_next(NULL, mk_ktab_new(&node_ops), mk_ktab_new(&pod_ops)))) {
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->write_mu, NULL);
    /* Waits run on the monotonic clock, as deadlines do. */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->changed, &ca);
    pthread_condattr_destroy(&ca);
    return s;
}

void mk_kstore_free(mk_kstore *s)
{
    if (!s)
        return;
    kview_unref(s->view);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->write_mu);
    free(s);
}

int mk_kstore_put(mk_kstore *s, mk_nv_node *n)
{
    int rc = 0;
    pthread_mutex_lock(&s->write_mu);
    const kview *old = s->view;
    const mk_kitem *was = mk_ktab_find(old->nodes, n->name);
    if (was && mk_knode_equal(node_of(was), n)) {
        mk_nv_node_free(n);       /* a heartbeat: nothing we show changed */
    } else {
        mk_kitem *k = knode_new(n);
        rc = k ? publish_with(s, mk_ktab_with(old->nodes, node_of(k)->name, k),
                              mk_ktab_ref(old->pods), 0) : -1;
    }
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_delete(mk_kstore *s, const char *name)
{
    int rc = 0;
    pthread_mutex_lock(&s->write_mu);
    const kview *old = s->view;
    if (mk_ktab_find(old->nodes, name))
        rc = publish_with(s, mk_ktab_with(old->nodes, name, NULL), mk_ktab_ref(old->pods), 0);
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

/* Items made of the objects (taken: freed when memory runs out), then a
 * table of them; NULL when memory runs out. */
static mk_ktab *table_of(const mk_ktab_ops *ops, void *objs, size_t n, size_t size,
                         mk_kitem *(*make)(void *obj))
{
    mk_kitem **items = malloc((n ? n : 1) * sizeof *items);
    size_t made = 0;
    int ok = items != NULL;
    for (size_t i = 0; i < n; i++) {
        void *obj = (char *)objs + i * size;
        mk_kitem *k = ok ? make(obj) : NULL;
        if (k)
            items[made++] = k;
        else if (ok)
            ok = 0;                          /* make freed obj */
        else if (ops == &node_ops)
            mk_nv_node_free(obj);
        else
            mk_nv_pod_free(obj);
    }
    if (!ok) {
        for (size_t i = 0; i < made; i++)
            mk_kitem_unref(ops, items[i]);
        free(items);
        return NULL;
    }
    mk_ktab *t = mk_ktab_from(ops, items, made);
    free(items);
    return t;
}

static mk_kitem *make_node(void *obj)
{
    return knode_new(obj);
}

static mk_kitem *make_pod(void *obj)
{
    return kpod_new(obj);
}

int mk_kstore_replace(mk_kstore *s, mk_nv_nodes *fresh)
{
    pthread_mutex_lock(&s->write_mu);
    const kview *old = s->view;
    if (fresh->n > 1)
        qsort(fresh->node, fresh->n, sizeof *fresh->node, by_name);
    int same = old->version && fresh->n == mk_ktab_len(old->nodes), rc = 0;
    for (size_t i = 0; same && i < fresh->n; i++) {
        const mk_kitem *was = mk_ktab_find(old->nodes, fresh->node[i].name);
        same = was && mk_knode_equal(&fresh->node[i], node_of(was));
    }
    if (same) {
        mk_nv_nodes_free(fresh);
    } else {
        mk_ktab *t = table_of(&node_ops, fresh->node, fresh->n, sizeof *fresh->node, make_node);
        free(fresh->node);        /* the nodes themselves moved into t, or are freed */
        *fresh = (mk_nv_nodes){ 0 };
        rc = t ? publish_with(s, t, mk_ktab_ref(old->pods), 0) : -1;
    }
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_pod_put(mk_kstore *s, mk_nv_pod *p)
{
    int rc = 0;
    pthread_mutex_lock(&s->write_mu);
    const kview *old = s->view;
    podkey key = {p->ns, p->name};
    const mk_kitem *was = mk_ktab_find(old->pods, &key);
    if (was && mk_kpod_equal(pod_of(was), p)) {
        mk_nv_pod_free(p);
    } else {
        mk_kitem *k = kpod_new(p);
        if (k)
            key = (podkey){pod_of(k)->ns, pod_of(k)->name};
        rc = k ? publish_with(s, mk_ktab_ref(old->nodes), mk_ktab_with(old->pods, &key, k), 0)
               : -1;
    }
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_pod_delete(mk_kstore *s, const char *ns, const char *name)
{
    int rc = 0;
    pthread_mutex_lock(&s->write_mu);
    const kview *old = s->view;
    podkey key = {ns ? ns : "", name};
    if (mk_ktab_find(old->pods, &key))
        rc = publish_with(s, mk_ktab_ref(old->nodes), mk_ktab_with(old->pods, &key, NULL), 0);
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_pod_replace(mk_kstore *s, mk_nv_pod *fresh, size_t n)
{
    if (n > 1)
        qsort(fresh, n, sizeof *fresh, by_pod);
    pthread_mutex_lock(&s->write_mu);
    mk_ktab *t = table_of(&pod_ops, fresh, n, sizeof *fresh, make_pod);
    int rc = t ? publish_with(s, mk_ktab_ref(s->view->nodes), t, 1) : -1;
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

void mk_kstore_fail(mk_kstore *s, const char *why)
{
    pthread_mutex_lock(&s->mu);
    if (!s->failed)
        snprintf(s->failure, sizeof s->failure, "%s", why);
    s->failed = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mu);
}

/* --- readers ---------------------------------------------------------------------- */

int mk_kstore_snapshot(mk_kstore *s, mk_nv_nodes *out, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->mu);
    kview *v = s->view;
    atomic_fetch_add(&v->refs, 1);
    pthread_mutex_unlock(&s->mu);

    /* The shared items side by side, then one deep copy of them. */
    size_t nn = mk_ktab_len(v->nodes), np = mk_ktab_len(v->pods);
    mk_kitem **items = malloc((nn + np ? nn + np : 1) * sizeof *items);
    mk_nv_node *flat = malloc((nn ? nn : 1) * sizeof *flat);
    mk_nv_pod *pods = malloc((np ? np : 1) * sizeof *pods);
    int rc = -1;
    if (items && flat && pods) {
        mk_ktab_flat(v->nodes, items);
        mk_ktab_flat(v->pods, items + nn);
        for (size_t i = 0; i < nn; i++)
            flat[i] = *node_of(items[i]);
        for (size_t i = 0; i < np; i++)
            pods[i] = *pod_of(items[nn + i]);
        mk_nv_nodes shallow = { .version = v->version, .n = nn, .node = flat,
                                .has_pods = v->has_pods, .npods = np, .pod = pods };
        rc = mk_nv_nodes_copy(out, &shallow);
    }
    free(items);
    free(flat);
    free(pods);
    kview_unref(v);
    if (rc)
        snprintf(err, errlen, "out of memory");
    return rc;
}

int mk_kstore_wait(mk_kstore *s, uint64_t seen, int timeout_ms, char *err, size_t errlen)
{
    struct timespec until = mk_abstime_in(CLOCK_MONOTONIC, timeout_ms < 0 ? 0 : timeout_ms);
    pthread_mutex_lock(&s->mu);
    while (s->view->version == seen && !s->failed) {
        int e = timeout_ms < 0 ? pthread_cond_wait(&s->changed, &s->mu)
                               : pthread_cond_timedwait(&s->changed, &s->mu, &until);
        if (e == ETIMEDOUT)
            break;
    }
    int rc = s->view->version != seen ? 1 : s->failed ? -1 : 0;
    if (rc < 0)
        snprintf(err, errlen, "%s", s->failure);
    pthread_mutex_unlock(&s->mu);
    return rc;
}
