/* gfdlabels.c - gpu-feature-discovery's labels joined to a node view: a
 * node source that shows another source's nodes with the labels of GFD's
 * output file (`key=value` lines, what NFD's local source reads from
 * features.d/) added, so that suites check GFD's labels as they would the
 * Node object's. The file is looked at on every snapshot and, while a
 * suite waits, every 100 ms; a change of its contents changes the view's
 * version. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "run.h"

/* The inner source's version in the low bits, the labels' generation above:
 * a change of either changes the sum. */
#define GEN_SHIFT 40
#define MAX_FILE (1 << 20)
#define SLICE_MS 100

struct mk_gfdlabels {
    mk_nodesrc src;            /* first: the callbacks cast back */
    mk_nodesrc *inner;
    char path[4400];
    pthread_mutex_t mu;
    struct stat seen;          /* the file as last read */
    char *text;                /* its contents; NULL: no file yet */
    uint64_t gen;              /* counts changes of text */
};

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Re-reads the file when it changed; l->mu held. */
static void refresh_locked(mk_gfdlabels *l)
{
    struct stat st;
    if (stat(l->path, &st) != 0 || (l->text && same_file(&st, &l->seen)))
        return;
    FILE *f = fopen(l->path, "re");
    if (!f)
        return;
    char *text = malloc(MAX_FILE + 1);
    size_t n = text ? fread(text, 1, MAX_FILE, f) : 0;
    fclose(f);
    if (!text)
        return;
    text[n] = 0;
    l->seen = st;
    if (l->text && strcmp(l->text, text) == 0) {
        free(text);
        return;
    }
    free(l->text);
    l->text = text;
    l->gen++;
}

/* The node's labels by key: open addressing over their positions (+1; 0
 * is a free slot), so that a file of 100,000 labels is read in linear time
 * (a scan per line took minutes). */
typedef struct label_index {
    size_t *slot;
    size_t mask;
} label_index;

static size_t hash(const char *key, size_t klen)
{
    size_t h = 1469598103934665603u;     /* FNV-1a */
    for (size_t i = 0; i < klen; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211u;
    return h;
}

/* The slot of key: the one holding it, or the free one it would go in. */
static size_t *find(const label_index *x, const mk_nv_node *n, const char *key, size_t klen)
{
    for (size_t i = hash(key, klen) & x->mask;; i = (i + 1) & x->mask) {
        size_t at = x->slot[i];
        if (at == 0 || (strncmp(n->labels[at - 1].key, key, klen) == 0 &&
                        n->labels[at - 1].key[klen] == 0))
            return &x->slot[i];
    }
}

/* Adds one label (replacing one of the same key); -1 when out of memory.
 * n->labels has room for it. */
static int put_label(mk_nv_node *n, label_index *x, const char *key, size_t klen,
                     const char *val, size_t vlen)
{
    char *v = strndup(val, vlen);
    if (!v)
        return -1;
    size_t *slot = find(x, n, key, klen);
    if (*slot) {
        free(n->labels[*slot - 1].value);
        n->labels[*slot - 1].value = v;
        return 0;
    }
    mk_nv_kv *kv = &n->labels[n->nlabels];
    kv->key = strndup(key, klen);
    kv->value = v;
    if (!kv->key) {
        free(v);
        return -1;
    }
    *slot = ++n->nlabels;
    return 0;
}

int mk_gfd_parse_labels(const char *text, mk_nv_node *n)
{
    /* Room for every line as a new label, and an index at most half full. */
    size_t lines = 1;
    for (const char *p = strchr(text, '\n'); p; p = strchr(p + 1, '\n'))
        lines++;
    size_t most = n->nlabels + lines, cap = 16;
    while (cap < 2 * most)
        cap *= 2;
    mk_nv_kv *grown = realloc(n->labels, most * sizeof *grown);
    label_index x = { calloc(cap, sizeof *x.slot), cap - 1 };
    if (grown)
        n->labels = grown;
    if (!grown || !x.slot) {
        free(x.slot);
        return -1;
    }
    for (size_t i = 0; i < n->nlabels; i++)
        *find(&x, n, n->labels[i].key, strlen(n->labels[i].key)) = i + 1;
    int rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        size_t len = strcspn(p, "\n");
        const char *eq = memchr(p, '=', len);
        /* Blank lines, comments and lines without a key are not labels. */
        if (eq && eq > p && *p != '#') {
            size_t vlen = len - (size_t)(eq + 1 - p);
            if (vlen && eq[vlen] == '\r')
                vlen--;
            rc = put_label(n, &x, p, (size_t)(eq - p), eq + 1, vlen);
        }
        p += len + (p[len] == '\n');
    }
    free(x.slot);
    return rc;
}

