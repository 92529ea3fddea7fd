/* kl_events.c - the tests' recorder of built-in kubelet events. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kl_events.h"
#include "testutil.h"

#define MAXEV 256

struct mk_kl_events {
    pthread_mutex_t mu;
    int n;
    char line[MAXEV][300];
};

static void record(void *ctx, const mk_kubelet_event *ev)
{
    static const char *const kinds[] = { "REGISTERED", "REJECTED", "DEVICES", "STREAM_ENDED", "ERROR" };
    mk_kl_events *e = ctx;
    char l[300];
    const char *res = ev->resource ? ev->resource : "-";
    if (ev->kind == MK_KL_DEVICES)
        snprintf(l, sizeof l, "%s %s %zu/%zu", kinds[ev->kind], res, ev->healthy, ev->total);
    else if (ev->kind == MK_KL_REGISTERED)
        snprintf(l, sizeof l, "%s %s %s", kinds[ev->kind], res, ev->endpoint);
    else
        snprintf(l, sizeof l, "%s %s %s", kinds[ev->kind], res, ev->msg);
    pthread_mutex_lock(&e->mu);
    if (e->n < MAXEV)
        memcpy(e->line[e->n++], l, sizeof l);
    pthread_mutex_unlock(&e->mu);
}

void mk_kl_events_attach(mk_kl_events *e, mk_kubelet_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->on_event = record;
    opts->event_ctx = e;
}

mk_kl_events *mk_kl_events_new(mk_kubelet_opts *opts)
{
    mk_kl_events *e = calloc(1, sizeof *e);
    pthread_mutex_init(&e->mu, NULL);
    mk_kl_events_attach(e, opts);
    return e;
}

void mk_kl_events_free(mk_kl_events *e)
{
    if (!e)
        return;
    pthread_mutex_destroy(&e->mu);
    free(e);
}

int mk_kl_events_count(mk_kl_events *e, const char *prefix)
{
    int n = 0;
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < e->n; i++)
        n += strncmp(e->line[i], prefix, strlen(prefix)) == 0;
    pthread_mutex_unlock(&e->mu);
    return n;
}

typedef struct { mk_kl_events *e; const char *prefix; } probe;

static int found(void *arg)
{
    probe *p = arg;
    return mk_kl_events_count(p->e, p->prefix) > 0;
}

int mk_kl_events_wait(mk_kl_events *e, const char *prefix, int timeout_ms)
{
    probe p = { e, prefix };
    return mk_test_wait_for(found, &p, timeout_ms);
}

const char *mk_kl_events_dump(mk_kl_events *e)
{
    static char out[8192];
    out[0] = 0;
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < e->n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s\n", e->line[i]);
    pthread_mutex_unlock(&e->mu);
    return out;
}
