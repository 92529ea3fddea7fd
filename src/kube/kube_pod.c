/* kube_pod.c - a Pod object from the API server as a node view's pod. The
 * requests are added up as the scheduler does (computePodResourceRequest):
 * the sum over the containers, or the largest init container where that
 * is larger, plus spec.overhead; a container's limit stands for a request
 * it does not give (the API server defaults it so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "kube_node.h"
#include "kube_pod.h"

static const char *jstr(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static int sdup(char **dst, const char *src)
{
    *dst = src ? strdup(src) : NULL;
    return src && !*dst ? -1 : 0;
}

static long long quantity(const json_t *v)
{
    long long q = 0;
    const char *s = json_string_value(v);
    if (!s || mk_kquantity(s, &q) < 0 || q < 0)
        return 0;
    return q;
}

/* The slot for `name` in p->req (added with 0 when new); NULL when memory
 * runs out. p->req has room: the caller sized it. */
static mk_nv_qty *slot(mk_nv_pod *p, const char *name)
{
    for (size_t i = 0; i < p->nreq; i++)
        if (strcmp(p->req[i].name, name) == 0)
            return &p->req[i];
    mk_nv_qty *q = &p->req[p->nreq];
    if (sdup(&q->name, name))
        return NULL;
    q->value = 0;
    p->nreq++;
    return q;
}

/* A container's requests, limits standing in for missing ones, folded into
 * p->req by sum (containers, overhead) or by max (init containers). */
typedef enum { ADD, MAX } fold;

static int fold_one(mk_nv_pod *p, const char *name, long long v, fold how)
{
    mk_nv_qty *q = slot(p, name);
    if (!q)
        return -1;
    if (how == ADD)
        q->value = v > 0 && q->value > __LONG_LONG_MAX__ - v ? __LONG_LONG_MAX__ : q->value + v;
    else if (v > q->value)
        q->value = v;
    return 0;
}

static int fold_container(mk_nv_pod *p, const json_t *c, fold how)
{
    const json_t *res = json_object_get(c, "resources");
    const json_t *req = json_object_get(res, "requests");
    const json_t *lim = json_object_get(res, "limits");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)req, key, v)
        if (fold_one(p, key, quantity(v), how))
            return -1;
    json_object_foreach((json_t *)lim, key, v)
        if (!json_object_get(req, key) && fold_one(p, key, quantity(v), how))
            return -1;
    return 0;
}

/* How many names the requests can have at most (for one allocation). */
static size_t names_bound(const json_t *spec)
{
    size_t n = json_object_size(json_object_get(spec, "overhead"));
    static const char *const lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), i, c) {
            const json_t *res = json_object_get(c, "resources");
            n += json_object_size(json_object_get(res, "requests")) +
                 json_object_size(json_object_get(res, "limits"));
        }
    }
    return n;
}

static int read_requests(const json_t *spec, mk_nv_pod *p)
{
    size_t bound = names_bound(spec), i;
    json_t *c, *v;
    const char *key;
    if (!bound)
        return 0;
    if (!(p->req = calloc(bound, sizeof *p->req)))
        return -1;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
        if (fold_container(p, c, ADD))
            return -1;
    json_array_foreach(json_object_get(spec, "initContainers"), i, c)
        if (fold_container(p, c, MAX))
            return -1;
    json_object_foreach(json_object_get(spec, "overhead"), key, v)
        if (fold_one(p, key, quantity(v), ADD))
            return -1;
    return 0;
}

static mk_nv_phase phase_of(const char *s)
{
    static const char *const names[] = {"Pending", "Running", "Succeeded", "Failed"};
    for (int i = 0; s && i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return (mk_nv_phase)i;
    return s ? MK_NV_POD_UNKNOWN : MK_NV_POD_PENDING;
}

/* What a pod not yet scheduled is picked by, and why it waits. */
static int read_unscheduled(const json_t *pod, mk_nv_pod *p)
{
    const json_t *labels = json_object_get(json_object_get(pod, "metadata"), "labels");
    const char *key;
    json_t *v;
    size_t i;
    json_t *cond;
    if (json_object_size(labels) && !(p->labels = calloc(json_object_size(labels), sizeof *p->labels)))
        return -1;
    json_object_foreach((json_t *)labels, key, v) {
        mk_nv_kv *kv = &p->labels[p->nlabels++];
        if (sdup(&kv->key, key) || sdup(&kv->value, json_is_string(v) ? json_string_value(v) : ""))
            return -1;
    }
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, cond) {
        const char *type = jstr(cond, "type"), *status = jstr(cond, "status");
        if (type && status && !strcmp(type, "PodScheduled") && !strcmp(status, "False"))
            return sdup(&p->unschedulable, jstr(cond, "message") ? jstr(cond, "message")
                                                                  : jstr(cond, "reason"));
    }
    return 0;
}

int mk_kpod_from_json(const json_t *pod, mk_nv_pod *out, char *err, size_t errlen)
{
    const json_t *meta = json_object_get(pod, "metadata");
    const json_t *spec = json_object_get(pod, "spec");
    const char *name = jstr(meta, "name"), *node = jstr(spec, "nodeName");
    memset(out, 0, sizeof *out);
    if (!json_is_object(pod) || !name) {
        snprintf(err, errlen, "the object has no metadata.name");
        return -1;
    }
    out->phase = phase_of(jstr(json_object_get(pod, "status"), "phase"));
    if (sdup(&out->ns, jstr(meta, "namespace") ? jstr(meta, "namespace") : "") ||
        sdup(&out->name, name) || sdup(&out->node, node && *node ? node : NULL) ||
        read_requests(spec, out) || (!out->node && read_unscheduled(pod, out))) {
        mk_nv_pod_free(out);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int mk_kpod_equal(const mk_nv_pod *a, const mk_nv_pod *b)
{
    if (!str_eq(a->ns, b->ns) || !str_eq(a->name, b->name) || !str_eq(a->node, b->node) ||
        a->phase != b->phase || a->nreq != b->nreq || a->nlabels != b->nlabels ||
        !str_eq(a->unschedulable, b->unschedulable))
        return 0;
    for (size_t i = 0; i < a->nreq; i++)
        if (!str_eq(a->req[i].name, b->req[i].name) || a->req[i].value != b->req[i].value)
            return 0;
    for (size_t i = 0; i < a->nlabels; i++)
        if (!str_eq(a->labels[i].key, b->labels[i].key) ||
            !str_eq(a->labels[i].value, b->labels[i].value))
            return 0;
    return 1;
}

char *mk_kpods_path(const char *node)
{
    char *field = NULL, *fe = NULL, *path = NULL;
    if (!node)
        return strdup("/api/v1/pods");
    if (asprintf(&field, "spec.nodeName=%s", node) < 0)
        return NULL;
    if ((fe = curl_easy_escape(NULL, field, 0)) &&
        asprintf(&path, "/api/v1/pods?fieldSelector=%s", fe) < 0)
        path = NULL;
    free(field);
    curl_free(fe);
    return path;
}
