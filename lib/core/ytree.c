/* ytree.c - loads one YAML document with libyaml into an mk_ynode tree whose
 * nodes carry 1-based line:col, and the typed readers that report problems at
 * those positions.
 *
 * Structural problems that would trip every loader (syntax errors, non-scalar
 * or duplicate map keys, an alias that contains itself) are reported here and
 * make the load fail, so loaders only ever walk a finite, well-formed tree. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "ytree.h"

#define MAX_FILE_SIZE (64u << 20)   /* configs and suites are kilobytes */

/* --- loading -------------------------------------------------------------- */

static void syntax_error(mk_diags *d, const char *name, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "cannot parse";
    if (p->error == YAML_READER_ERROR) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "invalid YAML: %s at byte %zu",
                    problem, p->problem_offset);
    } else if (p->error == YAML_MEMORY_ERROR) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory reading YAML");
    } else if (p->context) {
        mk_diag_add(d, MK_DIAG_ERROR, name, (int)p->problem_mark.line + 1,
                    (int)p->problem_mark.column + 1, "invalid YAML: %s (%s at %d:%d)",
                    problem, p->context, (int)p->context_mark.line + 1,
                    (int)p->context_mark.column + 1);
    } else {
        mk_diag_add(d, MK_DIAG_ERROR, name, (int)p->problem_mark.line + 1,
                    (int)p->problem_mark.column + 1, "invalid YAML: %s", problem);
    }
}

/* Fills doc->pool from libyaml's node array: pool[i] is document node i + 1,
 * so aliases (which libyaml resolves to a shared node index) stay shared. */
static int convert(mk_ydoc *doc, yaml_document_t *yd)
{
    size_t n = (size_t)(yd->nodes.top - yd->nodes.start);
    doc->pool = calloc(n ? n : 1, sizeof *doc->pool);
    if (!doc->pool)
        return -1;
    doc->npool = n;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *y = &yd->nodes.start[i];
        mk_ynode *m = &doc->pool[i];
        m->line = (int)y->start_mark.line + 1;
        m->col = (int)y->start_mark.column + 1;
        m->file = doc->file;
        switch (y->type) {
        case YAML_MAPPING_NODE: {
            yaml_node_pair_t *p = y->data.mapping.pairs.start;
            m->kind = MK_Y_MAP;
            m->n = (size_t)(y->data.mapping.pairs.top - p);
            m->keys = calloc(m->n ? m->n : 1, sizeof *m->keys);
            m->vals = calloc(m->n ? m->n : 1, sizeof *m->vals);
            if (!m->keys || !m->vals)
                return -1;
            for (size_t j = 0; j < m->n; j++) {
                m->keys[j] = &doc->pool[p[j].key - 1];
                m->vals[j] = &doc->pool[p[j].value - 1];
            }
            break;
        }
        case YAML_SEQUENCE_NODE: {
            yaml_node_item_t *it = y->data.sequence.items.start;
            m->kind = MK_Y_SEQ;
            m->n = (size_t)(y->data.sequence.items.top - it);
            m->vals = calloc(m->n ? m->n : 1, sizeof *m->vals);
            if (!m->vals)
                return -1;
            for (size_t j = 0; j < m->n; j++)
                m->vals[j] = &doc->pool[it[j] - 1];
            break;
        }
        default:
            m->kind = MK_Y_SCALAR;
            m->str = strndup((const char *)y->data.scalar.value, y->data.scalar.length);
            if (!m->str)
                return -1;
            m->quoted = y->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                        y->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
            break;
        }
    }
    return 0;
}

/* Runs once every node is converted: a map's key nodes come after the map in
 * libyaml's node array. */
static int check_keys(const mk_ydoc *doc, mk_diags *d)
{
    int bad = 0;
    for (size_t i = 0; i < doc->npool; i++) {
        const mk_ynode *m = &doc->pool[i];
        int complex_key = 0;
        if (m->kind != MK_Y_MAP)
            continue;
        for (size_t j = 0; j < m->n; j++)
            if (m->keys[j]->kind != MK_Y_SCALAR) {
                mk_yerr(d, m->keys[j], "map keys must be plain values, not %s",
                        m->keys[j]->kind == MK_Y_MAP ? "a map" : "a list");
                complex_key = bad = 1;
            }
        if (complex_key)
            continue;
        for (size_t j = 1; j < m->n; j++)
            for (size_t k = 0; k < j; k++)
                if (strcmp(m->keys[j]->str, m->keys[k]->str) == 0) {
                    mk_yerr(d, m->keys[j], "duplicate key '%s' (first at %d:%d)",
                            m->keys[j]->str, m->keys[k]->line, m->keys[k]->col);
                    bad = 1;
                    break;
                }
    }
    return bad;
}

