/* kube_watch.h - list+watch of the selected nodes: the first LIST in the
 * caller's thread (so that bad credentials or an unreachable server fail
 * mk_kwatch_start), then one background thread that WATCHes from the list's
 * resourceVersion, re-watches when a stream ends, re-lists on 410 Gone, and
 * keeps the nodes' latest view in a store (kube_store.h). */
#ifndef MOKKA_KUBE_WATCH_H
#define MOKKA_KUBE_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include "kube_http.h"
#include "kube_store.h"

typedef struct mk_kwatch mk_kwatch;

typedef struct mk_kwatch_opts {
    const char *node;           /* fieldSelector metadata.name=NODE, or NULL */
    const char *selector;       /* labelSelector, or NULL */
    int watch_timeout_s;        /* timeoutSeconds of each WATCH */
    long long first_deadline_ms;/* the first LIST retries until then (mk_kmono_ms) */
} mk_kwatch_opts;

typedef struct mk_kwatch_counts {
    unsigned long relists, events, bookmarks;
} mk_kwatch_counts;

/* Lists into `store`, then starts the thread, which fails the store when
 * the watch cannot go on. `h` is the watch's from then on (freed with it);
 * `store` must outlive it. Returns NULL with err when the first LIST fails. */
mk_kwatch *mk_kwatch_start(mk_khttp *h, mk_kstore *store, const mk_klog *log,
                           const mk_kwatch_opts *o, char *err, size_t errlen);
void mk_kwatch_counts_get(mk_kwatch *w, mk_kwatch_counts *out);
/* Stop the thread (interrupting any request) and free the watch. */
void mk_kwatch_free(mk_kwatch *w);

#endif
