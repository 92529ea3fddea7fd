/* suite_exec.c - exec steps: a case's `exec:` read and checked (command,
 * env, timeout, as-allocated), and run through the environment: the
 * allocation first when asked, as the kubelet would, then the command with
 * the environment the plugin answered, as the container runtime would. What
 * it did is written for the case's system-out. */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

#define SHOWN_MAX (16 * 1024)   /* bytes of each stream in the report: the last ones */

static const char *kind_name(const mk_ynode *n)
{
    return n->kind == MK_Y_MAP ? "a map" : n->kind == MK_Y_SEQ ? "a list" : "a value";
}

/* --- reading --------------------------------------------------------------------- */

static int shell_command(mk_execstep *st, const mk_ynode *n, mk_diags *d)
{
    if (!*n->str) {
        mk_yerr(d, n, "exec command is empty");
        return -1;
    }
    if (mk_vars_check(n, "exec command", d) != 0)
        return -1;
    size_t k = 0;
    st->argv = mk_xargv_push(st->argv, &k, mk_xstrdup("/bin/sh"));
    st->argv = mk_xargv_push(st->argv, &k, mk_xstrdup("-c"));
    st->argv = mk_xargv_push(st->argv, &k, mk_xstrdup(n->str));
    return 0;
}

/* command: [words...] (run as given, looked up on PATH) or "shell text". */
static int read_command(mk_execstep *st, const mk_ynode *n, mk_diags *d)
{
    if (n->kind == MK_Y_SCALAR)
        return shell_command(st, n, d);
    if (n->kind != MK_Y_SEQ || !n->n) {
        mk_yerr(d, n, "exec command must be a list of words such as [nvidia-smi, -L] or a "
                "shell command line, not %s", n->kind == MK_Y_SEQ ? "an empty list" : kind_name(n));
        return -1;
    }
    int bad = 0;
    size_t k = 0;
    for (size_t i = 0; i < n->n; i++) {
        const mk_ynode *w = n->vals[i];
        if (w->kind != MK_Y_SCALAR || (!i && !*w->str)) {
            mk_yerr(d, w, "exec command: each word must be a string%s, not %s",
                    i ? "" : " (the first not empty)",
                    w->kind == MK_Y_SCALAR ? "an empty one" : kind_name(w));
            bad = 1;
        } else if (mk_vars_check(w, "exec command", d) != 0) {
            bad = 1;
        } else {
            st->argv = mk_xargv_push(st->argv, &k, mk_xstrdup(w->str));
        }
    }
    return bad ? -1 : 0;
}

static int read_env(mk_execstep *st, const mk_ynode *n, mk_diags *d)
{
    if (mk_yneed_map(n, "exec env", d) != 0)
        return -1;
    int bad = 0;
    size_t k = 0;
    for (size_t i = 0; i < n->n; i++) {
        const char *name = n->keys[i]->str;
        const mk_ynode *v = n->vals[i];
        if (!*name || strchr(name, '=')) {
            mk_yerr(d, n->keys[i], "exec env: '%s' is not a variable name", name);
            bad = 1;
        } else if (v->kind != MK_Y_SCALAR || mk_yis_null(v)) {
            mk_yerr(d, v, "exec env %s must be a string, not %s", name,
                    v->kind == MK_Y_SCALAR ? "null" : kind_name(v));
            bad = 1;
        } else if (mk_vars_check(v, "exec env", d) != 0) {
            bad = 1;
        } else {
            st->env = mk_xargv_push(st->env, &k, mk_xasprintf("%s=%s", name, v->str));
        }
    }
    return bad ? -1 : 0;
}

static int read_map(mk_execstep *st, const mk_ynode *m, mk_diags *d)
{
    static const char *const keys[] = {"command", "env", "timeout", "as-allocated", "resource",
                                       NULL};
    int bad = mk_ycheck_keys(m, "exec", keys, d) != 0;
    const mk_ynode *n = mk_yget(m, "command");
    if (!n) {
        mk_yerr(d, m, "exec needs 'command' (a list of words, or a shell command line)");
        bad = 1;
    } else {
        bad |= read_command(st, n, d) != 0;
    }
    if ((n = mk_yget(m, "env")))
        bad |= read_env(st, n, d) != 0;
    if ((n = mk_yget(m, "timeout"))) {
        bad |= mk_ydur(n, "exec timeout", &st->timeout_ms, d) != 0;
        if (!bad && st->timeout_ms <= 0) {
            mk_yerr(d, n, "exec timeout must be longer than 0");
            bad = 1;
        }
    }
    if ((n = mk_yget(m, "as-allocated")))
        bad |= mk_yint(n, "exec as-allocated", 1, 1024, &st->alloc, d) != 0;
    const char *res = MK_DEFAULT_RESOURCE;
    if ((n = mk_yget(m, "resource"))) {
        if (mk_ystr(n, "exec resource", &res, d) != 0 || !*res) {
            if (n->kind == MK_Y_SCALAR)
                mk_yerr(d, n, "exec resource is empty (for example nvidia.com/gpu)");
            res = MK_DEFAULT_RESOURCE;
            bad = 1;
        } else if (!mk_yget(m, "as-allocated")) {
            mk_yerr(d, n, "exec resource names what as-allocated takes; give as-allocated too");
            bad = 1;
        }
    }
    st->resource = mk_xstrdup(res);
    return bad ? -1 : 0;
}

