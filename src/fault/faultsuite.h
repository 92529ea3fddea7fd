/* faultsuite.h - the injects with nodes: of `mokka assert` suites: each a
 * GPUFault, waited for until applied, and all of one run deleted at its
 * end however it ends. */
#ifndef MOKKA_FAULTSUITE_H
#define MOKKA_FAULTSUITE_H

#include <signal.h>
#include "suite/suite.h"

typedef struct mk_gfsuite mk_gfsuite;

/* For one mokka process: its faults carry the label
 * mokka.io/suite-run=<an id of this process> and expire after ttl_ms
 * (the run's timeout and some), so that a killed run leaves none for
 * long. The cluster is the kubeconfig's (NULLs: as kubectl finds it);
 * nothing is requested before the first inject. */
mk_gfsuite *mk_gfsuite_new(const char *kubeconfig, const char *context, long long ttl_ms,
                           volatile sig_atomic_t *cancel);

/* Makes the fault and waits up to wait_ms until every selected node that
 * runs an agent applied it; 0, or -1 with err (what refused it, or the
 * nodes that rejected it or did not answer). */
int mk_gfsuite_inject(mk_gfsuite *s, const mk_inject *inj, long long wait_ms, char *err,
                      size_t errlen);

/* Deletes every fault made so far (also after a cancel). Returns how many
 * could not be deleted, each said through mk_err. */
size_t mk_gfsuite_cleanup(mk_gfsuite *s);
/* mk_gfsuite_cleanup, then frees. */
void mk_gfsuite_free(mk_gfsuite *s);

/* The label key of a run's faults. */
#define MK_GF_SUITE_LABEL "mokka.io/suite-run"

#endif
