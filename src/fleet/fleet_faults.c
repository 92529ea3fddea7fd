/* fleet_faults.c - the cluster's GPUFaults on virtual nodes, as on real
 * ones, with one watch for the whole fleet. Each node has a live state of
 * its own (STATE_DIR/NODE/state, no call counters) and the same reconciler
 * a node's agent runs (fault/reconcile.h), so a fault selects, applies,
 * clears, expires and is reported exactly as on a node with `mokka run
 * --cluster`. What the device plugin makes of it decides the node's
 * allocatable: a GPU with a critical XID (lost, and a double-bit ECC
 * error, which comes with XID 48, included) is unhealthy, with all its MIG
 * devices; the XIDs the plugin skips as application errors leave it
 * healthy, as do single-bit ECC errors. A change of
 * the faults wakes one thread, which brings every node up to date and
 * queues the Node status and GPUFaultReport writes of the nodes that
 * changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "util/util.h"
#include "fleet_int.h"

#define WATCH_TIMEOUT_S 300
#define LIST_DEADLINE_MS 5000   /* the first LIST of a watch: short, so that a stop waits little */
#define RETRY_MS 10000          /* watching again while GPUFaults are not served */

/* NVIDIA's plugin (v0.17) skips these XIDs: application errors, not the GPU's. */
static const unsigned SKIPPED_XIDS[] = { 13, 31, 43, 45, 68, 109 };

static int plugin_sees(const mk_state_dev *d)
{
    unsigned mode = atomic_load(&d->health), xid = atomic_load(&d->last_xid);
    if (mode == MK_FAULT_NONE)
        return 0;
    if (mode == MK_FAULT_XID)
        for (size_t k = 0; k < sizeof SKIPPED_XIDS / sizeof *SKIPPED_XIDS; k++)
            if (xid == SKIPPED_XIDS[k])
                return 0;
    return 1;
}

/* Node i's devices' health from its live state; 1 when it changed. */
static int read_health(fnode *n)
{
    int changed = 0;
    for (size_t d = 0; d < n->ndev; d++) {
        unsigned char ok = !plugin_sees(&n->st.dev[n->dev[d].gpu]);
        changed |= ok != n->healthy[d];
        n->healthy[d] = ok;
    }
    return changed;
}

int fleet_faults_open(mk_fleet *f, char *err, size_t errlen)
{
    /* a lock file per node's journal, besides the connections */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
        rl.rlim_cur < f->nnodes + 256) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    for (size_t i = 0; i < f->nnodes; i++) {
        fnode *n = &f->node[i];
        char dir[4400], path[4500], why[1024];
        snprintf(dir, sizeof dir, "%s/%s", f->state_dir, n->name);
        snprintf(path, sizeof path, "%s/state", dir);
        if (mk_mkdir_p(dir, 0755, why, sizeof why) ||
            mk_state_open(&n->st, dir, n->u, NULL, 0, why, sizeof why) ||
            !(n->rec = mk_frec_open(path, NULL, NULL, why, sizeof why)))
            return snprintf(err, errlen, "node %s: cannot make its live state in %s: %s", n->name,
                            dir, why), -1;
        read_health(n);
    }
    return 0;
}

/* --- the watch: every GPUFault by name --------------------------------------------------- */

static void changed(mk_fleet *f)
{
    f->fault_version++;
    pthread_cond_broadcast(&f->tick);
}

static int keep(json_t *map, json_t *obj)
{
    const char *name = mk_kobj_name(obj);
    return name ? json_object_set(map, name, obj) : 0;
}

static int g_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    if (index == 0) {
        json_decref(f->fpending);
        f->fpending = json_object();
    }
    if (!f->fpending || keep(f->fpending, obj))
        return snprintf(err, errlen, "out of memory"), -1;
    return 0;
}

static int g_end(void *ctx)
{
    mk_fleet *f = ctx;
    json_t *fresh = f->fpending ? f->fpending : json_object();
    f->fpending = NULL;
    pthread_mutex_lock(&f->mu);
    json_decref(f->faults);
    f->faults = fresh;
    changed(f);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void g_abort(void *ctx)
{
    mk_fleet *f = ctx;
    json_decref(f->fpending);
    f->fpending = NULL;
}

static int g_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    const char *name = mk_kobj_name(obj);
    int rc = 0;
    if (!name)
        return 0;
    pthread_mutex_lock(&f->mu);
    if (!strcmp(type, "DELETED"))
        json_object_del(f->faults, name);
    else
        rc = keep(f->faults, obj);
    changed(f);
    pthread_mutex_unlock(&f->mu);
    return rc ? (snprintf(err, errlen, "out of memory"), -1) : 0;
}

