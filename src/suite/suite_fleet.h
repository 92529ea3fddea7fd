/* suite_fleet.h - the numbers of a fleet: what the selected nodes and the
 * pods bound to them add up to for one resource, as the scheduler counts
 * them; for the fleet expectations (suite_expect_fleet.c) and their tests.
 * Not for use outside src/suite/. */
#ifndef MOKKA_SUITE_FLEET_H
#define MOKKA_SUITE_FLEET_H

#include <stddef.h>
#include "kube/kube.h"
#include "nodeview/nodeview.h"

/* One selected node. */
typedef struct mk_fsum_node {
    const mk_nv_node *node;   /* in the snapshot */
    int ready;                /* condition Ready is True */
    long long capacity, allocatable;   /* of the resource */
    long long used;           /* requests of its active pods (may pass allocatable) */
    long long free;           /* allocatable - used, at least 0 */
    size_t pods;              /* its active pods (neither Succeeded nor Failed) */
} mk_fsum_node;

#define MK_FLEET_PHASES (MK_NV_POD_UNKNOWN + 1)

typedef struct mk_fsum {
    size_t n;
    mk_fsum_node *node;      /* the selected nodes, by name */
    size_t ready, advertising;   /* nodes Ready; with allocatable > 0 */
    long long allocatable, used, free;   /* summed over the nodes */
    size_t partly_used;       /* nodes with 0 < used < allocatable */
    long long largest_fit;    /* the largest free on one node: the largest request that fits */
    size_t placed;            /* pods bound to the nodes, every phase */
    size_t phase[MK_FLEET_PHASES];   /* of those, by phase */
    size_t pods_min, pods_max;   /* active pods on one node (0 and 0 without nodes) */
} mk_fsum;

/* The fleet of the snapshot's nodes that `sel` selects (NULL: all) for
 * `resource`. 0, or -1 when memory runs out. */
int mk_fsum_compute(mk_fsum *f, const mk_nv_nodes *snap, const mk_ksel *sel,
                     const char *resource);
void mk_fsum_free(mk_fsum *f);

/* The free units stranded for a request of k: free on nodes where fewer
 * than k are free (so no pod asking for k can use them). */
long long mk_fsum_stranded(const mk_fsum *f, long long k);

/* The index of the node called `name` in f->node, or -1. */
long long mk_fsum_find(const mk_fsum *f, const char *name);

/* "50 nodes (49 Ready), nvidia.com/gpu 392 allocatable, 78 used, 314 free,
 * 29 partly used, largest fit 8; 73 pods on them, 70 running". */
void mk_fsum_describe(const mk_fsum *f, const char *resource, char *buf, size_t len);

/* Whether a pod is counted against its node (neither Succeeded nor Failed). */
int mk_fsum_pod_active(const mk_nv_pod *p);

/* Whether a pod waits to be scheduled: Pending without a node, in namespace
 * ns (NULL: any) and selected by sel (NULL: any). */
int mk_fsum_pod_unscheduled(const mk_nv_pod *p, const char *ns, const mk_ksel *sel);

#endif
