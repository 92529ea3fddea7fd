/* kube_store.c - the latest view of the watched nodes.
 *
 * Published views are immutable and reference-counted, and so are the nodes
 * in them. The writer makes a new view for each change, sharing the nodes
 * that did not change, and swaps it in under the lock; a reader takes a
 * reference under the lock and copies outside it. So a slow reader of many
 * nodes never holds up the watch thread. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/util.h"
#include "kube_node.h"
#include "kube_store.h"

typedef struct knode {
    atomic_uint refs;
    mk_nv_node n;
} knode;

typedef struct kview {
    atomic_uint refs;
    uint64_t version;
    size_t n;
    knode **node;            /* sorted by name */
} kview;

struct mk_kstore {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    kview *view;             /* the latest; replaced by the writer only */
    int failed;
    char failure[1024];
};

/* --- shared nodes and views ------------------------------------------------------ */

static void knode_unref(knode *k)
{
    if (atomic_fetch_sub(&k->refs, 1) == 1) {
        mk_nv_node_free(&k->n);
        free(k);
    }
}

static void kview_unref(kview *v)
{
    if (!v || atomic_fetch_sub(&v->refs, 1) != 1)
        return;
    for (size_t i = 0; i < v->n; i++)
        knode_unref(v->node[i]);
    free(v->node);
    free(v);
}

/* Takes *n (freed on failure). */
static knode *knode_new(mk_nv_node *n)
{
    knode *k = malloc(sizeof *k);
    if (!k) {
        mk_nv_node_free(n);
        return NULL;
    }
    atomic_init(&k->refs, 1);
    k->n = *n;
    return k;
}

static kview *kview_new(uint64_t version, size_t n)
{
    kview *v = malloc(sizeof *v);
    knode **nodes = calloc(n ? n : 1, sizeof *nodes);
    if (!v || !nodes) {
        free(v);
        free(nodes);
        return NULL;
    }
    atomic_init(&v->refs, 1);
    v->version = version;
    v->n = n;
    v->node = nodes;
    return v;
}

enum edit { REPLACE, INSERT, REMOVE };

/* The next version of `old`: node i replaced by k, k inserted at i, or
 * node i removed (k NULL). Takes k. */
static kview *kview_edit(const kview *old, size_t i, enum edit op, knode *k)
{
    size_t n = old->n + (op == INSERT) - (op == REMOVE);
    size_t tail = old->n - i - (op != INSERT);     /* old nodes after the edit */
    kview *v = kview_new(old->version + 1, n);
    if (!v) {
        if (k)
            knode_unref(k);
        return NULL;
    }
    memcpy(v->node, old->node, i * sizeof *v->node);
    if (op != REMOVE)
        v->node[i] = k;
    memcpy(v->node + i + (op != REMOVE), old->node + old->n - tail, tail * sizeof *v->node);
    for (size_t j = 0; j < n; j++)
        if (v->node[j] != k)
            atomic_fetch_add(&v->node[j]->refs, 1);
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

static int by_name(const void *a, const void *b)
{
    return strcmp(((const mk_nv_node *)a)->name, ((const mk_nv_node *)b)->name);
}

/* Index of `name` in the view, or where it would go (*found 0). */
static size_t view_find(const kview *v, const char *name, int *found)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v->node[mid]->n.name, name);
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
    if (!s || !(s->view = kview_new(0, 0))) {
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
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
    free(s);
}

int mk_kstore_put(mk_kstore *s, mk_nv_node *n)
{
    int found;
    size_t i = view_find(s->view, n->name, &found);
    if (found && mk_knode_equal(&s->view->node[i]->n, n)) {
        mk_nv_node_free(n);       /* a heartbeat: nothing we show changed */
        return 0;
    }
    knode *k = knode_new(n);
    kview *v = k ? kview_edit(s->view, i, found ? REPLACE : INSERT, k) : NULL;
    if (!v)
        return -1;
    publish(s, v);
    return 0;
}

int mk_kstore_delete(mk_kstore *s, const char *name)
{
    int found;
    size_t i = view_find(s->view, name, &found);
    if (!found)
        return 0;
    kview *v = kview_edit(s->view, i, REMOVE, NULL);
    if (!v)
        return -1;
    publish(s, v);
    return 0;
}

int mk_kstore_replace(mk_kstore *s, mk_nv_nodes *fresh)
{
    const kview *old = s->view;
    if (fresh->n > 1)
        qsort(fresh->node, fresh->n, sizeof *fresh->node, by_name);
    int same = old->version && fresh->n == old->n;
    for (size_t i = 0; same && i < fresh->n; i++)
        same = mk_knode_equal(&fresh->node[i], &old->node[i]->n);
    kview *v = same ? NULL : kview_new(old->version + 1, fresh->n);
    if (!v) {
        mk_nv_nodes_free(fresh);
        return same ? 0 : -1;
    }
    for (size_t i = 0; i < fresh->n; i++) {
        if (!(v->node[i] = knode_new(&fresh->node[i]))) {
            for (size_t j = i + 1; j < fresh->n; j++)
                mk_nv_node_free(&fresh->node[j]);
            v->n = i;
            kview_unref(v);
            free(fresh->node);
            return -1;
        }
    }
    free(fresh->node);            /* the nodes themselves moved into v */
    publish(s, v);
    return 0;
}

void mk_kstore_fail(mk_kstore *s, const char *why)
{
    pthread_mutex_lock(&s->mu);
    s->failed = 1;
    snprintf(s->failure, sizeof s->failure, "%s", why);
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

    /* The shared nodes side by side, then one deep copy of them. */
    mk_nv_node *flat = malloc((v->n ? v->n : 1) * sizeof *flat);
    int rc = -1;
    if (flat) {
        for (size_t i = 0; i < v->n; i++)
            flat[i] = v->node[i]->n;
        mk_nv_nodes shallow = { .version = v->version, .n = v->n, .node = flat };
        rc = mk_nv_nodes_copy(out, &shallow);
        free(flat);
    }
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