/* As a node's agent: an object that cannot be read is reported Rejected. */
static int g_bad(void *ctx, const char *type, json_t *obj, const char *why, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    if (!mk_kobj_name(obj))
        return say(f, 1, "skipped a GPUFault without a name that can be read: it %s", why), 0;
    if (type && !strcmp(type, "DELETED"))
        return g_event(ctx, type, obj, err, errlen);
    json_t *kept = mk_gfault_unreadable(obj, why);
    if (!kept)
        return snprintf(err, errlen, "out of memory"), -1;
    int rc = type ? g_event(ctx, type, kept, err, errlen) : g_item(ctx, 1, kept, err, errlen);
    json_decref(kept);
    return rc;
}

/* Not the fleet's end: the nodes keep their faults, and the reconciler
 * watches again (watch_faults). */
static void g_fail(void *ctx, const char *why)
{
    mk_fleet *f = ctx;
    say(f, 1, "the watch of GPUFaults failed: %s; watching again in %d s", why, RETRY_MS / 1000);
    pthread_mutex_lock(&f->mu);
    f->faults_down = 1;
    pthread_cond_broadcast(&f->tick);
    pthread_mutex_unlock(&f->mu);
}

/* --- reconciling --------------------------------------------------------------------------- */

static json_t *report_of(mk_fleet *f, fnode *n, int running)
{
    size_t ne;
    int ch;
    const mk_fr_entry *e = mk_frec_entries(n->rec, &ne, &ch);
    mk_freport_agent who = { n->name, "fleet", f->started_ms, mk_frec_ngpus(n->rec), running };
    return mk_freport_json(&who, e, ne, fleet_unix_ms());
}

/* Every node brought to the faults; the nodes whose devices or report
 * changed get their writes queued. *next_ms: the next expiry. */
static void reconcile_all(mk_fleet *f, const mk_gfault *g, size_t ng, int first, long long *next_ms)
{
    long long now = fleet_unix_ms();
    *next_ms = 0;
    for (size_t i = 0; i < f->nnodes && !f->stop; i++) {
        fnode *n = &f->node[i];
        /* the labels as watched (others' too), else the fleet's own */
        pthread_mutex_lock(&f->mu);
        json_t *lobj = json_deep_copy(n->seen_labels ? n->seen_labels : n->labels);
        pthread_mutex_unlock(&f->mu);
        size_t nl = 0, ne;
        mk_nv_kv *labels = mk_gfault_labels(lobj, &nl);
        long long next = 0;
        int ch = 0;
        if (labels && mk_frec_run(n->rec, g, ng, n->name, labels, nl, now, &next) == 0) {
            mk_frec_entries(n->rec, &ne, &ch);
            if (next && (!*next_ms || next < *next_ms))
                *next_ms = next;
        }
        free(labels);
        json_decref(lobj);
        json_t *rep = ch || first ? report_of(f, n, 1) : NULL;
        pthread_mutex_lock(&f->mu);
        if (rep) {
            json_decref(n->report);
            n->report = rep;
            if (!n->report_queued)
                n->report_queued = 1, fleet_queue(f, W_REPORT, (int)i);
        }
        if (read_health(n) && n->registered && !n->status_queued)
            n->status_queued = 1, fleet_queue(f, W_NODE_STATUS, (int)i);
        pthread_mutex_unlock(&f->mu);
    }
}

/* (Re)starts the watch of GPUFaults, called by the reconciler without mu:
 * at start, and every RETRY_MS while GPUFaults are not served (no CRD yet,
 * or an API server that lost it), so that faults work once they are. */
