/* fleet_lease.c - every virtual node's heartbeat: its Lease in
 * kube-node-lease, renewed every 10 s as a kubelet renews it, which is
 * what the node lifecycle controller reads to keep the node Ready. The
 * renewals are spread evenly over the 10 s (a thousand nodes: one every
 * 10 ms), so that the API server sees a steady trickle, not a wave; at
 * rest they are the fleet's only requests. A renewal is a merge patch (no
 * resourceVersion to keep); a Lease that is gone is created again, with
 * its Node as owner, and a Node that is gone too is registered again (an
 * API server that lost its data comes back whole). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fleet_int.h"

#define LEASES "/apis/coordination.k8s.io/v1/namespaces/" LEASE_NS "/leases"

static json_t *lease_spec(const fnode *n)
{
    char now[40];
    mk_ktime_format(fleet_unix_ms(), 2, now, sizeof now);
    return json_pack("{s:s, s:i, s:s}", "holderIdentity", n->name, "leaseDurationSeconds",
                     LEASE_SECONDS, "renewTime", now);
}

static int create_lease(mk_fleet *f, mk_khttp *h, int i, long *status, char *err, size_t errlen)
{
    pthread_mutex_lock(&f->mu);
    fnode *n = &f->node[i];
    char uid[64];
    snprintf(uid, sizeof uid, "%s", n->uid);
    json_t *meta = json_pack("{s:s, s:s}", "name", n->name, "namespace", LEASE_NS);
    if (uid[0])
        json_object_set_new(meta, "ownerReferences",
                            json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", "v1", "kind", "Node",
                                      "name", n->name, "uid", uid));
    json_t *lease = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "coordination.k8s.io/v1",
                              "kind", "Lease", "metadata", meta, "spec", lease_spec(n));
    pthread_mutex_unlock(&f->mu);
    int rc = fleet_request(f, h, "POST", LEASES, lease, NULL, status, NULL, err, errlen);
    json_decref(lease);
    return rc;
}

/* Whether node i's Node is gone from the API server (a GET answers 404). */
static int node_gone(mk_fleet *f, mk_khttp *h, int i)
{
    char path[600], err[512];
    long status = 0;
    snprintf(path, sizeof path, "/api/v1/nodes/%s", f->node[i].name);
    return fleet_request(f, h, "GET", path, NULL, NULL, &status, NULL, err, sizeof err) == 0 &&
           status == 404;
}

int fleet_do_lease(mk_fleet *f, mk_khttp *h, int i)
{
    fnode *n = &f->node[i];
    char path[600], err[1024] = "";
    long status = 0;
    snprintf(path, sizeof path, LEASES "/%s", n->name);
    pthread_mutex_lock(&f->mu);
    n->lease_queued = 0;
    json_t *patch = json_pack("{s:o}", "spec", lease_spec(n));
    pthread_mutex_unlock(&f->mu);
    int rc = fleet_request(f, h, "PATCH", path, patch, NULL, &status, NULL, err, sizeof err);
    json_decref(patch);
    /* No Lease: deleted, or lost with the API server's data, and then the
     * Node is too (a watch resumed from a resourceVersion cannot tell):
     * the Node is registered again, which makes its Lease. */
    if (rc == 0 && status == 404 && node_gone(f, h, i)) {
        say(f, 1, "node %s: gone from the API server with its Lease; registering it again", n->name);
        pthread_mutex_lock(&f->mu);
        if (n->registered) {
            n->registered = 0;
            f->registered--;
        }
        fleet_queue(f, W_NODE_CREATE, i);
        pthread_mutex_unlock(&f->mu);
        return 0;
    }
    if (rc == 0 && status == 404)
        rc = create_lease(f, h, i, &status, err, sizeof err);
    if (rc == 0 && status == 409)
        status = 200;   /* made meanwhile (by the fleet before a restart): renewed next round */
    if (rc || status / 100 != 2)
        say(f, 1, "node %s: cannot renew its Lease: %s", n->name, err);
    else
        atomic_fetch_add(&f->lease_renewals, 1);
    return rc;
}

/* Node i is due at started + i * RENEW_MS / n, then every RENEW_MS. */
static void *renewer(void *p)
{
    mk_fleet *f = p;
    long long t0 = mk_now_ms();
    size_t i = 0;
    unsigned long round = 0;
    pthread_mutex_lock(&f->mu);
    while (!f->stop) {
        long long due = t0 + (long long)round * RENEW_MS + (long long)i * RENEW_MS / (long long)f->nnodes;
        long long now = mk_now_ms();
        if (due > now) {
            struct timespec ts = mk_abstime_in(CLOCK_REALTIME, due - now);
            pthread_cond_timedwait(&f->tick, &f->mu, &ts);
            continue;
        }
        fnode *n = &f->node[i];
        if (n->registered && !n->lease_queued) {
            n->lease_queued = 1;
            fleet_queue(f, W_LEASE, (int)i);
        }
        if (++i == f->nnodes)
            i = 0, round++;
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

int fleet_lease_start(mk_fleet *f, char *err, size_t errlen)
{
    if (pthread_create(&f->lease_thread, NULL, renewer, f))
        return snprintf(err, errlen, "cannot start a thread"), -1;
    f->lease_started = 1;
    return 0;
}
