/* suite_expect_plugin.c - expectations that call the device plugin through the
 * node source, as the kubelet would: Allocate (what a container gets: env,
 * mounts, device nodes) and GetPreferredAllocation. Only the built-in
 * kubelet can do this; elsewhere the case is an ERROR that says so. */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

#define SHOWN_VALUE_MAX 200   /* bytes of a response value shown in details */

static void unavailable(mk_xctx *c, const char *what)
{
    mk_x_error(c, "%s needs the built-in kubelet (mokka run); the %s cannot call the "
               "device plugin", what, c->env->src->kind);
}

static char *join(char **v, size_t n)
{
    mk_sb b = MK_SB_INIT;
    for (size_t i = 0; i < n; i++)
        mk_sb_printf(&b, "%s%s", i ? "," : "", v[i]);
    char *s = mk_sb_take(&b);
    return s ? s : mk_xstrdup("");
}

/* --- allocate ------------------------------------------------------------------ */

typedef struct alloc_x {
    long long count;
    mk_strv ids;                 /* empty: the first `count` healthy devices */
    mk_kvmatches env, mounts, devices;
} alloc_x;

static void free_alloc(void *arg)
{
    alloc_x *a = arg;
    mk_strv_free(&a->ids);
    mk_kvm_free(&a->env);
    mk_kvm_free(&a->mounts);
    mk_kvm_free(&a->devices);
    free(a);
}

static int parse_alloc(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    static const char *const keys[] = {"count", "ids", "env", "mounts", "devices", NULL};
    if (mk_yneed_map(val, "allocate", d) != 0)
        return -1;
    alloc_x *a = mk_xcalloc(1, sizeof *a);
    const mk_ynode *n;
    int bad = mk_ycheck_keys(val, "allocate", keys, d) != 0;
    if ((n = mk_yget(val, "ids")))
        bad |= mk_strv_parse(n, "allocate ids", 0, &a->ids, d) != 0;
    a->count = a->ids.n ? (long long)a->ids.n : 1;
    if ((n = mk_yget(val, "count")) && mk_yint(n, "allocate count", 1, 1024, &a->count, d) != 0)
        bad = 1;
    else if (n && a->ids.n && a->count != (long long)a->ids.n) {
        mk_yerr(d, n, "allocate count is %lld but ids lists %zu device%s", a->count, a->ids.n,
                a->ids.n == 1 ? "" : "s");
        bad = 1;
    }
    if ((n = mk_yget(val, "env")))
        bad |= mk_kvm_parse(n, "allocate env", 1, &a->env, d) != 0;
    if ((n = mk_yget(val, "mounts")))
        bad |= mk_kvm_parse(n, "allocate mounts", 1, &a->mounts, d) != 0;
    if ((n = mk_yget(val, "devices")))
        bad |= mk_kvm_parse(n, "allocate devices", 1, &a->devices, d) != 0;
    if (bad) {
        free_alloc(a);
        return -1;
    }
    x->arg = a;
    return 0;
}

/* The devices to ask for: the listed ids, or the first healthy ones in the
 * plugin's order. MK_X_PASS with *ids filled, else why not. */
static mk_xres pick_ids(const alloc_x *a, mk_xctx *c, mk_strv *ids)
{
    char err[512];
    if (a->ids.n) {
        if (mk_strv_expand(&a->ids, c->vars, ids, err, sizeof err) != 0)
            return mk_x_error(c, "allocate ids: %s", err);
        return MK_X_PASS;
    }
    if (!c->res)
        return mk_x_fail(c, "cannot allocate: node %s does not advertise %s", c->node->name,
                         c->resource);
    ids->v = mk_xcalloc((size_t)a->count, sizeof *ids->v);
    ids->n = 0;
    for (size_t i = 0; i < c->res->ndev && ids->n < (size_t)a->count; i++)
        if (c->res->dev[i].healthy)
            ids->v[ids->n++] = mk_xstrdup(c->res->dev[i].id);
    if (ids->n < (size_t)a->count) {
        mk_x_fail(c, "cannot allocate %lld %s: only %zu healthy device%s listed", a->count,
                  c->resource, ids->n, ids->n == 1 ? "" : "s");
        mk_strv_free(ids);
        return MK_X_FAIL;
    }
    return MK_X_PASS;
}

static const char *kv_get(const mk_nv_kv *v, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return v[i].value ? v[i].value : "";
    return NULL;
}