static void watch_faults(mk_fleet *f, int *said)
{
    mk_kwatch_sink sink = { .item = g_item, .list_end = g_end, .list_abort = g_abort,
                            .event = g_event, .fail = g_fail, .bad = g_bad, .ctx = f };
    mk_kwatch_opts wo = { .path = MK_GF_PATH, .what = "GPUFaults", .watch_timeout_s = WATCH_TIMEOUT_S,
                          .jitter = 1, .first_deadline_ms = mk_kmono_ms() + LIST_DEADLINE_MS };
    char why[1024];
    if (f->faults_watch)
        mk_kwatch_free(f->faults_watch);       /* failed: it calls nothing any more */
    mk_kwatch *w = mk_kclient_watch(f->client, &wo, &sink, why, sizeof why);
    pthread_mutex_lock(&f->mu);
    f->faults_watch = w;
    f->faults_down = !w;
    pthread_mutex_unlock(&f->mu);
    if (!w && !*said)
        say(f, 1, "GPUFaults cannot be watched (%s): the nodes keep the faults they have and "
            "the fleet tries again every %d s (%s)", why, RETRY_MS / 1000, MK_GF_CRD_HINT);
    else if (w && *said)
        say(f, 0, "GPUFaults are watched again");
    *said = !w;
}

static void *reconciler(void *p)
{
    mk_fleet *f = p;
    unsigned long seen = 0;
    long long next_ms = 0, retry_ms = 0;
    int first = 1, said = 0;
    pthread_mutex_lock(&f->mu);
    while (!f->stop) {
        if (f->faults_down && mk_now_ms() >= retry_ms) {
            pthread_mutex_unlock(&f->mu);
            watch_faults(f, &said);
            retry_ms = mk_now_ms() + RETRY_MS;
            pthread_mutex_lock(&f->mu);
            continue;
        }
        if (seen == f->fault_version && (!next_ms || fleet_unix_ms() < next_ms)) {
            long long wait = next_ms ? next_ms - fleet_unix_ms() : 1000;
            struct timespec ts = mk_abstime_in(CLOCK_REALTIME, wait < 1000 ? wait : 1000);
            pthread_cond_timedwait(&f->tick, &f->mu, &ts);
            continue;
        }
        seen = f->fault_version;
        json_t *objs = json_deep_copy(f->faults);
        pthread_mutex_unlock(&f->mu);
        size_t ng = 0;
        mk_gfault *g = objs ? mk_gfaults_read(objs, &ng) : NULL;
        if (g)
            reconcile_all(f, g, ng, first, &next_ms);
        else
            say(f, 1, "out of memory: the GPUFaults wait for their next change");
        first = 0;
        mk_gfaults_free(g, ng);
        json_decref(objs);
        pthread_mutex_lock(&f->mu);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

int fleet_faults_start(mk_fleet *f, char *err, size_t errlen)
{
    if (!(f->faults = json_object()))
        return snprintf(err, errlen, "out of memory"), -1;
    f->faults_down = 1;         /* the reconciler's first step watches them */
    if (pthread_create(&f->fault_thread, NULL, reconciler, f))
        return snprintf(err, errlen, "cannot start a thread"), -1;
    f->fault_started = 1;
    return 0;
}

int fleet_do_report(mk_fleet *f, mk_khttp *h, int i)
{
    fnode *n = &f->node[i];
    char err[1024];
    /* Taken, not shared: jansson's reference counts are not safe across
     * threads (the last decref does not see what the other thread wrote). */
    pthread_mutex_lock(&f->mu);
    n->report_queued = 0;
    json_t *rep = n->report;
    n->report = NULL;
    pthread_mutex_unlock(&f->mu);
    if (!rep)
        return 0;
    int rc = mk_freport_write(h, n->name, rep, mk_kmono_ms() + WRITE_DEADLINE_MS, err, sizeof err);
    atomic_fetch_add(&f->requests, 1);
    if (rc == -1)
        say(f, 1, "cannot write GPUFaultReport %s: %s", n->name, err);
    pthread_mutex_lock(&f->mu);
    if (rc == -1 && !n->report)
        n->report = rep, rep = NULL;    /* written with the node's next change */
    pthread_mutex_unlock(&f->mu);
    json_decref(rep);
    return rc;
}

void fleet_faults_close(mk_fleet *f)
{
    if (f->faults_watch)
        mk_kwatch_free(f->faults_watch);
    f->faults_watch = NULL;
    for (size_t i = 0; i < f->nnodes; i++) {
        fnode *n = &f->node[i];
        if (n->rec)
            mk_frec_close(n->rec);
        if (n->st.hdr)
            mk_state_close(&n->st);
        json_decref(n->report);
        n->rec = NULL;
        n->report = NULL;
    }
    json_decref(f->faults);
    json_decref(f->fpending);
    f->faults = f->fpending = NULL;
}
