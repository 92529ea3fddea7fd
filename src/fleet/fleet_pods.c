/* fleet_pods.c - the pods bound to virtual nodes, as a kubelet with
 * NVIDIA's device plugin runs them. One watch of every bound pod in the
 * cluster (fieldSelector spec.nodeName!=) serves the whole fleet. A new pod
 * is admitted as the kubelet's device manager admits it: for each of the
 * plugin's resources it asks for, the devices come from the node's healthy
 * free ones, chosen as the plugin's GetPreferredAllocation would choose
 * them (nvmodel); a pod they cannot satisfy fails with the kubelet's
 * UnexpectedAdmissionError. An admitted pod gets its devices in the
 * annotation mokka.io/devices and a Running status; with the annotation
 * mokka.io/run-time ("30s") it Succeeds after that long. Devices come free
 * when a pod ends or goes; a pod being deleted is finalised (deleted with
 * grace 0) as a kubelet does. A fleet that starts again reads its pods'
 * annotations back, so no device is handed out twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fleet_int.h"

#define PODS_PATH "/api/v1/pods?fieldSelector=spec.nodeName%21%3D"
#define WATCH_TIMEOUT_S 300
#define LIST_DEADLINE_MS 60000
/* how nvmodel says the plugin answered an empty list */
#define NO_ANSWER "NVIDIA's plugin answers no devices"

static const char *str_at(const json_t *o, const char *a, const char *b)
{
    return json_string_value(json_object_get(json_object_get(o, a), b));
}

/* --- devices ------------------------------------------------------------------------------ */

static void release(mk_fleet *f, int slot)
{
    fpod *p = &f->pod[slot];
    if (p->node < 0)
        return;
    fnode *n = &f->node[p->node];
    for (size_t d = 0; d < n->ndev; d++)
        if (n->user[d] == slot)
            n->user[d] = -1;
}

/* The devices the pod's containers ask for, by resource, as the kubelet
 * counts them: the init containers' reused by the app containers, so the
 * larger of the biggest init container and the app containers' sum. */
static void needs(const fnode *n, const json_t *spec, json_t *need)
{
    const char *lists[] = { "containers", "initContainers" };
    for (int l = 0; l < 2; l++) {
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), k, c) {
            json_t *lim = json_object_get(json_object_get(c, "resources"), "limits");
            if (!lim)
                lim = json_object_get(json_object_get(c, "resources"), "requests");
            const char *r;
            json_t *v;
            json_object_foreach(lim, r, v) {
                size_t d = 0;
                while (d < n->ndev && strcmp(n->dev[d].resource, r))
                    d++;
                if (d == n->ndev)
                    continue;       /* not the plugin's */
                long long want = json_is_string(v) ? atoll(json_string_value(v)) : json_integer_value(v);
                long long have = json_integer_value(json_object_get(need, r));
                long long now = l == 0 ? have + want : (want > have ? want : have);
                json_object_set_new(need, r, json_integer(now));
            }
        }
    }
}

/* The plugin's answer to the kubelet's GetPreferredAllocation for `want`
 * of avail[]: its choice, or any available ones when it answers none (as
 * the kubelet then takes them); -1 with the kubelet's words when the call
 * fails. While a GPU of the node is lost the real plugin fails every call
 * for whole GPUs: its allocator reads them all. */
static int prefer(const fnode *n, const size_t *avail, size_t navail, size_t want, size_t *out,
                  char *why, size_t len)
{
    char err[512] = "";
    if (n->dev[avail[0]].mig < 0)
        for (size_t g = 0; g < n->u->ndev; g++)
            if (atomic_load(&n->st.dev[g].health) == MK_FAULT_LOST) {
                snprintf(err, sizeof err, "error getting device handle for index '%zu': GPU is lost", g);
                goto failed;
            }
    if (mk_pdevs_prefer(n->u, n->dev, n->ndev, avail, navail, NULL, 0, want, out, err,
                        sizeof err) == 0)
        return 0;
    if (!strncmp(err, NO_ANSWER, strlen(NO_ANSWER))) {
        memcpy(out, avail, want * sizeof *out);
        return 0;
    }
failed:
    snprintf(why, len, "Allocate failed due to device plugin GetPreferredAllocation rpc failed "
             "with err: rpc error: code = Unknown desc = %s, which is unexpected", err);
    return -1;
}