static int snapshot(mk_nodesrc *s, mk_nv_nodes *out, char *err, size_t errlen)
{
    mk_gfdlabels *l = (mk_gfdlabels *)s;
    if (l->inner->snapshot(l->inner, out, err, errlen) != 0)
        return -1;
    pthread_mutex_lock(&l->mu);
    refresh_locked(l);
    int rc = 0;
    for (size_t i = 0; l->text && i < out->n && rc == 0; i++)
        rc = mk_gfd_parse_labels(l->text, &out->node[i]);
    out->version += l->gen << GEN_SHIFT;
    pthread_mutex_unlock(&l->mu);
    if (rc != 0) {
        mk_nv_nodes_free(out);
        snprintf(err, errlen, "out of memory");
    }
    return rc;
}

static int wait_change(mk_nodesrc *s, uint64_t seen, int timeout_ms, char *err, size_t errlen)
{
    mk_gfdlabels *l = (mk_gfdlabels *)s;
    uint64_t inner_seen = seen & ((1ull << GEN_SHIFT) - 1);
    for (int left = timeout_ms;; left -= SLICE_MS) {
        pthread_mutex_lock(&l->mu);
        refresh_locked(l);
        uint64_t gen = l->gen;
        pthread_mutex_unlock(&l->mu);
        if (gen != seen >> GEN_SHIFT)
            return 1;
        if (left <= 0)
            return 0;
        int r = l->inner->wait_change(l->inner, inner_seen, left < SLICE_MS ? left : SLICE_MS,
                                      err, errlen);
        if (r != 0)
            return r;
    }
}

static int preferred(mk_nodesrc *s, const char *resource, char **available, size_t navail,
                     char **must, size_t nmust, size_t size, char ***out, size_t *nout,
                     char *err, size_t errlen)
{
    mk_nodesrc *in = ((mk_gfdlabels *)s)->inner;
    return in->preferred(in, resource, available, navail, must, nmust, size, out, nout, err,
                         errlen);
}

static int allocate(mk_nodesrc *s, const char *resource, char **ids, size_t nids,
                    mk_nv_alloc *out, char *err, size_t errlen)
{
    mk_nodesrc *in = ((mk_gfdlabels *)s)->inner;
    return in->allocate(in, resource, ids, nids, out, err, errlen);
}

mk_gfdlabels *mk_gfdlabels_new(mk_nodesrc *inner, const char *path)
{
    mk_gfdlabels *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->src = (mk_nodesrc){ inner->kind, snapshot, wait_change,
                           inner->preferred ? preferred : NULL,
                           inner->allocate ? allocate : NULL, l };
    l->inner = inner;
    snprintf(l->path, sizeof l->path, "%s", path);
    pthread_mutex_init(&l->mu, NULL);
    return l;
}

mk_nodesrc *mk_gfdlabels_nodesrc(mk_gfdlabels *l)
{
    return &l->src;
}

size_t mk_gfdlabels_count(mk_gfdlabels *l)
{
    mk_nv_node n;
    memset(&n, 0, sizeof n);
    pthread_mutex_lock(&l->mu);
    refresh_locked(l);
    int rc = l->text ? mk_gfd_parse_labels(l->text, &n) : -1;
    pthread_mutex_unlock(&l->mu);
    size_t count = rc == 0 ? n.nlabels : 0;
    mk_nv_node_free(&n);
    return count;
}

void mk_gfdlabels_free(mk_gfdlabels *l)
{
    if (!l)
        return;
    pthread_mutex_destroy(&l->mu);
    free(l->text);
    free(l);
}
