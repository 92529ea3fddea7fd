/* kube_store.c - the latest view of the watched nodes (and pods, where they
 * are watched too).
 *
 * Published views are immutable and reference-counted, and so are the nodes
 * and pods in them. The writer makes a new view for each change, sharing the
 * items that did not change, and swaps it in under the lock; a reader takes a
 * reference under the lock and copies outside it. So a slow reader of many
 * nodes never holds up the watch threads. One version counts the changes of
 * both, so that a wait wakes for either. */
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

/* A shared node or pod: the reference count first, so that the views'
 * arrays of either can be edited alike. */
typedef struct kitem {
    atomic_uint refs;
} kitem;

typedef struct knode {
    kitem item;
    mk_nv_node n;
} knode;

typedef struct kpod {
    kitem item;
    mk_nv_pod p;
} kpod;

/* One sorted array of shared items. */
typedef struct ktab {
    size_t n;
    kitem **v;
} ktab;

typedef struct kview {
    atomic_uint refs;
    uint64_t version;
    ktab nodes;              /* knode, by name */
    ktab pods;               /* kpod, by namespace and name */
    int has_pods;
} kview;

struct mk_kstore {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    kview *view;             /* the latest; replaced by the writer only */
    int failed;
    char failure[1024];
    /* the writer's side of the second watch */
    pthread_mutex_t write_mu;
};

/* --- shared items and views ------------------------------------------------------ */

enum kind { NODE, POD };

static void item_unref(kitem *k, enum kind kind)
{
    if (atomic_fetch_sub(&k->refs, 1) != 1)
        return;
    if (kind == NODE)
        mk_nv_node_free(&((knode *)k)->n);
    else
        mk_nv_pod_free(&((kpod *)k)->p);
    free(k);
}

static void tab_unref(ktab *t, enum kind kind)
{
    for (size_t i = 0; i < t->n; i++)
        item_unref(t->v[i], kind);
    free(t->v);
}

static void kview_unref(kview *v)
{
    if (!v || atomic_fetch_sub(&v->refs, 1) != 1)
        return;
    tab_unref(&v->nodes, NODE);
    tab_unref(&v->pods, POD);
    free(v);
}

/* Takes *n (freed on failure). */
static kitem *knode_new(mk_nv_node *n)
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

static kitem *kpod_new(mk_nv_pod *p)
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

static const mk_nv_node *node_of(const kitem *k)
{
    return &((const knode *)k)->n;
}

static const mk_nv_pod *pod_of(const kitem *k)
{
    return &((const kpod *)k)->p;
}

static int tab_alloc(ktab *t, size_t n)
{
    t->n = n;
    t->v = calloc(n ? n : 1, sizeof *t->v);
    return t->v ? 0 : -1;
}

/* A copy of t sharing its items. */
static int tab_share(ktab *dst, const ktab *t)
{
    if (tab_alloc(dst, t->n))
        return -1;
    memcpy(dst->v, t->v, t->n * sizeof *t->v);
    for (size_t i = 0; i < t->n; i++)
        atomic_fetch_add(&t->v[i]->refs, 1);
    return 0;
}

/* A new view one version on from `old`, sharing its nodes and pods; its
 * tables are then the caller's to change. */
static kview *kview_next(const kview *old)
{
    kview *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    atomic_init(&v->refs, 1);
    v->version = old ? old->version + 1 : 0;
    v->has_pods = old && old->has_pods;
    if (old && (tab_share(&v->nodes, &old->nodes) || tab_share(&v->pods, &old->pods))) {
        kview_unref(v);
        return NULL;
    }
    return v;
}

enum edit { REPLACE, INSERT, REMOVE };

/* Edits a table in place: item i replaced by k, k inserted at i, or item i
 * removed (k NULL). Takes k; -1 when memory runs out. */
static int tab_edit(ktab *t, size_t i, enum edit op, kitem *k, enum kind kind)
{
    if (op == INSERT) {
        kitem **grown = realloc(t->v, (t->n + 1) * sizeof *grown);
        if (!grown) {
            item_unref(k, kind);
            return -1;
        }
        t->v = grown;
        memmove(t->v + i + 1, t->v + i, (t->n - i) * sizeof *t->v);
        t->v[i] = k;
        t->n++;
        return 0;
    }
    item_unref(t->v[i], kind);
    if (op == REPLACE) {
        t->v[i] = k;
        return 0;
    }
    memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof *t->v);
    t->n--;
    return 0;
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

static int by_name(const void *a, const void *b)
{
    return strcmp(((const mk_nv_node *)a)->name, ((const mk_nv_node *)b)->name);
}

static int pod_cmp_key(const mk_nv_pod *p, const char *ns, const char *name)
{
    int c = strcmp(p->ns, ns);
    return c ? c : strcmp(p->name, name);
}

static int by_pod(const void *a, const void *b)
{
    const mk_nv_pod *q = b;
    return pod_cmp_key(a, q->ns, q->name);
}

/* Index of the item with this key in the table, or where it would go
 * (*found 0); ns NULL for nodes. */
