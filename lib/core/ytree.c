/* ytree.c - YAML documents as position-aware trees (see ytree.h).
 *
 * libyaml's document loader does the parsing; this file copies its node graph
 * into mk_ynode trees in one allocation (nodes, child pointers, strings),
 * expanding aliases (with a cap, so an alias bomb is an error, not an
 * out-of-memory in someone's process) and rejecting duplicate map keys,
 * which libyaml accepts silently. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "ytree.h"

#define MK_YMAX_NODES 1000000
#define MK_YMAX_FILE (64u << 20)   /* bytes: a config, not a data set */

/* What one document needs once aliases are expanded: nodes, child pointer
 * slots and string bytes, so that the whole tree is one allocation (a config
 * with a profile is thousands of small strings; nvmlInit parses one). */
typedef struct {
    size_t nodes, slots, bytes;
} tree_size;

typedef struct {
    yaml_document_t *doc;
    mk_ydoc *out;
    size_t used;
    mk_ynode **slots;   /* next free child pointers */
    char *bytes;        /* next free string bytes */
    mk_diags *d;
    int failed;
} build_ctx;

/* Returns 0, or -1 when the expanded tree passes MK_YMAX_NODES or nests too
 * deeply (an alias bomb). */
static int measure(yaml_document_t *doc, yaml_node_t *n, tree_size *s, int depth)
{
    if (!n || s->nodes >= MK_YMAX_NODES || depth > 256)
        return -1;
    s->nodes++;
    if (n->type == YAML_SCALAR_NODE) {
        s->bytes += n->data.scalar.length + 1;
    } else if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++, s->slots++)
            if (measure(doc, yaml_document_get_node(doc, *it), s, depth + 1) != 0)
                return -1;
    } else if (n->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             p < n->data.mapping.pairs.top; p++, s->slots += 2)
            if (measure(doc, yaml_document_get_node(doc, p->key), s, depth + 1) != 0 ||
                measure(doc, yaml_document_get_node(doc, p->value), s, depth + 1) != 0)
                return -1;
    } else {
        s->bytes++;
    }
    return 0;
}

static mk_ynode **take_slots(build_ctx *c, size_t n)
{
    mk_ynode **p = n ? c->slots : NULL;
    c->slots += n;
    return p;
}

static char *take_string(build_ctx *c, const unsigned char *s, size_t len)
{
    char *p = c->bytes;
    memcpy(p, s, len);
    p[len] = 0;
    c->bytes += len + 1;
    return p;
}

static mk_ynode *build(build_ctx *c, yaml_node_t *n)
{
    mk_ynode *y = &c->out->pool[c->used++];
    y->file = c->out->file;
    y->line = (int)n->start_mark.line + 1;
    y->col = (int)n->start_mark.column + 1;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        y->kind = MK_Y_SCALAR;
        y->str = take_string(c, n->data.scalar.value, n->data.scalar.length);
        y->quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        break;
    case YAML_SEQUENCE_NODE: {
        y->kind = MK_Y_SEQ;
        size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        y->vals = take_slots(c, cnt);
        for (size_t i = 0; i < cnt; i++)
            y->vals[y->n++] = build(c, yaml_document_get_node(c->doc, n->data.sequence.items.start[i]));
        break;
    }
    case YAML_MAPPING_NODE: {
        y->kind = MK_Y_MAP;
        size_t cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
        y->keys = take_slots(c, cnt);
        y->vals = take_slots(c, cnt);
        for (size_t i = 0; i < cnt; i++) {
            yaml_node_pair_t *p = &n->data.mapping.pairs.start[i];
            mk_ynode *k = build(c, yaml_document_get_node(c->doc, p->key));
            mk_ynode *v = build(c, yaml_document_get_node(c->doc, p->value));
            if (k->kind != MK_Y_SCALAR) {
                mk_yerr(c->d, k, "map keys must be plain values");
                c->failed = 1;
            } else {
                for (size_t j = 0; j < y->n; j++)
                    if (y->keys[j]->kind == MK_Y_SCALAR && strcmp(y->keys[j]->str, k->str) == 0) {
                        mk_yerr(c->d, k, "duplicate key '%s' (first at line %d)", k->str,
                                y->keys[j]->line);
                        c->failed = 1;
                    }
            }
            y->keys[y->n] = k;
            y->vals[y->n] = v;
            y->n++;
        }
        break;
    }
    default:
        y->kind = MK_Y_SCALAR;
        y->str = take_string(c, (const unsigned char *)"", 0);
        break;
    }
    return y;
}

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

static mk_ydoc *load(const char *name, const char *buf, size_t len, yaml_parser_t *parser,
                     mk_diags *d)
{
    yaml_document_t doc;
    if (!yaml_parser_load(parser, &doc)) {
        const char *ctx = parser->context ? parser->context : "";
        int line = (int)parser->problem_mark.line + 1, col = (int)parser->problem_mark.column + 1;
        if (parser->error == YAML_READER_ERROR)
            offset_position(buf, len, parser->problem_offset, &line, &col);
        mk_diag_add(d, MK_DIAG_ERROR, name, line, col, "YAML syntax error: %s%s%s",
                    parser->problem ? parser->problem : "malformed document",
                    *ctx ? " " : "", ctx);
        return NULL;
    }
    mk_ydoc *out = calloc(1, sizeof *out);
    if (!out || !(out->file = strdup(name))) {
        free(out);
        yaml_document_delete(&doc);
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root) {
        tree_size sz = { 0, 0, 0 };
        if (measure(&doc, root, &sz, 0) != 0) {
            mk_diag_add(d, MK_DIAG_ERROR, name, (int)root->start_mark.line + 1,
                        (int)root->start_mark.column + 1,
                        "document too large or too deeply nested once aliases are expanded");
            yaml_document_delete(&doc);
            mk_yfree(out);
            return NULL;
        }
        size_t node_bytes = sz.nodes * sizeof *out->pool, slot_bytes = sz.slots * sizeof(mk_ynode *);
        out->pool = malloc(node_bytes + slot_bytes + sz.bytes);
        if (!out->pool) {
            yaml_document_delete(&doc);
            mk_yfree(out);
            mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
            return NULL;
        }
        memset(out->pool, 0, node_bytes);
        build_ctx c = { &doc, out, 0, (mk_ynode **)(void *)((char *)out->pool + node_bytes),
                        (char *)out->pool + node_bytes + slot_bytes, d, 0 };
        out->root = build(&c, root);
        if (c.failed) {
            yaml_document_delete(&doc);
            mk_yfree(out);
            return NULL;
        }
    }
    yaml_document_delete(&doc);
    return out;
}

