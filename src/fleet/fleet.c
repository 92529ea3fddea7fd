/* fleet.c - a fleet's life: planned (every universe loaded, every name
 * checked) before anything is sent; registered by the workers; kept alive
 * by the lease, pod, fault and timer threads; and stopped by deleting its
 * nodes or leaving them NotReady for a later fleet of its name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "fleet_int.h"

#define TICK_MS 100
#define STOP_DRAIN_MS 25000

mk_fleet *mk_fleet_open(const mk_fleet_opts *o, int *code, char *err, size_t errlen)
{
    mk_fleet *f = calloc(1, sizeof *f);
    char host[256] = "";
    *code = MK_FLEET_ENV;
    if (!f)
        return snprintf(err, errlen, "out of memory"), NULL;
    f->o = *o;
    gethostname(host, sizeof host - 1);
    f->name = strdup(o->name ? o->name : "fleet");
    f->prefix = strdup(o->prefix ? o->prefix : "gpu-node-");
    size_t olen = strlen(host) + 64;
    f->owner = malloc(olen);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    pthread_cond_init(&f->idle, NULL);
    pthread_cond_init(&f->tick, NULL);
    if (!f->name || !f->prefix || !f->owner) {
        snprintf(err, errlen, "out of memory");
        mk_fleet_free(f);
        return NULL;
    }
    snprintf(f->owner, olen, "%s pid %d", host[0] ? host : "localhost", (int)getpid());
    char why[1024];
    if (mk_kname_check("--name", "label value", f->name, why, sizeof why)) {
        *code = MK_FLEET_USAGE;
        snprintf(err, errlen, "%s", why);
        mk_fleet_free(f);
        return NULL;
    }
    if (fleet_plan(f, code, err, errlen)) {
        mk_fleet_free(f);
        return NULL;
    }
    mk_kube_opts ko = { .kubeconfig = o->kubeconfig, .context = o->context, .verbose = o->verbose,
                        .log = o->log, .log_ctx = o->log_ctx };
    if (!(f->client = mk_kclient_open(&ko, err, errlen))) {
        *code = MK_FLEET_ENV;
        mk_fleet_free(f);
        return NULL;
    }
    *code = 0;
    return f;
}

/* Pods' run times, and the watch of the fleet's own nodes once they are all
 * registered (so that its first LIST finds them all). */