/* An anchor used inside its own node ("&a [*a]") makes a cycle; every walker
 * would loop forever on it. Iterative depth-first search, so deep nesting
 * cannot overflow the stack. */
static int check_cycles(const mk_ydoc *doc, mk_diags *d)
{
    if (!doc->npool)
        return 0;
    unsigned char *state = calloc(doc->npool, 1);   /* 0 new, 1 on path, 2 done */
    size_t *stack = malloc(doc->npool * sizeof *stack);
    size_t *next = calloc(doc->npool, sizeof *next);
    int rc = 0;
    if (!state || !stack || !next) {
        rc = -1;
        goto out;
    }
    size_t top = 0;
    stack[top++] = (size_t)(doc->root - doc->pool);
    state[stack[0]] = 1;
    while (top && !rc) {
        size_t i = stack[top - 1];
        const mk_ynode *m = &doc->pool[i];
        if (m->kind == MK_Y_SCALAR || next[i] == m->n) {
            state[i] = 2;
            top--;
            continue;
        }
        size_t c = (size_t)(m->vals[next[i]++] - doc->pool);
        if (state[c] == 1) {
            mk_yerr(d, &doc->pool[c], "this anchored node contains an alias to itself");
            rc = 1;
        } else if (state[c] == 0) {
            state[c] = 1;
            stack[top++] = c;
        }
    }
out:
    free(state);
    free(stack);
    free(next);
    return rc;
}

mk_ydoc *mk_yload_mem(const char *name, const char *buf, size_t len, mk_diags *d)
{
    mk_ydoc *doc = calloc(1, sizeof *doc);
    if (!doc || !(doc->file = strdup(name))) {
        free(doc);
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
        return NULL;
    }

    yaml_parser_t parser;
    yaml_document_t yd;
    if (!yaml_parser_initialize(&parser)) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
        mk_yfree(doc);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&parser, &yd)) {
        syntax_error(d, name, &parser);
        yaml_parser_delete(&parser);
        mk_yfree(doc);
        return NULL;
    }
    yaml_parser_delete(&parser);

    int rc = convert(doc, &yd);
    yaml_node_t *root = yaml_document_get_root_node(&yd);
    if (root)
        doc->root = &doc->pool[root - yd.nodes.start];
    yaml_document_delete(&yd);
    if (rc == 0)
        rc = check_keys(doc, d);
    if (rc == 0 && doc->root)
        rc = check_cycles(doc, d);
    if (rc != 0) {
        if (rc < 0)
            mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
        mk_yfree(doc);
        return NULL;
    }
    return doc;
}

mk_ydoc *mk_yload_file(const char *path, mk_diags *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mk_diag_add(d, MK_DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int err = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = cap <= MAX_FILE_SIZE ? realloc(buf, cap) : NULL;
            if (!nb) {
                err = cap > MAX_FILE_SIZE ? EFBIG : ENOMEM;
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                err = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    mk_ydoc *doc = NULL;
    if (err)
        mk_diag_add(d, MK_DIAG_ERROR, path, 0, 0, "cannot read: %s", strerror(err));
    else
        doc = mk_yload_mem(path, buf ? buf : "", len, d);
    free(buf);
    return doc;
}

void mk_yfree(mk_ydoc *doc)
{
    if (!doc)
        return;
    for (size_t i = 0; i < doc->npool; i++) {
        free(doc->pool[i].str);
        free(doc->pool[i].keys);
        free(doc->pool[i].vals);
    }
    free(doc->pool);
    free(doc->file);
    free(doc);
}

/* --- lookups and typed readers -------------------------------------------- */

mk_ynode *mk_yget(const mk_ynode *map, const char *key)
{
    if (!map || map->kind != MK_Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i]->str, key) == 0)
            return map->vals[i];
    return NULL;
}