/* Checks one part of the response (env, mounts or devices). */
static mk_xres check_part(mk_xctx *c, const mk_vars *vars, const char *part,
                          const mk_kvmatches *want, const mk_nv_kv *got, size_t ngot)
{
    mk_xres res = MK_X_PASS;
    for (size_t i = 0; i < want->n; i++) {
        const mk_kvmatch *w = &want->v[i];
        const char *actual = kv_get(got, ngot, w->key);
        char err[512], expect[256];
        int m = mk_match_test(&w->m, actual, vars, err, sizeof err);
        if (m < 0)
            return mk_x_error(c, "allocate %s %s: %s", part, w->key, err);
        if (m)
            continue;
        mk_match_describe(&w->m, vars, expect, sizeof expect);
        char *shown = actual ? mk_text_line(actual, SHOWN_VALUE_MAX) : NULL;
        if (shown)
            mk_x_fail(c, "Allocate %s %s is '%s', expected %s", part, w->key, shown, expect);
        else
            mk_x_fail(c, "Allocate %s has no %s, expected %s", part, w->key, expect);
        mk_x_detail(c, "expected: %s %s %s", part, w->key, expect);
        mk_x_detail(c, "actual:   %s %s %s%s%s", part, w->key, shown ? "'" : "",
                    shown ? shown : "absent", shown ? "'" : "");
        free(shown);
        res = MK_X_FAIL;
    }
    return res;
}

static void detail_response(mk_xctx *c, const char *part, const mk_nv_kv *v, size_t n)
{
    mk_sb line = MK_SB_INIT;
    for (size_t i = 0; i < n; i++) {
        char *shown = mk_text_line(v[i].value ? v[i].value : "", SHOWN_VALUE_MAX);
        mk_sb_printf(&line, "%s%s=%s", i ? ", " : "", v[i].key, shown);
        free(shown);
    }
    mk_x_detail(c, "response %s: %s", part, n ? mk_sb_str(&line) : "(none)");
    mk_sb_free(&line);
}

static mk_xres check_alloc(const mk_expect *x, mk_xctx *c)
{
    const alloc_x *a = x->arg;
    mk_nodesrc *src = c->env->src;
    if (!src->allocate) {
        unavailable(c, "allocate");
        return MK_X_ERROR;
    }
    mk_strv ids = {0, 0};
    mk_xres res = pick_ids(a, c, &ids);
    if (res != MK_X_PASS)
        return res;

    char *allocated = join(ids.v, ids.n);
    mk_nv_alloc out;
    memset(&out, 0, sizeof out);
    char err[512] = "";
    if (src->allocate(src, c->resource, ids.v, ids.n, &out, err, sizeof err) != 0) {
        res = mk_x_fail(c, "Allocate %s of %s failed: %s", allocated, c->resource, err);
    } else {
        /* ${allocated}: the ids asked for, comma-separated, as the plugin's
         * envvar strategy puts them in NVIDIA_VISIBLE_DEVICES */
        mk_suite_var local[] = {{"allocated", allocated}};
        mk_vars vars = *c->vars;
        vars.local = local;
        vars.nlocal = 1;
        mk_xres r[3] = {
            check_part(c, &vars, "env", &a->env, out.envs, out.nenvs),
            check_part(c, &vars, "mounts", &a->mounts, out.mounts, out.nmounts),
            check_part(c, &vars, "devices", &a->devices, out.devices, out.ndevices),
        };
        for (int i = 0; i < 3; i++)
            if (r[i] > res)
                res = r[i];
        if (res == MK_X_FAIL) {
            mk_x_detail(c, "allocated: %s", allocated);
            detail_response(c, "env", out.envs, out.nenvs);
            detail_response(c, "mounts", out.mounts, out.nmounts);
            detail_response(c, "devices", out.devices, out.ndevices);
        }
    }
    mk_nv_alloc_free(&out);
    free(allocated);
    mk_strv_free(&ids);
    return res;
}

const mk_xkind mk_xk_allocate = {"allocate",
                                 MK_XK_RESOURCE | MK_XK_DEVICES | MK_XK_CALLS_PLUGIN,
                                 parse_alloc, check_alloc, free_alloc, NULL};

/* --- preferred ------------------------------------------------------------------- */

typedef struct pref_x {
    mk_strv available;           /* empty: every device of the resource */
    mk_strv must;
    long long size;
    mk_strv expect;              /* empty: any answer that keeps the rules */
} pref_x;

static void free_pref(void *arg)
{
    pref_x *p = arg;
    mk_strv_free(&p->available);
    mk_strv_free(&p->must);
    mk_strv_free(&p->expect);
    free(p);
}

