/* yload.c - reading YAML into mk_ydoc trees (ytree.h) within limits.
 *
 * libyaml's event parser is driven one event at a time, so that the limits
 * (file size, nesting depth, node count, aliases expanded) stop the parse at
 * the event that crosses them: libyaml's document loader would load all of
 * a hostile file first, and takes quadratic time on deep nesting. Nodes grow
 * in arrays while parsing and are then copied into one allocation (nodes,
 * child pointers, strings). An alias shares the node it names, as the tree
 * is read-only, but counts as expanded against the limits, so an alias bomb
 * is an error, not an out-of-memory in someone's process. Duplicate map keys
 * and anchors, which YAML readers handle in different ways, are errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "ids.h"
#include "ytree.h"

/* A node while parsing; children are indexes, not yet pointers. */
typedef struct {
    unsigned char kind;      /* mk_ykind */
    unsigned char quoted;
    unsigned char open;      /* a collection whose end is still to come */
    int line, col;
    size_t at, n;            /* scalar: offset and length of its text;
                                collection: first slot, and pairs or items */
    size_t expanded;         /* nodes in it once aliases are expanded */
    unsigned height;         /* collections on its longest path down, expanded */
} rnode;

/* An open collection. */
typedef struct {
    size_t node;
    size_t first;            /* its children so far start here in `pending` */
    size_t total0;           /* loader.total after the collection itself counted */
    unsigned height;         /* the tallest child so far */
} frame;

typedef struct {
    char *name;              /* NULL: a free slot */
    size_t node;
} anchor;

typedef struct {
    const char *key;
    size_t i;
} key_ref;

typedef struct {
    const char *file;
    mk_diags *d;
    rnode *nodes;
    size_t nnodes, capnodes;
    size_t *pending;         /* children of the open collections, innermost last */
    size_t npending, cappending;
    size_t *slots;           /* children of closed collections: a map's keys, then its values */
    size_t nslots, capslots;
    char *bytes;
    size_t nbytes, capbytes;
    anchor *anchors;         /* open addressing, a power of two */
    size_t nanchors, capanchors;
    key_ref *keys;           /* scratch for finding duplicate keys */
    size_t capkeys;
    size_t *first_of;        /* per pair: the pair whose key it repeats, or SIZE_MAX */
    size_t capfirst;
    frame stack[MK_YMAX_DEPTH];
    size_t depth;
    size_t total;            /* nodes so far, aliases expanded */
    size_t root;             /* SIZE_MAX until the top node is complete */
    int failed;              /* an error was added: parse on only to find more */
    int stop;                /* a limit, a syntax error or out of memory: parse no further */
    void *spare;             /* RESERVE's new block */
} loader;

static void oom(loader *l)
{
    mk_diag_add(l->d, MK_DIAG_ERROR, l->file, 0, 0, "out of memory");
    l->failed = l->stop = 1;
}

/* A block for `need` elements of `size` bytes, grown from p (doubling);
 * NULL when out of memory, with the error added and p left as it was. */
static void *grow(loader *l, void *p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *np = n <= SIZE_MAX / size ? realloc(p, n * size) : NULL;
    if (!np) {
        oom(l);
        return NULL;
    }
    *cap = n;
    return np;
}

/* Room for `need` elements in the array l->a of capacity l->cap: 0, or -1
 * when out of memory. (The new block goes through l->spare, a void *, so
 * that no pointer is written as another pointer type.) */
#define RESERVE(l, a, cap, need)                                                       \
    ((need) <= (l)->cap ? 0                                                            \
     : ((l)->spare = grow((l), (l)->a, &(l)->cap, (need), sizeof *(l)->a)) != NULL   \
         ? ((l)->a = (l)->spare, 0) : -1)

