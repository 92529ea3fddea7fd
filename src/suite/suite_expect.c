/* suite_expect.c - the table of expectation kinds, parsing of `expect:`
 * blocks through it. The checks say what went wrong through
 * suite_outcome.c.
 *
 * To add a kind: define an mk_xkind (key, flags, parse, check, free) next
 * to its relatives in suite_expect_*.c and add it to `kinds` below; lint, did-you-
 * mean, the capability checks and `within:` retries then apply to it. */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

static const mk_xkind *const kinds[] = {
    &mk_xk_capacity, &mk_xk_allocatable, &mk_xk_devices,
    &mk_xk_healthy_count, &mk_xk_unhealthy_count, &mk_xk_healthy, &mk_xk_unhealthy,
    &mk_xk_topology,
    &mk_xk_allocate, &mk_xk_preferred,
    &mk_xk_condition, &mk_xk_label, &mk_xk_annotation, &mk_xk_taint,
    &mk_xk_exit, &mk_xk_stdout, &mk_xk_stderr,
    &mk_xk_plugin, &mk_xk_served_by,
    &mk_xk_fleet,
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static const mk_xkind *find_kind(const char *key)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i]->key, key) == 0)
            return kinds[i];
    return NULL;
}

typedef struct xlist {
    mk_expect *v;
    size_t n, cap;
} xlist;

static int parse_one(xlist *l, const mk_xkind *k, const char *resource,
                     const mk_ynode *key, const mk_ynode *val, mk_diags *d)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = mk_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    mk_expect *x = &l->v[l->n];
    memset(x, 0, sizeof *x);
    x->kind = k;
    x->line = key->line;
    x->col = key->col;
    if (k->parse(x, val, d) != 0)
        return -1;
    x->resource = mk_xstrdup(resource);
    l->n++;
    return 0;
}

static int parse_map(xlist *l, const mk_ynode *m, mk_diags *d)
{
    if (m->kind != MK_Y_MAP) {
        mk_yerr(d, m, "expect must be a map of expectations (or a list of such maps), not %s",
                m->kind == MK_Y_SEQ ? "a list" : "a value");
        return -1;
    }
    const char *known[NKINDS + 2];
    known[0] = "resource";
    for (size_t i = 0; i < NKINDS; i++)
        known[i + 1] = kinds[i]->key;
    known[NKINDS + 1] = NULL;
    int bad = mk_ycheck_keys(m, "expect", known, d) != 0;

    const char *resource = MK_DEFAULT_RESOURCE;
    const mk_ynode *rn = mk_yget(m, "resource");
    if (rn && (mk_ystr(rn, "resource", &resource, d) != 0 || !*resource)) {
        if (rn->kind == MK_Y_SCALAR)
            mk_yerr(d, rn, "resource is empty (for example nvidia.com/gpu)");
        resource = MK_DEFAULT_RESOURCE;
        bad = 1;
    }
    size_t before = l->n;
    for (size_t i = 0; i < m->n; i++) {
        const mk_xkind *k = find_kind(m->keys[i]->str);
        const mk_ynode *val = m->vals[i];
        if (!k)
            continue;
        if (!(k->flags & MK_XK_LIST) || val->kind != MK_Y_SEQ) {
            bad |= parse_one(l, k, resource, m->keys[i], val, d) != 0;
            continue;
        }
        if (!val->n) {
            mk_yerr(d, val, "%s is an empty list", k->key);
            bad = 1;
        }
        for (size_t j = 0; j < val->n; j++)
            bad |= parse_one(l, k, resource, m->keys[i], val->vals[j], d) != 0;
    }
    if (!bad && l->n == before) {
        mk_yerr(d, m, "expect names no expectation (such as capacity, allocatable, "
                "unhealthy or allocate)");
        bad = 1;
    }
    return bad ? -1 : 0;
}

int mk_expect_parse(const mk_ynode *n, mk_expect **xs, size_t *nx, mk_diags *d)
{
    xlist l = {0, 0, 0};
    int bad = 0;
    if (n->kind == MK_Y_SEQ) {
        if (!n->n) {
            mk_yerr(d, n, "expect is an empty list");
            bad = 1;
        }
        for (size_t i = 0; i < n->n; i++)
            bad |= parse_map(&l, n->vals[i], d) != 0;
    } else {
        bad = parse_map(&l, n, d) != 0;
    }
    if (bad) {
        mk_expect_free(l.v, l.n);
        return -1;
    }
    *xs = l.v;
    *nx = l.n;
    return 0;
}

void mk_expect_free(mk_expect *xs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (xs[i].arg)
            xs[i].kind->free(xs[i].arg);
        free(xs[i].resource);
    }
    free(xs);
}
