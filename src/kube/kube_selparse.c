/* kube_selparse.c - reading label selectors: kubectl's string form and
 * metav1.LabelSelector JSON, with the checks the API server makes on keys
 * and values (k8s.io/apimachinery validation: IsQualifiedName,
 * IsValidLabelValue, IsDNS1123Subdomain), so that a selector accepted here
 * is one the API server accepts too. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube_name.h"
#include "kube_selector.h"
#include "util/util.h"

#define SNIP 60   /* bytes of input quoted in an error */

static int nomem(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return MK_KSEL_NOMEM;
}

/* --- keys and values -------------------------------------------------------- */

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A label value, or a key's name part: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?,
 * 63 at most; values may also be empty. */
static int label_word(const char *s, size_t n)
{
    if (n == 0 || n > 63 || !alnum(s[0]) || !alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    return 1;
}

/* Why key[0..n) is not a label key, into why; 0 when it is one. */
static int check_key(const char *key, size_t n, char *why, size_t len)
{
    char q[SNIP + 4], buf[SNIP + 2];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < SNIP + 1 ? n : SNIP + 1), key);
    mk_text_snip(buf, SNIP, q, sizeof q);
    const char *slash = memchr(key, '/', n);
    size_t name = slash ? n - (size_t)(slash + 1 - key) : n;
    if (slash && !mk_ksubdomain(key, (size_t)(slash - key)))
        return mk_errf(why, len, "'%s' is not a label key: its prefix must be a DNS subdomain "
                    "(lower-case letters, digits, '-' and '.', 253 at most)", q);
    if (!label_word(slash ? slash + 1 : key, name))
        return mk_errf(why, len, "'%s' is not a label key: its name must be 1-63 letters, digits, "
                    "'-', '_' or '.', starting and ending with a letter or digit", q);
    return 0;
}

static int check_value(const char *v, size_t n, char *why, size_t len)
{
    char q[SNIP + 4], buf[SNIP + 2];
    if (n == 0 || label_word(v, n))
        return 0;
    snprintf(buf, sizeof buf, "%.*s", (int)(n < SNIP + 1 ? n : SNIP + 1), v);
    mk_text_snip(buf, SNIP, q, sizeof q);
    return mk_errf(why, len, "'%s' is not a label value: it must be at most 63 letters, digits, "
                "'-', '_' or '.', starting and ending with a letter or digit", q);
}

/* --- building --------------------------------------------------------------- */

/* A new requirement at the end of s; 0, -1 (too many) or MK_KSEL_NOMEM. */
static int add_req(mk_ksel *s, const char *key, size_t n, mk_ksel_op op)
{
    if (s->n == MK_KSEL_MAX)
        return -1;
    mk_ksel_req *req = realloc(s->req, (s->n + 1) * sizeof *req);
    if (!req)
        return MK_KSEL_NOMEM;
    s->req = req;
    req[s->n] = (mk_ksel_req){ strndup(key, n), op, NULL, 0 };
    if (!req[s->n].key)
        return MK_KSEL_NOMEM;
    s->n++;
    return 0;
}

/* Appends a value to the last requirement; 0, -1 (too many) or MK_KSEL_NOMEM. */
static int add_value(mk_ksel *s, const char *v, size_t n)
{
    mk_ksel_req *r = &s->req[s->n - 1];
    if (r->nvalues == MK_KSEL_MAX)
        return -1;
    char **vs = realloc(r->values, (r->nvalues + 1) * sizeof *vs);
    if (!vs)
        return MK_KSEL_NOMEM;
    r->values = vs;
    if (!(vs[r->nvalues] = strndup(v, n)))
        return MK_KSEL_NOMEM;
    r->nvalues++;
    return 0;
}

/* --- the string form -------------------------------------------------------- */

typedef struct lexer {
    const char *start;   /* of the requirement (its ',' after the first) */
    const char *p;
    mk_ksel *sel;
    char *err;
    size_t errlen;
} lexer;

