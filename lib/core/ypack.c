/* ypack.c - turning a tree packed at build time back into an mk_ydoc (see
 * ypack.h): one allocation for the nodes and their child pointers, as
 * ytree.c makes, while the texts stay where the library keeps them. */
#include <stdlib.h>
#include <string.h>
#include "ypack.h"

typedef struct {
    const mk_ypacked *p;
    mk_ydoc *doc;
    unsigned next;         /* the next packed node, and its slot in the pool */
    mk_ynode **slots;      /* next free child pointers */
} unpack_ctx;

static mk_ynode **take_slots(unpack_ctx *c, size_t n)
{
    mk_ynode **s = n ? c->slots : NULL;
    c->slots += n;
    return s;
}

static mk_ynode *unpack(unpack_ctx *c)
{
    const mk_ypnode *s = &c->p->nodes[c->next];
    mk_ynode *y = &c->doc->pool[c->next++];
    y->kind = (mk_ykind)s->kind;
    y->line = s->line;
    y->col = s->col;
    y->file = c->doc->file;
    y->n = s->n;
    switch (y->kind) {
    case MK_Y_SCALAR:
        y->str = c->p->strings + s->str;
        y->len = strlen(y->str);
        y->quoted = s->quoted;
        break;
    case MK_Y_MAP:
        y->keys = take_slots(c, y->n);
        y->vals = take_slots(c, y->n);
        for (size_t i = 0; i < y->n; i++) {
            y->keys[i] = unpack(c);
            y->vals[i] = unpack(c);
        }
        break;
    case MK_Y_SEQ:
        y->vals = take_slots(c, y->n);
        for (size_t i = 0; i < y->n; i++)
            y->vals[i] = unpack(c);
        break;
    }
    return y;
}

mk_ydoc *mk_yunpack(const char *name, const mk_ypacked *p, mk_diags *d)
{
    mk_ydoc *doc = calloc(1, sizeof *doc);
    if (!doc || !(doc->file = strdup(name)))
        goto oom;
    if (!p->nodes)
        return doc;
    size_t node_bytes = p->nnodes * sizeof *doc->pool;
    doc->pool = calloc(1, node_bytes + p->nslots * sizeof(mk_ynode *));
    if (!doc->pool)
        goto oom;
    unpack_ctx c = { p, doc, 0, (mk_ynode **)(void *)((char *)doc->pool + node_bytes) };
    doc->root = unpack(&c);
    return doc;
oom:
    mk_yfree(doc);
    mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
    return NULL;
}
