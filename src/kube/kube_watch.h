/* kube_watch.h - list+watch of one collection of the API server: the first
 * LIST in the caller's thread (so that bad credentials or an unreachable
 * server fail mk_kwatch_start), then one background thread that WATCHes
 * from the list's resourceVersion, re-watches when a stream ends, re-lists
 * on 410 Gone, and hands every object to the caller's sink. */
#ifndef MOKKA_KUBE_WATCH_H
#define MOKKA_KUBE_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "kube_http.h"

typedef struct mk_kwatch mk_kwatch;

/* Where the objects go. Called from the caller's thread for the first LIST,
 * then from the watch thread only. Each int callback returns 0, or -1 with
 * err ("is not a Node: ...") to end the stream and re-list after a backoff.
 * The objects are borrowed: incref what is kept. */
typedef struct mk_kwatch_sink {
    /* A LIST's items, in order, page by page... */
    int (*item)(void *ctx, size_t index, json_t *obj, char *err, size_t errlen);
    /* ...then list_end (what was not listed is gone), or list_abort when
     * the list broke off (the items since the last list_end are void). */
    int (*list_end)(void *ctx);
    void (*list_abort)(void *ctx);
    /* A watch event: type "ADDED", "MODIFIED" or "DELETED". */
    int (*event)(void *ctx, const char *type, json_t *obj, char *err, size_t errlen);
    /* No more calls will come: the watch cannot go on (why). */
    void (*fail)(void *ctx, const char *why);
    void *ctx;
    /* An object that cannot be read whole (past the bounds of one object,
     * or not JSON jansson reads: kube_frame.h), in a LIST (type NULL, in
     * its place among the items) or a watch event (its type): `obj` is what
     * could be picked of it ({"metadata": {"name", "uid",
     * "resourceVersion"}}, any of them missing; or NULL), `why` says what is wrong
     * ("holds more than 250000 JSON values (the limit for one object)",
     * scrubbed). Returns as item and event do. NULL: such objects are
     * skipped with a warning. Either way the watch goes on. */
    int (*bad)(void *ctx, const char *type, json_t *obj, const char *why, char *err,
               size_t errlen);
} mk_kwatch_sink;

typedef struct mk_kwatch_opts {
    const char *path;           /* the collection with its selectors, URL-encoded:
                                   /api/v1/nodes?fieldSelector=metadata.name%3Dn */
    const char *what;           /* "nodes", "GPUFaults": progress lines */
    int watch_timeout_s;        /* timeoutSeconds of each WATCH */
    int jitter;                 /* ask for watch_timeout_s to twice that */
    long long first_deadline_ms;/* the first LIST retries until then (mk_kmono_ms) */
} mk_kwatch_opts;

typedef struct mk_kwatch_counts {
    unsigned long relists, events, bookmarks;
    mk_khttp_counts http;       /* of its connection */
} mk_kwatch_counts;

/* Lists into the sink, then starts the thread. `h` is the watch's from then
 * on (freed with it, also on failure). Returns NULL with err when the first
 * LIST fails. */
mk_kwatch *mk_kwatch_start(mk_khttp *h, const mk_kwatch_sink *sink, const mk_klog *log,
                           const mk_kwatch_opts *o, char *err, size_t errlen);
void mk_kwatch_counts_get(mk_kwatch *w, mk_kwatch_counts *out);
/* Stop the thread (interrupting any request) and free the watch. */
void mk_kwatch_free(mk_kwatch *w);

#endif