/* "at 'TEXT': why", TEXT the requirement up to and including `end`'s
 * character. */
static int fail_at(lexer *lx, const char *end, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(lexer *lx, const char *end, const char *fmt, ...)
{
    char why[256], buf[SNIP + 2], q[SNIP + 4];
    size_t n = (size_t)(end - lx->start) + (*end != 0);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(buf, sizeof buf, "%.*s", (int)(n < SNIP + 1 ? n : SNIP + 1), lx->start);
    mk_text_snip(buf, SNIP, q, sizeof q);
    return mk_errf(lx->err, lx->errlen, "at '%s': %s", q, why);
}

/* A word: anything up to a blank or one of the selector's symbols. */
static size_t word(const char *p)
{
    return strcspn(p, " \t\n\v\f\r,()=!<>");
}

static void blanks(lexer *lx)
{
    while (isspace((unsigned char)*lx->p))
        lx->p++;
}

/* Builder results as errors, ending at `end`. */
static int built(lexer *lx, int rc, const char *end, const char *what)
{
    if (rc == MK_KSEL_NOMEM)
        return nomem(lx->err, lx->errlen);
    if (rc)
        return fail_at(lx, end, "more than %d %s", MK_KSEL_MAX, what);
    return 0;
}

static int key(lexer *lx, mk_ksel_op op)
{
    char why[256];
    size_t n = word(lx->p);
    if (!n)
        return fail_at(lx, lx->p, "expected a label key");
    if (check_key(lx->p, n, why, sizeof why))
        return fail_at(lx, lx->p + n - 1, "%s", why);
    int rc = built(lx, add_req(lx->sel, lx->p, n, op), lx->p + n - 1, "requirements");
    lx->p += n;
    return rc;
}

static int value(lexer *lx)
{
    char why[256];
    size_t n = word(lx->p);
    if (check_value(lx->p, n, why, sizeof why))
        return fail_at(lx, lx->p + n - 1, "%s", why);
    int rc = built(lx, add_value(lx->sel, lx->p, n), lx->p + (n ? n - 1 : 0), "values in a list");
    lx->p += n;
    return rc;
}

/* After a requirement: a ',' or the end. */
static int req_end(lexer *lx, const char *after)
{
    blanks(lx);
    if (*lx->p && *lx->p != ',')
        return fail_at(lx, lx->p, "expected ',' or the end after %s", after);
    return 0;
}

/* "(a,b)" after in or notin. */
static int list(lexer *lx, const char *op)
{
    blanks(lx);
    if (*lx->p != '(')
        return fail_at(lx, lx->p, "'%s' takes values in parentheses, like (a,b)", op);
    lx->p++;
    blanks(lx);
    if (*lx->p == ')')
        return fail_at(lx, lx->p, "'%s' needs at least one value", op);
    for (;;) {
        blanks(lx);
        int rc = value(lx);
        if (rc)
            return rc;
        blanks(lx);
        if (*lx->p == ')')
            break;
        if (!*lx->p)
            return fail_at(lx, lx->p, "a list must end with ')'");
        if (*lx->p != ',')
            return fail_at(lx, lx->p, "expected ',' or ')' in the list");
        lx->p++;
    }
    lx->p++;
    return req_end(lx, "the list");
}

/* The operator after a key: the requirement's op, or -1 when there is
 * none (the key stands alone: Exists). Moves past it. */
static int op_after_key(lexer *lx)
{
    const char *p = lx->p;
    size_t n = word(p);
    if (p[0] == '=') {
        lx->p += p[1] == '=' ? 2 : 1;
        return MK_KSEL_EQ;
    }
    if (p[0] == '!' && p[1] == '=') {
        lx->p += 2;
        return MK_KSEL_NE;
    }
    if (n == 2 && strncmp(p, "in", 2) == 0) {
        lx->p += n;
        return MK_KSEL_IN;
    }
    if (n == 5 && strncmp(p, "notin", 5) == 0) {
        lx->p += n;
        return MK_KSEL_NOTIN;
    }
    return -1;
}

static int requirement(lexer *lx)
{
    blanks(lx);
    if (*lx->p == '!') {
        lx->p++;
        blanks(lx);
        int rc = key(lx, MK_KSEL_NOT_EXISTS);
        return rc ? rc : req_end(lx, "'!KEY'");
    }
    int rc = key(lx, MK_KSEL_EXISTS);
    if (rc)
        return rc;
    blanks(lx);
    if (!*lx->p || *lx->p == ',')
        return 0;
    if (*lx->p == '<' || *lx->p == '>')
        return fail_at(lx, lx->p, "'%c' is not supported; use =, ==, !=, in or notin", *lx->p);
    const char *at = lx->p;
    int op = op_after_key(lx);
    if (op < 0)
        return fail_at(lx, at, "expected =, ==, !=, in, notin, ',' or the end after the key");
    lx->sel->req[lx->sel->n - 1].op = (mk_ksel_op)op;
    if (op == MK_KSEL_IN || op == MK_KSEL_NOTIN)
        return list(lx, op == MK_KSEL_IN ? "in" : "notin");
    blanks(lx);
    rc = value(lx);
    return rc ? rc : req_end(lx, "the value");
}

int mk_ksel_parse(const char *s, mk_ksel *out, char *err, size_t errlen)
{
    lexer lx = { s, s, out, err, errlen };
    memset(out, 0, sizeof *out);
    blanks(&lx);
    if (!*lx.p)
        return 0;
    for (;;) {
        int rc = requirement(&lx);
        if (rc) {
            mk_ksel_free(out);
            return rc;
        }
        if (!*lx.p)
            return 0;
        lx.start = lx.p++;   /* the ',' */
    }
}

/* --- LabelSelector JSON ----------------------------------------------------- */

static int from_labels(const json_t *labels, mk_ksel *out, char *err, size_t errlen)
{
    const char *k;
    json_t *v;
    char why[256];
    if (!labels || json_is_null(labels))
        return 0;
    if (!json_is_object(labels))
        return mk_errf(err, errlen, "matchLabels: must be an object of label keys and values");
    if (json_object_size(labels) > MK_KSEL_MAX)
        return mk_errf(err, errlen, "matchLabels: %zu labels; at most %d", json_object_size(labels),
                    MK_KSEL_MAX);
    json_object_foreach((json_t *)labels, k, v) {
        size_t kn = strlen(k);
        if (check_key(k, kn, why, sizeof why))
            return mk_errf(err, errlen, "matchLabels: %s", why);
        if (!json_is_string(v))
            return mk_errf(err, errlen, "matchLabels.%s: must be a string", k);
        if (check_value(json_string_value(v), json_string_length(v), why, sizeof why))
            return mk_errf(err, errlen, "matchLabels.%s: %s", k, why);
        /* json_string_length: a value with a NUL inside fails check_value */
        int rc = add_req(out, k, kn, MK_KSEL_EQ);
        if (!rc)
            rc = add_value(out, json_string_value(v), json_string_length(v));
        if (rc)
            return nomem(err, errlen);
    }
    return 0;
}

static int expr_op(const char *s, mk_ksel_op *op)
{
    static const struct { const char *name; mk_ksel_op op; } ops[] = {
        { "In", MK_KSEL_IN }, { "NotIn", MK_KSEL_NOTIN },
        { "Exists", MK_KSEL_EXISTS }, { "DoesNotExist", MK_KSEL_NOT_EXISTS },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(s, ops[i].name) == 0) {
            *op = ops[i].op;
            return 0;
        }
    return -1;
}

/* matchExpressions[i].values for an expression already added. */
static int expr_values(const json_t *vs, const char *opname, size_t i, mk_ksel *out, char *err,
                       size_t errlen)
{
    mk_ksel_op op = out->req[out->n - 1].op;
    int want = op == MK_KSEL_IN || op == MK_KSEL_NOTIN;
    char why[256];
    if (vs && !json_is_null(vs) && !json_is_array(vs))
        return mk_errf(err, errlen, "matchExpressions[%zu].values: must be a list of strings", i);
    size_t n = json_array_size(vs);
    if (want && !n)
        return mk_errf(err, errlen, "matchExpressions[%zu].values: %s needs at least one value", i,
                    opname);
    if (!want && n)
        return mk_errf(err, errlen, "matchExpressions[%zu].values: %s takes no values", i, opname);
    if (n > MK_KSEL_MAX)
        return mk_errf(err, errlen, "matchExpressions[%zu].values: %zu values; at most %d", i, n,
                    MK_KSEL_MAX);
    for (size_t j = 0; j < n; j++) {
        const json_t *v = json_array_get(vs, j);
        if (!json_is_string(v))
            return mk_errf(err, errlen, "matchExpressions[%zu].values[%zu]: must be a string", i, j);
        if (check_value(json_string_value(v), json_string_length(v), why, sizeof why))
            return mk_errf(err, errlen, "matchExpressions[%zu].values[%zu]: %s", i, j, why);
        if (add_value(out, json_string_value(v), json_string_length(v)))
            return nomem(err, errlen);
    }
    return 0;
}

static int from_expr(const json_t *e, size_t i, mk_ksel *out, char *err, size_t errlen)
{
    char why[256], q[SNIP + 4];
    mk_ksel_op op;
    if (!json_is_object(e))
        return mk_errf(err, errlen, "matchExpressions[%zu]: must be an object with key, operator "
                    "and values", i);
    const json_t *k = json_object_get(e, "key"), *o = json_object_get(e, "operator");
    if (!json_is_string(k))
        return mk_errf(err, errlen, "matchExpressions[%zu].key: %s", i,
                    k ? "must be a string" : "missing");
    if (check_key(json_string_value(k), json_string_length(k), why, sizeof why))
        return mk_errf(err, errlen, "matchExpressions[%zu].key: %s", i, why);
    if (!json_is_string(o))
        return mk_errf(err, errlen, "matchExpressions[%zu].operator: %s", i,
                    o ? "must be a string" : "missing");
    if (expr_op(json_string_value(o), &op)) {
        mk_text_snip(json_string_value(o), SNIP, q, sizeof q);
        return mk_errf(err, errlen, "matchExpressions[%zu].operator: '%s' is not In, NotIn, "
                    "Exists or DoesNotExist", i, q);
    }
    int rc = add_req(out, json_string_value(k), json_string_length(k), op);
    if (rc == MK_KSEL_NOMEM)
        return nomem(err, errlen);
    if (rc)
        return mk_errf(err, errlen, "matchExpressions[%zu]: more than %d requirements with "
                    "matchLabels", i, MK_KSEL_MAX);
    return expr_values(json_object_get(e, "values"), json_string_value(o), i, out, err, errlen);
}

static int from_exprs(const json_t *exprs, mk_ksel *out, char *err, size_t errlen)
{
    if (!exprs || json_is_null(exprs))
        return 0;
    if (!json_is_array(exprs))
        return mk_errf(err, errlen, "matchExpressions: must be a list");
    if (json_array_size(exprs) > MK_KSEL_MAX)
        return mk_errf(err, errlen, "matchExpressions: %zu expressions; at most %d",
                    json_array_size(exprs), MK_KSEL_MAX);
    for (size_t i = 0; i < json_array_size(exprs); i++) {
        int rc = from_expr(json_array_get(exprs, i), i, out, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int mk_ksel_from_json(const json_t *sel, mk_ksel *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!sel || json_is_null(sel))
        return 0;
    if (!json_is_object(sel))
        return mk_errf(err, errlen, "a LabelSelector must be an object with matchLabels and "
                    "matchExpressions");
    int rc = from_labels(json_object_get(sel, "matchLabels"), out, err, errlen);
    if (!rc)
        rc = from_exprs(json_object_get(sel, "matchExpressions"), out, err, errlen);
    if (rc)
        mk_ksel_free(out);
    return rc;
}