int mk_yis_null(const mk_ynode *n)
{
    if (!n || n->kind != MK_Y_SCALAR || n->quoted)
        return 0;
    const char *s = n->str;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

static const char *kind_name(const mk_ynode *n)
{
    return n->kind == MK_Y_MAP ? "a map" : n->kind == MK_Y_SEQ ? "a list" : "a value";
}

int mk_yint(const mk_ynode *n, const char *what, long long lo, long long hi,
            long long *out, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s must be an integer, not %s", what, kind_name(n));
        return -1;
    }
    const char *s = n->str;
    const char *p = s + (*s == '-' || *s == '+');
    int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    const char *digits = hex ? p + 2 : p;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(digits, &end, hex ? 16 : 10);
    if (!(hex ? isxdigit : isdigit)((unsigned char)*digits) || *end) {
        mk_yerr(d, n, "%s must be an integer, not '%s'", what, s);
        return -1;
    }
    if (*s == '-')
        v = -v;
    if (errno == ERANGE || v < lo || v > hi) {
        if (hi == LLONG_MAX)
            mk_yerr(d, n, "%s must be at least %lld, not %s", what, lo, s);
        else
            mk_yerr(d, n, "%s must be between %lld and %lld, not %s", what, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int mk_ybool(const mk_ynode *n, const char *what, int *out, mk_diags *d)
{
    static const char *const yes[] = {"true", "yes", "on", NULL};
    static const char *const no[] = {"false", "no", "off", NULL};
    if (n->kind == MK_Y_SCALAR) {
        for (int i = 0; yes[i]; i++)
            if (strcasecmp(n->str, yes[i]) == 0) {
                *out = 1;
                return 0;
            }
        for (int i = 0; no[i]; i++)
            if (strcasecmp(n->str, no[i]) == 0) {
                *out = 0;
                return 0;
            }
        mk_yerr(d, n, "%s must be true or false, not '%s'", what, n->str);
    } else {
        mk_yerr(d, n, "%s must be true or false, not %s", what, kind_name(n));
    }
    return -1;
}

int mk_ystr(const mk_ynode *n, const char *what, const char **out, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s must be a string, not %s", what, kind_name(n));
        return -1;
    }
    *out = n->str;
    return 0;
}

int mk_ycheck_keys(const mk_ynode *map, const char *what,
                   const char *const *known, mk_diags *d)
{
    if (map->kind != MK_Y_MAP) {
        mk_yerr(d, map, "%s must be a map, not %s", what, kind_name(map));
        return 1;
    }
    int unknown = 0;
    for (size_t i = 0; i < map->n; i++) {
        const char *key = map->keys[i]->str;
        size_t k = 0;
        while (known[k] && strcmp(known[k], key) != 0)
            k++;
        if (known[k])
            continue;
        unknown++;
        const char *near = mk_did_you_mean(key, known);
        if (near) {
            mk_yerr(d, map->keys[i], "unknown key '%s' in %s (did you mean '%s'?)",
                    key, what, near);
            continue;
        }
        char list[512];
        size_t used = 0;
        list[0] = 0;
        for (k = 0; known[k] && used < sizeof list; k++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                     k ? ", " : "", known[k]);
        mk_yerr(d, map->keys[i], "unknown key '%s' in %s (known keys: %s)", key, what, list);
    }
    return unknown;
}

static void vyadd(mk_diags *d, mk_diag_level lvl, const mk_ynode *n, const char *fmt,
                  va_list ap)
{
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    mk_diag_add(d, lvl, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, "%s",
                msg ? msg : "(message lost: out of memory)");
    free(msg);
}

void mk_yerr(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vyadd(d, MK_DIAG_ERROR, n, fmt, ap);
    va_end(ap);
}

void mk_ywarn(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vyadd(d, MK_DIAG_WARNING, n, fmt, ap);
    va_end(ap);
}

/* --- did you mean ---------------------------------------------------------- */

#define MAX_WORD 64

/* Lower-case copy of a word of at most MAX_WORD characters; its length. */
static size_t lower(const char *w, char *out)
{
    size_t n = 0;
    for (; w[n]; n++)
        out[n] = (char)tolower((unsigned char)w[n]);
    out[n] = 0;
    return n;
}

/* Optimal string alignment distance (edit distance counting a swap of two
 * neighbours as one edit, the commonest typo), case-insensitive. Both words
 * are at most MAX_WORD characters. */
static int osa_distance(const char *a, const char *b)
{
    char x[MAX_WORD + 1], y[MAX_WORD + 1];
    size_t la = lower(a, x), lb = lower(b, y);
    int rows[3][MAX_WORD + 1];
    int *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= lb; j++)
        p[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        c[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int best = p[j - 1] + (x[i - 1] != y[j - 1]);
            if (p[j] + 1 < best)
                best = p[j] + 1;
            if (c[j - 1] + 1 < best)
                best = c[j - 1] + 1;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                pp[j - 2] + 1 < best)
                best = pp[j - 2] + 1;
            c[j] = best;
        }
        int *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[lb];
}

const char *mk_did_you_mean(const char *word, const char *const *cands)
{
    size_t len = strlen(word);
    if (len == 0 || len > MAX_WORD)
        return NULL;
    int limit = len <= 3 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    int bestd = limit + 1;
    for (size_t i = 0; cands[i]; i++) {
        if (strlen(cands[i]) > MAX_WORD)
            continue;
        int dist = osa_distance(word, cands[i]);
        if (dist < bestd) {
            bestd = dist;
            best = cands[i];
        }
    }
    return best;
}
