/* kube_table.h - a sorted table of shared, reference-counted items (nodes,
 * pods) in versions: a version never changes once made, and the next one
 * (an item put or removed) shares all but one chunk of at most
 * MK_KTAB_CHUNK items with it. So a change costs about the chunk and the
 * list of chunks, not the whole table: one pod event among 8000 pods
 * copies a few hundred pointers. Versions may be read from any thread;
 * each is made by one writer. */
#ifndef MOKKA_KUBE_TABLE_H
#define MOKKA_KUBE_TABLE_H

#include <stdatomic.h>
#include <stddef.h>

#define MK_KTAB_CHUNK 128

/* The head of an item: embed it first in the item's struct. */
typedef struct mk_kitem {
    atomic_uint refs;
} mk_kitem;

typedef struct mk_ktab_ops {
    int (*cmp)(const mk_kitem *item, const void *key);   /* the item's key against `key` */
    void (*free)(mk_kitem *item);                         /* the last reference went */
} mk_ktab_ops;

typedef struct mk_ktab mk_ktab;

/* An empty table; NULL when out of memory. ops must outlive it. */
mk_ktab *mk_ktab_new(const mk_ktab_ops *ops);
/* A table of n items sorted by key, without duplicates (taken: freed on
 * failure); NULL when out of memory. */
mk_ktab *mk_ktab_from(const mk_ktab_ops *ops, mk_kitem **items, size_t n);
mk_ktab *mk_ktab_ref(mk_ktab *t);
void mk_ktab_unref(mk_ktab *t);

size_t mk_ktab_len(const mk_ktab *t);
/* The item with this key, or NULL (borrowed from t). */
mk_kitem *mk_ktab_find(const mk_ktab *t, const void *key);
/* The items in order into out (room for mk_ktab_len; borrowed from t). */
void mk_ktab_flat(const mk_ktab *t, mk_kitem **out);

/* The next version: k put in place of the item with its key, or added
 * (takes k); or with k NULL the item of `key` removed. NULL when out of
 * memory (k is then released). */
mk_ktab *mk_ktab_with(const mk_ktab *t, const void *key, mk_kitem *k);

/* Releases one reference to an item, freeing it with the last. */
void mk_kitem_unref(const mk_ktab_ops *ops, mk_kitem *k);

#endif
