/* faultcli.h - `mokka inject --cluster`: GPUFaults created, cleared and
 * listed through the API server, and the wait for the agents' reports. */
#ifndef MOKKA_FAULTCLI_H
#define MOKKA_FAULTCLI_H

#include "gpufault.h"

typedef enum { MK_GFCLI_CREATE, MK_GFCLI_CLEAR, MK_GFCLI_LIST } mk_gfcli_action;

typedef struct mk_gfcli {
    mk_gfcli_action action;
    const char *kubeconfig, *context;     /* NULL: as kubectl finds them */
    mk_gfault_req req;                    /* CREATE: the fault */
    mk_ksel sel;                          /* what req.selector points to, when it does */
    long long wait_ms;                    /* --wait; 0: do not wait */
    const char *const *clear;             /* CLEAR: the names */
    size_t nclear;
    int json;                             /* LIST: --output json */
} mk_gfcli;

/* Does it; returns the exit code (0 done, 2 refused or rejected, 3 the
 * cluster could not be reached, the resource is not installed, or the wait
 * ran out). */
int mk_gfcli_run(const mk_gfcli *o);

#endif
