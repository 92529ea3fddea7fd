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

/* The whole object, updatedAt now_ms. NULL when out of memory. */
json_t *mk_freport_json(const mk_freport_agent *a, const mk_fr_entry *e, size_t n, long long now_ms);

/* Replaces the node's report (a merge patch), or creates it. Returns 0, or -1 with err
 * (the API server's words, or the connection's), or MK_KHTTP_STOPPED. */
int mk_freport_write(mk_khttp *h, const char *node, json_t *report, long long deadline_ms,
                     char *err, size_t errlen);

#endif
