/* suite_expect_resource.c - expectations on one extended resource: capacity,
 * allocatable, how many devices the plugin lists and how many are
 * (un)healthy, which devices are (un)healthy, and their NUMA nodes. */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

static const mk_nv_device *find_dev(const mk_nv_resource *r, const char *id)
{
    for (size_t i = 0; r && i < r->ndev; i++)
        if (strcmp(r->dev[i].id, id) == 0)
            return &r->dev[i];
    return NULL;
}

static size_t count_healthy(const mk_nv_resource *r, int healthy)
{
    size_t n = 0;
    for (size_t i = 0; r && i < r->ndev; i++)
        n += !r->dev[i].healthy == !healthy;
    return n;
}

/* One line on the resource as the node shows it, for failure details. */
static void detail_resource(mk_xctx *c)
{
    const mk_nv_resource *r = c->res;
    if (!r) {
        mk_x_detail(c, "node %s does not advertise %s", c->node->name, c->resource);
        return;
    }
    mk_sb line = MK_SB_INIT;
    mk_sb_printf(&line, "%s on node %s: capacity %lld, allocatable %lld", r->name,
                 c->node->name, r->capacity, r->allocatable);
    /* Which plugin serves it, when several could (mokka run). */
    if (r->plugin)
        mk_sb_printf(&line, ", served by plugin '%s'", r->plugin);
    if (r->endpoint)
        mk_sb_printf(&line, " (socket %s)", r->endpoint);
    if (c->env->caps & MK_ENV_DEVICE_LIST) {
        mk_sb_printf(&line, ", %zu device%s listed", r->ndev, r->ndev == 1 ? "" : "s");
        const char *sep = ", unhealthy: ";
        for (size_t i = 0; i < r->ndev; i++)
            if (!r->dev[i].healthy) {
                mk_sb_printf(&line, "%s%s", sep, r->dev[i].id);
                sep = ", ";
            }
    }
    mk_x_detail(c, "%s", mk_sb_str(&line));
    mk_sb_free(&line);
}

/* --- counts ------------------------------------------------------------------ */

typedef struct quantity {
    long long (*get)(const mk_nv_resource *r);   /* r NULL: not advertised */
} quantity;

static long long q_capacity(const mk_nv_resource *r) { return r ? r->capacity : 0; }
static long long q_allocatable(const mk_nv_resource *r) { return r ? r->allocatable : 0; }
static long long q_devices(const mk_nv_resource *r) { return r ? (long long)r->ndev : 0; }
static long long q_healthy(const mk_nv_resource *r) { return (long long)count_healthy(r, 1); }
static long long q_unhealthy(const mk_nv_resource *r) { return (long long)count_healthy(r, 0); }

static const quantity get_capacity = {q_capacity}, get_allocatable = {q_allocatable},
                      get_devices = {q_devices}, get_healthy = {q_healthy},
                      get_unhealthy = {q_unhealthy};

static int parse_count(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    mk_cmp *cmp = mk_xcalloc(1, sizeof *cmp);
    if (mk_cmp_parse(val, x->kind->key, cmp, d) != 0) {
        free(cmp);
        return -1;
    }
    x->arg = cmp;
    return 0;
}

static void free_count(void *arg)
{
    mk_cmp_free(arg);
    free(arg);
}

static mk_xres check_count(const mk_expect *x, mk_xctx *c)
{
    const mk_cmp *cmp = x->arg;
    const char *key = x->kind->key;
    long long target;
    char err[512], want[64];
    if (mk_cmp_target(cmp, c->vars, &target, err, sizeof err) != 0)
        return mk_x_error(c, "%s: %s", key, err);
    long long v = ((const quantity *)x->kind->aux)->get(c->res);
    if (mk_cmp_holds(cmp->op, v, target))
        return MK_X_PASS;
    mk_cmp_describe(cmp->op, target, want, sizeof want);
    mk_x_detail(c, "expected: %s %s", key, want);
    mk_x_detail(c, "actual:   %s %lld%s", key, v, c->res ? "" : " (not advertised)");
    detail_resource(c);
    return mk_x_fail(c, "%s %s is %lld%s, expected %s", c->resource, key, v,
                     c->res ? "" : " (not advertised)", want);
}

#define COUNT_KIND(name, key_, flags_, getter) \
    const mk_xkind name = {key_, MK_XK_RESOURCE | (flags_), parse_count, check_count, \
                           free_count, &getter}
COUNT_KIND(mk_xk_capacity, "capacity", 0, get_capacity);
COUNT_KIND(mk_xk_allocatable, "allocatable", 0, get_allocatable);
COUNT_KIND(mk_xk_devices, "devices", MK_XK_DEVICES, get_devices);
COUNT_KIND(mk_xk_healthy_count, "healthy-count", MK_XK_DEVICES, get_healthy);
COUNT_KIND(mk_xk_unhealthy_count, "unhealthy-count", MK_XK_DEVICES, get_unhealthy);

/* --- which devices are healthy ---------------------------------------------- */

typedef struct health { int healthy; } health;
static const health want_healthy = {1}, want_unhealthy = {0};

static int parse_ids(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    if (val->kind == MK_Y_SEQ && !val->n) {
        mk_yerr(d, val, "%s is an empty list (to check that no device is %s, write %s-count: 0)",
                x->kind->key, x->kind->key, x->kind->key);
        return -1;
    }
    mk_strv *ids = mk_xcalloc(1, sizeof *ids);
    if (mk_strv_parse(val, x->kind->key, 0, ids, d) != 0) {
        free(ids);
        return -1;
    }
    x->arg = ids;
    return 0;
}