/* Chooses the pod's devices; 0, or -1 with the kubelet's words in why. */
static int allocate(mk_fleet *f, int slot, const json_t *spec, char *why, size_t len)
{
    fpod *p = &f->pod[slot];
    fnode *n = &f->node[p->node];
    json_t *need = json_object(), *got = json_object();
    size_t *avail = malloc((n->ndev + 1) * sizeof *avail), *out = malloc((n->ndev + 1) * sizeof *out);
    int rc = 0;
    const char *r;
    json_t *v;
    needs(n, spec, need);
    json_object_foreach(need, r, v) {
        size_t want = (size_t)json_integer_value(v), navail = 0;
        if (!want)
            continue;
        for (size_t d = 0; d < n->ndev; d++)
            if (!strcmp(n->dev[d].resource, r) && n->healthy[d] && n->user[d] < 0)
                avail[navail++] = d;
        if (want > navail) {
            snprintf(why, len, "Allocate failed due to requested number of devices unavailable "
                     "for %s. Requested: %zu, Available: %zu, which is unexpected", r, want, navail);
            rc = -1;
            break;
        }
        if ((rc = prefer(n, avail, navail, want, out, why, len)))
            break;
        json_t *ids = json_array();
        for (size_t k = 0; k < want; k++) {
            n->user[out[k]] = slot;
            json_array_append_new(ids, json_string(n->dev[out[k]].id));
        }
        json_object_set_new(got, r, ids);
    }
    if (rc)
        release(f, slot);
    else
        p->devices = json_incref(got);
    json_decref(got);
    json_decref(need);
    free(avail);
    free(out);
    return rc;
}

/* A pod the fleet admitted before it started again: its devices as its
 * annotation says. */
static void readopt(mk_fleet *f, int slot, const char *annotation)
{
    fpod *p = &f->pod[slot];
    fnode *n = &f->node[p->node];
    json_t *got = json_loads(annotation, 0, NULL);
    const char *r;
    json_t *ids;
    json_object_foreach(got, r, ids) {
        size_t k;
        json_t *id;
        json_array_foreach(ids, k, id)
            for (size_t d = 0; d < n->ndev; d++)
                if (json_is_string(id) && !strcmp(n->dev[d].id, json_string_value(id)) &&
                    n->user[d] < 0)
                    n->user[d] = slot;
    }
    p->devices = got ? got : json_object();
}

/* --- the pod table ------------------------------------------------------------------------ */

static int new_slot(mk_fleet *f)
{
    if (f->nfree)
        return f->free_slots[--f->nfree];
    if (f->npods == f->podcap) {
        size_t cap = f->podcap ? f->podcap * 2 : 1024;
        fpod *grown = realloc(f->pod, cap * sizeof *grown);
        int *fs = realloc(f->free_slots, cap * sizeof *fs);
        if (fs)
            f->free_slots = fs;
        if (!grown || !fs)
            return -1;
        f->pod = grown;
        f->podcap = cap;
    }
    return (int)f->npods++;
}

static void drop(mk_fleet *f, int slot)
{
    fpod *p = &f->pod[slot];
    release(f, slot);
    json_object_del(f->by_uid, p->uid);
    free(p->ns);
    free(p->name);
    free(p->uid);
    free(p->reject);
    json_decref(p->devices);
    json_decref(p->containers);
    memset(p, 0, sizeof *p);
    p->phase = POD_GONE;
    p->node = -1;
    f->free_slots[f->nfree++] = slot;
}

static void want_write(mk_fleet *f, int slot)
{
    if (!f->pod[slot].queued) {
        f->pod[slot].queued = 1;
        fleet_queue(f, W_POD, slot);
    }
}

