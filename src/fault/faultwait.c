/* faultwait.c - the GPUFaultReports as the agents write them, kept by a
 * watch sink (kube_watch.h) in an object by node name, and the wait for a
 * fault's outcome on them, with progress: on a terminal one line updated
 * in place, else a timestamped line every 10 s. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faultapi.h"
#include "faulttally.h"
#include "faultwait.h"

#define TICK_MS 200
#define PLAIN_EVERY_MS 10000
#define NAMES_CAP 10
#define FIRST_LIST_MS 10000

struct mk_gfwait {
    mk_kwatch *watch;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    json_t *reports;         /* node -> GPUFaultReport */
    json_t *listing;         /* the LIST in progress */
    mk_klog log;
    long long changed_ms;    /* when reports last changed */
    char failed[512];        /* the watch ended for good, why */
};

static void changed(mk_gfwait *w)
{
    w->changed_ms = mk_now_ms();
    pthread_cond_broadcast(&w->cond);
}

static int on_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_gfwait *w = ctx;
    const char *name = mk_kobj_name(obj);
    (void)index;
    if (!name) {
        snprintf(err, errlen, "is not a GPUFaultReport: it has no metadata.name");
        return -1;
    }
    pthread_mutex_lock(&w->mu);
    if (!w->listing)
        w->listing = json_object();
    json_object_set(w->listing, name, obj);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