static void free_ids(void *arg)
{
    mk_strv_free(arg);
    free(arg);
}

static mk_xres check_ids(const mk_expect *x, mk_xctx *c)
{
    int want = ((const health *)x->kind->aux)->healthy;
    const char *state = want ? "Healthy" : "Unhealthy";
    mk_strv ids;
    char err[512];
    if (mk_strv_expand(x->arg, c->vars, &ids, err, sizeof err) != 0)
        return mk_x_error(c, "%s: %s", x->kind->key, err);
    mk_sb actual = MK_SB_INIT;
    size_t wrong = 0;
    for (size_t i = 0; i < ids.n; i++) {
        const mk_nv_device *dev = find_dev(c->res, ids.v[i]);
        const char *is = !dev ? "not listed" : dev->healthy ? "Healthy" : "Unhealthy";
        mk_sb_printf(&actual, "%s%s %s", i ? ", " : "", ids.v[i], is);
        if (dev && !dev->healthy == !want)
            continue;
        wrong++;
        if (dev)
            mk_x_fail(c, "%s %s is %s, expected %s", c->resource, ids.v[i], is, state);
        else
            mk_x_fail(c, "%s %s is not listed by the plugin, expected %s", c->resource,
                      ids.v[i], state);
    }
    mk_xres res = MK_X_PASS;
    if (wrong) {
        mk_sb list = MK_SB_INIT;
        for (size_t i = 0; i < ids.n; i++)
            mk_sb_printf(&list, "%s%s", i ? ", " : "", ids.v[i]);
        mk_x_detail(c, "expected: %s: %s", state, mk_sb_str(&list));
        mk_x_detail(c, "actual:   %s", mk_sb_str(&actual));
        detail_resource(c);
        mk_sb_free(&list);
        res = MK_X_FAIL;
    }
    mk_sb_free(&actual);
    mk_strv_free(&ids);
    return res;
}

const mk_xkind mk_xk_healthy = {"healthy", MK_XK_RESOURCE | MK_XK_DEVICES, parse_ids,
                                check_ids, free_ids, &want_healthy};
const mk_xkind mk_xk_unhealthy = {"unhealthy", MK_XK_RESOURCE | MK_XK_DEVICES, parse_ids,
                                  check_ids, free_ids, &want_unhealthy};

/* --- topology ------------------------------------------------------------------ */

typedef struct topo {
    mk_strv ids;
    int *numa;           /* -1: the device must have no NUMA node */
} topo;

static void free_topo(void *arg)
{
    topo *t = arg;
    mk_strv_free(&t->ids);
    free(t->numa);
    free(t);
}

static int parse_topo(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    if (val->kind != MK_Y_MAP || !val->n) {
        const char *is = val->kind == MK_Y_MAP ? "an empty map" :
                         val->kind == MK_Y_SEQ ? "a list" : "a value";
        mk_yerr(d, val, "topology must be a map of device id: NUMA node (or null), not %s", is);
        return -1;
    }
    topo *t = mk_xcalloc(1, sizeof *t);
    t->ids.v = mk_xcalloc(val->n, sizeof *t->ids.v);
    t->numa = mk_xcalloc(val->n, sizeof *t->numa);
    int bad = 0;
    for (size_t i = 0; i < val->n; i++) {
        long long numa = -1;
        char *what = mk_xasprintf("topology '%s'", val->keys[i]->str);
        const mk_ynode *v = val->vals[i];
        int ok = mk_vars_check(val->keys[i], "topology", d) == 0 &&
                 (mk_yis_null(v) || mk_yint(v, what, 0, 1023, &numa, d) == 0);
        free(what);
        if (!ok) {
            bad = 1;
            continue;
        }
        t->numa[t->ids.n] = (int)numa;
        t->ids.v[t->ids.n++] = mk_xstrdup(val->keys[i]->str);
    }
    if (bad) {
        free_topo(t);
        return -1;
    }
    x->arg = t;
    return 0;
}

static void numa_text(int numa, char *buf, size_t len)
{
    if (numa < 0)
        snprintf(buf, len, "no NUMA node");
    else
        snprintf(buf, len, "NUMA node %d", numa);
}

static mk_xres check_topo(const mk_expect *x, mk_xctx *c)
{
    const topo *t = x->arg;
    mk_strv ids;
    char err[512];
    if (mk_strv_expand(&t->ids, c->vars, &ids, err, sizeof err) != 0)
        return mk_x_error(c, "topology: %s", err);
    mk_xres res = MK_X_PASS;
    for (size_t i = 0; i < ids.n; i++) {
        const mk_nv_device *dev = find_dev(c->res, ids.v[i]);
        char want[32], got[32];
        numa_text(t->numa[i], want, sizeof want);
        if (!dev) {
            mk_x_fail(c, "%s %s is not listed by the plugin", c->resource, ids.v[i]);
            mk_x_detail(c, "%s: expected %s, not listed", ids.v[i], want);
            res = MK_X_FAIL;
            continue;
        }
        if (dev->numa == t->numa[i] || (dev->numa < 0 && t->numa[i] < 0))
            continue;
        numa_text(dev->numa, got, sizeof got);
        mk_x_fail(c, "%s %s has %s, expected %s", c->resource, ids.v[i], got, want);
        mk_x_detail(c, "%s: expected %s, actual %s", ids.v[i], want, got);
        res = MK_X_FAIL;
    }
    if (res != MK_X_PASS)
        detail_resource(c);
    mk_strv_free(&ids);
    return res;
}

const mk_xkind mk_xk_topology = {"topology", MK_XK_RESOURCE | MK_XK_DEVICES, parse_topo,
                                 check_topo, free_topo, NULL};