static int ended(const char *phase)
{
    return phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
}

static void add(mk_fleet *f, int node, const json_t *obj, const char *uid)
{
    const json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
    int slot = new_slot(f);
    if (slot < 0) {
        say(f, 1, "out of memory: pod %s is not admitted", uid);
        return;
    }
    fpod *p = &f->pod[slot];
    *p = (fpod){ .node = node, .phase = POD_ADMITTING, .gen = f->list_gen };
    p->ns = strdup(json_string_value(json_object_get(meta, "namespace")));
    p->name = strdup(json_string_value(json_object_get(meta, "name")));
    p->uid = strdup(uid);
    p->containers = json_deep_copy(json_object_get(spec, "containers"));
    json_object_set_new(f->by_uid, uid, json_integer(slot));
    f->pods_seen++;
    const json_t *ann = json_object_get(meta, "annotations");
    const char *rt = json_string_value(json_object_get(ann, RUN_TIME_ANNOTATION));
    const char *mine = json_string_value(json_object_get(ann, DEVICES_ANNOTATION));
    const char *start = str_at(obj, "status", "startTime");
    long long ms = 0;
    p->start_ms = fleet_unix_ms();
    if (rt && mk_duration_parse(rt, &ms) != 0)
        say(f, 1, "pod %s/%s: annotation %s '%s' is not a duration (30s, 5m): it runs until deleted",
            p->ns, p->name, RUN_TIME_ANNOTATION, rt);
    if (mine) {
        readopt(f, slot, mine);
        const char *phase = str_at(obj, "status", "phase");
        if (phase && !strcmp(phase, "Running")) {
            long long started;
            if (start && mk_ktime_ms(start, &started) == 0)
                p->start_ms = started;
            p->phase = POD_RUNNING;
            f->pods_running++;
        }
    } else {
        char why[512];
        if (allocate(f, slot, spec, why, sizeof why)) {
            p->phase = POD_REJECTED;
            p->reject = strdup(why);
        }
    }
    if (ms > 0)
        p->end_ms = p->start_ms + ms;
    if (p->phase != POD_RUNNING)
        want_write(f, slot);
}

/* A pod seen in a LIST or an event. */
static void seen_pod(mk_fleet *f, const json_t *obj, int deleted)
{
    const char *node = str_at(obj, "spec", "nodeName"), *uid = str_at(obj, "metadata", "uid");
    json_t *at = node ? json_object_get(f->by_name, node) : NULL;
    if (!at || !uid)
        return;
    json_t *s = json_object_get(f->by_uid, uid);
    const char *phase = str_at(obj, "status", "phase");
    const char *ns = str_at(obj, "metadata", "namespace"), *name = str_at(obj, "metadata", "name");
    if (!s && !deleted && (!ns || !name || !mk_kname_ok(ns) || !mk_kname_ok(name))) {
        /* its name goes into the paths of its writes: one the API server
         * would not have made is skipped, and the fleet goes on */
        say(f, 1, "pod with uid %.64s on node %.253s: its namespace or name is not a DNS "
            "subdomain; skipped", uid, node);
        return;
    }
    int going = json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp") != NULL;
    if (!s) {
        if (deleted || ended(phase))
            return;
        add(f, (int)json_integer_value(at), obj, uid);
        if (!(s = json_object_get(f->by_uid, uid)))
            return;
    }
    int slot = (int)json_integer_value(s);
    fpod *p = &f->pod[slot];
    p->gen = f->list_gen;
    if (deleted) {
        if (p->phase == POD_RUNNING)
            f->pods_running--;
        drop(f, slot);
        return;
    }
    if (ended(phase) && (p->phase == POD_RUNNING || p->phase == POD_ADMITTING)) {
        if (p->phase == POD_RUNNING)    /* ended by someone else (kubectl, a test) */
            f->pods_running--;
        release(f, slot);
        p->phase = POD_DONE;
        f->pods_done++;
    }
    if (going && !p->deleting) {
        p->deleting = 1;
        release(f, slot);
        want_write(f, slot);
    }
}

