/* fleet_work.c - the workers that send the fleet's writes (fleet_queue.c)
 * to the API server: a few threads with a connection each, so that a
 * thousand nodes register in parallel and no pod write waits behind a slow
 * one; and draining and stopping them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fleet_int.h"

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
        while (!f->wstop && !fleet_take(f, &w)) {
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