static int parse_one(const mk_ynode *n, mk_execstep *st, mk_diags *d)
{
    memset(st, 0, sizeof *st);
    st->line = n->line;
    st->col = n->col;
    st->timeout_ms = MK_EXEC_DEFAULT_TIMEOUT_MS;
    if (n->kind == MK_Y_SCALAR) {
        st->resource = mk_xstrdup(MK_DEFAULT_RESOURCE);
        return shell_command(st, n, d);
    }
    if (n->kind == MK_Y_MAP)
        return read_map(st, n, d);
    mk_yerr(d, n, "each exec must be a shell command line or a map such as "
            "{command: [nvidia-smi, -L]}, not %s", kind_name(n));
    return -1;
}

int mk_exec_parse(const mk_ynode *n, mk_execstep **steps, size_t *nsteps, mk_diags *d)
{
    if (n->kind == MK_Y_SEQ && !n->n) {
        mk_yerr(d, n, "exec is an empty list");
        return -1;
    }
    size_t count = n->kind == MK_Y_SEQ ? n->n : 1;
    int bad = 0;
    *steps = mk_xcalloc(count, sizeof **steps);
    for (size_t i = 0; i < count; i++) {
        bad |= parse_one(n->kind == MK_Y_SEQ ? n->vals[i] : n, &(*steps)[i], d) != 0;
        *nsteps = i + 1;
    }
    return bad ? -1 : 0;
}

void mk_exec_free(mk_execstep *steps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mk_argv_free(steps[i].argv);
        mk_argv_free(steps[i].env);
        free(steps[i].resource);
    }
    free(steps);
}

void mk_exec_res_free(mk_exec_res *res)
{
    free(res->out);
    free(res->err);
    memset(res, 0, sizeof *res);
}

/* A command as one line (a shell step: its text), at most 120 bytes. */
static char *command_line(char *const *argv)
{
    mk_sb b = MK_SB_INIT;
    int shell = argv[1] && strcmp(argv[0], "/bin/sh") == 0 && !strcmp(argv[1], "-c");
    for (size_t i = shell ? 2 : 0; argv[i]; i++) {
        const char *w = argv[i];
        int plain = !shell && *w && !w[strcspn(w, " \t\n'\"\\$;&|<>()*?")];
        mk_sb_printf(&b, "%s%s%s%s", b.len ? " " : "", plain || shell ? "" : "\"", w,
                     plain || shell ? "" : "\"");
    }
    char *line = mk_text_line(mk_sb_str(&b), 120);
    mk_sb_free(&b);
    return line;
}

void mk_exec_describe(const mk_execstep *st, char *buf, size_t len)
{
    char *line = command_line(st->argv);
    snprintf(buf, len, "'%s'", line);
    free(line);
}

/* --- running ----------------------------------------------------------------------- */

/* The first n healthy devices of the resource, in the plugin's order, as a
 * kubelet without preferences picks them. */
static int pick(mk_suite_env *env, const char *resource, long long n, char ***ids, size_t *nids,
                char *err, size_t errlen)
{
    mk_nv_nodes snap;
    char why[512] = "";
    if (env->src->snapshot(env->src, &snap, why, sizeof why) != 0) {
        snprintf(err, errlen, "cannot read the node view: %s", why);
        return -1;
    }
    const mk_nv_resource *res = snap.n ? mk_nv_find_resource(&snap.node[0], resource) : NULL;
    *ids = NULL;
    *nids = 0;
    for (size_t i = 0; res && i < res->ndev && *nids < (size_t)n; i++)
        if (res->dev[i].healthy)
            *ids = mk_xargv_push(*ids, nids, mk_xstrdup(res->dev[i].id));
    mk_nv_nodes_free(&snap);
    if (*nids == (size_t)n)
        return 0;
    snprintf(err, errlen, "as-allocated %lld: only %zu healthy %s device%s listed", n, *nids,
             resource, *nids == 1 ? "" : "s");
    mk_argv_free(*ids);
    return -1;
}

