/* suite_value.c - the value forms of suite expectations: counts and
 * comparisons, string matchers (exact, /regex/, absent), id lists, key ->
 * matcher maps and durations. Parsing reports at the value's position;
 * evaluation expands ${variables} first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "kube/kube.h"
#include "suite_int.h"

static const char *kind_name(const mk_ynode *n)
{
    return n->kind == MK_Y_MAP ? "a map" : n->kind == MK_Y_SEQ ? "a list" : "a value";
}

/* --- counts and comparisons ------------------------------------------------ */

static const char *const op_text[] = {
    [MK_OP_EQ] = "==", [MK_OP_NE] = "!=", [MK_OP_LT] = "<",
    [MK_OP_LE] = "<=", [MK_OP_GT] = ">", [MK_OP_GE] = ">=",
};

static const char *skip_spaces(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/* Reads an operator (two-character ones first); EQ when there is none. */
static const char *read_op(const char *p, mk_op *op)
{
    static const mk_op order[] = {MK_OP_EQ, MK_OP_NE, MK_OP_LE, MK_OP_GE, MK_OP_LT, MK_OP_GT};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        size_t n = strlen(op_text[order[i]]);
        if (strncmp(p, op_text[order[i]], n) == 0) {
            *op = order[i];
            return p + n;
        }
    }
    *op = MK_OP_EQ;
    return p;
}

/* Reads up to 15 digits (a count, not an arbitrary integer). */
static const char *read_count(const char *p, long long *v)
{
    const char *start = p;
    *v = 0;
    while (*p >= '0' && *p <= '9' && p - start < 15)
        *v = *v * 10 + (*p++ - '0');
    return p == start || (*p >= '0' && *p <= '9') ? NULL : p;
}

int mk_cmp_parse(const mk_ynode *n, const char *what, mk_cmp *out, mk_diags *d)
{
    memset(out, 0, sizeof *out);
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s must be a count or a comparison, not %s", what, kind_name(n));
        return -1;
    }
    if (!*n->str && !n->quoted) {
        /* `!=0` and `>=1` unquoted are a YAML tag and a folded block */
        mk_yerr(d, n, "%s is empty (write comparisons in quotes: \"!=0\", \">=1\")", what);
        return -1;
    }
    const char *p = read_op(skip_spaces(n->str), &out->op);
    p = skip_spaces(p);
    if (p[0] == '$' && p[1] == '{') {
        const char *end = p + 2;
        while (mk_var_char((unsigned char)*end))
            end++;
        if (*end == '}' && end > p + 2) {
            out->var = mk_xstrndup(p + 2, (size_t)(end - p - 2));
            p = skip_spaces(end + 1);
            if (*p == '+' || *p == '-') {
                int neg = *p == '-';
                p = read_count(skip_spaces(p + 1), &out->num);
                if (p && neg)
                    out->num = -out->num;
            }
        } else {
            p = NULL;
        }
    } else {
        p = read_count(p, &out->num);
    }
    if (!p || *skip_spaces(p)) {
        mk_yerr(d, n, "%s must be a count or a comparison such as 8, \">=1\", \"<8\", "
                "\"!=0\" or \"${gpus}-1\", not '%s'", what, n->str);
        mk_cmp_free(out);
        return -1;
    }
    return 0;
}

void mk_cmp_free(mk_cmp *c)
{
    free(c->var);
    c->var = NULL;
}

int mk_cmp_target(const mk_cmp *c, const mk_vars *vars, long long *target,
                  char *err, size_t errlen)
{
    if (!c->var) {
        *target = c->num;
        return 0;
    }
    const char *v = mk_vars_lookup(vars, c->var);
    if (!v) {
        mk_vars_unknown(vars, c->var, err, errlen);
        return -1;
    }
    char *end = NULL;
    long long base = strtoll(v, &end, 10);
    if (!*v || *end) {
        snprintf(err, errlen, "variable ${%s} is '%s', not a number", c->var, v);
        return -1;
    }
    *target = base + c->num;
    return 0;
}

int mk_cmp_holds(mk_op op, long long actual, long long target)
{
    switch (op) {
    case MK_OP_EQ: return actual == target;
    case MK_OP_NE: return actual != target;
    case MK_OP_LT: return actual < target;
    case MK_OP_LE: return actual <= target;
    case MK_OP_GT: return actual > target;
    case MK_OP_GE: return actual >= target;
    }
    return 0;
}

