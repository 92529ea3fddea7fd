/* kube_client.c - a client for any object (kube.h): the cluster's access,
 * loaded once, and connections made from it: the client's own for
 * requests, one more for each watch (a watch holds its connection for as
 * long as it runs). */
#include <stdio.h>
#include <stdlib.h>
#include "kube.h"
#include "kubeconfig.h"

struct mk_kclient {
    mk_ktarget target;
    mk_klog log;
    mk_khttp *http;
};

mk_kclient *mk_kclient_open(const mk_kube_opts *o, char *err, size_t errlen)
{
    mk_kclient *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->log = (mk_klog){ .fn = o->log, .ctx = o->log_ctx, .verbose = o->verbose };
    if (mk_kubeconfig_load(o->kubeconfig, o->context, &c->target, err, errlen) ||
        !(c->http = mk_khttp_new(&c->target, &c->log, err, errlen))) {
        mk_kclient_close(c);
        return NULL;
    }
    if (c->target.insecure)
        mk_klogf(&c->log, 1, "%s: cluster '%s' sets insecure-skip-tls-verify: the API server's "
                 "certificate is not verified", c->target.source,
                 c->target.cluster ? c->target.cluster : "");
    if (o->verbose) {
        char who[2048];
        mk_khttp_describe(c->http, who, sizeof who);
        mk_klogf(&c->log, 0, "API server %s", who);
    }
    return c;
}

mk_khttp *mk_kclient_http(mk_kclient *c)
{
    return c->http;
}

mk_khttp *mk_kclient_connect(mk_kclient *c, char *err, size_t errlen)
{
    return mk_khttp_new(&c->target, &c->log, err, errlen);
}

mk_kwatch *mk_kclient_watch(mk_kclient *c, const mk_kwatch_opts *o, const mk_kwatch_sink *sink,
                            char *err, size_t errlen)
{
    mk_khttp *h = mk_kclient_connect(c, err, errlen);
    return h ? mk_kwatch_start(h, sink, &c->log, o, err, errlen) : NULL;   /* takes h */
}

void mk_kclient_describe(const mk_kclient *c, char *buf, size_t len)
{
    mk_khttp_describe(c->http, buf, len);
}

void mk_kclient_close(mk_kclient *c)
{
    if (!c)
        return;
    mk_khttp_free(c->http);
    mk_ktarget_free(&c->target);
    free(c);
}
