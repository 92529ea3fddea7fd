/* kl_events.h - records the built-in kubelet's events as text lines, for
 * tests to wait on and check:
 *   "REGISTERED <resource> <endpoint>"   "REJECTED <resource|-> <msg>"
 *   "DEVICES <resource> <healthy>/<total>"
 *   "STREAM_ENDED <resource> <msg>"      "ERROR <resource|-> <msg>" */
#ifndef MOKKA_KL_EVENTS_H
#define MOKKA_KL_EVENTS_H

#include "kubelet.h"

typedef struct mk_kl_events mk_kl_events;

/* A recorder, and kubelet options (defaults otherwise) that feed it. */
mk_kl_events *mk_kl_events_new(mk_kubelet_opts *opts);
/* Kubelet options (defaults otherwise) that feed an existing recorder. */
void mk_kl_events_attach(mk_kl_events *e, mk_kubelet_opts *opts);
void mk_kl_events_free(mk_kl_events *e);
/* Waits until some line starts with `prefix`; 1 found, 0 timed out. */
int mk_kl_events_wait(mk_kl_events *e, const char *prefix, int timeout_ms);
/* How many lines start with `prefix`. */
int mk_kl_events_count(mk_kl_events *e, const char *prefix);
/* All lines, newline-separated (static storage), for failure messages. */
const char *mk_kl_events_dump(mk_kl_events *e);

#endif