static void error_at(loader *l, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void error_at(loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mk_diag_add(l->d, MK_DIAG_ERROR, l->file, (int)m->line + 1, (int)m->column + 1, "%s", msg);
    l->failed = 1;
}

/* --- anchors ---------------------------------------------------------------- */

static anchor *anchor_slot(const loader *l, const char *name)
{
    size_t mask = l->capanchors - 1;
    size_t i = (size_t)mk_hash_str(name, 0) & mask;
    while (l->anchors[i].name && strcmp(l->anchors[i].name, name) != 0)
        i = (i + 1) & mask;
    return &l->anchors[i];
}

static const anchor *find_anchor(const loader *l, const char *name)
{
    if (!l->capanchors)
        return NULL;
    const anchor *a = anchor_slot(l, name);
    return a->name ? a : NULL;
}

static void add_anchor(loader *l, const yaml_char_t *name, size_t node, const yaml_mark_t *m)
{
    if (!name)
        return;
    const anchor *old = find_anchor(l, (const char *)name);
    if (old) {
        error_at(l, m, "duplicate anchor &%s (first at line %d)", (const char *)name,
                 l->nodes[old->node].line);
        return;
    }
    if ((l->nanchors + 1) * 2 > l->capanchors) {
        size_t cap = l->capanchors ? l->capanchors * 2 : 64;
        anchor *t = calloc(cap, sizeof *t), *old_v = l->anchors;
        size_t old_cap = l->capanchors;
        if (!t) {
            oom(l);
            return;
        }
        l->anchors = t;
        l->capanchors = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old_v[i].name)
                *anchor_slot(l, old_v[i].name) = old_v[i];
        free(old_v);
    }
    anchor *a = anchor_slot(l, (const char *)name);
    if (!(a->name = strdup((const char *)name))) {
        oom(l);
        return;
    }
    a->node = node;
    l->nanchors++;
}

/* --- nodes -------------------------------------------------------------------- */

/* A new node at the event's mark, counted against the node limit; SIZE_MAX
 * when refused. */
static size_t new_node(loader *l, mk_ykind kind, const yaml_mark_t *m)
{
    if (l->total >= MK_YMAX_NODES) {
        error_at(l, m, "the document has more than %d nodes (the limit)", MK_YMAX_NODES);
        l->stop = 1;
        return SIZE_MAX;
    }
    if (RESERVE(l, nodes, capnodes, l->nnodes + 1))
        return SIZE_MAX;
    rnode *r = &l->nodes[l->nnodes];
    memset(r, 0, sizeof *r);
    r->kind = (unsigned char)kind;
    r->line = (int)m->line + 1;
    r->col = (int)m->column + 1;
    r->expanded = 1;
    l->total++;
    return l->nnodes++;
}

/* A complete node (or an alias's target) becomes a child of the innermost
 * open collection, or the document's root. */
static void add_child(loader *l, size_t node)
{
    if (!l->depth) {
        l->root = node;
        return;
    }
    if (RESERVE(l, pending, cappending, l->npending + 1))
        return;
    l->pending[l->npending++] = node;
    frame *f = &l->stack[l->depth - 1];
    if (l->nodes[node].height > f->height)
        f->height = l->nodes[node].height;
}

static void on_scalar(loader *l, const yaml_event_t *ev)
{
    size_t len = ev->data.scalar.length;
    size_t i = new_node(l, MK_Y_SCALAR, &ev->start_mark);
    if (i == SIZE_MAX ||
        RESERVE(l, bytes, capbytes, l->nbytes + len + 1))
        return;
    rnode *r = &l->nodes[i];
    r->at = l->nbytes;
    r->n = len;
    r->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    if (len)
        memcpy(l->bytes + l->nbytes, ev->data.scalar.value, len);
    l->bytes[l->nbytes + len] = 0;
    l->nbytes += len + 1;
    add_anchor(l, ev->data.scalar.anchor, i, &ev->start_mark);
    add_child(l, i);
}

static void on_start(loader *l, const yaml_event_t *ev, mk_ykind kind)
{
    if (l->depth == MK_YMAX_DEPTH) {
        error_at(l, &ev->start_mark, "nested deeper than %d levels (the limit)", MK_YMAX_DEPTH);
        l->stop = 1;
        return;
    }
    size_t i = new_node(l, kind, &ev->start_mark);
    if (i == SIZE_MAX)
        return;
    l->nodes[i].open = 1;
    add_anchor(l, kind == MK_Y_MAP ? ev->data.mapping_start.anchor
                                   : ev->data.sequence_start.anchor, i, &ev->start_mark);
    l->stack[l->depth++] = (frame){ i, l->npending, l->total, 0 };
}

