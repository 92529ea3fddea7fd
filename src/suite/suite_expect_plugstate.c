/* suite_expect_plugstate.c - expectations on the supervised plugins of
 * `mokka run`: `plugin:` (one plugin's state: running, restarts, crashes,
 * the resources it serves) and `served-by:` (which plugin serves the
 * expectation's resource). Elsewhere (mokka assert, cluster mode) nothing
 * is supervised and the case is an ERROR that says so. */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

typedef struct plugin_x {
    char *name;               /* NULL: the only plugin */
    int running;              /* -1: not asked */
    mk_cmp *restarts, *crashes;
    mk_strv resources;
    int has_resources;
} plugin_x;

static void free_plugin(void *arg)
{
    plugin_x *p = arg;
    free(p->name);
    if (p->restarts)
        mk_cmp_free(p->restarts);
    if (p->crashes)
        mk_cmp_free(p->crashes);
    free(p->restarts);
    free(p->crashes);
    mk_strv_free(&p->resources);
    free(p);
}

static mk_cmp *parse_cmp(const mk_ynode *n, const char *what, int *bad, mk_diags *d)
{
    if (!n)
        return NULL;
    mk_cmp *c = mk_xcalloc(1, sizeof *c);
    if (mk_cmp_parse(n, what, c, d) != 0) {
        free(c);
        *bad = 1;
        return NULL;
    }
    return c;
}

/* A parse that fails must say why: an empty name is no error to mk_ystr. */
static int empty(const mk_ynode *n, const char *what, mk_diags *d)
{
    mk_yerr(d, n, "%s is empty: name a plugin (as --add-plugin or the plugins file names it)", what);
    return -1;
}

static int parse_plugin_fields(plugin_x *p, const mk_ynode *val, mk_diags *d)
{
    static const char *const keys[] = {"name", "running", "restarts", "crashes", "resources", NULL};
    const char *s;
    /* `plugin: NAME` alone asks that it runs. */
    if (val->kind == MK_Y_SCALAR) {
        if (mk_ystr(val, "plugin", &s, d) != 0)
            return -1;
        if (!*s)
            return empty(val, "plugin", d);
        p->name = mk_xstrdup(s);
        p->running = 1;
        return 0;
    }
    if (mk_yneed_map(val, "plugin", d) != 0)
        return -1;
    int bad = mk_ycheck_keys(val, "plugin", keys, d) != 0;
    const mk_ynode *n;
    if ((n = mk_yget(val, "name"))) {
        if (mk_ystr(n, "plugin name", &s, d) != 0)
            bad = 1;
        else if (!*s)
            bad = empty(n, "plugin name", d) != 0;
        else
            p->name = mk_xstrdup(s);
    }
    if ((n = mk_yget(val, "running")))
        bad |= mk_ybool(n, "plugin running", &p->running, d) != 0;
    p->restarts = parse_cmp(mk_yget(val, "restarts"), "plugin restarts", &bad, d);
    p->crashes = parse_cmp(mk_yget(val, "crashes"), "plugin crashes", &bad, d);
    if ((n = mk_yget(val, "resources"))) {
        p->has_resources = 1;
        bad |= mk_strv_parse(n, "plugin resources", 1, &p->resources, d) != 0;
    }
    return bad ? -1 : 0;
}

static int parse_plugin(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    plugin_x *p = mk_xcalloc(1, sizeof *p);
    p->running = -1;
    if (parse_plugin_fields(p, val, d) != 0) {
        free_plugin(p);
        return -1;
    }
    x->arg = p;
    return 0;
}

static mk_xres check_count(mk_xctx *c, const char *who, const char *what, const mk_cmp *cmp,
                           unsigned actual)
{
    long long target;
    char err[512], want[64];
    if (!cmp)
        return MK_X_PASS;
    if (mk_cmp_target(cmp, c->vars, &target, err, sizeof err) != 0)
        return mk_x_error(c, "plugin %s: %s", what, err);
    if (mk_cmp_holds(cmp->op, (long long)actual, target))
        return MK_X_PASS;
    mk_cmp_describe(cmp->op, target, want, sizeof want);
    mk_x_detail(c, "expected: %s %s", what, want);
    mk_x_detail(c, "actual:   %s %u", what, actual);
    return mk_x_fail(c, "plugin '%s' %s is %u, expected %s", who, what, actual, want);
}

/* The resources the node shows as served by `name`, one line. */
static void served(const mk_nv_node *node, const char *name, mk_sb *out)
{
    for (size_t i = 0; i < node->nres; i++)
        if (node->res[i].plugin && strcmp(node->res[i].plugin, name) == 0)
            mk_sb_printf(out, "%s%s", out->len ? ", " : "", node->res[i].name);
}

