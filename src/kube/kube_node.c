/* kube_node.c - a Node object from the API server as a node view: name,
 * resources (status.capacity and status.allocatable), labels, annotations,
 * conditions and taints; and Kubernetes quantity strings as integers. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube_node.h"

/* --- quantities ------------------------------------------------------------ */

/* The suffix's power of ten and of 1024 (k8s.io/apimachinery quantity grammar:
 * decimalSI n u m "" k M G T P E, binarySI Ki..Ei, or e/E<integer>). */
static int suffix(const char *s, int *exp10, int *exp1024)
{
    static const char dec[] = "num kMGTPE";
    static const char bin[] = "KMGTPE";
    *exp10 = *exp1024 = 0;
    if (!*s)
        return 0;
    if (s[1] == 'i' && !s[2] && strchr(bin, s[0])) {
        *exp1024 = (int)(strchr(bin, s[0]) - bin) + 1;
        return 0;
    }
    if ((s[0] == 'e' || s[0] == 'E') && s[1]) {   /* "1E" alone is exa */
        char *end;
        long e = strtol(s + 1, &end, 10);
        if (*end || end == s + 1 || e < -100 || e > 100)
            return -1;
        *exp10 = (int)e;
        return 0;
    }
    if (!s[1] && s[0] != ' ' && strchr(dec, s[0])) {
        *exp10 = ((int)(strchr(dec, s[0]) - dec) - 3) * 3;
        return 0;
    }
    return -1;
}

int mk_kquantity(const char *s, long long *out)
{
    unsigned long long mant = 0;
    int neg = 0, ndigits = 0, frac = -1, exp10, exp1024;
    const char *p = s;

    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    /* Digits into an integer mantissa; leading zeros and trailing fraction
     * zeros do not count against its size. */
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && frac < 0); p++) {
        if (*p == '.') {
            frac = 0;
            continue;
        }
        ndigits++;
        if (frac >= 0)
            frac++;
        if (__builtin_mul_overflow(mant, 10ULL, &mant) ||
            __builtin_add_overflow(mant, (unsigned long long)(*p - '0'), &mant))
            return -1;
    }
    if (!ndigits || suffix(p, &exp10, &exp1024))
        return -1;
    if (frac > 0)
        exp10 -= frac;
    for (int i = 0; i < exp1024; i++)
        if (__builtin_mul_overflow(mant, 1024ULL, &mant))
            return -1;
    int rounded = 0;
    for (; exp10 > 0; exp10--)
        if (__builtin_mul_overflow(mant, 10ULL, &mant))
            return -1;
    for (; exp10 < 0; exp10++) {
        rounded |= mant % 10 != 0;
        mant /= 10;
    }
    /* Round away from zero for positive values, toward zero for negative
     * ones: that is a ceiling, as Quantity.Value() takes. */
    if (rounded && !neg)
        mant++;
    if (mant > (unsigned long long)LLONG_MAX)
        return -1;
    *out = neg ? -(long long)mant : (long long)mant;
    return rounded;
}

/* --- Node JSON -> node view ---------------------------------------------------- */

