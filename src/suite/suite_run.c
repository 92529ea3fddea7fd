/* suite_run.c - running a loaded suite: for each case the actions (inject,
 * set, restart-plugin, wait, exec, in that order), then its expectations on
 * every node to check, retried under `within:` whenever the node view
 * changes (blocking in wait_change, never polling) until they hold or time
 * is up; expectations on an exec run its last step again for each retry.
 * Each case gives one report result per node; a case of fleet expectations
 * gives one, for all the nodes together ("fleet"). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/util.h"
#include "suite_int.h"

#define TICK_MS 250             /* progress and cancel checks while waiting */
#define PLUGIN_RECHECK_MS 1000  /* re-ask the plugin (allocate) even without a view change */

/* One node to check in one case, and what was last seen on it. */
typedef struct target {
    char *name;
    int done;
    mk_status status;            /* once done; before: FAIL or ERROR as last seen */
    const char *type;
    char *message, *detail;
    long long at_ms;             /* when it settled, from the case start */
} target;

typedef struct runner {
    const mk_suite *suite;
    mk_suite_env *env;
    mk_rsuite *rs;
    mk_vars vars;
    const mk_case *c;
    size_t index;
    long long start;             /* the case's start, monotonic ms */
    target *t;
    size_t nt;
    int checks;                  /* how often the expectations were evaluated */
    long long last_check;
    mk_exec_res exec;            /* the case's last exec step's result */
    int ran_exec;
    mk_sb exec_log;              /* what its exec steps did, for system-out */
    mk_suite_var allocated;      /* ${allocated} of its last as-allocated step */
    size_t last_exec_at;         /* where the last step's part of exec_log starts */
} runner;

static int cancelled(const runner *r)
{
    return r->env->cancel && *r->env->cancel;
}

static void progress(const runner *r, mk_progress_phase phase, long long waited,
                     long long limit, mk_status st)
{
    if (!r->env->progress)
        return;
    mk_progress p = {phase, r->suite->name, r->c->name, r->index + 1, r->suite->n,
                     waited, limit, st};
    r->env->progress(r->env, &p);
}

/* --- settling results ---------------------------------------------------------- */

static void record(target *t, mk_status st, const char *type, char *message, char *detail)
{
    free(t->message);
    free(t->detail);
    t->status = st;
    t->type = type;
    t->message = message;
    t->detail = detail;
}

static void settle(runner *r, target *t, mk_status st, const char *type, char *message,
                   char *detail)
{
    record(t, st, type, message, detail);
    t->done = 1;
    t->at_ms = mk_now_ms() - r->start;
}

/* Settles every target still open with the same result (message may be NULL). */
static void settle_pending(runner *r, mk_status st, const char *type, const char *message)
{
    for (size_t i = 0; i < r->nt; i++)
        if (!r->t[i].done)
            settle(r, &r->t[i], st, type, mk_xstrdup(message), NULL);
}

static size_t pending(const runner *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nt; i++)
        n += !r->t[i].done;
    return n;
}

/* --- which nodes ----------------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(((const target *)a)->name, ((const target *)b)->name);
}

#define FLEET_TARGET "fleet"

static int is_fleet_case(const mk_case *c)
{
    return c->nx && (c->x[0].kind->flags & MK_XK_FLEET);   /* the loader keeps them apart */
}

/* The environment's node names, or every node in the view (sorted, so the
 * report's order does not depend on the API server's); or the one fleet. */
