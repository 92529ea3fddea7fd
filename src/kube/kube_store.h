/* kube_store.h - the latest view of the watched nodes (and pods), shared
 * between the threads that change it (the watches: one of nodes, one of
 * pods) and any number of readers, who copy it and wait for it to change. */
#ifndef MOKKA_KUBE_STORE_H
#define MOKKA_KUBE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "nodeview/nodeview.h"

typedef struct mk_kstore mk_kstore;

/* Empty, at version 0 (the first mk_kstore_replace makes it 1). */
mk_kstore *mk_kstore_new(void);
void mk_kstore_free(mk_kstore *s);

/* Writer side, one thread a kind (the writers' edits are serialised). Each
 * returns 0, or -1 when memory runs out. An update that changes nothing a
 * view shows (a heartbeat) keeps the version. */
int mk_kstore_put(mk_kstore *s, mk_nv_node *n);          /* ADDED, MODIFIED; takes *n */
int mk_kstore_delete(mk_kstore *s, const char *name);    /* DELETED */
int mk_kstore_replace(mk_kstore *s, mk_nv_nodes *fresh); /* a LIST; takes *fresh */
/* Pods: once one LIST replaced them, snapshots say has_pods. */
int mk_kstore_pod_put(mk_kstore *s, mk_nv_pod *p);       /* takes *p */
int mk_kstore_pod_delete(mk_kstore *s, const char *ns, const char *name);
int mk_kstore_pod_replace(mk_kstore *s, mk_nv_pod *fresh, size_t n); /* takes the pods */
void mk_kstore_fail(mk_kstore *s, const char *why);      /* no more changes will come */

/* Reader side, any thread. snapshot copies the latest view (also after a
 * failure: the last one seen). wait returns 1 when the version differs from
 * `seen`, 0 when timeout_ms (< 0: forever) passed first, -1 after
 * mk_kstore_fail (err says why). */
int mk_kstore_snapshot(mk_kstore *s, mk_nv_nodes *out, char *err, size_t errlen);
int mk_kstore_wait(mk_kstore *s, uint64_t seen, int timeout_ms, char *err, size_t errlen);

#endif
