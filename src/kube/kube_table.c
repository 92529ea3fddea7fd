/* kube_table.c - versions of a sorted table in shared chunks: a version is
 * a list of chunks, each a sorted run of at most MK_KTAB_CHUNK items, all
 * reference-counted. A change copies the list (a reference more on each
 * chunk it keeps) and remakes the one chunk it touches (splitting it when
 * full, dropping it when empty); nothing a reader holds ever changes. */
#include <stdlib.h>
#include <string.h>
#include "kube_table.h"

typedef struct kchunk {
    atomic_uint refs;
    size_t n;
    mk_kitem *v[MK_KTAB_CHUNK];
} kchunk;

struct mk_ktab {
    atomic_uint refs;
    const mk_ktab_ops *ops;
    size_t n;            /* items */
    size_t nc;           /* chunks, none empty */
    kchunk **c;
};

void mk_kitem_unref(const mk_ktab_ops *ops, mk_kitem *k)
{
    if (k && atomic_fetch_sub(&k->refs, 1) == 1)
        ops->free(k);
}

static void chunk_unref(const mk_ktab_ops *ops, kchunk *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    for (size_t i = 0; i < c->n; i++)
        mk_kitem_unref(ops, c->v[i]);
    free(c);
}

static kchunk *chunk_new(void)
{
    kchunk *c = malloc(sizeof *c);
    if (c) {
        atomic_init(&c->refs, 1);
        c->n = 0;
    }
    return c;
}

static mk_ktab *tab_new(const mk_ktab_ops *ops, size_t nc)
{
    mk_ktab *t = calloc(1, sizeof *t);
    if (!t || !(t->c = calloc(nc ? nc : 1, sizeof *t->c))) {
        free(t);
        return NULL;
    }
    atomic_init(&t->refs, 1);
    t->ops = ops;
    return t;
}

mk_ktab *mk_ktab_new(const mk_ktab_ops *ops)
{
    return tab_new(ops, 0);
}

mk_ktab *mk_ktab_ref(mk_ktab *t)
{
    atomic_fetch_add(&t->refs, 1);
    return t;
}

void mk_ktab_unref(mk_ktab *t)
{
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    for (size_t i = 0; i < t->nc; i++)
        if (t->c[i])
            chunk_unref(t->ops, t->c[i]);
    free(t->c);
    free(t);
}

mk_ktab *mk_ktab_from(const mk_ktab_ops *ops, mk_kitem **items, size_t n)
{
    enum { FILL = MK_KTAB_CHUNK / 2 };   /* room to grow before a chunk splits */
    mk_ktab *t = tab_new(ops, (n + FILL - 1) / FILL);
    size_t i = 0;
    for (; t && i < n; t->nc++) {
        kchunk *c = chunk_new();
        if (!c) {
            mk_ktab_unref(t);
            t = NULL;
            break;
        }
        t->c[t->nc] = c;
        for (; i < n && c->n < FILL; i++, t->n++)
            c->v[c->n++] = items[i];
    }
    for (; !t && i < n; i++)     /* what did not go into the table */
        mk_kitem_unref(ops, items[i]);
    return t;
}

size_t mk_ktab_len(const mk_ktab *t)
{
    return t->n;
}

void mk_ktab_flat(const mk_ktab *t, mk_kitem **out)
{
    for (size_t i = 0; i < t->nc; i++) {
        memcpy(out, t->c[i]->v, t->c[i]->n * sizeof *out);
        out += t->c[i]->n;
    }
}

/* The chunk where `key` is or would go: the first whose last item is not
 * below it, else the last chunk. */
static size_t chunk_for(const mk_ktab *t, const void *key)
{
    size_t lo = 0, hi = t->nc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kchunk *c = t->c[mid];
        if (t->ops->cmp(c->v[c->n - 1], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->nc ? lo : t->nc - 1;
}

/* The position of `key` in a chunk, or where it would go (*found 0). */
static size_t pos_in(const mk_ktab *t, const kchunk *c, const void *key, int *found)
{
    size_t lo = 0, hi = c->n;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = t->ops->cmp(c->v[mid], key);
        if (r == 0) {
            *found = 1;
            return mid;
        }
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

mk_kitem *mk_ktab_find(const mk_ktab *t, const void *key)
{
    int found;
    if (!t->nc)
        return NULL;
    const kchunk *c = t->c[chunk_for(t, key)];
    size_t i = pos_in(t, c, key, &found);
    return found ? c->v[i] : NULL;
}

/* The items of chunk c with the edit at i applied, in order, into out
 * (room for MK_KTAB_CHUNK + 1); each old item kept gets a reference. */
static size_t edited(const kchunk *c, size_t i, int found, mk_kitem *k, mk_kitem **out)
{
    size_t n = 0;
    for (size_t j = 0; j < i; j++)
        out[n++] = c->v[j];
    if (k)
        out[n++] = k;
    for (size_t j = i + (size_t)found; j < c->n; j++)
        out[n++] = c->v[j];
    for (size_t j = 0; j < n; j++)
        if (out[j] != k)
            atomic_fetch_add(&out[j]->refs, 1);
    return n;
}

mk_ktab *mk_ktab_with(const mk_ktab *t, const void *key, mk_kitem *k)
{
    const mk_ktab_ops *ops = t->ops;
    size_t ci = t->nc ? chunk_for(t, key) : 0;
    int found = 0;
    size_t i = t->nc ? pos_in(t, t->c[ci], key, &found) : 0;
    if (!found && !k)
        return mk_ktab_ref((mk_ktab *)t);   /* nothing to remove */

    mk_kitem *items[MK_KTAB_CHUNK + 1];
    size_t n = t->nc ? edited(t->c[ci], i, found, k, items) : (items[0] = k, 1);
    size_t parts = n == 0 ? 0 : n > MK_KTAB_CHUNK ? 2 : 1;
    size_t nc = t->nc - (t->nc ? 1 : 0) + parts;
    mk_ktab *v = tab_new(ops, nc);
    kchunk *made[2] = {NULL, NULL};
    for (size_t p = 0; p < parts; p++)
        made[p] = chunk_new();
    if (!v || (parts > 0 && !made[0]) || (parts > 1 && !made[1])) {
        for (size_t j = 0; j < n; j++)
            mk_kitem_unref(ops, items[j]);
        for (size_t p = 0; p < 2; p++)
            free(made[p]);
        mk_ktab_unref(v);
        return NULL;
    }
    for (size_t p = 0, j = 0; p < parts; p++)   /* a split leaves two halves */
        for (size_t end = p == 0 && parts == 2 ? n / 2 : n; j < end; j++)
            made[p]->v[made[p]->n++] = items[j];
    for (size_t j = 0; j < t->nc; j++) {
        if (j == ci) {
            for (size_t p = 0; p < parts; p++)
                v->c[v->nc++] = made[p];
            continue;
        }
        atomic_fetch_add(&t->c[j]->refs, 1);
        v->c[v->nc++] = t->c[j];
    }
    if (!t->nc)
        v->c[v->nc++] = made[0];
    v->n = t->n + (k ? 1 : 0) - (size_t)found;
    return v;
}
