/* kl_events.c - built-in kubelets for tests and the recorder of their
 * events. */
#include <check.h>
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
    static const char *const kinds[] = {
        "REGISTERED", "REJECTED", "DEVICES", "STREAM_ENDED", "ERROR", "REPLACED", "CLASH",
        "STALE_LIST",
    };
    mk_kl_events *e = ctx;
    char l[300];
    const char *res = ev->resource ? ev->resource : "-";
    if (ev->kind == MK_KL_DEVICES || ev->kind == MK_KL_STALE_LIST)
        snprintf(l, sizeof l, "%s %s %zu/%zu", kinds[ev->kind], res, ev->healthy, ev->total);
    else if (ev->kind == MK_KL_REPLACED || ev->kind == MK_KL_CLASH)
        snprintf(l, sizeof l, "%s %s %s %s", kinds[ev->kind], res, ev->plugin ? ev->plugin : "-",
                 ev->other);
    else if (ev->kind == MK_KL_REGISTERED)
        snprintf(l, sizeof l, "%s %s %s", kinds[ev->kind], res, ev->endpoint);
    else
        snprintf(l, sizeof l, "%s %s %s", kinds[ev->kind], res, ev->msg);
    pthread_mutex_lock(&e->mu);
    if (e->n < MAXEV)
        memcpy(e->line[e->n++], l, sizeof l);
    pthread_mutex_unlock(&e->mu);
}

/* The plugin behind an endpoint is named after its socket file, as the
 * test plugins name their endpoints. */
static void identify(void *ctx, const char *path, char *name, size_t len, char *shadowed,
                     size_t slen)
{
    const char *slash = strrchr(path, '/');
    snprintf(name, len, "%s", slash ? slash + 1 : path);
    snprintf(shadowed, slen, "%s", "");
}

mk_kubelet *mk_kl_events_start_kubelet(const char *dir, mk_kl_events **e)
{
    if (!*e) {
        *e = calloc(1, sizeof **e);
        ck_assert_ptr_nonnull(*e);
        pthread_mutex_init(&(*e)->mu, NULL);
    }
    mk_kubelet_opts o = {
        .on_event = record,
        .event_ctx = *e,
        .identify = identify,
    };
    char err[512];
    mk_kubelet *k = mk_kubelet_start(dir, &o, err, sizeof err);
    ck_assert_msg(k, "%s", err);
    return k;
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