static const char *jstr(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* Duplicates a possibly NULL string; 0, or -1 when memory runs out. */
static int sdup(char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

/* A string of the Node as C text: one with a NUL inside (jansson reads
 * "\u0000"; annotations are free text) keeps the rest, the NUL written
 * "\u0000" as JSON writes it, so that what shows it neither cuts it short
 * nor emits the byte. NULL stays NULL; 0, or -1 when memory runs out. */
static int jdup(char **dst, const json_t *v)
{
    const char *s = json_string_value(v);
    size_t len = json_string_length(v), nul = 0;
    if (!s || strlen(s) == len)
        return sdup(dst, s);
    for (size_t i = 0; i < len; i++)
        nul += s[i] == '\0';
    if (!(*dst = malloc(len + 5 * nul + 1)))
        return -1;
    char *o = *dst;
    for (size_t i = 0; i < len; i++) {
        if (s[i]) {
            *o++ = s[i];
        } else {
            memcpy(o, "\\u0000", 6);
            o += 6;
        }
    }
    *o = '\0';
    return 0;
}

static long long quantity_or_zero(const json_t *v)
{
    long long q = 0;
    const char *s = json_string_value(v);
    /* The API server validates quantities; one we cannot read counts as 0. */
    if (!s || mk_kquantity(s, &q) < 0)
        return 0;
    return q;
}

/* One resource per name in capacity or allocatable: capacity's order first,
 * then names only allocatable has. */
static int read_resources(const json_t *status, mk_nv_node *n)
{
    const json_t *cap = json_object_get(status, "capacity");
    const json_t *alloc = json_object_get(status, "allocatable");
    size_t max = json_object_size(cap) + json_object_size(alloc);
    const char *key;
    json_t *v;

    if (!max)
        return 0;
    if (!(n->res = calloc(max, sizeof *n->res)))
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        json_object_foreach((json_t *)(pass ? alloc : cap), key, v) {
            if (pass && json_object_get(cap, key))
                continue;
            mk_nv_resource *r = &n->res[n->nres++];
            if (sdup(&r->name, key))
                return -1;
            r->capacity = quantity_or_zero(json_object_get(cap, key));
            r->allocatable = quantity_or_zero(json_object_get(alloc, key));
        }
    }
    return 0;
}

static int read_kv(const json_t *obj, mk_nv_kv **out, size_t *n)
{
    const char *key;
    json_t *v;
    if (!json_object_size(obj))
        return 0;
    if (!(*out = calloc(json_object_size(obj), sizeof **out)))
        return -1;
    json_object_foreach((json_t *)obj, key, v) {
        mk_nv_kv *kv = &(*out)[(*n)++];
        if (sdup(&kv->key, key) || (json_is_string(v) ? jdup(&kv->value, v) : sdup(&kv->value, "")))
            return -1;
    }
    return 0;
}

static int read_conditions(const json_t *arr, mk_nv_node *n)
{
    size_t i;
    json_t *c;
    if (!json_array_size(arr))
        return 0;
    if (!(n->conditions = calloc(json_array_size(arr), sizeof *n->conditions)))
        return -1;
    json_array_foreach(arr, i, c) {
        if (!jstr(c, "type"))
            continue;
        mk_nv_condition *o = &n->conditions[n->nconditions++];
        if (jdup(&o->type, json_object_get(c, "type")) || jdup(&o->status, json_object_get(c, "status")) ||
            jdup(&o->reason, json_object_get(c, "reason")) ||
            jdup(&o->message, json_object_get(c, "message")))
            return -1;
    }
    return 0;
}

static int read_taints(const json_t *arr, mk_nv_node *n)
{
    size_t i;
    json_t *t;
    if (!json_array_size(arr))
        return 0;
    if (!(n->taints = calloc(json_array_size(arr), sizeof *n->taints)))
        return -1;
    json_array_foreach(arr, i, t) {
        if (!jstr(t, "key"))
            continue;
        mk_nv_taint *o = &n->taints[n->ntaints++];
        if (jdup(&o->key, json_object_get(t, "key")) || jdup(&o->value, json_object_get(t, "value")) ||
            jdup(&o->effect, json_object_get(t, "effect")))
            return -1;
    }
    return 0;
}

int mk_knode_from_json(const json_t *node, mk_nv_node *out, char *err, size_t errlen)
{
    const json_t *meta = json_object_get(node, "metadata");
    const json_t *status = json_object_get(node, "status");
    const json_t *spec = json_object_get(node, "spec");
    const char *name = jstr(meta, "name");

    memset(out, 0, sizeof *out);
    if (!json_is_object(node) || !name) {
        snprintf(err, errlen, "the API server sent a Node without metadata.name");
        return -1;
    }
    if (jdup(&out->name, json_object_get(meta, "name")) || read_resources(status, out) ||
        read_kv(json_object_get(meta, "labels"), &out->labels, &out->nlabels) ||
        read_kv(json_object_get(meta, "annotations"), &out->annotations, &out->nannotations) ||
        read_conditions(json_object_get(status, "conditions"), out) ||
        read_taints(json_object_get(spec, "taints"), out)) {
        mk_nv_node_free(out);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* --- comparing ---------------------------------------------------------------- */

static int seq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int kv_equal(const mk_nv_kv *a, size_t na, const mk_nv_kv *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (!seq(a[i].key, b[i].key) || !seq(a[i].value, b[i].value))
            return 0;
    return 1;
}

int mk_knode_equal(const mk_nv_node *a, const mk_nv_node *b)
{
    if (!seq(a->name, b->name) || a->nres != b->nres || a->nconditions != b->nconditions ||
        a->ntaints != b->ntaints)
        return 0;
    for (size_t i = 0; i < a->nres; i++)
        if (!seq(a->res[i].name, b->res[i].name) || a->res[i].capacity != b->res[i].capacity ||
            a->res[i].allocatable != b->res[i].allocatable)
            return 0;
    for (size_t i = 0; i < a->nconditions; i++) {
        const mk_nv_condition *x = &a->conditions[i], *y = &b->conditions[i];
        if (!seq(x->type, y->type) || !seq(x->status, y->status) ||
            !seq(x->reason, y->reason) || !seq(x->message, y->message))
            return 0;
    }
    for (size_t i = 0; i < a->ntaints; i++) {
        const mk_nv_taint *x = &a->taints[i], *y = &b->taints[i];
        if (!seq(x->key, y->key) || !seq(x->value, y->value) || !seq(x->effect, y->effect))
            return 0;
    }
    return kv_equal(a->labels, a->nlabels, b->labels, b->nlabels) &&
           kv_equal(a->annotations, a->nannotations, b->annotations, b->nannotations);
}