static int resolve_targets(runner *r, char *err, size_t errlen)
{
    mk_suite_env *e = r->env;
    if (is_fleet_case(r->c)) {
        r->nt = 1;
        r->t = mk_xcalloc(1, sizeof *r->t);
        r->t->name = mk_xstrdup(FLEET_TARGET);
        return 0;
    }
    if (e->nodes && !e->nodes[0]) {
        snprintf(err, errlen, "no nodes to check: the list of nodes is empty");
        return -1;
    }
    if (e->nodes) {
        while (e->nodes[r->nt])
            r->nt++;
        r->t = mk_xcalloc(r->nt, sizeof *r->t);
        for (size_t i = 0; i < r->nt; i++)
            r->t[i].name = mk_xstrdup(e->nodes[i]);
        return 0;
    }
    mk_nv_nodes snap;
    char why[512] = "";
    if (e->src->snapshot(e->src, &snap, why, sizeof why) != 0) {
        snprintf(err, errlen, "cannot read the node view (%s): %s", e->src->kind, why);
        return -1;
    }
    if (!snap.n) {
        snprintf(err, errlen, "no nodes to check: the %s shows none", e->src->kind);
        mk_nv_nodes_free(&snap);
        return -1;
    }
    r->nt = snap.n;
    r->t = mk_xcalloc(r->nt, sizeof *r->t);
    for (size_t i = 0; i < r->nt; i++)
        r->t[i].name = mk_xstrdup(snap.node[i].name);
    mk_nv_nodes_free(&snap);
    if (r->nt > 1)
        qsort(r->t, r->nt, sizeof *r->t, cmp_names);
    return 0;
}

/* --- actions --------------------------------------------------------------------- */