static int cmp_key(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* Keys must be scalars, each once: sorted, so that a map of many keys costs
 * n log n, and reported in the file's order. */
static void check_keys(loader *l, const size_t *kids, size_t pairs)
{
    if (RESERVE(l, keys, capkeys, pairs) ||
        RESERVE(l, first_of, capfirst, pairs))
        return;
    size_t nk = 0;
    for (size_t p = 0; p < pairs; p++) {
        const rnode *k = &l->nodes[kids[2 * p]];
        l->first_of[p] = SIZE_MAX;
        if (k->kind != MK_Y_SCALAR) {
            mk_diag_add(l->d, MK_DIAG_ERROR, l->file, k->line, k->col, "map keys must be plain values");
            l->failed = 1;
            continue;
        }
        l->keys[nk++] = (key_ref){ l->bytes + k->at, p };
    }
    if (nk < 2)
        return;
    qsort(l->keys, nk, sizeof *l->keys, cmp_key);
    for (size_t i = 1, g = 0; i < nk; i++) {
        if (strcmp(l->keys[i].key, l->keys[g].key) != 0)
            g = i;
        else
            l->first_of[l->keys[i].i] = l->keys[g].i;
    }
    for (size_t p = 0; p < pairs; p++)
        if (l->first_of[p] != SIZE_MAX) {
            const rnode *k = &l->nodes[kids[2 * p]], *f = &l->nodes[kids[2 * l->first_of[p]]];
            mk_diag_add(l->d, MK_DIAG_ERROR, l->file, k->line, k->col,
                        "duplicate key '%s' (first at line %d)", l->bytes + k->at, f->line);
            l->failed = 1;
        }
}

static void on_end(loader *l)
{
    frame f = l->stack[--l->depth];
    size_t kids = l->npending - f.first;
    if (RESERVE(l, slots, capslots, l->nslots + kids))
        return;
    const size_t *k = kids ? l->pending + f.first : NULL;   /* pending is NULL until used */
    rnode *r = &l->nodes[f.node];
    r->at = l->nslots;
    if (r->kind == MK_Y_MAP) {
        r->n = kids / 2;
        check_keys(l, k, r->n);
        for (size_t p = 0; p < r->n; p++) {
            l->slots[l->nslots + p] = k[2 * p];
            l->slots[l->nslots + r->n + p] = k[2 * p + 1];
        }
    } else {
        r->n = kids;
        if (kids)
            memcpy(l->slots + l->nslots, k, kids * sizeof *k);
    }
    l->nslots += kids;
    l->npending = f.first;
    r->open = 0;
    r->expanded = l->total - f.total0 + 1;
    r->height = f.height + 1;
    add_child(l, f.node);
}

static void on_alias(loader *l, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    const anchor *a = find_anchor(l, name);
    if (!a) {
        error_at(l, &ev->start_mark, "YAML syntax error: found undefined alias");
        l->stop = 1;
        return;
    }
    const rnode *t = &l->nodes[a->node];
    if (t->open) {
        error_at(l, &ev->start_mark, "alias *%s is inside the node it names, which makes the "
                 "document endless", name);
        l->stop = 1;
    } else if (t->expanded > MK_YMAX_NODES - l->total) {
        error_at(l, &ev->start_mark, "alias *%s expands the document past %d nodes (the limit)",
                 name, MK_YMAX_NODES);
        l->stop = 1;
    } else if (l->depth + t->height > MK_YMAX_DEPTH) {
        error_at(l, &ev->start_mark, "alias *%s expands the document deeper than %d levels "
                 "(the limit)", name, MK_YMAX_DEPTH);
        l->stop = 1;
    } else {
        l->total += t->expanded;
        add_child(l, a->node);
    }
}

/* --- the document ------------------------------------------------------------- */

/* libyaml positions reader errors (bad UTF-8, control characters) by byte
 * offset only; turn the offset into a line and a column of characters. */
static void offset_position(const char *buf, size_t len, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 1;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

static void syntax_error(loader *l, const yaml_parser_t *p, const char *buf, size_t len)
{
    const char *ctx = p->context ? p->context : "";
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->error == YAML_MEMORY_ERROR) {
        oom(l);
        return;
    }
    if (p->error == YAML_READER_ERROR)
        offset_position(buf, len, p->problem_offset, &line, &col);
    mk_diag_add(l->d, MK_DIAG_ERROR, l->file, line, col, "YAML syntax error: %s%s%s",
                p->problem ? p->problem : "malformed document", *ctx ? " " : "", ctx);
    l->failed = l->stop = 1;
}

/* Runs the parser over the first document of the stream. */
static void parse(loader *l, yaml_parser_t *p, const char *buf, size_t len)
{
    int done = 0;
    while (!done && !l->stop) {
        yaml_event_t ev;
        if (!yaml_parser_parse(p, &ev)) {
            syntax_error(l, p, buf, len);
            break;
        }
        switch (ev.type) {
        case YAML_SCALAR_EVENT: on_scalar(l, &ev); break;
        case YAML_SEQUENCE_START_EVENT: on_start(l, &ev, MK_Y_SEQ); break;
        case YAML_MAPPING_START_EVENT: on_start(l, &ev, MK_Y_MAP); break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: on_end(l); break;
        case YAML_ALIAS_EVENT: on_alias(l, &ev); break;
        case YAML_DOCUMENT_END_EVENT:
        case YAML_STREAM_END_EVENT: done = 1; break;
        default: break;
        }
        yaml_event_delete(&ev);
    }
}

/* The parsed nodes as an mk_ydoc: one block for the nodes, their child
 * pointers and their texts. */
static mk_ydoc *assemble(loader *l)
{
    mk_ydoc *out = calloc(1, sizeof *out);
    if (!out || !(out->file = strdup(l->file))) {
        free(out);
        oom(l);
        return NULL;
    }
    if (l->root == SIZE_MAX)
        return out;
    size_t node_bytes = l->nnodes * sizeof *out->pool, slot_bytes = l->nslots * sizeof(mk_ynode *);
    out->pool = malloc(node_bytes + slot_bytes + l->nbytes);
    if (!out->pool) {
        mk_yfree(out);
        oom(l);
        return NULL;
    }
    mk_ynode *pool = out->pool;
    mk_ynode **slots = (mk_ynode **)(void *)((char *)pool + node_bytes);
    char *text = (char *)pool + node_bytes + slot_bytes;
    if (l->nbytes)
        memcpy(text, l->bytes, l->nbytes);
    for (size_t i = 0; i < l->nslots; i++)
        slots[i] = &pool[l->slots[i]];
    for (size_t i = 0; i < l->nnodes; i++) {
        const rnode *r = &l->nodes[i];
        mk_ynode *y = &pool[i];
        memset(y, 0, sizeof *y);
        y->kind = (mk_ykind)r->kind;
        y->line = r->line;
        y->col = r->col;
        y->file = out->file;
        y->n = r->n;
        if (y->kind == MK_Y_SCALAR) {
            y->str = text + r->at;
            y->len = r->n;
            y->n = 0;
            y->quoted = r->quoted;
        } else if (y->kind == MK_Y_MAP) {
            y->keys = r->n ? slots + r->at : NULL;
            y->vals = r->n ? slots + r->at + r->n : NULL;
        } else {
            y->vals = r->n ? slots + r->at : NULL;
        }
    }
    out->root = &pool[l->root];
    return out;
}

static void loader_free(loader *l)
{
    for (size_t i = 0; i < l->capanchors; i++)
        free(l->anchors[i].name);
    free(l->anchors);
    free(l->nodes);
    free(l->pending);
    free(l->slots);
    free(l->bytes);
    free(l->keys);
    free(l->first_of);
}

static void too_large(const char *name, mk_diags *d)
{
    mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "larger than %u MiB, the most a YAML file may be",
                MK_YMAX_FILE >> 20);
}

