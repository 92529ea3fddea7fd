/* agentreport.h - a node's GPUFaultReport: what its agent did with each
 * fault, as the object the agent writes, and writing it. */
#ifndef MOKKA_AGENTREPORT_H
#define MOKKA_AGENTREPORT_H

#include <stddef.h>
#include <jansson.h>
#include "kube/kube.h"
#include "reconcile.h"

typedef struct mk_freport_agent {
    const char *node, *mode;
    long long started_ms;       /* Unix ms */
    unsigned gpus;
    int running;
} mk_freport_agent;

/* The most a report may take, written compactly: well under the 1.5 MiB
 * that etcd stores for one object, so that no number of faults can make
 * the report unwritable (about 3,500 entries). */
#define MK_FREPORT_MAX_BYTES 524288

/* The whole object, updatedAt now_ms, bounded: of the entries (as
 * mk_frec_entries gives them), those of the faults that hold (Applied)
 * first, then the Rejected, then the ended ones (Cleared, Expired: at most
 * MK_FR_HISTORY), the newest first within each, as long as the report
 * stays within MK_FREPORT_MAX_BYTES; status.faultsDropped counts those
 * left out. NULL when out of memory. */
json_t *mk_freport_json(const mk_freport_agent *a, const mk_fr_entry *e, size_t n, long long now_ms);

/* Replaces the node's report (a merge patch), or creates it. Returns 0, or -1 with err
 * (the API server's words, or the connection's), or MK_KHTTP_STOPPED. */
int mk_freport_write(mk_khttp *h, const char *node, json_t *report, long long deadline_ms,
                     char *err, size_t errlen);

#endif