/* --- the watch ------------------------------------------------------------------------------ */

static int p_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    (void)err;
    (void)errlen;
    pthread_mutex_lock(&f->mu);
    if (index == 0)
        f->list_gen++;
    seen_pod(f, obj, 0);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static int p_end(void *ctx)
{
    mk_fleet *f = ctx;
    pthread_mutex_lock(&f->mu);
    for (size_t s = 0; s < f->npods; s++)
        if (f->pod[s].phase != POD_GONE && f->pod[s].gen != f->list_gen && f->pod[s].uid) {
            if (f->pod[s].phase == POD_RUNNING)
                f->pods_running--;
            drop(f, (int)s);
        }
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void p_abort(void *ctx)
{
    (void)ctx;
}

static int p_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_fleet *f = ctx;
    (void)err;
    (void)errlen;
    pthread_mutex_lock(&f->mu);
    seen_pod(f, obj, !strcmp(type, "DELETED"));
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void p_fail(void *ctx, const char *why)
{
    fleet_fail(ctx, "the watch of pods failed: %.900s", why);
}

/* --- the writes ------------------------------------------------------------------------------ */

static json_t *cond(const char *type, const char *status, const char *reason, const char *t)
{
    json_t *c = json_pack("{s:s, s:s, s:n, s:s}", "type", type, "status", status,
                          "lastProbeTime", "lastTransitionTime", t);
    if (reason)
        json_object_set_new(c, "reason", json_string(reason));
    return c;
}

/* The status a kubelet writes: Running, or Succeeded when its run time is
 * over; Failed with the reason when it was not admitted. */
static json_t *pod_status(const mk_fleet *f, const fpod *p, int phase)
{
    char start[40], now[40];
    mk_ktime_format(p->start_ms, 0, start, sizeof start);
    mk_ktime_format(fleet_unix_ms(), 0, now, sizeof now);
    const fnode *n = &f->node[p->node];
    if (phase == POD_REJECTED)
        return json_pack("{s:s, s:s, s:s, s:s, s:s}", "phase", "Failed", "reason",
                         "UnexpectedAdmissionError", "message", p->reject ? p->reject : "",
                         "startTime", start, "hostIP", n->ip);
    int running = phase == POD_ADMITTING || phase == POD_RUNNING;
    json_t *cs = json_array();
    size_t k;
    json_t *c;
    json_array_foreach(p->containers, k, c) {
        const char *name = json_string_value(json_object_get(c, "name")) ?: "";
        const char *image = json_string_value(json_object_get(c, "image")) ?: "";
        char id[512];
        snprintf(id, sizeof id, "mokka://%s/%s", p->uid, name);
        json_t *state = running
            ? json_pack("{s:{s:s}}", "running", "startedAt", start)
            : json_pack("{s:{s:i, s:s, s:s, s:s, s:s}}", "terminated", "exitCode", 0, "reason",
                        "Completed", "startedAt", start, "finishedAt", now, "containerID", id);
        json_array_append_new(cs, json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:i, s:o}", "name", name,
                                            "image", image, "imageID", image, "containerID", id,
                                            "ready", running, "started", running, "restartCount", 0,
                                            "state", state));
    }
    json_t *conds = json_array();
    json_array_append_new(conds, cond("Initialized", "True", running ? NULL : "PodCompleted", start));
    json_array_append_new(conds, cond("Ready", running ? "True" : "False", running ? NULL : "PodCompleted", now));
    json_array_append_new(conds, cond("ContainersReady", running ? "True" : "False",
                                      running ? NULL : "PodCompleted", now));
    json_array_append_new(conds, cond("PodScheduled", "True", NULL, start));
    return json_pack("{s:s, s:s, s:s, s:[{s:s}], s:s, s:s, s:o, s:o}", "phase",
                     running ? "Running" : "Succeeded", "hostIP", n->ip, "podIP", n->ip, "podIPs",
                     "ip", n->ip, "startTime", start, "qosClass", "BestEffort", "conditions", conds,
                     "containerStatuses", cs);
}