static void *timer(void *p)
{
    mk_fleet *f = p;
    int watching = 0;
    pthread_mutex_lock(&f->mu);
    while (!f->stop) {
        if (!watching && f->all_registered_ms) {
            char err[1024];
            watching = 1;
            pthread_mutex_unlock(&f->mu);
            if (fleet_watch_start(f, err, sizeof err))
                fleet_fail(f, "cannot watch the fleet's nodes: %.900s", err);
            pthread_mutex_lock(&f->mu);
        }
        fleet_pods_tick(f, fleet_unix_ms());
        struct timespec ts = mk_abstime_in(CLOCK_REALTIME, TICK_MS);
        pthread_cond_timedwait(&f->tick, &f->mu, &ts);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

static int state_dir(mk_fleet *f, char *err, size_t errlen)
{
    char base[4096], why[1024];
    if (f->o.state_dir) {
        snprintf(f->state_dir, sizeof f->state_dir, "%s", f->o.state_dir);
    } else {
        if (mk_user_tmp_dir(base, sizeof base, why, sizeof why))
            return snprintf(err, errlen, "%s", why), -1;
        snprintf(f->state_dir, sizeof f->state_dir, "%.3000s/fleet-%.500s", base, f->name);
    }
    if (mk_mkdir_p(f->state_dir, 0755, why, sizeof why))
        return snprintf(err, errlen, "state directory %s: %s", f->state_dir, why), -1;
    return 0;
}

int mk_fleet_start(mk_fleet *f, char *err, size_t errlen)
{
    int rc;
    f->started_ms = fleet_unix_ms();
    if (state_dir(f, err, errlen) || fleet_faults_open(f, err, errlen))
        return MK_FLEET_ENV;
    if ((rc = fleet_register(f, err, errlen)))
        return rc;
    if (fleet_workers_start(f, err, errlen) || fleet_lease_start(f, err, errlen) ||
        fleet_pods_start(f, err, errlen) || fleet_faults_start(f, err, errlen))
        return MK_FLEET_ENV;
    if (pthread_create(&f->timer_thread, NULL, timer, f))
        return snprintf(err, errlen, "cannot start a thread"), MK_FLEET_ENV;
    f->timer_started = 1;
    return 0;
}

void mk_fleet_progress_get(mk_fleet *f, mk_fleet_progress *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_lock(&f->mu);
    p->nodes = (unsigned)f->nnodes;
    p->registered = f->registered;
    p->adopted = f->adopted;
    p->pods_running = f->pods_running;
    p->pods_done = f->pods_done;
    p->pods_rejected = f->pods_rejected;
    p->pods_seen = f->pods_seen;
    for (size_t i = 0; i < f->nnodes; i++)
        for (size_t d = 0; d < f->node[i].ndev; d++) {
            p->gpus++;
            p->gpus_used += f->node[i].user[d] >= 0;
            p->gpus_unhealthy += !f->node[i].healthy[d];
        }
    p->first_ready_ms = f->all_registered_ms ? f->all_registered_ms : -1;
    pthread_mutex_unlock(&f->mu);
    p->requests = atomic_load(&f->requests);
    p->retries = atomic_load(&f->retries_seen);
    p->lease_renewals = atomic_load(&f->lease_renewals);
    p->node_writes = atomic_load(&f->node_writes);
    p->pod_writes = atomic_load(&f->pod_writes);
}

int mk_fleet_failed(mk_fleet *f, char *err, size_t errlen)
{
    pthread_mutex_lock(&f->mu);
    int failed = f->failed;
    if (failed)
        snprintf(err, errlen, "%s", f->failure);
    pthread_mutex_unlock(&f->mu);
    return failed ? -1 : 0;
}

/* The threads that make new work stop first; then the last writes (the
 * nodes' deletion or NotReady, their last reports) go out, and the
 * workers stop. */
void mk_fleet_stop(mk_fleet *f, mk_fleet_stop_mode mode)
{
    pthread_mutex_lock(&f->mu);
    f->stop = 1;            /* no node is registered again from here */
    pthread_cond_broadcast(&f->tick);   /* the lease, timer and fault threads */
    pthread_mutex_unlock(&f->mu);
    /* the threads first: the timer and the reconciler may be making a watch */
    if (f->lease_started)
        pthread_join(f->lease_thread, NULL);
    if (f->timer_started)
        pthread_join(f->timer_thread, NULL);
    if (f->fault_started)
        pthread_join(f->fault_thread, NULL);
    f->lease_started = f->timer_started = f->fault_started = 0;
    fleet_watch_stop(f);
    if (f->pods_watch)
        mk_kwatch_free(f->pods_watch);
    f->pods_watch = NULL;
    if (f->faults_watch)
        mk_kwatch_free(f->faults_watch);
    f->faults_watch = NULL;
    if (!f->started_workers)
        return;
    pthread_mutex_lock(&f->mu);
    f->qlen[0] = f->qlen[1] = 0;   /* what was left to write is moot now */
    for (size_t i = 0; i < f->nnodes; i++)
        if (f->node[i].registered)
            fleet_queue(f, mode == MK_FLEET_DELETE ? W_NODE_DELETE : W_NODE_NOTREADY, (int)i);
    pthread_mutex_unlock(&f->mu);
    fleet_workers_drain(f, mk_now_ms() + STOP_DRAIN_MS);
    fleet_workers_stop(f);
}

void mk_fleet_free(mk_fleet *f)
{
    if (!f)
        return;
    mk_fleet_stop(f, MK_FLEET_KEEP);
    fleet_pods_free(f);
    fleet_faults_close(f);
    fleet_plan_free(f);
    if (f->client)
        mk_kclient_close(f->client);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    pthread_cond_destroy(&f->idle);
    pthread_cond_destroy(&f->tick);
    free(f->name);
    free(f->prefix);
    free(f->owner);
    free(f);
}
