/* faulttally.h - how far one GPUFault got: the nodes it selects, read
 * against the GPUFaultReports of their agents. Pure: no requests. */
#ifndef MOKKA_FAULTTALLY_H
#define MOKKA_FAULTTALLY_H

#include <jansson.h>
#include <stddef.h>
#include "util/util.h"

/* What one node's report says of the fault. */
typedef enum {
    MK_GFT_NONE,        /* no agent, a stopped one, or no word on this fault yet */
    MK_GFT_APPLIED,
    MK_GFT_REJECTED,
    MK_GFT_DONE         /* Cleared or Expired */
} mk_gft_phase;

typedef struct mk_gft_node {
    const char *name;
    int running;         /* the node has a report whose agent.running is true */
    mk_gft_phase phase;
    const char *reason;  /* Rejected: why ("" when the agent gave none); borrowed */
} mk_gft_node;

/* Of the selected nodes: `counted` run an agent; of those, `applied` and
 * `rejected` answered, `pending` not yet; `noagent` run none. */
typedef struct mk_gft {
    size_t selected, counted, applied, rejected, pending, noagent;
} mk_gft;

/* The phase that `report` (a GPUFaultReport, or NULL) gives the fault with
 * `uid`; strings are borrowed from the report. */
void mk_gft_read(const json_t *report, const char *node, const char *uid, mk_gft_node *out);

/* Tallies the selected nodes against `reports` (an object: node name ->
 * GPUFaultReport); fills nodes[i] for names[i] when nodes is not NULL. */
void mk_gft_count(const char *const *names, size_t n, const json_t *reports, const char *uid,
                  mk_gft *out, mk_gft_node *nodes);

/* 1 when every node that runs an agent answered (and at least one does). */
int mk_gft_answered(const mk_gft *t);

/* The running agents that report the fault in `phase`, whichever nodes
 * the fault selects (a clear waits until none has it Applied). */
size_t mk_gft_in_phase(const json_t *reports, const char *uid, mk_gft_phase phase);

/* Appends the names of the nodes in `phase` (MK_GFT_NONE: those that run an
 * agent and did not answer) or, with noagent set, those that run none:
 * "a, b, c", at most `cap` of them and then " and N more". */
void mk_gft_names(const mk_gft_node *nodes, size_t n, mk_gft_phase phase, int noagent,
                  size_t cap, mk_sb *out);

#endif
