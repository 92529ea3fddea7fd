/* kl_events.h - built-in kubelets for tests, their events recorded as text
 * lines to wait on and check:
 *   "REGISTERED <resource> <endpoint>"   "REJECTED <resource|-> <msg>"
 *   "DEVICES <resource> <healthy>/<total>"
 *   "STREAM_ENDED <resource> <msg>"      "ERROR <resource|-> <msg>"
 *   "REPLACED <resource> <plugin> <replaced plugin>"
 *   "STALE_LIST <resource> <healthy>/<total>"
 * The plugin behind an endpoint is named after its socket file. */
#ifndef MOKKA_KL_EVENTS_H
#define MOKKA_KL_EVENTS_H

#include "kubelet/kubelet.h"

typedef struct mk_kl_events mk_kl_events;

/* Starts a built-in kubelet in `dir` (default options) whose events *e
 * records; a recorder is made when *e is NULL, so one can follow
 * a kubelet and its successors. Aborts the test on failure. */
mk_kubelet *mk_kl_events_start_kubelet(const char *dir, mk_kl_events **e);
void mk_kl_events_free(mk_kl_events *e);
/* Waits until some line starts with `prefix`; 1 found, 0 timed out. */
int mk_kl_events_wait(mk_kl_events *e, const char *prefix, int timeout_ms);
/* How many lines start with `prefix`. */
int mk_kl_events_count(mk_kl_events *e, const char *prefix);
/* All lines, newline-separated (static storage), for failure messages. */
const char *mk_kl_events_dump(mk_kl_events *e);

#endif
