/* fleet.h - `mokka fleet`: many virtual GPU nodes in a real cluster.
 *
 * Each virtual node has a universe (one config for all, per pool or per
 * node; `uuid: auto` follows the node's name), and is what a node with
 * NVIDIA's device plugin and gpu-feature-discovery would be to the API
 * server: a Node with the plugin's resources in capacity and allocatable,
 * GFD's labels and a kubelet's conditions, a Lease renewed every 10 s,
 * pods bound to it admitted as the kubelet's device manager admits them,
 * and the cluster's GPUFaults applied as on a real node.
 *
 *     mk_fleet *f = mk_fleet_open(&o, err, sizeof err);  // plans, checks names: exit 2/3
 *     mk_fleet_start(f, err, sizeof err);                // registers, starts the threads
 *     while (!stop) { mk_fleet_progress(f, &p); ... }
 *     mk_fleet_stop(f, MK_FLEET_DELETE);                 // nodes removed, or left NotReady
 *     mk_fleet_free(f);
 */
#ifndef MOKKA_FLEET_H
#define MOKKA_FLEET_H

#include <stddef.h>

typedef struct mk_fleet mk_fleet;

/* A pool: COUNT nodes named PREFIX<pool>-NNNN on universe CONFIG. */
typedef struct mk_fleet_pool {
    const char *name;
    unsigned count;
    const char *config;         /* NULL: the fleet's config */
} mk_fleet_pool;

typedef struct mk_fleet_opts {
    const char *kubeconfig, *context;
    const char *name;           /* the fleet's name: label mokka.io/fleet; default "fleet" */
    const char *prefix;         /* node names start so; default "gpu-node-" */
    unsigned nodes;             /* without pools */
    const char *config;         /* NULL: the built-in default universe */
    const char *node_config;    /* a directory of NODE.yaml universes that take precedence */
    const mk_fleet_pool *pools;
    size_t npools;
    const char *labels;         /* "k=v,k2=v2" for every node */
    const char *strategy;       /* MIG strategy: none, single, mixed */
    const char *state_dir;      /* the nodes' live states (faults); NULL: a fresh one */
    int take_over;              /* adopt nodes of those names that are not the fleet's */
    int gfd;                    /* put GFD's labels on the nodes */
    int workers;                /* connections for writes; 0: 4 */
    int verbose;
    void (*log)(void *ctx, int warning, const char *msg);
    void *log_ctx;
} mk_fleet_opts;

/* What happened so far: for progress lines and `make bench`. */
typedef struct mk_fleet_progress {
    unsigned nodes, registered, adopted;
    unsigned long pods_running, pods_done, pods_rejected, pods_seen;
    unsigned long requests, retries, lease_renewals, node_writes, pod_writes;
    unsigned gpus, gpus_used, gpus_unhealthy;
    long long first_ready_ms;   /* from start until every node was registered; -1 not yet */
} mk_fleet_progress;

enum { MK_FLEET_OK = 0, MK_FLEET_USAGE = 2, MK_FLEET_ENV = 3 };

/* Loads every universe and checks every name: NULL with err and *code 2
 * (a config, a name, a universe that does not fit a node) or 3. */
mk_fleet *mk_fleet_open(const mk_fleet_opts *o, int *code, char *err, size_t errlen);
/* Registers the nodes with the API server (taking back the fleet's own,
 * refusing others' unless take_over) and starts leases, pods and faults.
 * 0, or the exit code with err. */
int mk_fleet_start(mk_fleet *f, char *err, size_t errlen);
void mk_fleet_progress_get(mk_fleet *f, mk_fleet_progress *p);
/* 0 while it works; -1 with err once a watch failed for good. */
int mk_fleet_failed(mk_fleet *f, char *err, size_t errlen);

typedef enum { MK_FLEET_DELETE, MK_FLEET_KEEP } mk_fleet_stop_mode;
/* Stops everything; DELETE removes the nodes (their leases and pods go by
 * the cluster's garbage collection), KEEP marks them NotReady and leaves
 * them for a later fleet of the same name to take back. */
void mk_fleet_stop(mk_fleet *f, mk_fleet_stop_mode mode);
void mk_fleet_free(mk_fleet *f);

#endif
