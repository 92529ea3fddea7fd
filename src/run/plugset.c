/* plugset.c - the plugins of one `mokka run`: one (`-- PLUGIN ARGS`, named
 * "plugin", log RUN_DIR/plugin.log) or several side by side (--plugins,
 * --add-plugin; log RUN_DIR/plugin-NAME.log), each with its command line,
 * its environment (-e for all, then its own) and its log, each under a
 * supervisor of its own, all in one sandbox, one universe and one live
 * state. It tells the built-in kubelet which plugin serves a socket, keeps
 * what the kubelet said about each plugin (registrations, device lists,
 * replacements, socket clashes), and writes the `plugins` report suite:
 * one case per plugin (how it ran, the resources it serves) and one per
 * socket clash. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "util/util.h"

typedef struct plug {
    char name[MK_PLUGIN_NAME_MAX + 1];
    mk_plugin_cmd cmd;
    mk_super *super;
    char log_path[4400];
    const mk_plugin_spec *spec;   /* NULL: the one plugin of `--` */
    char **env;             /* -e, then the spec's */
    unsigned regs, lists;   /* kubelet events for it (under mu) */
    int clashed;            /* another plugin took its socket path (under mu) */
    mk_sb notes;            /* what the kubelet said beyond that, one line each (under mu) */
} plug;

struct mk_plugset {
    plug p[MK_PLUGINS_MAX];
    size_t n;
    int several;            /* --plugins / --add-plugin: the report names each */
    int blind;              /* under the node's kubelet: no registrations seen */
    mk_runplugin rp[MK_PLUGINS_MAX];
    pthread_mutex_t mu;
    unsigned regs, lists;   /* all plugins, those identify could not name too */
    mk_sb clashes;          /* one line per socket clash */
};

mk_plugset *mk_plugset_new(void)
{
    mk_plugset *ps = mk_xcalloc(1, sizeof *ps);
    pthread_mutex_init(&ps->mu, NULL);
    return ps;
}

static char **env_join(char *const *a, char *const *b)
{
    size_t n = 0, m = 0;
    while (a && a[n])
        n++;
    while (b && b[m])
        m++;
    char **v = mk_xcalloc(n + m + 1, sizeof *v);
    if (n)   /* memcpy from NULL is undefined even for 0 bytes (UBSan) */
        memcpy(v, a, n * sizeof *v);
    if (m)
        memcpy(v + n, b, m * sizeof *v);
    return v;
}