mk_ydoc *mk_yload_mem(const char *name, const char *buf, size_t len, mk_diags *d)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    mk_ydoc *doc = load(name, buf, len, &parser, d);
    yaml_parser_delete(&parser);
    return doc;
}

/* The whole file is read first: a directory or a read error is then named
 * as such (libyaml would call it "input error" at 1:1), and reader errors
 * get their position from the text. */
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
            char *nb = cap < MK_YMAX_FILE ? realloc(buf, cap ? cap * 2 : 4096) : NULL;
            if (!nb) {
                err = cap < MK_YMAX_FILE ? ENOMEM : EFBIG;
                break;
            }
            buf = nb;
            cap = cap ? cap * 2 : 4096;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            err = ferror(f) ? errno : 0;
            break;
        }
    }
    fclose(f);
    mk_ydoc *doc = NULL;
    if (err)
        mk_diag_add(d, MK_DIAG_ERROR, path, 0, 0, "cannot read: %s", strerror(err));
    else
        doc = mk_yload_mem(path, buf, len, d);
    free(buf);
    return doc;
}

void mk_yfree(mk_ydoc *doc)
{
    if (!doc)
        return;
    free(doc->pool);
    free(doc->file);
    free(doc);
}

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
    if (!n)
        return 0; /* absent is not null */
    if (n->kind != MK_Y_SCALAR || n->quoted)
        return 0;
    return n->str[0] == 0 || strcmp(n->str, "~") == 0 || strcasecmp(n->str, "null") == 0;
}

static const char *kind_name(const mk_ynode *n)
{
    switch (n->kind) {
    case MK_Y_MAP: return "a map";
    case MK_Y_SEQ: return "a list";
    default: return "a value";
    }
}

int mk_ystr(const mk_ynode *n, const char *what, const char **out, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s: expected a string, got %s", what, kind_name(n));
        return -1;
    }
    *out = n->str;
    return 0;
}

int mk_yint(const mk_ynode *n, const char *what, long long lo, long long hi,
            long long *out, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s: expected an integer, got %s", what, kind_name(n));
        return -1;
    }
    char *end;
    errno = 0;
    long long v = strtoll(n->str, &end, 0);
    if (n->str[0] == 0 || *end || errno == ERANGE || isspace((unsigned char)n->str[0])) {
        mk_yerr(d, n, "%s: expected an integer, got '%s'", what, n->str);
        return -1;
    }
    if (v < lo || v > hi) {
        mk_yerr(d, n, "%s: %lld is out of range (%lld to %lld)", what, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int mk_ybool(const mk_ynode *n, const char *what, int *out, mk_diags *d)
{
    static const char *const yes[] = { "true", "yes", "on", NULL };
    static const char *const no[] = { "false", "no", "off", NULL };
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
    }
    mk_yerr(d, n, "%s: expected true or false, got %s%s%s", what,
            n->kind == MK_Y_SCALAR ? "'" : "", n->kind == MK_Y_SCALAR ? n->str : kind_name(n),
            n->kind == MK_Y_SCALAR ? "'" : "");
    return -1;
}

int mk_ycheck_keys(const mk_ynode *map, const char *what,
                   const char *const *known, mk_diags *d)
{
    int bad = 0;
    if (!map || map->kind != MK_Y_MAP)
        return 0;
    for (size_t i = 0; i < map->n; i++) {
        const char *k = map->keys[i]->str;
        int ok = 0;
        for (size_t j = 0; known[j] && !ok; j++)
            ok = strcmp(known[j], k) == 0;
        if (ok)
            continue;
        bad++;
        /* Past the file's cap the message is only counted: skip the search. */
        const char *sugg = mk_diags_full(d, map->file) ? NULL : mk_did_you_mean(k, known);
        if (sugg)
            mk_yerr(d, map->keys[i], "unknown key '%s' in %s; did you mean '%s'?", k, what, sugg);
        else
            mk_yerr(d, map->keys[i], "unknown key '%s' in %s", k, what);
    }
    return bad;
}

static void vadd(mk_diags *d, mk_diag_level lvl, const mk_ynode *n, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    mk_diag_add(d, lvl, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

void mk_yerr(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, MK_DIAG_ERROR, n, fmt, ap);
    va_end(ap);
}

void mk_ywarn(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, MK_DIAG_WARNING, n, fmt, ap);
    va_end(ap);
}

/* Levenshtein distance, case-insensitive, capped at 64 characters. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 64;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = prev + cost;
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

const char *mk_did_you_mean(const char *word, const char *const *cands)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    size_t limit = strlen(word) / 3;
    if (limit < 2)
        limit = 2;
    for (size_t i = 0; cands[i]; i++) {
        size_t dist = edit_distance(word, cands[i]);
        if (dist < bestd) {
            bestd = dist;
            best = cands[i];
        }
    }
    return bestd <= limit ? best : NULL;
}