static size_t tab_find(const ktab *t, enum kind kind, const char *ns, const char *name, int *found)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = kind == NODE ? strcmp(node_of(t->v[mid])->name, name)
                             : pod_cmp_key(pod_of(t->v[mid]), ns, name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

/* --- the writer -------------------------------------------------------------------- */

mk_kstore *mk_kstore_new(void)
{
    mk_kstore *s = calloc(1, sizeof *s);
    pthread_condattr_t ca;
    if (!s || !(s->view = kview_next(NULL))) {
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

/* One edit of one table as the next view; takes k (NULL for REMOVE). */
static int edit(mk_kstore *s, enum kind kind, size_t i, enum edit op, kitem *k)
{
    kview *v = kview_next(s->view);
    if (!v) {
        if (k)
            item_unref(k, kind);
        return -1;
    }
    if (tab_edit(kind == NODE ? &v->nodes : &v->pods, i, op, k, kind)) {
        kview_unref(v);
        return -1;
    }
    publish(s, v);
    return 0;
}

int mk_kstore_put(mk_kstore *s, mk_nv_node *n)
{
    int found, rc = 0;
    pthread_mutex_lock(&s->write_mu);
    size_t i = tab_find(&s->view->nodes, NODE, NULL, n->name, &found);
    if (found && mk_knode_equal(node_of(s->view->nodes.v[i]), n)) {
        mk_nv_node_free(n);       /* a heartbeat: nothing we show changed */
    } else {
        kitem *k = knode_new(n);
        rc = k ? edit(s, NODE, i, found ? REPLACE : INSERT, k) : -1;
    }
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_delete(mk_kstore *s, const char *name)
{
    int found, rc = 0;
    pthread_mutex_lock(&s->write_mu);
    size_t i = tab_find(&s->view->nodes, NODE, NULL, name, &found);
    if (found)
        rc = edit(s, NODE, i, REMOVE, NULL);
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

/* The next view with these items (taken: each is freed when it cannot be
 * kept) as its nodes or pods; NULL when memory runs out. */
static kview *with_items(const kview *old, enum kind kind, void *items, size_t n)
{
    kview *v = kview_next(old);
    ktab *t = v ? (kind == NODE ? &v->nodes : &v->pods) : NULL;
    int ok = v != NULL;
    if (ok) {
        tab_unref(t, kind);
        ok = tab_alloc(t, n) == 0;
        if (!ok)
            t->n = 0;
        else if (kind == POD)
            v->has_pods = 1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        kitem *k = NULL;
        if (kind == NODE)
            k = ok ? knode_new((mk_nv_node *)items + i) : (mk_nv_node_free((mk_nv_node *)items + i), NULL);
        else
            k = ok ? kpod_new((mk_nv_pod *)items + i) : (mk_nv_pod_free((mk_nv_pod *)items + i), NULL);
        if (k)
            t->v[kept++] = k;
        else
            ok = 0;
    }
    if (t)
        t->n = kept;
    if (!ok) {
        kview_unref(v);
        return NULL;
    }
    return v;
}

int mk_kstore_replace(mk_kstore *s, mk_nv_nodes *fresh)
{
    pthread_mutex_lock(&s->write_mu);
    const kview *old = s->view;
    if (fresh->n > 1)
        qsort(fresh->node, fresh->n, sizeof *fresh->node, by_name);
    int same = old->version && fresh->n == old->nodes.n, rc = 0;
    for (size_t i = 0; same && i < fresh->n; i++)
        same = mk_knode_equal(&fresh->node[i], node_of(old->nodes.v[i]));
    if (same) {
        mk_nv_nodes_free(fresh);
    } else {
        kview *v = with_items(old, NODE, fresh->node, fresh->n);
        free(fresh->node);        /* the nodes themselves moved into v, or are freed */
        *fresh = (mk_nv_nodes){ 0 };
        if (v)
            publish(s, v);
        rc = v ? 0 : -1;
    }
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_pod_put(mk_kstore *s, mk_nv_pod *p)
{
    int found, rc = 0;
    pthread_mutex_lock(&s->write_mu);
    size_t i = tab_find(&s->view->pods, POD, p->ns, p->name, &found);
    if (found && mk_kpod_equal(pod_of(s->view->pods.v[i]), p)) {
        mk_nv_pod_free(p);
    } else {
        kitem *k = kpod_new(p);
        rc = k ? edit(s, POD, i, found ? REPLACE : INSERT, k) : -1;
    }
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_pod_delete(mk_kstore *s, const char *ns, const char *name)
{
    int found, rc = 0;
    pthread_mutex_lock(&s->write_mu);
    size_t i = tab_find(&s->view->pods, POD, ns ? ns : "", name, &found);
    if (found)
        rc = edit(s, POD, i, REMOVE, NULL);
    pthread_mutex_unlock(&s->write_mu);
    return rc;
}

int mk_kstore_pod_replace(mk_kstore *s, mk_nv_pod *fresh, size_t n)
{
    if (n > 1)
        qsort(fresh, n, sizeof *fresh, by_pod);
    pthread_mutex_lock(&s->write_mu);
    kview *v = with_items(s->view, POD, fresh, n);
    if (v)
        publish(s, v);
    pthread_mutex_unlock(&s->write_mu);
    return v ? 0 : -1;
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
    mk_nv_node *flat = malloc((v->nodes.n ? v->nodes.n : 1) * sizeof *flat);
    mk_nv_pod *pods = malloc((v->pods.n ? v->pods.n : 1) * sizeof *pods);
    int rc = -1;
    if (flat && pods) {
        for (size_t i = 0; i < v->nodes.n; i++)
            flat[i] = *node_of(v->nodes.v[i]);
        for (size_t i = 0; i < v->pods.n; i++)
            pods[i] = *pod_of(v->pods.v[i]);
        mk_nv_nodes shallow = { .version = v->version, .n = v->nodes.n, .node = flat,
                                .has_pods = v->has_pods, .npods = v->pods.n, .pod = pods };
        rc = mk_nv_nodes_copy(out, &shallow);
    }
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