int fleet_do_pod(mk_fleet *f, mk_khttp *h, int slot)
{
    char path[1200], err[1024] = "";
    long status = 0;
    pthread_mutex_lock(&f->mu);
    fpod *p = &f->pod[slot];
    p->queued = 0;
    if (p->phase == POD_GONE || !p->uid) {
        pthread_mutex_unlock(&f->mu);
        return 0;
    }
    int phase = p->phase, deleting = p->deleting;
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s%s", p->ns, p->name,
             deleting ? "" : "/status");
    json_t *body;
    if (deleting)
        body = json_pack("{s:s, s:s, s:i, s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
                         "gracePeriodSeconds", 0, "preconditions", "uid", p->uid);
    else {
        body = json_pack("{s:o}", "status", pod_status(f, p, phase));
        if (phase == POD_ADMITTING && p->devices && json_object_size(p->devices)) {
            char *dev = json_dumps(p->devices, JSON_COMPACT | JSON_SORT_KEYS);
            json_object_set_new(body, "metadata", json_pack("{s:{s:s}}", "annotations",
                                                            DEVICES_ANNOTATION, dev ? dev : "{}"));
            free(dev);
        }
    }
    pthread_mutex_unlock(&f->mu);
    int rc = fleet_request(f, h, deleting ? "DELETE" : "PATCH", path, body, NULL, &status, NULL, err,
                           sizeof err);
    json_decref(body);
    atomic_fetch_add(&f->pod_writes, 1);
    pthread_mutex_lock(&f->mu);
    p = &f->pod[slot];
    if (rc == 0 && status / 100 == 2 && !deleting && p->phase == phase && p->uid) {
        if (phase == POD_ADMITTING) {
            p->phase = POD_RUNNING;
            f->pods_running++;
        } else if (phase == POD_ENDING) {
            p->phase = POD_DONE;
            f->pods_done++;
        } else if (phase == POD_REJECTED) {
            f->pods_rejected++;
            p->phase = POD_DONE;
        }
    } else if ((rc || (status / 100 != 2 && status != 404 && status != 409)) && p->uid) {
        say(f, 1, "pod %s/%s: cannot %s: %s", p->ns, p->name, deleting ? "finalise its deletion"
            : "write its status", err);
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

/* Pods whose run time is over end now (called every 100 ms or so). */
void fleet_pods_tick(mk_fleet *f, long long now_ms)
{
    for (size_t s = 0; s < f->npods; s++) {
        fpod *p = &f->pod[s];
        if (p->phase == POD_RUNNING && p->end_ms && p->end_ms <= now_ms && !p->deleting) {
            p->phase = POD_ENDING;
            f->pods_running--;
            release(f, (int)s);
            want_write(f, (int)s);
        }
    }
}

int fleet_pods_start(mk_fleet *f, char *err, size_t errlen)
{
    if (!(f->by_uid = json_object()))
        return snprintf(err, errlen, "out of memory"), -1;
    mk_kwatch_sink sink = { .item = p_item, .list_end = p_end, .list_abort = p_abort,
                            .event = p_event, .fail = p_fail, .ctx = f };
    mk_kwatch_opts wo = { .path = PODS_PATH, .what = "pods", .watch_timeout_s = WATCH_TIMEOUT_S,
                          .jitter = 1, .first_deadline_ms = mk_kmono_ms() + LIST_DEADLINE_MS };
    if (!(f->pods_watch = mk_kclient_watch(f->client, &wo, &sink, err, errlen)))
        return -1;
    return 0;
}

void fleet_pods_free(mk_fleet *f)
{
    if (f->pods_watch)
        mk_kwatch_free(f->pods_watch);
    f->pods_watch = NULL;
    for (size_t s = 0; s < f->npods; s++)
        if (f->pod[s].uid)
            drop(f, (int)s);
    free(f->pod);
    free(f->free_slots);
    json_decref(f->by_uid);
}
