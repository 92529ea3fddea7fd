/* ytree.h - a YAML document as a small tree whose every node knows its line
 * and column, so that config, suite and kubeconfig loaders can name
 * file:line:col.
 *
 * Read by yload.c over libyaml's event parser; only the first document of a
 * file is used. An alias is the node its anchor names (shared, not copied),
 * which is safe because the tree is read-only. */
#ifndef MOKKA_YTREE_H
#define MOKKA_YTREE_H

#include <stddef.h>
#include <stdio.h>
#include "diag.h"

/* What one file may hold; past each, loading stops where it is crossed,
 * with an error naming the limit. A config, suite or kubeconfig is a few
 * kilobytes; these leave room for 4096 GPUs described one by one. */
#define MK_YMAX_FILE  (16u << 20)   /* bytes */
#define MK_YMAX_DEPTH 256           /* maps and lists inside each other */
#define MK_YMAX_NODES 1000000       /* nodes, counting an alias as what it names */

typedef enum { MK_Y_SCALAR, MK_Y_MAP, MK_Y_SEQ } mk_ykind;

typedef struct mk_ynode mk_ynode;
struct mk_ynode {
    mk_ykind kind;
    int line, col;           /* 1-based position of the node's start */
    const char *file;        /* owned by the document */
    /* scalar */
    const char *str;
    size_t len;              /* bytes in str, which may hold a NUL ("\0" in YAML) */
    int quoted;              /* scalar was single- or double-quoted */
    /* map: keys[i] (scalar nodes) -> vals[i]; seq: vals[i] */
    size_t n;
    mk_ynode **keys;
    mk_ynode **vals;
};

typedef struct mk_ydoc {
    char *file;
    mk_ynode *root;          /* NULL for an empty document */
    mk_ynode *pool;          /* all nodes, their child pointers and strings: one block */
} mk_ydoc;

/* Load a file. On failure returns NULL and adds a diagnostic (unreadable file,
 * YAML syntax error with its position, a limit crossed, a duplicate key). */
mk_ydoc *mk_yload_file(const char *path, mk_diags *d);
/* The same from an open file (read to its end) or from memory; `name` is
 * used in diagnostics. */
mk_ydoc *mk_yload_fp(const char *name, FILE *f, mk_diags *d);
mk_ydoc *mk_yload_mem(const char *name, const char *buf, size_t len, mk_diags *d);
void mk_yfree(mk_ydoc *doc);
/* An open file read to its end, within the loader's size limit: the text,
 * NUL-terminated (malloc'd), and its length; NULL with a diagnostic naming
 * the limit or the read error. */
char *mk_yread_fp(const char *name, FILE *f, size_t *len, mk_diags *d);

/* Map lookup (NULL if absent or `map` is not a map). */
mk_ynode *mk_yget(const mk_ynode *map, const char *key);
/* Scalar is YAML null ("", "~", "null"); 0 for a NULL (absent) node. */
int mk_yis_null(const mk_ynode *n);

/* Typed scalar readers. Each returns 0 on success; on failure it adds an error
 * at the node's position naming `what`, and returns -1. */
int mk_yint(const mk_ynode *n, const char *what, long long lo, long long hi,
            long long *out, mk_diags *d);
int mk_ybool(const mk_ynode *n, const char *what, int *out, mk_diags *d);
int mk_ystr(const mk_ynode *n, const char *what, const char **out, mk_diags *d);
/* Check that a map has only the given keys (NULL-terminated list); each
 * unknown key is an error with a "did you mean" suggestion. Returns the
 * number of unknown keys. */
int mk_ycheck_keys(const mk_ynode *map, const char *what,
                   const char *const *known, mk_diags *d);
/* Add a diagnostic positioned at a node. */
void mk_yerr(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mk_ywarn(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mk_ynote(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The closest of `cands` to `word` by edit distance, or NULL if none is close. */
const char *mk_did_you_mean(const char *word, const char *const *cands);

#endif
