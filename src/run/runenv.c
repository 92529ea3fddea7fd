/* runenv.c - actions and variables for suites run by `mokka run`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "units.h"

/* The live state appears when the plugin first calls nvmlInit; attach to it
 * at the first action that needs it. */
static int state(mk_runenv *r, char *err, size_t errlen)
{
    if (r->st_open)
        return 0;
    char why[600];
    if (mk_state_open_existing(&r->st, r->state_path, why, sizeof why) != 0) {
        snprintf(err, errlen, "no live state yet (%s): the plugin has not initialised NVML", why);
        return -1;
    }
    if (r->st.hdr->ndev != r->u->ndev) {
        mk_state_close(&r->st);
        snprintf(err, errlen, "the live state at %s describes %u GPUs, the config %zu",
                 r->state_path, r->st.hdr->ndev, r->u->ndev);
        return -1;
    }
    r->st_open = 1;
    return 0;
}

static int check_gpu(mk_runenv *r, unsigned gpu, char *err, size_t errlen)
{
    if (gpu < r->u->ndev)
        return 0;
    snprintf(err, errlen, "gpu %u: the config has GPUs 0 to %zu", gpu, r->u->ndev - 1);
    return -1;
}

static int do_inject(mk_suite_env *env, const mk_inject *inj, char *err, size_t errlen)
{
    mk_runenv *r = (mk_runenv *)env;
    if (check_gpu(r, inj->gpu, err, errlen) || state(r, err, errlen))
        return -1;
    switch (inj->kind) {
    case MK_INJECT_XID: mk_state_raise(&r->st, inj->gpu, MK_FAULT_XID, inj->xid, -1); break;
    case MK_INJECT_ECC_DOUBLE: mk_state_raise_ecc(&r->st, inj->gpu, 1, -1); break;
    case MK_INJECT_ECC_SINGLE: mk_state_raise_ecc(&r->st, inj->gpu, 0, -1); break;
    case MK_INJECT_LOST: mk_state_raise(&r->st, inj->gpu, MK_FAULT_LOST, 79, -1); break;
    case MK_INJECT_HEALTHY: mk_state_mark_healthy(&r->st, inj->gpu); break;
    }
    return 0;
}

static int do_set(mk_suite_env *env, unsigned gpu, const char *metric, const char *value,
                  char *err, size_t errlen)
{
    mk_runenv *r = (mk_runenv *)env;
    int m = mk_metric_by_name(metric);
    int64_t v;
    const char *why;
    if (m < 0) {
        snprintf(err, errlen, "unknown metric '%s'", metric);
        return -1;
    }
    if (mk_parse_quantity(mk_metrics[m].unit, value, &v, &why) != 0) {
        snprintf(err, errlen, "%s: '%s': %s", metric, value, why);
        return -1;
    }
    if (check_gpu(r, gpu, err, errlen) || state(r, err, errlen))
        return -1;
    mk_state_pin(&r->st, gpu, (mk_metric)m, v);
    return 0;
}

const mk_runplugin *mk_runenv_plugin(const mk_runenv *r, const char *name, char *err,
                                     size_t errlen)
{
    if (!name && r->nplugins == 1)
        return &r->plugins[0];
    for (size_t i = 0; name && i < r->nplugins; i++)
        if (strcmp(r->plugins[i].name, name) == 0)
            return &r->plugins[i];
    int n = name ? snprintf(err, errlen, "no plugin is named '%s'; the plugins are ", name)
                 : snprintf(err, errlen, "%zu plugins run; name one of ", r->nplugins);
    for (size_t i = 0; i < r->nplugins && n >= 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, "%s'%s'", i ? ", " : "", r->plugins[i].name);
    return NULL;
}

/* name NULL: every plugin, one after the other. */
static int do_restart(mk_suite_env *env, const char *name, char *err, size_t errlen)
{
    mk_runenv *r = (mk_runenv *)env;
    if (name) {
        const mk_runplugin *p = mk_runenv_plugin(r, name, err, errlen);
        return p ? mk_super_restart(p->super, err, errlen) : -1;
    }
    for (size_t i = 0; i < r->nplugins; i++)
        if (mk_super_restart(r->plugins[i].super, err, errlen) != 0)
            return -1;
    return 0;
}

static int do_plugin_state(mk_suite_env *env, const char *name, mk_plugin_info *out,
                           char *err, size_t errlen)
{
    static const char *const states[] = { "running", "restarting", "failed", "stopped" };
    mk_runenv *r = (mk_runenv *)env;
    const mk_runplugin *p = mk_runenv_plugin(r, name, err, errlen);
    if (!p)
        return -1;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", p->name);
    mk_super_state st = mk_super_status(p->super, &out->crashes, &out->restarts, out->last_exit,
                                        sizeof out->last_exit);
    out->state = states[st];
    out->running = st == MK_SUPER_RUNNING;
    return 0;
}