static int on_list_end(void *ctx)
{
    mk_gfwait *w = ctx;
    pthread_mutex_lock(&w->mu);
    json_decref(w->reports);
    w->reports = w->listing ? w->listing : json_object();
    w->listing = NULL;
    changed(w);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

static void on_list_abort(void *ctx)
{
    mk_gfwait *w = ctx;
    pthread_mutex_lock(&w->mu);
    json_decref(w->listing);
    w->listing = NULL;
    pthread_mutex_unlock(&w->mu);
}

static int on_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_gfwait *w = ctx;
    const char *name = mk_kobj_name(obj);
    if (!name) {
        snprintf(err, errlen, "%s event without metadata.name", type);
        return -1;
    }
    pthread_mutex_lock(&w->mu);
    if (strcmp(type, "DELETED") == 0)
        json_object_del(w->reports, name);
    else
        json_object_set(w->reports, name, obj);
    changed(w);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* A report that cannot be read whole is dropped (its node then counts as
 * running no agent), not kept as it was before, and said. */
static int on_bad(void *ctx, const char *type, json_t *obj, const char *why, char *err,
                  size_t errlen)
{
    mk_gfwait *w = ctx;
    const char *name = mk_kobj_name(obj);
    char q[72];
    mk_text_snip(name ? name : "", 64, q, sizeof q);
    mk_klogf(&w->log, 1, "skipped GPUFaultReport '%s': it %s; its node counts as running no agent",
             q, why);
    if (!name)
        return 0;
    pthread_mutex_lock(&w->mu);
    json_object_del(type ? w->reports : w->listing, name);
    if (type)
        changed(w);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

static void on_fail(void *ctx, const char *why)
{
    mk_gfwait *w = ctx;
    pthread_mutex_lock(&w->mu);
    snprintf(w->failed, sizeof w->failed, "%s", why);
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mu);
}

mk_gfwait *mk_gfwait_start(const mk_ktarget *t, const mk_klog *log, long long deadline_ms,
                           char *err, size_t errlen)
{
    long long first = mk_kmono_ms() + FIRST_LIST_MS;
    mk_gfwait *w = mk_xcalloc(1, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->reports = json_object();
    w->log = *log;
    mk_khttp *h = mk_khttp_new(t, log, err, errlen);
    mk_kwatch_sink sink = { .item = on_item, .list_end = on_list_end,
                            .list_abort = on_list_abort, .event = on_event, .fail = on_fail,
                            .bad = on_bad, .ctx = w };
    mk_kwatch_opts o = { .path = MK_GFR_PATH, .what = "GPUFaultReports", .watch_timeout_s = 300,
                         .first_deadline_ms = deadline_ms && deadline_ms < first ? deadline_ms
                                                                                  : first };
    if (h)
        w->watch = mk_kwatch_start(h, &sink, log, &o, err, errlen);
    if (!w->watch) {
        mk_gfwait_free(w);
        return NULL;
    }
    return w;
}

void mk_gfwait_free(mk_gfwait *w)
{
    if (!w)
        return;
    if (w->watch)
        mk_kwatch_free(w->watch);
    json_decref(w->reports);
    json_decref(w->listing);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

/* --- the wait ------------------------------------------------------------------- */

typedef struct waiting {
    const mk_gfwait_req *r;
    mk_gft t;
    mk_gft_node *nodes;      /* r->nnodes */
    size_t still;            /* clear: running agents that still have it */
    size_t cleared;          /* clear: running agents that report it Cleared */
    int tty;
    long long plain_shown;   /* plain progress lines printed */
} waiting;

static void tally(mk_gfwait *w, waiting *g)
{
    const mk_gfwait_req *r = g->r;
    if (r->clear) {
        g->still = mk_gft_in_phase(w->reports, r->uid, MK_GFT_APPLIED);
        g->cleared = mk_gft_in_phase(w->reports, r->uid, MK_GFT_DONE);
        return;
    }
    mk_gft_count(r->nodes, r->nnodes, w->reports, r->uid, &g->t, g->nodes);
}

static int settled(const waiting *g)
{
    return g->r->clear ? g->still == 0 : mk_gft_answered(&g->t);
}

static void state_text(const waiting *g, char *buf, size_t len)
{
    if (g->r->clear)
        snprintf(buf, len, "GPUFault %s: still applied on %zu node%s", g->r->name, g->still,
                 g->still == 1 ? "" : "s");
    else
        snprintf(buf, len, "GPUFault %s: applied on %zu of %zu nodes", g->r->name, g->t.applied,
                 g->t.counted);
}

static void progress(waiting *g, long long waited_ms)
{
    char state[512], a[32], b[32], stamp[16];
    if (!g->r->progress || mk_quiet)
        return;
    state_text(g, state, sizeof state);
    mk_duration_format(g->r->limit_ms, b, sizeof b);
    if (g->tty) {
        fprintf(stderr, "\r\033[K%s, waiting %lld.%llds of %s", state, waited_ms / 1000,
                waited_ms % 1000 / 100, b);
        fflush(stderr);
        return;
    }
    if (waited_ms / PLAIN_EVERY_MS <= g->plain_shown)
        return;
    g->plain_shown = waited_ms / PLAIN_EVERY_MS;
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm))
        memset(&tm, 0, sizeof tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    mk_duration_format(g->plain_shown * PLAIN_EVERY_MS, a, sizeof a);
    fprintf(stderr, "%s %s, still waiting: %s of %s\n", stamp, state, a, b);
}

static void no_agents_line(const waiting *g, mk_sb *msg)
{
    if (!g->t.noagent)
        return;
    mk_sb_printf(msg, "\n%zu selected node%s run%s no Mokka agent: ", g->t.noagent,
                 g->t.noagent == 1 ? "" : "s", g->t.noagent == 1 ? "s" : "");
    mk_gft_names(g->nodes, g->r->nnodes, MK_GFT_NONE, 1, NAMES_CAP, msg);
}

/* "1.4 s" (a time taken), "60 s" (a whole limit). */
/* "\n  node: reason" for each node that rejected the fault. */
static void rejections(const waiting *g, mk_sb *msg)
{
    for (size_t i = 0; i < g->r->nnodes; i++)
        if (g->nodes[i].running && g->nodes[i].phase == MK_GFT_REJECTED)
            mk_sb_printf(msg, "\n  %s: %s", g->nodes[i].name,
                         *g->nodes[i].reason ? g->nodes[i].reason : "(no reason given)");
}

static void secs(long long ms, int whole, char *buf, size_t len)
{
    if (whole && ms % 1000 == 0)
        snprintf(buf, len, "%lld s", ms / 1000);
    else
        snprintf(buf, len, "%lld.%lld s", ms / 1000, ms % 1000 / 100);
}

static mk_gfw_outcome say(const waiting *g, mk_gfw_outcome o, long long took_ms,
                          const char *failed, mk_sb *msg)
{
    const mk_gfwait_req *r = g->r;
    char t[32], limit[32];
    secs(took_ms, 0, t, sizeof t);
    secs(r->limit_ms, 1, limit, sizeof limit);
    if (o == MK_GFW_FAILED) {
        mk_sb_printf(msg, "GPUFault %s: cannot follow the GPUFaultReports: %s", r->name, failed);
    } else if (o == MK_GFW_CANCELLED) {
        char state[512];
        state_text(g, state, sizeof state);
        mk_sb_printf(msg, "%s; interrupted", state);
    } else if (r->clear && o == MK_GFW_DONE) {
        mk_sb_printf(msg, "GPUFault %s: cleared on %zu node%s in %s", r->name, g->cleared,
                     g->cleared == 1 ? "" : "s", t);
    } else if (r->clear) {
        mk_sb_printf(msg, "GPUFault %s: still applied after %s on %zu node%s", r->name, limit,
                     g->still, g->still == 1 ? "" : "s");
    } else if (o == MK_GFW_DONE) {
        mk_sb_printf(msg, "GPUFault %s: applied on %zu of %zu nodes in %s", r->name,
                     g->t.applied, g->t.counted, t);
    } else if (o == MK_GFW_REJECTED) {
        mk_sb_printf(msg, "GPUFault %s: rejected on %zu of %zu nodes (applied on %zu):", r->name,
                     g->t.rejected, g->t.counted, g->t.applied);
        rejections(g, msg);
    } else if (!r->nnodes) {
        mk_sb_printf(msg, "GPUFault %s selects no node", r->name);
    } else if (!g->t.counted) {
        mk_sb_printf(msg, "GPUFault %s: none of the %zu selected nodes ran a Mokka agent within "
                     "%s", r->name, r->nnodes, limit);
    } else {
        mk_sb_printf(msg, "GPUFault %s: applied on %zu of %zu nodes; not applied within %s on: ",
                     r->name, g->t.applied, g->t.counted, limit);
        mk_gft_names(g->nodes, r->nnodes, MK_GFT_NONE, 0, NAMES_CAP, msg);
        if (g->t.rejected)
            mk_sb_printf(msg, "; rejected on %zu:", g->t.rejected);
        rejections(g, msg);
    }
    if (!r->clear && o != MK_GFW_FAILED)
        no_agents_line(g, msg);
    return o;
}

mk_gfw_outcome mk_gfwait_run(mk_gfwait *w, const mk_gfwait_req *r, mk_sb *msg)
{
    waiting g = { .r = r, .tty = isatty(STDERR_FILENO) };
    g.nodes = mk_xcalloc(r->nnodes + 1, sizeof *g.nodes);
    mk_gfw_outcome o;
    char failed[512] = "";
    long long took = 0;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        tally(w, &g);
        long long now = mk_now_ms();
        took = (w->changed_ms > r->start_ms ? w->changed_ms : now) - r->start_ms;
        if (!r->clear && !r->nnodes) {
            o = MK_GFW_TIMEOUT;
            break;
        }
        if (settled(&g)) {
            o = r->clear || g.t.rejected == 0 ? MK_GFW_DONE : MK_GFW_REJECTED;
            break;
        }
        if (*w->failed) {
            snprintf(failed, sizeof failed, "%s", w->failed);
            o = MK_GFW_FAILED;
            break;
        }
        if (r->cancel && *r->cancel) {
            o = MK_GFW_CANCELLED;
            break;
        }
        if (now - r->start_ms >= r->limit_ms) {
            o = MK_GFW_TIMEOUT;
            break;
        }
        pthread_mutex_unlock(&w->mu);
        progress(&g, now - r->start_ms);
        pthread_mutex_lock(&w->mu);
        struct timespec at = mk_abstime_in(CLOCK_REALTIME, TICK_MS);
        pthread_cond_timedwait(&w->cond, &w->mu, &at);
    }
    if (g.tty && r->progress && !mk_quiet)
        fputs("\r\033[K", stderr);
    say(&g, o, took, failed, msg);
    pthread_mutex_unlock(&w->mu);
    free(g.nodes);
    return o;
}
