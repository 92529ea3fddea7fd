/* fake_nodesrc.h - a scriptable mk_nodesrc and suite environment for the
 * suite engine's unit tests: a view built in memory, changes that land a set
 * time after a wait starts (so `within:` is exercised through wait_change),
 * and Allocate/GetPreferredAllocation answers that echo what was asked.
 * Header-only (static inline) because each test file is its own binary. */
#ifndef MOKKA_FAKE_NODESRC_H
#define MOKKA_FAKE_NODESRC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nodeview/nodeview.h"
#include "suite/suite.h"

typedef struct fake fake;
struct fake {
    mk_nodesrc src;
    mk_suite_env env;
    mk_nv_nodes view;
    /* a change applied by wait_change once `change_after_ms` of waiting passed */
    void (*change)(fake *f);
    long long change_after_ms;
    long long waited_ms;
    int snapshots, waits, fail_snapshot, fail_wait;
    /* actions seen */
    int injects, sets, restarts, fail_actions;
    char restarted[64];        /* the last restart-plugin's name, "" for every plugin */
    mk_inject last_inject;
    char last_set[128];
    void (*on_inject)(fake *f, const mk_inject *inj);
    /* plugin calls */
    int allocs, prefs, fail_alloc;
    char last_alloc[256];
    int log_tails;
};

static inline long long fake_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int fake_snapshot(mk_nodesrc *s, mk_nv_nodes *out, char *err, size_t len)
{
    fake *f = s->impl;
    f->snapshots++;
    if (f->fail_snapshot) {
        snprintf(err, len, "connection refused");
        return -1;
    }
    return mk_nv_nodes_copy(out, &f->view);
}