void mk_cmp_describe(mk_op op, long long target, char *buf, size_t len)
{
    if (op == MK_OP_EQ)
        snprintf(buf, len, "%lld", target);
    else
        snprintf(buf, len, "%s %lld", op_text[op], target);
}

/* --- string matchers ------------------------------------------------------- */

int mk_match_parse(const mk_ynode *n, const char *what, int allow_absent,
                   mk_match *out, mk_diags *d)
{
    memset(out, 0, sizeof *out);
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s must be a string or /regex/%s, not %s", what,
                allow_absent ? " or null" : "", kind_name(n));
        return -1;
    }
    if (mk_yis_null(n)) {
        if (!allow_absent) {
            mk_yerr(d, n, "%s must be a string or /regex/, not null", what);
            return -1;
        }
        out->kind = MK_MATCH_ABSENT;
        return 0;
    }
    if (mk_vars_check(n, what, d) != 0)
        return -1;
    size_t len = strlen(n->str);
    if (len >= 2 && n->str[0] == '/' && n->str[len - 1] == '/') {
        out->kind = MK_MATCH_REGEX;
        out->text = mk_xstrndup(n->str + 1, len - 2);
        if (strstr(out->text, "${"))
            return 0;   /* compiled once the variables are known */
        regex_t re;
        char why[256];
        if (mk_regex_compile(&re, out->text, why, sizeof why) != 0) {
            mk_yerr(d, n, "%s: invalid regular expression %.80s%s: %s", what, n->str,
                    len > 80 ? "..." : "", why);
            mk_match_free(out);
            return -1;
        }
        regfree(&re);
        return 0;
    }
    out->kind = MK_MATCH_EXACT;
    out->text = mk_xstrdup(n->str);
    return 0;
}

void mk_match_free(mk_match *m)
{
    free(m->text);
    m->text = NULL;
}

int mk_match_test(const mk_match *m, const char *actual, const mk_vars *vars,
                  char *err, size_t errlen)
{
    if (m->kind == MK_MATCH_ABSENT)
        return actual == NULL;
    char *want = mk_vars_expand(m->text, vars, err, errlen);
    if (!want)
        return -1;
    int rc;
    if (m->kind == MK_MATCH_EXACT) {
        rc = actual && strcmp(actual, want) == 0;
    } else {
        regex_t re;
        char why[256];
        if (mk_regex_compile(&re, want, why, sizeof why) != 0) {
            snprintf(err, errlen, "invalid regular expression /%.80s%s/: %s", want,
                     strlen(want) > 80 ? "..." : "", why);
            rc = -1;
        } else {
            rc = actual && regexec(&re, actual, 0, NULL, 0) == 0;
            regfree(&re);
        }
    }
    free(want);
    return rc;
}

void mk_match_describe(const mk_match *m, const mk_vars *vars, char *buf, size_t len)
{
    if (m->kind == MK_MATCH_ABSENT) {
        snprintf(buf, len, "absent");
        return;
    }
    char err[8];
    char *text = mk_vars_expand(m->text, vars, err, sizeof err);
    snprintf(buf, len, m->kind == MK_MATCH_REGEX ? "/%s/" : "'%s'", text ? text : m->text);
    free(text);
}

/* --- string lists ---------------------------------------------------------- */

int mk_strv_parse(const mk_ynode *n, const char *what, int allow_empty, mk_strv *out,
                  mk_diags *d)
{
    memset(out, 0, sizeof *out);
    if (n->kind != MK_Y_SEQ) {
        mk_yerr(d, n, "%s must be a list, not %s", what, kind_name(n));
        return -1;
    }
    if (!n->n && !allow_empty) {
        mk_yerr(d, n, "%s is an empty list", what);
        return -1;
    }
    int bad = 0;
    out->v = mk_xcalloc(n->n, sizeof *out->v);
    for (size_t i = 0; i < n->n; i++) {
        const mk_ynode *it = n->vals[i];
        if (it->kind != MK_Y_SCALAR || !*it->str) {
            mk_yerr(d, it, "%s: each item must be a non-empty string, not %s", what,
                    it->kind == MK_Y_SCALAR ? "an empty one" : kind_name(it));
            bad = 1;
        } else if (mk_vars_check(it, what, d) != 0) {
            bad = 1;
        } else if (mk_strv_has(out, it->str)) {
            mk_yerr(d, it, "%s: '%s' is listed twice", what, it->str);
            bad = 1;
        } else {
            out->v[out->n++] = mk_xstrdup(it->str);
        }
    }
    if (bad)
        mk_strv_free(out);
    return bad ? -1 : 0;
}

