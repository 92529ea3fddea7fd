/* fleet_node.c - a virtual node as the API server sees it: the Node
 * object a kubelet with NVIDIA's device plugin registers (capacity and
 * allocatable with the plugin's resources, the kubelet's conditions,
 * addresses and nodeInfo, GFD's labels), its status as faults change it,
 * and registering the fleet: one LIST of the cluster's Nodes decides which
 * names are the fleet's to take back and which belong to someone else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet_int.h"

/* What every virtual node has beside its GPUs: a DGX-class host's. */
static const char *const BASE_CAPACITY[][2] = {
    { "cpu", "128" }, { "memory", "1056561152Ki" }, { "pods", "110" },
    { "ephemeral-storage", "1888559152Ki" }, { "hugepages-1Gi", "0" }, { "hugepages-2Mi", "0" },
};

static json_t *resources(mk_fleet *f, size_t i, int healthy_only)
{
    json_t *r = json_object();
    for (size_t k = 0; k < sizeof BASE_CAPACITY / sizeof *BASE_CAPACITY; k++)
        json_object_set_new(r, BASE_CAPACITY[k][0], json_string(BASE_CAPACITY[k][1]));
    fleet_resources(&f->node[i], healthy_only, r);
    return r;
}

static json_t *condition(const char *type, const char *status, const char *reason,
                         const char *message, const char *now)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status,
                     "reason", reason, "message", message, "lastHeartbeatTime", now,
                     "lastTransitionTime", now);
}

/* ready: 1 as a working kubelet says it, 0 as the fleet leaves a node it
 * stops with (NotReady until a fleet of its name takes it back). */
json_t *fleet_node_status(mk_fleet *f, size_t i, int ready)
{
    char now[40];
    mk_ktime_format(fleet_unix_ms(), 0, now, sizeof now);
    json_t *c = json_array();
    json_array_append_new(c, condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                                       "kubelet has sufficient memory available", now));
    json_array_append_new(c, condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                                       "kubelet has no disk pressure", now));
    json_array_append_new(c, condition("PIDPressure", "False", "KubeletHasSufficientPID",
                                       "kubelet has sufficient PID available", now));
    json_array_append_new(c, ready ? condition("Ready", "True", "KubeletReady",
                                               "kubelet is posting ready status (mokka fleet)", now)
                                   : condition("Ready", "False", "MokkaFleetStopped",
                                               "mokka fleet stopped; a fleet of the same name "
                                               "takes the node back when it starts", now));
    fnode *n = &f->node[i];
    return json_pack("{s:o, s:o, s:o, s:[{s:s, s:s}, {s:s, s:s}], s:{s:{s:i}}, s:{s:s, s:s, s:s, "
                     "s:s, s:s, s:s, s:s, s:s, s:s, s:s}}",
                     "capacity", resources(f, i, 0), "allocatable", resources(f, i, 1),
                     "conditions", c,
                     "addresses", "type", "InternalIP", "address", n->ip, "type", "Hostname",
                     "address", n->name,
                     "daemonEndpoints", "kubeletEndpoint", "Port", 10250,
                     "nodeInfo", "machineID", n->name, "systemUUID", n->name, "bootID", f->owner,
                     "kernelVersion", "mokka-virtual", "osImage", "Mokka virtual GPU node",
                     "containerRuntimeVersion", "mokka://fleet", "kubeletVersion",
                     f->kubelet_version, "kubeProxyVersion", f->kubelet_version,
                     "operatingSystem", "linux", "architecture", "amd64");
}

json_t *fleet_node_object(mk_fleet *f, size_t i)
{
    fnode *n = &f->node[i];
    return json_pack("{s:s, s:s, s:{s:s, s:O, s:{s:s, s:s, s:s}}, s:{}, s:o}", "apiVersion", "v1",
                     "kind", "Node", "metadata", "name", n->name, "labels", n->labels,
                     "annotations", OWNER_ANNOTATION, f->owner, "mokka.io/universe",
                     n->config ? n->config : "built-in", "node.alpha.kubernetes.io/ttl", "0",
                     "spec", "status", fleet_node_status(f, i, 1));
}

