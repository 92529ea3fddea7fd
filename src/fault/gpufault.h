/* gpufault.h - the GPUFault object (mokka.io/v1alpha1, cluster-scoped):
 * which nodes, which GPUs, what fault and for how long. Read from the API
 * server's JSON for the agents (never trusting it: a bad object is
 * described, not refused), and built for the CLI and the suites.
 * The limits here are the CRD's (ci/deploy/gpufault-crd.yaml); change
 * both together. */
#ifndef MOKKA_GPUFAULT_H
#define MOKKA_GPUFAULT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "kube/kube.h"

#define MK_GF_API_VERSION "mokka.io/v1alpha1"
#define MK_GF_KIND "GPUFault"

#define MK_GF_MAX_GPUS 4096     /* spec.gpus items; indexes are 0 to MK_GF_MAX_GPUS - 1 */
#define MK_GF_MAX_UUID 96       /* bytes in a GPU UUID ("GPU-" and 36 more from NVML) */
#define MK_GF_MAX_NAMES 5000    /* spec.nodes.names items */
#define MK_GF_MAX_PINS 64       /* spec.fault.set entries */
#define MK_GF_XID_MAX 999       /* spec.fault.xid is 1 to this */

/* Kinds are stored as ints in the agents' journals (reconcile.c): append only. */
typedef enum { MK_GF_XID, MK_GF_ECC_SINGLE, MK_GF_ECC_DOUBLE, MK_GF_LOST, MK_GF_HEALTHY, MK_GF_SET,
               MK_GF_FABRIC } mk_gf_kind;

/* MK_GF_FABRIC: the NVLink fabric word a GPU reports while the fault holds
 * (spec.fault.fabric: {state, status, health}). An agent has no universe
 * to take the rest from, so the fault states the whole word: a part left
 * out is completed, success, or no health condition. */
typedef struct mk_gf_fabric {
    int state;           /* MK_FABRIC_NOT_STARTED .. MK_FABRIC_COMPLETED (fabric.h) */
    unsigned status;     /* an NVML return code */
    unsigned health;     /* MK_FABRIC_* bits */
} mk_gf_fabric;

/* A live metric pinned while the fault holds. */
typedef struct mk_gf_pin {
    int metric;          /* mk_metric (units.h) */
    int64_t value;       /* in the metric's unit: mk_parse_quantity's result */
} mk_gf_pin;

typedef struct mk_gfault {
    char *name, *uid, *rv;          /* metadata; name is NULL only in an object not
                                       created yet (generateName), uid and rv until created */
    long long generation;           /* metadata.generation; 0 when absent */
    long long created_ms;           /* creationTimestamp, ms since the Unix epoch; 0 when absent */
    long long duration_ms;          /* spec.duration; 0: none */
    long long expires_ms;           /* created_ms + duration_ms; 0: never (or not created yet) */
    char **names; size_t nnames;    /* spec.nodes.names */
    int has_selector; mk_ksel sel;  /* spec.nodes.selector */
    int all_gpus;                   /* spec.gpus is ["all"] */
    long *indexes; size_t nindexes; /* spec.gpus indexes, in their order (repeats kept) */
    char **uuids; size_t nuuids;    /* spec.gpus UUIDs */
    mk_gf_kind kind; unsigned xid;  /* spec.fault; xid for MK_GF_XID */
    mk_gf_pin *pins; size_t npins;  /* MK_GF_SET: in mk_metric order, one per metric */
    mk_gf_fabric fabric;            /* MK_GF_FABRIC */
    char invalid[512];              /* non-empty: the object is bad and this says why, naming
                                       the field ("spec.fault: has both xid and lost; give
                                       one"). Then only the metadata is meaningful, and the
                                       nodes when they were not what was bad. Printable
                                       ASCII: text quoted from the object is cut and cleaned */
} mk_gfault;

/* Reads a GPUFault. 0, or -1 only when out of memory (*out then freed and
 * zeroed). A bad object is not an error: it sets invalid, as does an object
 * of another kind. */
