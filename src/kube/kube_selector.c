/* kube_selector.c - what a parsed label selector does: match labels, print
 * itself in the string form and as a LabelSelector, AND with another, and
 * free. Reading selectors is kube_selparse.c's job. Out of memory is an
 * answer here (NULL, MK_KSEL_NOMEM), not an abort: the GPU fault agent
 * runs these on objects anyone with access to the cluster may write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube_selector.h"

static const char *label(const mk_nv_kv *labels, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (labels[i].key && strcmp(labels[i].key, key) == 0)
            return labels[i].value ? labels[i].value : "";
    return NULL;
}

static int has_value(const mk_ksel_req *r, const char *v)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (strcmp(r->values[i], v) == 0)
            return 1;
    return 0;
}

/* The API server's meaning: != and notin hold for a node without the
 * label, as kubectl get nodes -l 'zone!=z1' lists such nodes too. */
static int req_match(const mk_ksel_req *r, const char *v)
{
    switch (r->op) {
    case MK_KSEL_EQ:
    case MK_KSEL_IN:
        return v && has_value(r, v);
    case MK_KSEL_NE:
    case MK_KSEL_NOTIN:
        return !v || !has_value(r, v);
    case MK_KSEL_EXISTS:
        return v != NULL;
    case MK_KSEL_NOT_EXISTS:
        return v == NULL;
    }
    return 0;
}

int mk_ksel_match(const mk_ksel *s, const mk_nv_kv *labels, size_t nlabels)
{
    for (size_t i = 0; i < s->n; i++)
        if (!req_match(&s->req[i], label(labels, nlabels, s->req[i].key)))
            return 0;
    return 1;
}

/* --- the string form -------------------------------------------------------- */

/* Appends to buf[*at..len) like snprintf, counting what did not fit, so
 * that one pass with len 0 measures and a second one writes. */
static void put(char *buf, size_t len, size_t *at, const char *s)
{
    size_t n = strlen(s);
    if (*at < len)
        memcpy(buf + *at, s, n < len - *at ? n : len - *at);
    *at += n;
}

static void put_req(char *buf, size_t len, size_t *at, const mk_ksel_req *r)
{
    static const char *const ops[] = {
        [MK_KSEL_EQ] = "=", [MK_KSEL_NE] = "!=", [MK_KSEL_IN] = " in (",
        [MK_KSEL_NOTIN] = " notin (", [MK_KSEL_EXISTS] = "", [MK_KSEL_NOT_EXISTS] = "",
    };
    if (r->op == MK_KSEL_NOT_EXISTS)
        put(buf, len, at, "!");
    put(buf, len, at, r->key);
    put(buf, len, at, ops[r->op]);
    for (size_t i = 0; i < r->nvalues; i++) {
        if (i)
            put(buf, len, at, ",");
        put(buf, len, at, r->values[i]);
    }
    if (r->op == MK_KSEL_IN || r->op == MK_KSEL_NOTIN)
        put(buf, len, at, ")");
}

static size_t put_sel(const mk_ksel *s, char *buf, size_t len)
{
    size_t at = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            put(buf, len, &at, ",");
        put_req(buf, len, &at, &s->req[i]);
    }
    return at;
}

char *mk_ksel_to_string(const mk_ksel *s)
{
    size_t n = put_sel(s, NULL, 0);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    put_sel(s, out, n);
    out[n] = 0;
    return out;
}

/* --- as a LabelSelector ----------------------------------------------------- */

/* A matchExpressions item; NULL when out of memory. */
static json_t *expression(const char *key, const char *op, char *const *values, size_t n)
{
    json_t *e = json_object(), *vs = n ? json_array() : NULL;
    int bad = !e || (n && !vs);
    for (size_t i = 0; i < n && !bad; i++)
        bad = json_array_append_new(vs, json_string(values[i])) != 0;
    if (!bad)
        bad = json_object_set_new(e, "key", json_string(key)) ||
              json_object_set_new(e, "operator", json_string(op)) ||
              (vs && json_object_set(e, "values", vs));
    json_decref(vs);
    if (bad) {
        json_decref(e);
        return NULL;
    }
    return e;
}

static const char *expr_op(mk_ksel_op op)
{
    switch (op) {
    case MK_KSEL_EQ:
    case MK_KSEL_IN:
        return "In";
    case MK_KSEL_NE:
    case MK_KSEL_NOTIN:
        return "NotIn";
    case MK_KSEL_EXISTS:
        return "Exists";
    case MK_KSEL_NOT_EXISTS:
        break;
    }
    return "DoesNotExist";
}

json_t *mk_ksel_to_json(const mk_ksel *s)
{
    json_t *out = json_object(), *labels = json_object(), *exprs = json_array();
    int bad = !out || !labels || !exprs;
    for (size_t i = 0; i < s->n && !bad; i++) {
        const mk_ksel_req *r = &s->req[i];
        if (r->op == MK_KSEL_EQ && !json_object_get(labels, r->key))
            bad = json_object_set_new(labels, r->key, json_string(r->values[0])) != 0;
        else
            bad = json_array_append_new(exprs, expression(r->key, expr_op(r->op), r->values,
                                                          r->nvalues)) != 0;
    }
    if (!bad && json_object_size(labels))
        bad = json_object_set(out, "matchLabels", labels) != 0;
    if (!bad && json_array_size(exprs))
        bad = json_object_set(out, "matchExpressions", exprs) != 0;
    json_decref(labels);
    json_decref(exprs);
    if (bad) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* --- AND and free ----------------------------------------------------------- */

static void req_free(mk_ksel_req *r)
{
    for (size_t i = 0; i < r->nvalues; i++)
        free(r->values[i]);
    free(r->values);
    free(r->key);
}

static int req_copy(mk_ksel_req *dst, const mk_ksel_req *src)
{
    *dst = (mk_ksel_req){ strdup(src->key), src->op, NULL, 0 };
    if (!dst->key)
        return -1;
    if (src->nvalues && !(dst->values = calloc(src->nvalues, sizeof *dst->values))) {
        req_free(dst);
        return -1;
    }
    for (; dst->nvalues < src->nvalues; dst->nvalues++)
        if (!(dst->values[dst->nvalues] = strdup(src->values[dst->nvalues]))) {
            req_free(dst);
            return -1;
        }
    return 0;
}

int mk_ksel_and(mk_ksel *into, const mk_ksel *more)
{
    if (into->n + more->n > MK_KSEL_MAX)
        return -1;
    if (!more->n)
        return 0;
    mk_ksel_req *req = realloc(into->req, (into->n + more->n) * sizeof *req);
    if (!req)
        return MK_KSEL_NOMEM;
    into->req = req;
    for (size_t i = 0; i < more->n; i++)
        if (req_copy(&req[into->n + i], &more->req[i])) {
            while (i--)
                req_free(&req[into->n + i]);
            return MK_KSEL_NOMEM;
        }
    into->n += more->n;
    return 0;
}

void mk_ksel_free(mk_ksel *s)
{
    for (size_t i = 0; i < s->n; i++)
        req_free(&s->req[i]);
    free(s->req);
    s->req = NULL;
    s->n = 0;
}