/* --- registering ------------------------------------------------------------------------ */

typedef struct seen {
    mk_fleet *f;
    char **foreign;
    size_t nforeign;
} seen;

static void on_node(void *ctx, json_t *obj, const char *bad)
{
    seen *s = ctx;
    const char *name = mk_kobj_name(obj);
    json_t *at = name ? json_object_get(s->f->by_name, name) : NULL;
    (void)bad;
    if (!at)
        return;
    fnode *n = &s->f->node[json_integer_value(at)];
    json_t *l = json_object_get(json_object_get(obj, "metadata"), "labels");
    const char *fleet = json_string_value(json_object_get(l, FLEET_LABEL));
    if ((fleet && !strcmp(fleet, s->f->name)) || s->f->o.take_over) {
        s->f->adopted++;
        snprintf(n->uid, sizeof n->uid, "%s",
                 json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"))
                     ?: "");
    } else {
        char **grown = realloc(s->foreign, (s->nforeign + 1) * sizeof *grown);
        if (grown)
            (s->foreign = grown)[s->nforeign++] = n->name;
    }
}

static void server_version(mk_fleet *f, mk_khttp *h)
{
    long status = 0;
    json_t *v = NULL;
    char err[512];
    snprintf(f->kubelet_version, sizeof f->kubelet_version, "v1.20.2");
    if (fleet_request(f, h, "GET", "/version", NULL, NULL, &status, &v, err, sizeof err) == 0 &&
        status == 200 && json_is_string(json_object_get(v, "gitVersion")))
        snprintf(f->kubelet_version, sizeof f->kubelet_version, "%s",
                 json_string_value(json_object_get(v, "gitVersion")));
    json_decref(v);
}

/* Lists the cluster's Nodes: the fleet's own come back (adopted), a name
 * held by another node is refused (MK_FLEET_USAGE) unless take_over, and
 * the rest are queued for creation. */
int fleet_register(mk_fleet *f, char *err, size_t errlen)
{
    mk_khttp *h = mk_kclient_http(f->client);
    server_version(f, h);
    seen s = { f, NULL, 0 };
    long status = 0;
    char why[1024];
    int rc = mk_gfl_list(h, "/api/v1/nodes", mk_kmono_ms() + WRITE_DEADLINE_MS, on_node, &s,
                         &status, why, sizeof why);
    if (rc != 0 || status != 200) {
        snprintf(err, errlen, "cannot list the cluster's Nodes: %s", why);
        free(s.foreign);
        return MK_FLEET_ENV;
    }
    if (s.nforeign) {
        snprintf(err, errlen, "%zu of the fleet's node names are taken by nodes that are not fleet "
                 "'%s''s (no label %s=%s), the first %s: pick another --prefix or --name, or give "
                 "--take-over to take them", s.nforeign, f->name, FLEET_LABEL, f->name, s.foreign[0]);
        free(s.foreign);
        return MK_FLEET_USAGE;
    }
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->nnodes; i++)
        fleet_queue(f, W_NODE_CREATE, (int)i);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

/* --- the workers' node writes -------------------------------------------------------------- */

static char *node_path(const fnode *n, const char *sub)
{
    size_t len = strlen(n->name) + 64;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "/api/v1/nodes/%s%s", n->name, sub);
    return p;
}

static int write_status(mk_fleet *f, mk_khttp *h, int i, int ready, long *status, char *err,
                        size_t errlen)
{
    char *path = node_path(&f->node[i], "/status");
    pthread_mutex_lock(&f->mu);
    json_t *body = json_pack("{s:o}", "status", fleet_node_status(f, (size_t)i, ready));
    pthread_mutex_unlock(&f->mu);
    int rc = path && body ? fleet_request(f, h, "PATCH", path, body, NULL, status, NULL, err, errlen)
                          : -1;
    json_decref(body);
    free(path);
    return rc;
}

