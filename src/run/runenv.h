/* runenv.h - the suite environment of `mokka run`: a node source (the
 * built-in kubelet, or the API server in cluster mode), faults and values
 * that reach the running library through its live-state file, plugin
 * restarts through the supervisor, and the ${...} variables that describe
 * the configured universe. */
#ifndef MOKKA_RUNENV_H
#define MOKKA_RUNENV_H

#include "state.h"
#include "suite.h"
#include "supervise.h"
#include "universe.h"

typedef struct mk_runenv {
    mk_suite_env env;          /* first, so callbacks can cast back */
    const mk_universe *u;
    mk_super *super;           /* NULL when nothing is supervised */
    char state_path[4300];     /* <state dir>/state */
    mk_state st;
    int st_open;
    mk_suite_var *vars;
    char **var_text;
    size_t nvars;
} mk_runenv;

/* Fills the environment. With a universe u the variables are gpus, node,
 * driver, and per GPU uuid.<i>, bus.<i>, name.<i>, mig.<i> (MIG devices on
 * GPU i), and migs (all MIG devices). Without a state_dir the suite cannot
 * inject or set; without super it cannot restart the plugin. */
int mk_runenv_init(mk_runenv *r, mk_nodesrc *src, unsigned caps, const mk_universe *u,
                   const char *state_dir, mk_super *super);
/* Adds or replaces a variable ("NAME=VALUE", as --var gives it). */
int mk_runenv_var(mk_runenv *r, const char *assignment);
void mk_runenv_free(mk_runenv *r);

#endif