static int parse_pref(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    static const char *const keys[] = {"available", "must", "size", "expect", NULL};
    if (mk_yneed_map(val, "preferred", d) != 0)
        return -1;
    pref_x *p = mk_xcalloc(1, sizeof *p);
    const mk_ynode *n, *sn = mk_yget(val, "size");
    int bad = mk_ycheck_keys(val, "preferred", keys, d) != 0;
    if ((n = mk_yget(val, "available")))
        bad |= mk_strv_parse(n, "preferred available", 0, &p->available, d) != 0;
    if ((n = mk_yget(val, "must")))
        bad |= mk_strv_parse(n, "preferred must", 1, &p->must, d) != 0;
    if ((n = mk_yget(val, "expect")))
        bad |= mk_strv_parse(n, "preferred expect", 0, &p->expect, d) != 0;
    if (!sn) {
        mk_yerr(d, val, "preferred needs 'size' (how many devices to ask for)");
        bad = 1;
    } else if (mk_yint(sn, "preferred size", 1, 1024, &p->size, d) != 0) {
        bad = 1;
    }
    if (!bad && p->must.n > (size_t)p->size) {
        mk_yerr(d, sn, "preferred size %lld is smaller than must (%zu device%s)", p->size,
                p->must.n, p->must.n == 1 ? "" : "s");
        bad = 1;
    }
    if (!bad && p->available.n && (size_t)p->size > p->available.n) {
        mk_yerr(d, sn, "preferred size %lld is larger than available (%zu device%s)", p->size,
                p->available.n, p->available.n == 1 ? "" : "s");
        bad = 1;
    }
    if (!bad && p->expect.n && p->expect.n != (size_t)p->size) {
        mk_yerr(d, mk_yget(val, "expect"), "preferred expect lists %zu device%s but size is %lld",
                p->expect.n, p->expect.n == 1 ? "" : "s", p->size);
        bad = 1;
    }
    if (bad) {
        free_pref(p);
        return -1;
    }
    x->arg = p;
    return 0;
}

static mk_xres check_answer(mk_xctx *c, const mk_strv *avail, const mk_strv *must,
                            const mk_strv *expect, long long size, const mk_strv *got)
{
    mk_xres res = MK_X_PASS;
    if ((long long)got->n != size)
        res = mk_x_fail(c, "GetPreferredAllocation returned %zu devices, asked for %lld",
                        got->n, size);
    for (size_t i = 0; i < must->n; i++)
        if (!mk_strv_has(got, must->v[i]))
            res = mk_x_fail(c, "GetPreferredAllocation left out must-include %s", must->v[i]);
    for (size_t i = 0; i < got->n; i++) {
        if (!mk_strv_has(avail, got->v[i]))
            res = mk_x_fail(c, "GetPreferredAllocation returned %s, which is not available",
                            got->v[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(got->v[i], got->v[j]) == 0)
                res = mk_x_fail(c, "GetPreferredAllocation returned %s twice", got->v[i]);
    }
    for (size_t i = 0; i < expect->n; i++)
        if (!mk_strv_has(got, expect->v[i]))
            res = mk_x_fail(c, "GetPreferredAllocation did not prefer %s", expect->v[i]);
    return res;
}

static mk_xres check_pref(const mk_expect *x, mk_xctx *c)
{
    const pref_x *p = x->arg;
    mk_nodesrc *src = c->env->src;
    if (!src->preferred) {
        unavailable(c, "preferred");
        return MK_X_ERROR;
    }
    mk_strv avail = {0, 0}, must = {0, 0}, expect = {0, 0}, got = {0, 0};
    char err[512] = "";
    mk_xres res = MK_X_PASS;
    if (mk_strv_expand(&p->must, c->vars, &must, err, sizeof err) != 0 ||
        mk_strv_expand(&p->expect, c->vars, &expect, err, sizeof err) != 0 ||
        mk_strv_expand(&p->available, c->vars, &avail, err, sizeof err) != 0) {
        res = mk_x_error(c, "preferred: %s", err);
        goto out;
    }
    if (!p->available.n) {
        mk_strv_free(&avail);
        avail.v = mk_xcalloc(c->res ? c->res->ndev : 0, sizeof *avail.v);
        for (size_t i = 0; c->res && i < c->res->ndev; i++)
            avail.v[avail.n++] = mk_xstrdup(c->res->dev[i].id);
    }
    if (src->preferred(src, c->resource, avail.v, avail.n, must.v, must.n, (size_t)p->size,
                       &got.v, &got.n, err, sizeof err) != 0) {
        res = mk_x_fail(c, "GetPreferredAllocation of %lld %s failed: %s", p->size,
                        c->resource, err);
        goto out;
    }
    res = check_answer(c, &avail, &must, &expect, p->size, &got);
    if (res == MK_X_FAIL) {
        char *a = join(avail.v, avail.n), *m = join(must.v, must.n), *g = join(got.v, got.n);
        mk_x_detail(c, "asked:    size %lld of [%s], must include [%s]", p->size, a, m);
        if (expect.n) {
            char *e = join(expect.v, expect.n);
            mk_x_detail(c, "expected: [%s]", e);
            free(e);
        }
        mk_x_detail(c, "actual:   [%s]", g);
        free(a);
        free(m);
        free(g);
    }
out:
    mk_strv_free(&avail);
    mk_strv_free(&must);
    mk_strv_free(&expect);
    mk_strv_free(&got);
    return res;
}

const mk_xkind mk_xk_preferred = {"preferred",
                                  MK_XK_RESOURCE | MK_XK_DEVICES | MK_XK_CALLS_PLUGIN,
                                  parse_pref, check_pref, free_pref, NULL};