mk_ydoc *mk_yload_mem(const char *name, const char *buf, size_t len, mk_diags *d)
{
    if (len > MK_YMAX_FILE) {
        too_large(name, d);
        return NULL;
    }
    loader l;
    memset(&l, 0, sizeof l);
    l.file = name;
    l.d = d;
    l.root = SIZE_MAX;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    parse(&l, &parser, buf, len);
    yaml_parser_delete(&parser);
    mk_ydoc *doc = l.failed ? NULL : assemble(&l);
    loader_free(&l);
    return doc;
}

/* The whole file is read first: a directory or a read error is then named
 * as such (libyaml would call it "input error" at 1:1), and reader errors
 * get their position from the text. One byte past the limit is enough to
 * know a file is too large. */
char *mk_yread_fp(const char *name, FILE *f, size_t *len, mk_diags *d)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            if (ncap > MK_YMAX_FILE + 1)
                ncap = MK_YMAX_FILE + 1;
            char *nb = n <= MK_YMAX_FILE ? realloc(buf, ncap + 1) : NULL;
            if (!nb) {
                err = n <= MK_YMAX_FILE ? ENOMEM : EFBIG;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            err = ferror(f) ? errno : 0;
            break;
        }
    }
    if (!err) {
        buf[n] = '\0';
        *len = n;
        return buf;
    }
    if (err == EFBIG)
        too_large(name, d);
    else
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "cannot read: %s", strerror(err));
    free(buf);
    return NULL;
}

mk_ydoc *mk_yload_fp(const char *name, FILE *f, mk_diags *d)
{
    size_t len;
    char *buf = mk_yread_fp(name, f, &len, d);
    mk_ydoc *doc = buf ? mk_yload_mem(name, buf, len, d) : NULL;
    free(buf);
    return doc;
}

mk_ydoc *mk_yload_file(const char *path, mk_diags *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mk_diag_add(d, MK_DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    mk_ydoc *doc = mk_yload_fp(path, f, d);
    fclose(f);
    return doc;
}
