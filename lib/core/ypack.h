/* ypack.h - YAML trees packed at build time (gen_profiles.c), so that the
 * library can carry its GPU profiles already parsed: nvmlInit then unpacks
 * one in microseconds instead of running libyaml over it, and every node
 * keeps the line and column it has in its file under fixtures/profiles. */
#ifndef MOKKA_YPACK_H
#define MOKKA_YPACK_H

#include "ytree.h"

/* One node. The nodes of a tree are stored in preorder: a map's pairs as
 * key then value, a sequence's items in order, each followed by its own
 * children. */
typedef struct mk_ypnode {
    unsigned short line, col;
    unsigned char kind;        /* mk_ykind */
    unsigned char quoted;
    unsigned short n;          /* map pairs or sequence items */
    unsigned str;              /* scalar: offset of its text in the strings */
} mk_ypnode;

typedef struct mk_ypacked {
    const mk_ypnode *nodes;    /* NULL for an empty document */
    unsigned nnodes;
    unsigned nslots;           /* child pointers the tree needs: 2 per pair, 1 per item */
    const char *strings;       /* NUL-terminated texts, shared by equal scalars */
} mk_ypacked;

/* The tree as an mk_ydoc (free it with mk_yfree), named `name` in
 * diagnostics. Its scalars point into p->strings. NULL with a diagnostic
 * only when out of memory. */
mk_ydoc *mk_yunpack(const char *name, const mk_ypacked *p, mk_diags *d);

#endif
