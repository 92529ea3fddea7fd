/* podevent.c - a Warning Event on the pod mokka runs in, for what ends the
 * pod before it serves anything (a universe or suite that does not load):
 * the log alone is where nobody looks while a DaemonSet's pod restarts
 * with backoff; `kubectl describe pod` and `kubectl get events` show an
 * Event. The pod is named by the downward API (POD_NAME, POD_NAMESPACE,
 * POD_UID: the DaemonSet sets them); outside a pod nothing is written.
 *
 * One Event per pod and reason, as the kubelet keeps its own: the first
 * failure creates it, each restart's failure counts on it (count,
 * lastTimestamp, the latest message), so a crash-looping pod shows one
 * line with its count rather than a new Event every restart. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kube/kube.h"
#include "run.h"

/* The most of the message an Event gets (events.k8s.io's limit for a
 * note; the pod's log has all of it). */
#define MESSAGE_MAX 1024
/* How long the Event may take: the pod is on its way out. */
#define DEADLINE_MS 10000

/* "pod.mokkabadinput": the Event's name for pod and reason, or "" when it
 * would not be a name (the server then makes one from generateName). */
static void event_name(const char *pod, const char *reason, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s.", pod);
    for (const char *r = reason; *r && n + 1 < len; r++)
        out[n++] = (char)tolower((unsigned char)*r);
    out[n < len ? n : len - 1] = 0;
    if (n >= len || !mk_kname_ok(out))
        out[0] = 0;
}

/* The message, cut to MESSAGE_MAX bytes at a line's end where it can be. */
static json_t *message_json(const char *msg)
{
    size_t n = strlen(msg);
    if (n <= MESSAGE_MAX)
        return json_string(msg);
    const char *tail = " (more in the pod's log)";
    size_t keep = MESSAGE_MAX - strlen(tail);
    while (keep > MESSAGE_MAX / 2 && msg[keep] != '\n')
        keep--;
    char *cut = NULL;
    json_t *j = asprintf(&cut, "%.*s%s", (int)keep, msg, tail) < 0 ? NULL : json_string(cut);
    free(cut);
    return j;
}

static json_t *new_event(const char *name, const char *pod, const char *ns, const char *uid,
                         const char *reason, const char *message, const char *now)
{
    const char *node = getenv("MOKKA_NODE_NAME");
    json_t *involved = json_pack("{ss ss ss ss ss}", "apiVersion", "v1", "kind", "Pod",
                                 "name", pod, "namespace", ns, "fieldPath", "spec.containers{mokka}");
    if (involved && uid && *uid)
        json_object_set_new(involved, "uid", json_string(uid));
    json_t *source = json_pack("{ss}", "component", "mokka");
    if (source && node && *node)
        json_object_set_new(source, "host", json_string(node));
    json_t *meta = *name ? json_pack("{ss ss}", "name", name, "namespace", ns)
                         : json_pack("{ss ss}", "generateName", pod, "namespace", ns);
    return json_pack("{ss ss so so ss so ss ss ss si so}", "apiVersion", "v1", "kind", "Event",
                     "metadata", meta, "involvedObject", involved, "reason", reason,
                     "message", message_json(message), "type", "Warning",
                     "firstTimestamp", now, "lastTimestamp", now, "count", 1, "source", source);
}

/* The Event exists (an earlier restart's): one more on its count. */
static int count_again(mk_khttp *h, const char *path, const char *message, const char *now,
                       long *status, char *err, size_t errlen)
{
    json_t *old = NULL;
    long long deadline = mk_kmono_ms() + DEADLINE_MS;
    mk_kobj_req get = { .method = "GET", .path = path, .deadline_ms = deadline };
    int rc = mk_kobj_request(h, &get, status, &old, NULL, 0, err, errlen);
    if (rc != 0 || *status != 200)
        return rc;
    json_int_t count = json_integer_value(json_object_get(old, "count"));
    json_t *patch = json_pack("{sI ss so}", "count", (json_int_t)(count > 0 ? count + 1 : 2),
                              "lastTimestamp", now, "message", message_json(message));
    mk_kobj_req req = { .method = "PATCH", .path = path, .body = patch, .deadline_ms = deadline };
    rc = patch ? mk_kobj_request(h, &req, status, NULL, NULL, 0, err, errlen) : MK_KHTTP_FAIL;
    if (!patch)
        snprintf(err, errlen, "out of memory");
    json_decref(patch);
    json_decref(old);
    return rc;
}

int mk_podevent_warn(const mk_kube_opts *ko, const char *reason, const char *message, char *err,
                     size_t errlen)
{
    const char *pod = getenv("POD_NAME"), *ns = getenv("POD_NAMESPACE");
    if (!pod || !*pod || !ns || !*ns)
        return 1;
    if (!mk_kname_ok(pod) || !mk_kname_ok(ns)) {
        snprintf(err, errlen, "POD_NAME and POD_NAMESPACE must name a pod (DNS subdomains)");
        return -1;
    }
    char name[254], now[40], collection[512];
    event_name(pod, reason, name, sizeof name);
    mk_ktime_format((long long)time(NULL) * 1000, 0, now, sizeof now);
    snprintf(collection, sizeof collection, "/api/v1/namespaces/%s/events", ns);
    json_t *ev = new_event(name, pod, ns, getenv("POD_UID"), reason, message, now);
    mk_kclient *c = ev ? mk_kclient_open(ko, err, errlen) : NULL;
    char *path = NULL;
    long status = 0;
    int rc = -1;
    if (!ev)
        snprintf(err, errlen, "out of memory");
    if (c) {
        mk_kobj_req post = { .method = "POST", .path = collection, .body = ev,
                             .deadline_ms = mk_kmono_ms() + DEADLINE_MS };
        rc = mk_kobj_request(mk_kclient_http(c), &post, &status, NULL, NULL, 0, err, errlen);
        if (rc == 0 && status == 409 && (path = mk_kpath_name(collection, name, err, errlen)))
            rc = count_again(mk_kclient_http(c), path, message, now, &status, err, errlen);
        if (rc == 0 && (status < 200 || status >= 300))
            rc = -1;                    /* err has the API server's message */
    }
    free(path);
    mk_kclient_close(c);
    json_decref(ev);
    return rc == 0 ? 0 : -1;
}