void mk_strv_free(mk_strv *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    memset(v, 0, sizeof *v);
}

int mk_strv_expand(const mk_strv *in, const mk_vars *vars, mk_strv *out,
                   char *err, size_t errlen)
{
    out->v = mk_xcalloc(in->n, sizeof *out->v);
    out->n = 0;
    for (size_t i = 0; i < in->n; i++) {
        char *s = mk_vars_expand(in->v[i], vars, err, errlen);
        if (!s) {
            mk_strv_free(out);
            return -1;
        }
        out->v[out->n++] = s;
    }
    return 0;
}

int mk_strv_has(const mk_strv *v, const char *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i], s) == 0)
            return 1;
    return 0;
}

/* --- key -> matcher maps ---------------------------------------------------- */

int mk_kvm_parse(const mk_ynode *n, const char *what, int allow_absent,
                 mk_kvmatches *out, mk_diags *d)
{
    memset(out, 0, sizeof *out);
    if (n->kind != MK_Y_MAP) {
        mk_yerr(d, n, "%s must be a map of name: value, not %s", what, kind_name(n));
        return -1;
    }
    if (!n->n) {
        mk_yerr(d, n, "%s is empty", what);
        return -1;
    }
    int bad = 0;
    out->v = mk_xcalloc(n->n, sizeof *out->v);
    for (size_t i = 0; i < n->n; i++) {
        char *item = mk_xasprintf("%s '%s'", what, n->keys[i]->str);
        mk_kvmatch *kv = &out->v[out->n];
        if (mk_match_parse(n->vals[i], item, allow_absent, &kv->m, d) == 0) {
            kv->key = mk_xstrdup(n->keys[i]->str);
            out->n++;
        } else {
            bad = 1;
        }
        free(item);
    }
    if (bad)
        mk_kvm_free(out);
    return bad ? -1 : 0;
}

void mk_kvm_free(mk_kvmatches *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        mk_match_free(&m->v[i].m);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

int mk_yneed_map(const mk_ynode *n, const char *what, mk_diags *d)
{
    if (n->kind == MK_Y_MAP)
        return 0;
    mk_yerr(d, n, "%s must be a map, not %s", what, kind_name(n));
    return -1;
}

/* --- durations -------------------------------------------------------------- */

int mk_ydur(const mk_ynode *n, const char *what, long long *ms, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s must be a duration such as 500ms, 30s, 5m or 1h, not %s",
                what, kind_name(n));
        return -1;
    }
    if (mk_duration_parse(n->str, ms) == 0)
        return 0;
    const char *s = n->str;
    if (*s && strspn(s, "0123456789") == strlen(s))
        mk_yerr(d, n, "%s needs a unit: %ss or %sms", what, s, s);
    else
        mk_yerr(d, n, "%s must be a duration such as 500ms, 30s, 5m or 1h (at most 24h), "
                "not '%s'", what, s);
    return -1;
}

int mk_ysel(const mk_ynode *n, const char *what, char **out, mk_diags *d)
{
    mk_sb b = MK_SB_INIT;
    if (n->kind == MK_Y_SEQ) {
        mk_yerr(d, n, "%s must be a map of labels such as {mokka.io/pool: a} "
                "or a selector such as 'mokka.io/pool in (a,b)', not a list", what);
        return -1;
    }
    if (n->kind == MK_Y_SCALAR)
        mk_sb_puts(&b, n->str);
    for (size_t i = 0; n->kind == MK_Y_MAP && i < n->n; i++) {
        if (n->vals[i]->kind != MK_Y_SCALAR) {
            mk_yerr(d, n->vals[i], "%s: label %s must have a value, not %s", what,
                    n->keys[i]->str, kind_name(n->vals[i]));
            mk_sb_free(&b);
            return -1;
        }
        mk_sb_printf(&b, "%s%s=%s", i ? "," : "", n->keys[i]->str, n->vals[i]->str);
    }
    char err[512];
    mk_ksel sel = { 0 };
    int rc = mk_ksel_parse(mk_sb_str(&b), &sel, err, sizeof err);
    mk_ksel_free(&sel);
    if (rc != 0) {
        mk_yerr(d, n, "%s '%s': %s", what, mk_sb_str(&b), err);
        mk_sb_free(&b);
        return -1;
    }
    *out = mk_sb_take(&b);
    return 0;
}