static inline int fake_wait(mk_nodesrc *s, uint64_t seen, int timeout_ms, char *err, size_t len)
{
    fake *f = s->impl;
    f->waits++;
    if (f->fail_wait) {
        snprintf(err, len, "watch closed");
        return -1;
    }
    if (f->view.version != seen)
        return 1;
    long long sleep = timeout_ms;
    int fire = f->change && f->waited_ms + timeout_ms >= f->change_after_ms;
    if (fire)
        sleep = f->change_after_ms - f->waited_ms;
    if (sleep > 0) {
        struct timespec ts = {(time_t)(sleep / 1000), (long)(sleep % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    f->waited_ms += sleep;
    if (!fire)
        return 0;
    void (*change)(fake *) = f->change;
    f->change = NULL;
    change(f);
    f->view.version++;
    return 1;
}

static inline char *fake_join(char **ids, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(ids[i]) + 1;
    char *s = calloc(1, len);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, ",");
        strcat(s, ids[i]);
    }
    return s;
}

static inline void fake_kv(mk_nv_kv **v, size_t *n, const char *k, const char *val)
{
    *v = realloc(*v, (*n + 1) * sizeof **v);
    (*v)[*n].key = strdup(k);
    (*v)[*n].value = val ? strdup(val) : NULL;
    (*n)++;
}

/* Answers like the NVIDIA plugin's envvar strategy. */
static inline int fake_allocate(mk_nodesrc *s, const char *resource, char **ids, size_t nids,
                                mk_nv_alloc *out, char *err, size_t len)
{
    fake *f = s->impl;
    f->allocs++;
    char *joined = fake_join(ids, nids);
    snprintf(f->last_alloc, sizeof f->last_alloc, "%s:%s", resource, joined);
    if (f->fail_alloc) {
        free(joined);
        snprintf(err, len, "rpc error: unknown device");
        return -1;
    }
    memset(out, 0, sizeof *out);
    fake_kv(&out->envs, &out->nenvs, "NVIDIA_VISIBLE_DEVICES", joined);
    fake_kv(&out->mounts, &out->nmounts, "/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi");
    fake_kv(&out->devices, &out->ndevices, "/dev/nvidia0", "/dev/nvidia0");
    free(joined);
    return 0;
}

/* Prefers the must-include devices, then the available ones in order. */
static inline int fake_preferred(mk_nodesrc *s, const char *resource, char **avail,
                                 size_t navail, char **must, size_t nmust, size_t size,
                                 char ***out, size_t *nout, char *err, size_t len)
{
    fake *f = s->impl;
    (void)resource;
    f->prefs++;
    if (f->fail_alloc) {
        snprintf(err, len, "rpc error: not implemented");
        return -1;
    }
    *out = calloc(size + 1, sizeof **out);
    *nout = 0;
    for (size_t i = 0; i < nmust && *nout < size; i++)
        (*out)[(*nout)++] = strdup(must[i]);
    for (size_t i = 0; i < navail && *nout < size; i++) {
        int dup = 0;
        for (size_t j = 0; j < *nout; j++)
            dup |= strcmp((*out)[j], avail[i]) == 0;
        if (!dup)
            (*out)[(*nout)++] = strdup(avail[i]);
    }
    return 0;
}

static inline int fake_inject(mk_suite_env *env, const mk_inject *inj, char *err, size_t len)
{
    fake *f = env->user;
    f->injects++;
    f->last_inject = *inj;
    if (f->fail_actions) {
        snprintf(err, len, "no such GPU");
        return -1;
    }
    if (f->on_inject)
        f->on_inject(f, inj);
    return 0;
}

static inline int fake_set(mk_suite_env *env, unsigned gpu, const char *metric,
                           const char *value, char *err, size_t len)
{
    fake *f = env->user;
    f->sets++;
    snprintf(f->last_set, sizeof f->last_set, "%u %s=%s", gpu, metric, value);
    if (f->fail_actions) {
        snprintf(err, len, "unknown metric '%s'", metric);
        return -1;
    }
    return 0;
}

static inline int fake_restart(mk_suite_env *env, const char *name, char *err, size_t len)
{
    fake *f = env->user;
    f->restarts++;
    snprintf(f->restarted, sizeof f->restarted, "%s", name ? name : "");
    if (f->fail_actions) {
        snprintf(err, len, "plugin did not come back");
        return -1;
    }
    return 0;
}

static inline char *fake_log_tail(mk_suite_env *env)
{
    fake *f = env->user;
    f->log_tails++;
    return strdup("I0101 plugin: \033[31mhealth check failed\033[0m\n");
}

/* A node with one resource of `ndev` healthy devices GPU-0..GPU-n-1. */
static inline mk_nv_node *fake_add_node(fake *f, const char *name, const char *resource,
                                        size_t ndev)
{
    f->view.node = realloc(f->view.node, (f->view.n + 1) * sizeof *f->view.node);
    mk_nv_node *n = &f->view.node[f->view.n++];
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    if (!resource)
        return n;
    n->res = calloc(1, sizeof *n->res);
    n->nres = 1;
    n->res->name = strdup(resource);
    n->res->capacity = n->res->allocatable = (long long)ndev;
    n->res->ndev = ndev;
    n->res->dev = calloc(ndev ? ndev : 1, sizeof *n->res->dev);
    for (size_t i = 0; i < ndev; i++) {
        char id[32];
        snprintf(id, sizeof id, "GPU-%zu", i);
        n->res->dev[i].id = strdup(id);
        n->res->dev[i].healthy = 1;
        n->res->dev[i].numa = (int)(i / 4);
    }
    return n;
}

static inline void fake_set_health(fake *f, size_t node, size_t dev, int healthy)
{
    mk_nv_resource *r = &f->view.node[node].res[0];
    if (r->dev[dev].healthy != healthy)
        r->allocatable += healthy ? 1 : -1;
    r->dev[dev].healthy = healthy;
}

static inline void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    f->src.kind = "fake kubelet";
    f->src.snapshot = fake_snapshot;
    f->src.wait_change = fake_wait;
    f->src.allocate = fake_allocate;
    f->src.preferred = fake_preferred;
    f->src.impl = f;
    f->env.src = &f->src;
    f->env.caps = MK_ENV_DEVICE_LIST | MK_ENV_NODE_OBJECTS;
    f->env.inject = fake_inject;
    f->env.set = fake_set;
    f->env.restart_plugin = fake_restart;
    f->env.log_tail = fake_log_tail;
    f->env.user = f;
    f->view.version = 1;
}

static inline void fake_free(fake *f)
{
    mk_nv_nodes_free(&f->view);
}

#endif