/* Allocate as the kubelet would; the plugin's envs go onto *env. */
static int allocate(mk_suite_env *env, const mk_execstep *st, char ***envv, size_t *nenv,
                    char **allocated, char *err, size_t errlen)
{
    if (!env->src->allocate) {
        snprintf(err, errlen, "as-allocated needs the built-in kubelet; the %s cannot call the "
                 "device plugin", env->src->kind);
        return -1;
    }
    char **ids;
    size_t nids;
    if (pick(env, st->resource, st->alloc, &ids, &nids, err, errlen) != 0)
        return -1;
    mk_sb joined = MK_SB_INIT;
    for (size_t i = 0; i < nids; i++)
        mk_sb_printf(&joined, "%s%s", i ? "," : "", ids[i]);
    *allocated = mk_sb_take(&joined);
    mk_nv_alloc out;
    memset(&out, 0, sizeof out);
    char why[512] = "";
    int rc = env->src->allocate(env->src, st->resource, ids, nids, &out, why, sizeof why);
    if (rc != 0)
        snprintf(err, errlen, "as-allocated: Allocate %s of %s failed: %s", *allocated,
                 st->resource, why);
    for (size_t i = 0; rc == 0 && i < out.nenvs; i++)
        *envv = mk_xargv_push(*envv, nenv, mk_xasprintf("%s=%s", out.envs[i].key,
                                                   out.envs[i].value ? out.envs[i].value : ""));
    mk_nv_alloc_free(&out);
    mk_argv_free(ids);
    return rc;
}

/* Each string of in with variables expanded, appended to *out. */
static int expand_all(char *const *in, const mk_vars *vars, char ***out, size_t *n, char *err,
                      size_t errlen)
{
    for (size_t i = 0; in && in[i]; i++) {
        char *s = mk_vars_expand(in[i], vars, err, errlen);
        if (!s)
            return -1;
        *out = mk_xargv_push(*out, n, s);
    }
    return 0;
}

/* One stream for the report: its last SHOWN_MAX bytes, cleaned. */
static void log_stream(mk_sb *log, const char *name, const char *text, int cut)
{
    size_t len = strlen(text);
    if (!len)
        return;
    const char *from = len > SHOWN_MAX ? text + len - SHOWN_MAX : text;
    while (from > text && ((unsigned char)*from & 0xC0) == 0x80)
        from++;   /* start on a character */
    char *clean = mk_text_clean(from);
    mk_sb_printf(log, "--- %s%s ---\n%s%s", name,
                 from > text || cut ? " (the end of it; more was written)" : "", clean,
                 clean[0] && clean[strlen(clean) - 1] != '\n' ? "\n" : "");
    free(clean);
}

static void log_result(mk_sb *log, const char *allocated, const mk_exec_req *req,
                       const mk_exec_res *res)
{
    char took[32], *cmd = command_line(req->argv);
    mk_duration_format(res->ms, took, sizeof took);
    mk_sb_printf(log, "%s$ %s\n", log->len ? "\n" : "", cmd);
    free(cmd);
    if (allocated)
        mk_sb_printf(log, "(as allocated: %s)\n", allocated);
    for (char *const *e = req->env; e && *e; e++)
        mk_sb_printf(log, "(env %s)\n", *e);
    log_stream(log, "stdout", res->out, res->out_cut);
    log_stream(log, "stderr", res->err, res->err_cut);
    if (res->timed_out)
        mk_sb_printf(log, "(killed after its timeout, with its process group)\n");
    else if (res->exited)
        mk_sb_printf(log, "(exit %d after %s)\n", res->code, took);
    else
        mk_sb_printf(log, "(killed by signal %d after %s)\n", res->code, took);
}

int mk_exec_run(mk_suite_env *env, const mk_vars *vars, const mk_execstep *st,
                mk_exec_res *res, char **allocated_out, mk_sb *log, char *err, size_t errlen)
{
    char cmd[200];
    memset(res, 0, sizeof *res);
    mk_exec_describe(st, cmd, sizeof cmd);
    if (!env->exec) {
        snprintf(err, errlen, "cannot exec %s: commands run in the GPU-node sandbox of mokka "
                 "run; the %s has none", cmd, env->src->kind);
        return -1;
    }
    char **argv = NULL, **envv = NULL, *allocated = NULL;
    size_t argc = 0, nenv = 0;
    char why[512] = "";
    int rc = st->alloc ? allocate(env, st, &envv, &nenv, &allocated, why, sizeof why) : 0;
    mk_suite_var local[] = {{"allocated", allocated}};
    mk_vars v = *vars;
    if (allocated) {
        v.local = local;
        v.nlocal = 1;
    }
    if (rc == 0)
        rc = expand_all(st->argv, &v, &argv, &argc, why, sizeof why) ||
             expand_all(st->env, &v, &envv, &nenv, why, sizeof why);
    mk_exec_req req = {argv, envv, st->timeout_ms};
    if (rc == 0)
        rc = env->exec(env, &req, res, why, sizeof why);
    if (rc == 0)
        log_result(log, allocated, &req, res);
    else
        snprintf(err, errlen, "exec %s: %s", cmd, why);
    mk_argv_free(argv);
    mk_argv_free(envv);
    *allocated_out = allocated;
    return rc == 0 ? 0 : -1;
}