/* Sleeps `ms` in ticks, reporting progress; -1 when cancelled. */
static int pause_ms(runner *r, long long ms)
{
    long long t0 = mk_now_ms();
    for (long long waited = 0; waited < ms; waited = mk_now_ms() - t0) {
        if (cancelled(r))
            return -1;
        long long slice = ms - waited < TICK_MS ? ms - waited : TICK_MS;
        struct timespec ts = {(time_t)(slice / 1000), (long)(slice % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        progress(r, MK_PROGRESS_WAIT, mk_now_ms() - t0, ms, MK_ST_PASS);
    }
    return 0;
}

static void inject_text(const mk_inject *inj, char *buf, size_t len)
{
    switch (inj->kind) {
    case MK_INJECT_XID: snprintf(buf, len, "xid %u", inj->xid); break;
    case MK_INJECT_ECC_DOUBLE: snprintf(buf, len, "double-bit ecc error"); break;
    case MK_INJECT_ECC_SINGLE: snprintf(buf, len, "single-bit ecc error"); break;
    case MK_INJECT_LOST: snprintf(buf, len, "lost"); break;
    case MK_INJECT_HEALTHY: snprintf(buf, len, "healthy"); break;
    }
}

/* An inject with nodes: through the environment's cluster. */
static int inject_nodes(mk_suite_env *e, const mk_inject *inj, const char *what, char *err,
                        size_t errlen)
{
    char why[2048] = "";
    if (!e->inject_nodes) {
        snprintf(err, errlen, "cannot inject %s on gpu %u of nodes: an inject with nodes: needs "
                 "cluster mode (run the suite with mokka assert, which takes --kubeconfig and "
                 "--context); this environment (%s) has none", what, inj->gpu, e->src->kind);
        return -1;
    }
    if (e->inject_nodes(e, inj, why, sizeof why) != 0) {
        snprintf(err, errlen, "inject %s on gpu %u of nodes failed: %s", what, inj->gpu, why);
        return -1;
    }
    return 0;
}

/* ${allocated} for the rest of the case (NULL: none); takes ids. */
static void set_allocated(runner *r, char *ids)
{
    free((char *)r->allocated.value);
    r->allocated = (mk_suite_var){"allocated", ids};
    r->vars.local = ids ? &r->allocated : NULL;
    r->vars.nlocal = ids ? 1 : 0;
}

/* Runs exec step i; 0, -1 with err (ERROR), 1 with err when it ran past its
 * timeout (the case fails). */
static int run_exec(runner *r, size_t i, char *err, size_t errlen)
{
    const mk_execstep *st = &r->c->exec[i];
    mk_exec_res_free(&r->exec);
    r->ran_exec = 0;
    r->last_exec_at = r->exec_log.len;
    char *allocated = NULL;
    int rc = mk_exec_run(r->env, &r->vars, st, &r->exec, &allocated, &r->exec_log, err, errlen);
    if (allocated)
        set_allocated(r, allocated);
    if (rc != 0)
        return -1;
    r->ran_exec = 1;
    if (!r->exec.timed_out)
        return 0;
    char cmd[200], limit[32];
    mk_exec_describe(st, cmd, sizeof cmd);
    mk_duration_format(st->timeout_ms, limit, sizeof limit);
    snprintf(err, errlen, "exec %s ran past its timeout of %s and was killed with its process "
             "group", cmd, limit);
    return 1;
}

/* The case's actions in order; 0, -1 with err (the case is an ERROR), or 1
 * with err (it failed: a command ran past its timeout). */
static int do_actions(runner *r, char *err, size_t errlen)
{
    const mk_case *c = r->c;
    mk_suite_env *e = r->env;
    char why[512] = "", what[64];
    for (size_t i = 0; i < c->ninj; i++) {
        inject_text(&c->inj[i], what, sizeof what);
        if (c->inj[i].cluster) {
            if (inject_nodes(e, &c->inj[i], what, err, errlen) != 0)
                return -1;
            continue;
        }
        if (!e->inject) {
            snprintf(err, errlen, "cannot inject %s on gpu %u: this environment (%s) has no "
                     "mock GPUs to inject into", what, c->inj[i].gpu, e->src->kind);
            return -1;
        }
        if (e->inject(e, &c->inj[i], why, sizeof why) != 0) {
            snprintf(err, errlen, "inject %s on gpu %u failed: %s", what, c->inj[i].gpu, why);
            return -1;
        }
    }
    for (size_t i = 0; i < c->nset; i++) {
        const mk_setop *s = &c->set[i];
        if (!e->set) {
            snprintf(err, errlen, "cannot set %s on gpu %u: this environment (%s) has no "
                     "mock GPUs", s->metric, s->gpu, e->src->kind);
            return -1;
        }
        if (e->set(e, s->gpu, s->metric, s->value, why, sizeof why) != 0) {
            snprintf(err, errlen, "set %s: %s on gpu %u failed: %s", s->metric, s->value,
                     s->gpu, why);
            return -1;
        }
    }
    if (c->restart) {
        if (!e->restart_plugin) {
            snprintf(err, errlen, "cannot restart the plugin: this environment (%s) does not "
                     "run it", e->src->kind);
            return -1;
        }
        if (e->restart_plugin(e, c->restart_name, why, sizeof why) != 0) {
            snprintf(err, errlen, "restart-plugin%s%s failed: %s", c->restart_name ? " " : "",
                     c->restart_name ? c->restart_name : "", why);
            return -1;
        }
    }
    if (c->wait_ms && pause_ms(r, c->wait_ms) != 0) {
        snprintf(err, errlen, "cancelled");
        return -1;
    }
    for (size_t i = 0; i < c->nexec; i++) {
        int rc = run_exec(r, i, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Under within: the last exec step again, in place of its previous run in
 * the log. 0, or what run_exec says with the pending targets settled. */
static int rerun_exec(runner *r)
{
    char err[1024];
    r->exec_log.len = r->last_exec_at;
    if (r->exec_log.s)
        r->exec_log.s[r->exec_log.len] = 0;
    int rc = run_exec(r, r->c->nexec - 1, err, sizeof err);
    if (rc < 0)
        settle_pending(r, MK_ST_ERROR, "action", err);
    else if (rc > 0)
        settle_pending(r, MK_ST_FAIL, "timeout", err);
    return rc;
}

/* --- expectations ----------------------------------------------------------------- */

static const mk_nv_node *find_node(const mk_nv_nodes *snap, const char *name)
{
    for (size_t i = 0; i < snap->n; i++)
        if (strcmp(snap->node[i].name, name) == 0)
            return &snap->node[i];
    return NULL;
}

/* Whether the environment can show what this kind looks at; if not, why. */
static int capable(const runner *r, const mk_xkind *k, char *why, size_t len)
{
    const char *kind = r->env->src->kind;
    if ((k->flags & MK_XK_DEVICES) && !(r->env->caps & MK_ENV_DEVICE_LIST)) {
        snprintf(why, len, "%s needs the device plugin's device list, which the %s does not "
                 "have (check it under mokka run)", k->key, kind);
        return 0;
    }
    if ((k->flags & MK_XK_NODE_OBJECT) && !(r->env->caps & MK_ENV_NODE_OBJECTS)) {
        snprintf(why, len, "%s needs the Node object from the API server, which the %s does "
                 "not have (check it with mokka assert)", k->key, kind);
        return 0;
    }
    if ((k->flags & MK_XK_FLEET) && !(r->env->caps & MK_ENV_PODS)) {
        snprintf(why, len, "%s needs the Nodes and Pods of the API server, which the %s does "
                 "not have (check it with mokka assert)", k->key, kind);
        return 0;
    }
    if ((k->flags & MK_XK_LABELS) && !(r->env->caps & (MK_ENV_LABELS | MK_ENV_NODE_OBJECTS))) {
        snprintf(why, len, "%s needs the node's labels, which the %s does not have: pass --gfd "
                 "to mokka run to have gpu-feature-discovery label the node (or check it with "
                 "mokka assert)", k->key, kind);
        return 0;
    }
    return 1;
}

/* Appends one failed expectation to a node's detail: where it is written,
 * what is wrong, then the check's expected/actual lines indented. */
static void add_failure(mk_sb *detail, const runner *r, const mk_expect *x, const mk_xctx *cx)
{
    mk_sb_printf(detail, "%s%s (%s:%d:%d): %s", detail->len ? "\n\n" : "", x->kind->key,
                 r->suite->file, x->line, x->col, mk_sb_str(&cx->msg));
    for (const char *p = mk_sb_str(&cx->detail); *p; ) {
        size_t n = strcspn(p, "\n");
        mk_sb_printf(detail, "\n  %.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* Evaluates every expectation of the case on one node of a snapshot. Passing
 * settles the target; an error settles it as ERROR; failures are kept as
 * the last seen state for when time is up. */
static void evaluate(runner *r, target *t, const mk_nv_nodes *snap)
{
    int fleet = is_fleet_case(r->c);
    const mk_nv_node *node = fleet ? NULL : find_node(snap, t->name);
    if (!node && !fleet) {
        record(t, MK_ST_ERROR, "harness",
               mk_xasprintf("node %s is not in the view (%s)", t->name, r->env->src->kind), NULL);
        return;
    }
    mk_sb detail = MK_SB_INIT;
    char *first = NULL;
    int nfail = 0;
    for (size_t i = 0; i < r->c->nx && !t->done; i++) {
        const mk_expect *x = &r->c->x[i];
        char why[512];
        if (!capable(r, x->kind, why, sizeof why)) {
            settle(r, t, MK_ST_ERROR, "unsupported", mk_xstrdup(why), NULL);
            break;
        }
        mk_xctx cx = {r->env, &r->vars, r->ran_exec ? &r->exec : NULL, node, x->resource,
                      NULL, MK_SB_INIT, MK_SB_INIT, snap};
        if ((x->kind->flags & MK_XK_RESOURCE) && node)
            cx.res = mk_nv_find_resource(node, x->resource);
        mk_xres res = x->kind->check(x, &cx);
        if (res == MK_X_ERROR) {
            settle(r, t, MK_ST_ERROR, "expectation", mk_sb_take(&cx.msg), NULL);
        } else if (res == MK_X_FAIL) {
            add_failure(&detail, r, x, &cx);
            if (!nfail++)
                first = mk_sb_take(&cx.msg);
        }
        mk_sb_free(&cx.msg);
        mk_sb_free(&cx.detail);
    }
    if (t->done) {
        free(first);
    } else if (!nfail) {
        settle(r, t, MK_ST_PASS, NULL, NULL, NULL);
    } else {
        char *msg = first;
        if (nfail > 1) {
            msg = mk_xasprintf("%s (and %d more)", first, nfail - 1);
            free(first);
        }
        record(t, MK_ST_FAIL, "assertion", msg, mk_sb_take(&detail));
    }
    mk_sb_free(&detail);
}

/* A target still failing when time is up: its last seen state, saying how
 * long it was given. */
static void time_up(runner *r, target *t, long long limit)
{
    if (limit <= 0) {   /* no within: the one check's result as it is */
        t->done = 1;
        t->at_ms = mk_now_ms() - r->start;
        return;
    }
    char lim[32], last[32];
    mk_duration_format(limit, lim, sizeof lim);
    mk_duration_format(r->last_check - r->start, last, sizeof last);
    char *msg = mk_xasprintf("after %s: %s", lim, t->message);
    char *detail = mk_xasprintf("waited %s; checked %d time%s, last after %s%s%s", lim,
                                r->checks, r->checks == 1 ? "" : "s", last,
                                t->detail ? ":\n" : "", t->detail ? t->detail : "");
    const char *type = t->status == MK_ST_FAIL ? "timeout" : t->type;
    settle(r, t, t->status, type, msg, detail);
}

static void check_loop(runner *r)
{
    mk_nodesrc *src = r->env->src;
    long long limit = r->c->within_ms;
    int plugin = 0, exec = 0;
    for (size_t i = 0; i < r->c->nx; i++) {
        plugin |= (r->c->x[i].kind->flags & (MK_XK_CALLS_PLUGIN | MK_XK_EXEC)) != 0;
        exec |= (r->c->x[i].kind->flags & MK_XK_EXEC) != 0;
    }
    long long t0 = mk_now_ms();
    uint64_t version = 0;
    int need = 1;
    char err[512];
    for (;;) {
        if (need && exec && r->c->nexec && r->checks && rerun_exec(r) != 0)
            return;
        if (need) {
            mk_nv_nodes snap;
            err[0] = 0;
            if (src->snapshot(src, &snap, err, sizeof err) != 0) {
                char *msg = mk_xasprintf("cannot read the node view: %s", err);
                settle_pending(r, MK_ST_ERROR, "harness", msg);
                free(msg);
                return;
            }
            for (size_t i = 0; i < r->nt; i++)
                if (!r->t[i].done)
                    evaluate(r, &r->t[i], &snap);
            version = snap.version;
            mk_nv_nodes_free(&snap);
            r->checks++;
            r->last_check = mk_now_ms();
            need = 0;
        }
        if (!pending(r))
            return;
        long long waited = mk_now_ms() - t0;
        if (waited >= limit) {
            for (size_t i = 0; i < r->nt; i++)
                if (!r->t[i].done)
                    time_up(r, &r->t[i], limit);
            return;
        }
        if (cancelled(r)) {
            settle_pending(r, MK_ST_ERROR, "cancelled", "cancelled while waiting");
            return;
        }
        long long slice = limit - waited < TICK_MS ? limit - waited : TICK_MS;
        err[0] = 0;
        int rc = src->wait_change(src, version, (int)slice, err, sizeof err);
        if (rc < 0) {
            char *msg = mk_xasprintf("waiting for the node view failed: %s", err);
            settle_pending(r, MK_ST_ERROR, "harness", msg);
            free(msg);
            return;
        }
        need = rc > 0 || (plugin && mk_now_ms() - r->last_check >= PLUGIN_RECHECK_MS);
        progress(r, MK_PROGRESS_WAIT, mk_now_ms() - t0, limit, MK_ST_PASS);
    }
}

/* --- cases -------------------------------------------------------------------------- */

static mk_status worst(mk_status a, mk_status b)
{
    static const int rank[] = {[MK_ST_PASS] = 0, [MK_ST_SKIP] = 1, [MK_ST_FAIL] = 2,
                               [MK_ST_ERROR] = 3};
    return rank[b] > rank[a] ? b : a;
}

static mk_rcase *add_result(runner *r, const char *node, mk_status st, const char *type,
                            const char *message, long long ms)
{
    mk_rcase *rc = mk_rsuite_add_case(r->rs, r->c->name, node);
    rc->line = r->c->line;
    rc->time_ms = ms;
    if (st != MK_ST_PASS)
        mk_rcase_set(rc, st, type, "%s", message ? message : mk_status_name(st));
    return rc;
}

static mk_status emit_targets(runner *r)
{
    mk_status w = MK_ST_PASS;
    char *log = NULL;
    int log_fetched = 0;
    for (size_t i = 0; i < r->nt; i++) {
        target *t = &r->t[i];
        mk_rcase *rc = add_result(r, t->name, t->status, t->type, t->message, t->at_ms);
        rc->detail = t->detail;
        t->detail = NULL;
        if ((t->status == MK_ST_FAIL || t->status == MK_ST_ERROR) && r->env->log_tail) {
            if (!log_fetched++)
                log = r->env->log_tail(r->env);
            rc->output = mk_xstrdup(log);
        }
        if (r->exec_log.len) {   /* the commands' output first, then the plugin's log */
            char *both = mk_xasprintf("%s%s%s", mk_sb_str(&r->exec_log),
                                      rc->output ? "\n--- the plugin's log ---\n" : "",
                                      rc->output ? rc->output : "");
            free(rc->output);
            rc->output = both;
        }
        w = worst(w, t->status);
    }
    free(log);
    return w;
}

static void free_targets(runner *r)
{
    for (size_t i = 0; i < r->nt; i++) {
        free(r->t[i].name);
        free(r->t[i].message);
        free(r->t[i].detail);
    }
    free(r->t);
    r->t = NULL;
    r->nt = 0;
}

static mk_status run_case(runner *r)
{
    const mk_case *c = r->c;
    char err[1024];
    mk_status st;
    r->start = mk_now_ms();
    r->checks = 0;
    r->last_check = r->start;
    progress(r, MK_PROGRESS_CASE, 0, 0, MK_ST_PASS);
    if (c->skip || cancelled(r)) {
        /* one result per node like any case, so per-node histories line up */
        const char *why = c->skip ? c->skip : "cancelled";
        if (resolve_targets(r, err, sizeof err) == 0) {
            settle_pending(r, MK_ST_SKIP, "skipped", why);
            emit_targets(r);
        } else {
            add_result(r, NULL, MK_ST_SKIP, "skipped", why, 0);
        }
        st = MK_ST_SKIP;
    } else if (resolve_targets(r, err, sizeof err) != 0) {
        mk_rcase *rc = add_result(r, NULL, MK_ST_ERROR, "harness", err, mk_now_ms() - r->start);
        if (r->env->log_tail)
            rc->output = r->env->log_tail(r->env);
        st = MK_ST_ERROR;
    } else {
        int acted = do_actions(r, err, sizeof err);
        if (acted < 0)
            settle_pending(r, MK_ST_ERROR, "action", err);
        else if (acted > 0)
            settle_pending(r, MK_ST_FAIL, "timeout", err);
        else if (!c->nx)
            settle_pending(r, MK_ST_PASS, NULL, NULL);
        else
            check_loop(r);
        st = emit_targets(r);
    }
    free_targets(r);
    mk_exec_res_free(&r->exec);
    r->ran_exec = 0;
    mk_sb_free(&r->exec_log);
    r->last_exec_at = 0;
    set_allocated(r, NULL);
    progress(r, MK_PROGRESS_DONE, mk_now_ms() - r->start, 0, st);
    return st;
}

int mk_suite_run(const mk_suite *s, mk_suite_env *env, mk_report *rep)
{
    runner r;
    memset(&r, 0, sizeof r);
    r.suite = s;
    r.env = env;
    r.rs = mk_report_add_suite(rep, s->name, s->file);
    r.vars.env = env->vars;
    r.vars.nenv = env->nvars;
    long long t0 = mk_now_ms();
    mk_status w = MK_ST_PASS;
    for (r.index = 0; r.index < s->n; r.index++) {
        r.c = &s->cases[r.index];
        w = worst(w, run_case(&r));
    }
    r.rs->time_ms = mk_now_ms() - t0;
    if (env->log_tail)
        r.rs->output = env->log_tail(env);
    return w == MK_ST_ERROR ? MK_EXIT_ENV : w == MK_ST_FAIL ? MK_EXIT_FAIL : MK_EXIT_OK;
}
