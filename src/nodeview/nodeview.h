/* nodeview.h - "node view": what a Kubernetes node advertises, the one thing
 * the suite engine asserts on.
 *
 * Two producers fill it: the built-in kubelet (kubelet.c, from the device
 * plugin's Register and ListAndWatch) and the API-server client (kube.c, from
 * Node objects). The suite engine reads snapshots through mk_nodesrc and never
 * knows which producer is behind it. */
#ifndef MOKKA_NODEVIEW_H
#define MOKKA_NODEVIEW_H

#include <stddef.h>
#include <stdint.h>

typedef struct mk_nv_device {
    char *id;              /* device id as the plugin reports it (UUID, MIG-UUID, or index) */
    int healthy;           /* 1: "Healthy", 0: "Unhealthy" */
    int numa;              /* NUMA node from TopologyInfo; -1 when absent */
} mk_nv_device;

typedef struct mk_nv_resource {
    char *name;            /* "nvidia.com/gpu", "nvidia.com/mig-1g.5gb" */
    long long capacity;    /* all devices (built-in kubelet) or status.capacity */
    long long allocatable; /* healthy devices, or status.allocatable */
    size_t ndev;           /* 0 in cluster mode: the API server has no device list */
    mk_nv_device *dev;
    char *endpoint;        /* plugin socket name (built-in kubelet only) */
    char *plugin;          /* the supervised plugin that serves it (mokka run), or NULL */
    int get_preferred_allocation; /* plugin options (built-in kubelet only) */
    int pre_start_required;
} mk_nv_resource;

typedef struct mk_nv_kv { char *key, *value; } mk_nv_kv;

typedef struct mk_nv_condition {
    char *type, *status, *reason, *message;
} mk_nv_condition;

typedef struct mk_nv_taint { char *key, *value, *effect; } mk_nv_taint;

typedef struct mk_nv_node {
    char *name;
    size_t nres;  mk_nv_resource *res;
    size_t nlabels; mk_nv_kv *labels;
    size_t nannotations; mk_nv_kv *annotations;
    size_t nconditions; mk_nv_condition *conditions;
    size_t ntaints; mk_nv_taint *taints;
} mk_nv_node;

/* A pod, as the scheduler counts it against the nodes (API server only,
 * for the fleet expectations). */
typedef enum {
    MK_NV_POD_PENDING, MK_NV_POD_RUNNING, MK_NV_POD_SUCCEEDED, MK_NV_POD_FAILED,
    MK_NV_POD_UNKNOWN
} mk_nv_phase;

typedef struct mk_nv_qty { char *name; long long value; } mk_nv_qty;

typedef struct mk_nv_pod {
    char *ns, *name;
    char *node;            /* spec.nodeName; NULL: not scheduled */
    mk_nv_phase phase;
    /* What the pod requests, as the scheduler adds it up: the larger of the
     * containers' sum and the largest init container, plus the overhead;
     * a container's limit stands for a request it does not give. */
    size_t nreq; mk_nv_qty *req;
    /* Kept only while the pod is not scheduled (what selects it then): */
    size_t nlabels; mk_nv_kv *labels;
    char *unschedulable;   /* condition PodScheduled=False's message, or NULL */
} mk_nv_pod;

/* A snapshot of all nodes a source watches (one for the built-in kubelet). */
typedef struct mk_nv_nodes {
    uint64_t version;      /* changes whenever anything in the view changes */
    size_t n;
    mk_nv_node *node;
    /* The pods, where the source watches them (has_pods), sorted by
     * namespace and name: every pod of the cluster, or of the one node. */
    int has_pods;
    size_t npods;
    mk_nv_pod *pod;
} mk_nv_nodes;

void mk_nv_nodes_free(mk_nv_nodes *ns);
void mk_nv_pod_free(mk_nv_pod *p);
/* Deep copy of one pod; -1 when memory runs out (d then holds what was
 * copied, for mk_nv_pod_free). */
int mk_nv_pod_copy(mk_nv_pod *d, const mk_nv_pod *s);
/* The pod's request of a resource (0 when none). */
long long mk_nv_pod_request(const mk_nv_pod *p, const char *resource);
/* "Pending", "Running", ... as in status.phase. */
const char *mk_nv_phase_name(mk_nv_phase ph);
/* Free what one node holds (not the node itself, which may sit in an array). */
void mk_nv_node_free(mk_nv_node *n);
/* Deep copy (for producers handing out snapshots). */
int mk_nv_nodes_copy(mk_nv_nodes *dst, const mk_nv_nodes *src);
const mk_nv_resource *mk_nv_find_resource(const mk_nv_node *n, const char *name);
const char *mk_nv_label(const mk_nv_node *n, const char *key);
const char *mk_nv_annotation(const mk_nv_node *n, const char *key);
const mk_nv_condition *mk_nv_condition_find(const mk_nv_node *n, const char *type);

/* Result of an allocation made through the built-in kubelet. */
typedef struct mk_nv_alloc {
    size_t nids; char **ids;          /* the devices asked for */
    size_t nenvs; mk_nv_kv *envs;     /* ContainerAllocateResponse.envs */
    size_t nmounts; mk_nv_kv *mounts; /* container_path -> host_path */
    size_t ndevices; mk_nv_kv *devices; /* container_path -> host_path */
    size_t nannotations; mk_nv_kv *annotations;
    size_t ncdi; char **cdi;          /* CDI device names */
} mk_nv_alloc;
void mk_nv_alloc_free(mk_nv_alloc *a);

/* A producer of node views. Implementations: kubelet.c, kube.c. */
typedef struct mk_nodesrc mk_nodesrc;
struct mk_nodesrc {
    const char *kind;   /* "built-in kubelet", "API server" */
    /* Fill *out with a snapshot; 0 on success, else -1 with err. */
    int (*snapshot)(mk_nodesrc *s, mk_nv_nodes *out, char *err, size_t errlen);
    /* Block until the view's version differs from `seen` or timeout_ms passes.
     * Returns 1 when changed, 0 on timeout, -1 on failure (err set). */
    int (*wait_change)(mk_nodesrc *s, uint64_t seen, int timeout_ms, char *err, size_t errlen);
    /* Optional (NULL in cluster mode): ask the plugin for a preferred
     * allocation of `size` devices out of `available`, must-include `must`. */
    int (*preferred)(mk_nodesrc *s, const char *resource, char **available, size_t navail,
                     char **must, size_t nmust, size_t size,
                     char ***out, size_t *nout, char *err, size_t errlen);
    /* Optional: Allocate `ids` (and PreStartContainer when the plugin asks for it). */
    int (*allocate)(mk_nodesrc *s, const char *resource, char **ids, size_t nids,
                    mk_nv_alloc *out, char *err, size_t errlen);
    void *impl;
};

#endif