/* Its command line, environment and log path, before anything starts. */
static int prepare(mk_plugset *ps, plug *p, const mk_plugset_opts *o, const char *plugin,
                   char *const *args, size_t nargs, char *const *env, const char *log,
                   char *err, size_t errlen)
{
    char why[1024];
    mk_plugenv_opts po = *o->penv;
    p->env = env_join(o->env, env);
    po.extra = p->env;
    if (mk_plugin_resolve(plugin, args, nargs, &p->cmd, why, sizeof why) != 0 ||
        mk_plugin_env(&p->cmd, &po, why, sizeof why) != 0) {
        if (ps->several)
            snprintf(err, errlen, "plugin '%s': %s", p->name, why);
        else
            snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (log)
        snprintf(p->log_path, sizeof p->log_path, "%s", log);
    else
        snprintf(p->log_path, sizeof p->log_path, "%s/%s%s.log", o->run_dir,
                 ps->several ? "plugin-" : "plugin", ps->several ? p->name : "");
    return 0;
}

static int launch(mk_plugset *ps, plug *p, const mk_plugset_opts *o, char *err, size_t errlen)
{
    char why[1024];
    mk_super_opts so = { p->cmd.argv, p->cmd.envp, o->sandbox, p->log_path, o->verbose,
                         o->restart_limit, 1, ps->several ? p->name : "plugin" };
    mk_super *super = mk_super_start(&so, why, sizeof why);
    if (!super) {
        snprintf(err, errlen, "%s%s%s%s", ps->several ? "plugin '" : "",
                 ps->several ? p->name : "", ps->several ? "': " : "", why);
        return -1;
    }
    /* The kubelet's threads look at the plugins as soon as one registers. */
    pthread_mutex_lock(&ps->mu);
    p->super = super;
    ps->rp[ps->n] = (mk_runplugin){ p->name, p->super };
    ps->n++;
    pthread_mutex_unlock(&ps->mu);
    return 0;
}

int mk_plugset_start(mk_plugset *ps, const mk_plugset_opts *o, char *err, size_t errlen)
{
    size_t n = o->specs && o->specs->n ? o->specs->n : 1;
    ps->several = o->specs && o->specs->n;
    if (n > MK_PLUGINS_MAX) {
        snprintf(err, errlen, "%zu plugins: mokka run supervises at most %d", n, MK_PLUGINS_MAX);
        return -1;
    }
    /* Every command found before any starts: a typo in the second plugin
     * must not leave the first registering for nothing. */
    for (size_t i = 0; i < n; i++) {
        plug *p = &ps->p[i];
        const mk_plugin_spec *s = ps->several ? &o->specs->v[i] : NULL;
        snprintf(p->name, sizeof p->name, "%s", s ? s->name : "plugin");
        p->spec = s;
        if (s ? prepare(ps, p, o, NULL, s->args, s->nargs, s->env, s->log, err, errlen)
              : prepare(ps, p, o, o->plugin, o->args, o->nargs, NULL, NULL, err, errlen))
            return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (launch(ps, &ps->p[i], o, err, errlen) != 0)
            return -1;
    return 0;
}

size_t mk_plugset_count(const mk_plugset *ps) { return ps->n; }
int mk_plugset_several(const mk_plugset *ps) { return ps->several; }
const mk_runplugin *mk_plugset_runplugins(const mk_plugset *ps) { return ps->rp; }
const char *mk_plugset_name(const mk_plugset *ps, size_t i) { return ps->p[i].name; }
mk_super *mk_plugset_super(const mk_plugset *ps, size_t i) { return ps->p[i].super; }
const char *mk_plugset_path(const mk_plugset *ps, size_t i) { return ps->p[i].cmd.argv[0]; }
char *const *mk_plugset_envp(const mk_plugset *ps, size_t i) { return ps->p[i].cmd.envp; }
const char *mk_plugset_log(const mk_plugset *ps, size_t i) { return ps->p[i].log_path; }

static plug *find(mk_plugset *ps, const char *name)
{
    for (size_t i = 0; name && i < ps->n; i++)
        if (strcmp(ps->p[i].name, name) == 0)
            return &ps->p[i];
    return NULL;
}

void mk_plugset_identify(void *ctx, const char *path, char *name, size_t len, char *shadowed,
                         size_t slen)
{
    mk_plugset *ps = ctx;
    pid_t pgids[MK_PLUGINS_MAX];
    pthread_mutex_lock(&ps->mu);
    size_t n = ps->n;
    for (size_t i = 0; i < n; i++)
        pgids[i] = mk_super_pid(ps->p[i].super);
    pthread_mutex_unlock(&ps->mu);
    int other;
    int i = mk_sock_owner(path, pgids, n, &other);
    snprintf(shadowed, slen, "%s", other >= 0 ? ps->p[other].name : "");
    /* One plugin: whoever registers is it (a plugin may register for a
     * helper process outside its group). */
    if (i < 0 && n == 1 && !ps->several)
        i = 0;
    snprintf(name, len, "%s", i >= 0 ? ps->p[i].name : "");
}

static void note(mk_sb *sb, double t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(mk_sb *sb, double t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    mk_sb_printf(sb, "%s%.1fs: %s", sb->len ? "\n" : "", t, line);
}

void mk_plugset_event(mk_plugset *ps, const mk_kubelet_event *ev, double t)
{
    pthread_mutex_lock(&ps->mu);
    plug *p = find(ps, ev->plugin);
    const char *res = ev->resource ? ev->resource : "?";
    switch (ev->kind) {
    case MK_KL_REGISTERED:
        ps->regs++;
        if (p) {
            p->regs++;
            note(&p->notes, t, "registered %s (socket %s)", res, ev->endpoint);
        }
        break;
    case MK_KL_DEVICES:
        ps->lists++;
        if (p)
            p->lists++;
        break;
    case MK_KL_REPLACED:
        if (p)
            note(&p->notes, t, "its registration of %s replaced plugin '%s''s: the devices of "
                 "'%s' left the node", res, ev->other, ev->other);
        if ((p = find(ps, ev->other)))
            note(&p->notes, t, "replaced as %s's endpoint by plugin '%s' (its devices left the "
                 "node; the kubelet keeps its stream open)", res, ev->plugin);
        break;
    case MK_KL_CLASH:
        /* once per pair and socket, however many resources it carries */
        if (!ps->clashes.len || !strstr(mk_sb_str(&ps->clashes), ev->msg))
            note(&ps->clashes, t, "%s", ev->msg);
        if (p)
            p->clashed = 1;
        if ((p = find(ps, ev->other)))
            p->clashed = 1;
        break;
    case MK_KL_STALE_LIST:
        if (p)
            note(&p->notes, t, "sent %s's device list (%zu of %zu healthy) after it was "
                 "replaced: the kubelet took it (v1.20 does)", res, ev->healthy, ev->total);
        break;
    case MK_KL_STREAM_ENDED:
        if (p)
            note(&p->notes, t, "its ListAndWatch for %s ended (%s): %s is unhealthy until it "
                 "registers again", res, ev->msg ? ev->msg : "", res);
        break;
    case MK_KL_REJECTED:
    case MK_KL_ERROR:
        if (p)
            note(&p->notes, t, "%s: %s", res, ev->msg ? ev->msg : "");
        break;
    }
    pthread_mutex_unlock(&ps->mu);
}

void mk_plugset_counts(mk_plugset *ps, const char *name, unsigned *regs, unsigned *lists)
{
    pthread_mutex_lock(&ps->mu);
    plug *p = find(ps, name);
    *regs = p ? p->regs : ps->regs;
    *lists = p ? p->lists : ps->lists;
    pthread_mutex_unlock(&ps->mu);
}

void mk_plugset_blind(mk_plugset *ps)
{
    ps->blind = 1;
}

int mk_plugset_settled(mk_plugset *ps, size_t i)
{
    if (ps->blind)
        return 1;
    pthread_mutex_lock(&ps->mu);
    int yes = ps->p[i].regs || ps->p[i].clashed;
    pthread_mutex_unlock(&ps->mu);
    return yes || mk_super_status(ps->p[i].super, NULL, NULL, NULL, 0) == MK_SUPER_FAILED;
}

void mk_plugset_stop(mk_plugset *ps, int sig, int timeout_ms)
{
    mk_super *v[MK_PLUGINS_MAX];
    for (size_t i = 0; i < ps->n; i++)
        v[i] = ps->p[i].super;
    mk_super_stop_all(v, ps->n, sig, timeout_ms);
}

char *mk_plugset_log_tail(mk_plugset *ps, size_t i, size_t lines)
{
    return mk_runplugins_log_tail(&ps->rp[i], 1, lines);
}

/* One plugin's case: an ERROR when it failed for good or never registered,
 * else a pass whose detail lists what it serves and what happened. */
static void report_one(mk_plugset *ps, plug *p, mk_rsuite *s, const mk_nv_node *node)
{
    unsigned crashes, restarts;
    char last[600];
    mk_super_state st = mk_super_status(p->super, &crashes, &restarts, last, sizeof last);
    mk_rcase *c = mk_rsuite_add_case(s, p->name, node ? node->name : NULL);
    if (!c)
        return;
    /* a plugin of a run file points there, as a suite's case does */
    if (p->spec && p->spec->file) {
        c->file = mk_xstrdup(p->spec->file);
        c->line = p->spec->line;
    }
    if (st == MK_SUPER_FAILED)
        mk_rcase_set(c, MK_ST_ERROR, "plugin-failed", "plugin '%s' (%s) %s and crashed %u "
                     "time%s, more than --restart-limit allows%s", p->name, p->cmd.argv[0], last,
                     crashes, crashes == 1 ? "" : "s", p->regs ? "" : "; it never registered");
    else if (!p->regs && !p->clashed && !ps->blind)
        mk_rcase_set(c, MK_ST_ERROR, "plugin-unregistered", "plugin '%s' (%s) never registered%s%s",
                     p->name, p->cmd.argv[0], crashes ? "; last it " : "", crashes ? last : "");
    mk_rcase_detail(c, "command: %s; log: %s", p->cmd.argv[0], p->log_path);
    mk_rcase_detail(c, "state at the end: %s; crashes %u, restarts %u%s%s",
                    st == MK_SUPER_FAILED ? "failed" : st == MK_SUPER_STOPPED ? "stopped" : "running",
                    crashes, restarts, crashes ? "; last it " : "", crashes ? last : "");
    size_t served = 0;
    for (size_t i = 0; node && i < node->nres; i++) {
        const mk_nv_resource *r = &node->res[i];
        if (r->plugin && strcmp(r->plugin, p->name) == 0) {
            mk_rcase_detail(c, "serves %s: capacity %lld, allocatable %lld (socket %s)", r->name,
                            r->capacity, r->allocatable, r->endpoint ? r->endpoint : "?");
            served++;
        }
    }
    if (ps->blind)
        mk_rcase_detail(c, "under the node's kubelet: which resources it serves is the kubelet's "
                        "to know (the node shows their sum)");
    else if (!served)
        mk_rcase_detail(c, "serves no resource on the node");
    if (p->notes.len)
        mk_rcase_detail(c, "what the kubelet saw:\n%s", mk_sb_str(&p->notes));
    /* JUnit keeps only the output of a passing case: the attribution goes
     * there too, ahead of the log. */
    char *tail = mk_plugset_log_tail(ps, (size_t)(p - ps->p), 200);
    if (c->status == MK_ST_PASS && c->detail &&
        asprintf(&c->output, "%s\n--- log of plugin %s ---\n%s", c->detail, p->name,
                 tail ? tail : "") >= 0)
        free(tail);
    else
        c->output = tail;
}

void mk_plugset_report(mk_plugset *ps, mk_report *rep, const mk_nv_node *node)
{
    if (!ps->several)
        return;
    mk_rsuite *s = mk_report_add_suite(rep, "plugins", NULL);
    if (!s)
        return;
    pthread_mutex_lock(&ps->mu);
    for (size_t i = 0; i < ps->n; i++)
        report_one(ps, &ps->p[i], s, node);
    /* Each clash is a finding about the plugins' configuration: a FAIL. */
    if (ps->clashes.len) {
        mk_rcase *c = mk_rsuite_add_case(s, "plugins serve from sockets of their own",
                                         node ? node->name : NULL);
        if (c) {
            const char *first = strchr(mk_sb_str(&ps->clashes), ' ') + 1;
            mk_rcase_set(c, MK_ST_FAIL, "socket-clash", "%.*s", (int)strcspn(first, "\n"), first);
            mk_rcase_detail(c, "%s", mk_sb_str(&ps->clashes));
        }
    }
    pthread_mutex_unlock(&ps->mu);
}

void mk_plugset_free(mk_plugset *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->n; i++)
        mk_super_free(ps->p[i].super);
    for (size_t i = 0; i < MK_PLUGINS_MAX; i++) {
        mk_plugin_cmd_free(&ps->p[i].cmd);
        free(ps->p[i].env);
        mk_sb_free(&ps->p[i].notes);
    }
    mk_sb_free(&ps->clashes);
    pthread_mutex_destroy(&ps->mu);
    free(ps);
}
