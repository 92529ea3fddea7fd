/* outputs.h - where `mokka run` and `mokka assert` put their results: the
 * summary on stderr, --junit FILE, --report json[=FILE]; and the shared
 * cancel switch (SIGINT, SIGTERM, --timeout) that stops a run early while
 * still writing every report. */
#ifndef MOKKA_OUTPUTS_H
#define MOKKA_OUTPUTS_H

#include <signal.h>
#include "report.h"

typedef struct mk_outputs {
    const char *junit;   /* --junit FILE or NULL */
    const char *json;    /* --report json: "-" (stdout) or FILE, or NULL */
} mk_outputs;

/* Takes --report's argument; 0, or MK_EXIT_USAGE after a message. */
int mk_outputs_report_opt(mk_outputs *o, const char *cmd, const char *arg);
/* Summary to stderr, then the files; 0, or MK_EXIT_ENV when one could not
 * be written (after a message). */
int mk_outputs_write(const mk_outputs *o, const char *cmd, const mk_report *rep);

/* The cancel switch: 0 while running, else the signal that stopped the run
 * (SIGALRM for --timeout). */
extern volatile sig_atomic_t mk_cancel;
/* Catches SIGINT and SIGTERM into mk_cancel and starts a watchdog that sets
 * SIGALRM after timeout_s; mk_cancel_stop ends the watchdog. */
int mk_cancel_start(double timeout_s);
void mk_cancel_stop(void);

#endif