/* Creates node i, or takes the existing one back: its labels, annotations
 * and status become the fleet's. */
static int create(mk_fleet *f, mk_khttp *h, int i, char *err, size_t errlen)
{
    long status = 0;
    json_t *answer = NULL;
    pthread_mutex_lock(&f->mu);
    json_t *obj = fleet_node_object(f, (size_t)i);
    pthread_mutex_unlock(&f->mu);
    int rc = fleet_request(f, h, "POST", "/api/v1/nodes", obj, NULL, &status, &answer, err, errlen);
    if (rc == 0 && status == 409) {
        char *path = node_path(&f->node[i], "");
        json_t *meta = json_pack("{s:O}", "metadata", json_object_get(obj, "metadata"));
        rc = path && meta ? fleet_request(f, h, "PATCH", path, meta, NULL, &status, &answer, err,
                                          errlen)
                          : -1;
        json_decref(meta);
        free(path);
        if (rc == 0 && status / 100 == 2)
            rc = write_status(f, h, i, 1, &status, err, errlen);
    }
    json_decref(obj);
    if (rc == 0 && status / 100 != 2)
        rc = -1;
    const char *uid = json_string_value(json_object_get(json_object_get(answer, "metadata"), "uid"));
    pthread_mutex_lock(&f->mu);
    if (uid)
        snprintf(f->node[i].uid, sizeof f->node[i].uid, "%s", uid);
    json_decref(answer);
    if (rc == 0) {
        if (!f->node[i].registered)
            f->registered++;
        f->node[i].registered = 1;
        if (f->registered == f->nnodes && !f->all_registered_ms)
            f->all_registered_ms = fleet_unix_ms() - f->started_ms;
        if (!f->node[i].lease_queued) {
            f->node[i].lease_queued = 1;
            fleet_queue(f, W_LEASE, i);
        }
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

int fleet_do_node(mk_fleet *f, mk_khttp *h, const work *w)
{
    char err[1024] = "";
    long status = 0;
    fnode *n = &f->node[w->index];
    int rc = 0;
    switch (w->kind) {
    case W_NODE_CREATE:
        /* Failing to register at start ends the fleet (RBAC, a server that
         * refuses Nodes: no retry helps); later, the next lease renewal
         * tries again. */
        if ((rc = create(f, h, w->index, err, sizeof err)) == 0)
            break;
        pthread_mutex_lock(&f->mu);
        long long registered_all = f->all_registered_ms;
        pthread_mutex_unlock(&f->mu);
        if (registered_all)
            say(f, 1, "node %s: cannot register it again: %s", n->name, err);
        else
            fleet_fail(f, "node %s: cannot register it: %.900s", n->name, err);
        break;
    case W_NODE_STATUS:
    case W_NODE_NOTREADY:
        pthread_mutex_lock(&f->mu);
        n->status_queued = 0;
        pthread_mutex_unlock(&f->mu);
        rc = write_status(f, h, w->index, w->kind == W_NODE_STATUS, &status, err, sizeof err);
        if (rc == 0 && status == 404 && w->kind == W_NODE_STATUS) {
            say(f, 1, "node %s: gone from the API server; registering it again", n->name);
            pthread_mutex_lock(&f->mu);
            fleet_queue(f, W_NODE_CREATE, w->index);
            pthread_mutex_unlock(&f->mu);
        } else if (rc || status / 100 != 2)
            say(f, 1, "node %s: cannot write its status: %s", n->name, err);
        break;
    case W_NODE_DELETE: {
        char *path = node_path(n, "");
        rc = path ? fleet_request(f, h, "DELETE", path, NULL, NULL, &status, NULL, err, sizeof err)
                  : -1;
        free(path);
        if (rc || (status / 100 != 2 && status != 404))
            say(f, 1, "node %s: cannot delete it: %s", n->name, err);
        break;
    }
    default:
        break;
    }
    atomic_fetch_add(&f->node_writes, 1);
    return rc;
}
