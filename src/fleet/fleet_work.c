/* fleet_work.c - the fleet's writes to the API server: one queue, served
 * by a few worker threads with a connection each, so that a thousand nodes
 * register in parallel and no pod write waits behind a slow one. Leases
 * and node writes go in the urgent ring and are always taken first: a
 * burst of 8,000 pods must not make a node miss its lease renewal. A node
 * or pod is queued once however often it changes: its flag says it is
 * queued, and the write sends what holds when it is sent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fleet_int.h"

static int urgent(wkind k)
{
    return k != W_POD && k != W_REPORT;
}

void fleet_queue(mk_fleet *f, wkind kind, int index)
{
    int r = urgent(kind) ? 0 : 1;
    if (f->qlen[r] == f->qcap[r]) {
        size_t cap = f->qcap[r] ? f->qcap[r] * 2 : 1024;
        work *grown = malloc(cap * sizeof *grown);
        if (!grown) {
            say(f, 1, "out of memory: a write was dropped");
            return;
        }
        for (size_t k = 0; k < f->qlen[r]; k++)
            grown[k] = f->q[r][(f->qhead[r] + k) % f->qcap[r]];
        free(f->q[r]);
        f->q[r] = grown;
        f->qcap[r] = cap;
        f->qhead[r] = 0;
    }
    f->q[r][(f->qhead[r] + f->qlen[r]++) % f->qcap[r]] = (work){ kind, index };
    pthread_cond_signal(&f->cv);
}

static int take(mk_fleet *f, work *w)
{
    for (int r = 0; r < 2; r++)
        if (f->qlen[r]) {
            *w = f->q[r][f->qhead[r]];
            f->qhead[r] = (f->qhead[r] + 1) % f->qcap[r];
            f->qlen[r]--;
            return 1;
        }
    return 0;
}

int fleet_request(mk_fleet *f, mk_khttp *h, const char *method, const char *path,
                  const json_t *body, const char *ctype, long *status, json_t **out, char *err,
                  size_t errlen)
{
    mk_kobj_req r = { .method = method, .path = path, .body = body, .content_type = ctype,
                      .deadline_ms = mk_kmono_ms() + WRITE_DEADLINE_MS };
    mk_khttp_counts before, after;
    mk_khttp_counts_get(h, &before);
    int rc = mk_kobj_request(h, &r, status, out, NULL, 0, err, errlen);
    mk_khttp_counts_get(h, &after);
    atomic_fetch_add(&f->requests, 1 + (after.retries - before.retries));
    atomic_fetch_add(&f->retries_seen, after.retries - before.retries);
    return rc == 0 ? 0 : -1;
}

static void run_one(mk_fleet *f, mk_khttp *h, const work *w)
{
    switch (w->kind) {
    case W_LEASE: fleet_do_lease(f, h, w->index); break;
    case W_POD: fleet_do_pod(f, h, w->index); break;
    case W_REPORT: fleet_do_report(f, h, w->index); break;
    default: fleet_do_node(f, h, w); break;
    }
}

typedef struct worker_arg {
    mk_fleet *f;
    mk_khttp *h;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *a = p;
    mk_fleet *f = a->f;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        work w;
        while (!f->wstop && !take(f, &w)) {
            if (!f->busy && !f->qlen[0] && !f->qlen[1])
                pthread_cond_broadcast(&f->idle);
            pthread_cond_wait(&f->cv, &f->mu);
        }
        if (f->wstop)
            break;
        f->busy++;
        pthread_mutex_unlock(&f->mu);
        run_one(f, a->h, &w);
        pthread_mutex_lock(&f->mu);
        f->busy--;
    }
    pthread_mutex_unlock(&f->mu);
    mk_khttp_free(a->h);
    free(a);
    return NULL;
}

int fleet_workers_start(mk_fleet *f, char *err, size_t errlen)
{
    f->nworkers = f->o.workers > 0 ? f->o.workers : 4;
    if (!(f->workers = calloc((size_t)f->nworkers, sizeof *f->workers)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (int k = 0; k < f->nworkers; k++) {
        worker_arg *a = malloc(sizeof *a);
        if (!a)
            return snprintf(err, errlen, "out of memory"), -1;
        a->f = f;
        if (!(a->h = mk_kclient_connect(f->client, err, errlen))) {
            free(a);
            return -1;
        }
        if (pthread_create(&f->workers[k], NULL, worker, a)) {
            mk_khttp_free(a->h);
            free(a);
            return snprintf(err, errlen, "cannot start a thread"), -1;
        }
        f->started_workers++;
    }
    return 0;
}

/* Waits until the queue is empty and no worker is in a request, or the
 * deadline (mk_now_ms) passes. */
void fleet_workers_drain(mk_fleet *f, long long deadline_ms)
{
    pthread_mutex_lock(&f->mu);
    while ((f->qlen[0] || f->qlen[1] || f->busy) && mk_now_ms() < deadline_ms) {
        struct timespec ts = mk_abstime_in(CLOCK_REALTIME, 100);
        pthread_cond_timedwait(&f->idle, &f->mu, &ts);
    }
    pthread_mutex_unlock(&f->mu);
}

void fleet_workers_stop(mk_fleet *f)
{
    pthread_mutex_lock(&f->mu);
    f->wstop = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    for (int k = 0; k < f->started_workers; k++)
        pthread_join(f->workers[k], NULL);
    f->started_workers = 0;
    free(f->workers);
    f->workers = NULL;
    free(f->q[0]);
    free(f->q[1]);
    f->q[0] = f->q[1] = NULL;
}