char *mk_runplugins_log_tail(const mk_runplugin *v, size_t n, size_t lines)
{
    size_t len = 64 * 1024;
    char *buf = malloc(len), *one = n > 1 ? malloc(len) : NULL;
    if (!buf || (n > 1 && !one)) {
        free(one);
        free(buf);
        return NULL;
    }
    if (n == 1) {
        mk_super_log_tail(v[0].super, buf, len, lines);
        return buf;
    }
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && at < len; i++) {
        mk_super_log_tail(v[i].super, one, len, lines);
        int k = snprintf(buf + at, len - at, "%s--- plugin %s ---\n%s", at ? "\n" : "",
                         v[i].name, one);
        at = k < 0 ? len : at + (size_t)k;
    }
    free(one);
    return buf;
}

static char *do_log_tail(mk_suite_env *env)
{
    mk_runenv *r = (mk_runenv *)env;
    return mk_runplugins_log_tail(r->plugins, r->nplugins, r->nplugins > 1 ? 40 : 60);
}

static int add_var(mk_runenv *r, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int add_var(mk_runenv *r, const char *name, const char *fmt, ...)
{
    va_list ap;
    char *n = strdup(name), *v = NULL;
    va_start(ap, fmt);
    int rc = vasprintf(&v, fmt, ap);
    va_end(ap);
    mk_suite_var *vars = realloc(r->vars, (r->nvars + 1) * sizeof *vars);
    char **text = realloc(r->var_text, (r->nvars + 1) * 2 * sizeof *text);
    if (vars) r->vars = vars;
    if (text) r->var_text = text;
    if (rc < 0 || !n || !vars || !text) {
        free(n);
        if (rc >= 0) free(v);
        return -1;
    }
    r->var_text[2 * r->nvars] = n;
    r->var_text[2 * r->nvars + 1] = v;
    r->vars[r->nvars] = (mk_suite_var){ n, v };
    r->nvars++;
    return 0;
}

int mk_runenv_init(mk_runenv *r, mk_nodesrc *src, unsigned caps, const mk_universe *u,
                   const char *state_dir, const mk_runplugin *plugins, size_t nplugins)
{
    memset(r, 0, sizeof *r);
    r->u = u;
    r->plugins = plugins;
    r->nplugins = nplugins;
    r->env.src = src;
    r->env.caps = caps;
    if (state_dir && u) {
        snprintf(r->state_path, sizeof r->state_path, "%s/state", state_dir);
        r->env.inject = do_inject;
        r->env.set = do_set;
    }
    r->env.restart_plugin = nplugins ? do_restart : NULL;
    r->env.plugin_state = nplugins ? do_plugin_state : NULL;
    r->env.log_tail = nplugins ? do_log_tail : NULL;
    r->env.progress = mk_suite_progress_stderr;
    if (!u)
        return 0;
    size_t migs = 0;
    int rc = add_var(r, "gpus", "%zu", u->ndev) | add_var(r, "node", "%s", u->node) |
             add_var(r, "driver", "%s", u->driver_version);
    for (size_t i = 0; i < u->ndev && rc == 0; i++) {
        char name[32];
        const mk_device *d = &u->dev[i];
        snprintf(name, sizeof name, "uuid.%zu", i);
        rc |= add_var(r, name, "%s", d->uuid);
        snprintf(name, sizeof name, "bus.%zu", i);
        rc |= add_var(r, name, "%s", d->bus_id);
        snprintf(name, sizeof name, "name.%zu", i);
        rc |= add_var(r, name, "%s", d->name);
        snprintf(name, sizeof name, "mig.%zu", i);
        rc |= add_var(r, name, "%zu", d->nmig);
        migs += d->nmig;
    }
    rc |= add_var(r, "migs", "%zu", migs);
    r->env.vars = r->vars;
    r->env.nvars = r->nvars;
    return rc ? -1 : 0;
}

/* Replaces the value of variable `name`, or adds it. */
static int set_var(mk_runenv *r, const char *name, const char *value)
{
    for (size_t i = 0; i < r->nvars; i++)
        if (strcmp(r->var_text[2 * i], name) == 0) {
            char *v = strdup(value);
            if (!v)
                return -1;
            free(r->var_text[2 * i + 1]);
            r->var_text[2 * i + 1] = v;
            r->vars[i].value = v;
            return 0;
        }
    int rc = add_var(r, name, "%s", value);
    r->env.vars = r->vars;
    r->env.nvars = r->nvars;
    return rc;
}

int mk_runenv_var(mk_runenv *r, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return -1;
    /* The name as given, however long: a fixed buffer once cut names at 127
     * bytes, and two names that shared those collided. */
    char *name = strndup(assignment, (size_t)(eq - assignment));
    if (!name)
        return -1;
    int rc = set_var(r, name, eq + 1);
    free(name);
    return rc;
}

void mk_runenv_free(mk_runenv *r)
{
    if (r->st_open)
        mk_state_close(&r->st);
    for (size_t i = 0; i < 2 * r->nvars; i++)
        free(r->var_text[i]);
    free(r->var_text);
    free(r->vars);
    memset(r, 0, sizeof *r);
}