static mk_xres check_resources(const plugin_x *p, const mk_plugin_info *in, mk_xctx *c)
{
    mk_strv want;
    char err[512];
    if (mk_strv_expand(&p->resources, c->vars, &want, err, sizeof err) != 0)
        return mk_x_error(c, "plugin resources: %s", err);
    int ok = 1;
    for (size_t i = 0; i < c->node->nres; i++) {
        const mk_nv_resource *r = &c->node->res[i];
        if (r->plugin && strcmp(r->plugin, in->name) == 0)
            ok &= mk_strv_has(&want, r->name);
    }
    for (size_t i = 0; ok && i < want.n; i++) {
        const mk_nv_resource *r = mk_nv_find_resource(c->node, want.v[i]);
        ok = r && r->plugin && strcmp(r->plugin, in->name) == 0;
    }
    mk_sb line = MK_SB_INIT;
    served(c->node, in->name, &line);
    mk_xres res = MK_X_PASS;
    if (!ok) {
        mk_sb exp = MK_SB_INIT;
        for (size_t i = 0; i < want.n; i++)
            mk_sb_printf(&exp, "%s%s", i ? ", " : "", want.v[i]);
        mk_x_detail(c, "expected: resources [%s]", mk_sb_str(&exp));
        mk_x_detail(c, "actual:   resources [%s]", mk_sb_str(&line));
        res = mk_x_fail(c, "plugin '%s' serves [%s], expected [%s]", in->name, mk_sb_str(&line),
                        mk_sb_str(&exp));
        mk_sb_free(&exp);
    }
    mk_sb_free(&line);
    mk_strv_free(&want);
    return res;
}

static mk_xres check_plugin(const mk_expect *x, mk_xctx *c)
{
    const plugin_x *p = x->arg;
    mk_plugin_info in;
    char err[1024];
    if (!c->env->plugin_state)
        return mk_x_error(c, "plugin: needs mokka run, which supervises the plugins; the %s "
                          "does not", c->env->src->kind);
    memset(&in, 0, sizeof in);
    if (c->env->plugin_state(c->env, p->name, &in, err, sizeof err) != 0)
        return mk_x_error(c, "plugin: %s", err);
    if (p->running >= 0 && !p->running != !in.running) {
        mk_x_detail(c, "expected: %s", p->running ? "running" : "not running");
        mk_x_detail(c, "actual:   %s%s%s", in.state, *in.last_exit ? "; last it " : "",
                    in.last_exit);
        return mk_x_fail(c, "plugin '%s' is %s, expected %s", in.name, in.state,
                         p->running ? "running" : "not running");
    }
    mk_xres r = check_count(c, in.name, "restarts", p->restarts, in.restarts);
    if (r == MK_X_PASS)
        r = check_count(c, in.name, "crashes", p->crashes, in.crashes);
    if (r != MK_X_PASS)
        return r;
    return p->has_resources ? check_resources(p, &in, c) : MK_X_PASS;
}

const mk_xkind mk_xk_plugin = {"plugin", 0, parse_plugin, check_plugin, free_plugin, NULL};

/* --- served-by ------------------------------------------------------------------ */

static int parse_served_by(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    const char *s;
    if (mk_ystr(val, "served-by", &s, d) != 0)
        return -1;
    if (!*s)
        return empty(val, "served-by", d);
    x->arg = mk_xstrdup(s);
    return 0;
}

static mk_xres check_served_by(const mk_expect *x, mk_xctx *c)
{
    const char *want = x->arg;
    if (!c->env->plugin_state)
        return mk_x_error(c, "served-by: needs mokka run, which knows which plugin serves "
                          "each resource; the %s does not", c->env->src->kind);
    const char *who = c->res ? c->res->plugin : NULL;
    if (who && strcmp(who, want) == 0)
        return MK_X_PASS;
    mk_x_detail(c, "expected: %s served by plugin '%s'", c->resource, want);
    mk_x_detail(c, "actual:   %s", !c->res ? "not advertised" : who ? who : "no known plugin");
    return mk_x_fail(c, "%s is %s%s%s, expected plugin '%s'", c->resource,
                     !c->res ? "not advertised" : who ? "served by plugin '" : "served by no known plugin",
                     who ? who : "", who ? "'" : "", want);
}

const mk_xkind mk_xk_served_by = {"served-by", MK_XK_RESOURCE, parse_served_by, check_served_by,
                                  free, NULL};
