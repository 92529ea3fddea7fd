/* reconcile.h - what the cluster's GPUFaults do to one node's mock GPUs:
 * given every GPUFault and the node's labels, bring the live state to the
 * faults that select the node now (apply the new, clear the gone, let each
 * GPU show the faults that still hold on it), remember what was applied
 * beside the state so that an agent restarted on it neither repeats nor
 * forgets a fault, and keep the entries of the node's report. */
#ifndef MOKKA_RECONCILE_H
#define MOKKA_RECONCILE_H

#include <stddef.h>
#include "fault/gpufault.h"
#include "nodeview/nodeview.h"

typedef enum { MK_FR_APPLIED, MK_FR_CLEARED, MK_FR_EXPIRED, MK_FR_REJECTED } mk_fr_phase;

/* "Applied", "Cleared", "Expired", "Rejected": the report's words. */
const char *mk_fr_phase_name(mk_fr_phase p);

/* One line of the node's report. */
typedef struct mk_fr_entry {
    char *name, *uid, *rv;      /* of the GPUFault acted on */
    mk_fr_phase phase;
    char *reason;               /* Rejected: why; else NULL */
    unsigned *gpus;             /* indexes it holds (held) on */
    size_t ngpus;
    long long time_ms;          /* when it came to this phase */
} mk_fr_entry;

typedef struct mk_frec mk_frec;

/* Reports each change ("applied GPUFault x (xid 79) to GPU 3"); may be NULL. */
typedef void (*mk_frec_log)(void *ctx, const char *msg);

/* Opens the live state file (DIR/state) and what agents before us applied
 * to it (DIR/cluster-faults.json). NULL with err. */
mk_frec *mk_frec_open(const char *state_path, mk_frec_log log, void *log_ctx, char *err,
                      size_t errlen);
void mk_frec_close(mk_frec *r);
unsigned mk_frec_ngpus(const mk_frec *r);

/* Brings the GPUs to what `faults` (sorted oldest first) ask of the node
 * named `node` with `labels` at `now_ms` (Unix ms). Returns 0, or -1 when
 * out of memory (nothing half-done stays unrecorded). *next_ms: when the
 * next fault that holds expires (0: never), for the caller's timer. */
int mk_frec_run(mk_frec *r, const mk_gfault *faults, size_t n, const char *node,
                const mk_nv_kv *labels, size_t nlabels, long long now_ms, long long *next_ms);

/* The report's entries: the faults that select the node (or that no node
 * can use), then the cleared and expired ones, newest first (at most
 * MK_FR_HISTORY). Valid until the next run. *changed: whether they differ
 * from what the last call returned. */
#define MK_FR_HISTORY 32
const mk_fr_entry *mk_frec_entries(mk_frec *r, size_t *n, int *changed);

#endif