int mk_gfault_from_json(const json_t *obj, mk_gfault *out);
void mk_gfault_free(mk_gfault *f);

/* Every GPUFault of a name -> object map (as a watch keeps them), read and
 * sorted oldest first, as mk_frec_run takes them: an array of *n (free it
 * with mk_gfaults_free), or NULL when out of memory. */
mk_gfault *mk_gfaults_read(const json_t *byname, size_t *n);
void mk_gfaults_free(mk_gfault *g, size_t n);
/* A node's labels (a JSON object; NULL: none) as mk_gfault_selects takes
 * them: an array of *n pairs pointing into the object (free() it), or NULL
 * when out of memory. Values that are not strings are left out. */
mk_nv_kv *mk_gfault_labels(const json_t *labels, size_t *n);

/* An object that could not be read whole (kube_watch.h: past the bounds
 * of one object, or not JSON jansson reads) as an object to keep in its
 * place: `picked` is what could be read of it ({"metadata": {"name", "uid",
 * "resourceVersion"}}), `why` what is wrong. mk_gfault_from_json reads it
 * as its metadata and invalid "the object cannot be read: it <why>",
 * selecting every node. NULL when out of memory. */
json_t *mk_gfault_unreadable(const json_t *picked, const char *why);

/* Whether the fault is for this node: named in spec.nodes.names (when
 * given) AND matching spec.nodes.selector (when given); with neither, every
 * node. An invalid fault selects by what of its nodes it could read (every
 * node when its nodes were what was bad), so that the agents concerned can
 * report it Rejected. */
int mk_gfault_selects(const mk_gfault *f, const char *node, const mk_nv_kv *labels, size_t nlabels);

/* Which of a node's ndev GPUs (their UUIDs in uuids[0..ndev), any of which
 * may be NULL, as may uuids) the fault names: sets hit[i] = 1, and every
 * other hit[i] to 0. Returns 0, or -1 with why and hit all 0 when it names
 * one the node does not have ("gpu 9 is out of range: this node has GPUs
 * 0-7", "GPU-abc is not a GPU of this node"; UUIDs compare ignoring case),
 * or the fault is invalid (why is then its invalid). */
int mk_gfault_gpus(const mk_gfault *f, unsigned ndev, const char *const *uuids, unsigned char *hit,
                   char *why, size_t whylen);

/* The fault in a few words: "xid 79", "ecc single", "ecc double", "lost",
 * "healthy", "set temperature=90C,power=300W" (values as mk_format_quantity
 * writes them, without its blank, so that each is a --set value again),
 * "fabric state=inProgress,status=notReady,health=degradedBandwidth" (the
 * whole word, health=none when none holds);
 * "invalid" for an invalid one. */
void mk_gfault_describe(const mk_gfault *f, char *buf, size_t len);

/* What the CLI and the suites ask for. */
typedef struct mk_gfault_req {
    const char *name;           /* metadata.name, or NULL: generateName from a prefix made of
                                   the fault ("gpu3-xid79-") */
    const char *const *nodes; size_t nnodes;          /* --node */
    const mk_ksel *selector;                          /* --selector (already parsed), or NULL */
    const char *gpus;           /* "3", "0,2", "all", "GPU-uuid", "0-3", or a list of them */
    mk_gf_kind kind; unsigned xid;
    const char *const *sets; size_t nsets;            /* MK_GF_SET: "temperature=90", ... */
    int fstate, fstatus, fhealth;  /* MK_GF_FABRIC: -1 where not given (left out of the
                                      object), else the value (fhealth: MK_FABRIC_* bits) */
    const char *duration;       /* "5m", or NULL */
} mk_gfault_req;

/* A whole GPUFault object, ready to POST; NULL with a usage-style err
 * ("--gpu takes an index, a range, a GPU UUID or all, not 'x'"), or
 * "out of memory". What it builds reads back without invalid. */
json_t *mk_gfault_build(const mk_gfault_req *r, char *err, size_t errlen);

#endif
