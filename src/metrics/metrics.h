/* metrics.h - the metrics `mokka metrics` serves: the exposition of a
 * live state and the small HTTP server (both in the core, which the
 * library's own debug server shares: expose.h, httpd.h), and serving them
 * beside a command (`debug: true`). */
#ifndef MOKKA_METRICS_H
#define MOKKA_METRICS_H

#include <stddef.h>
#include <stdio.h>
#include "stateview/stateview.h"
#include "expose.h"
#include "httpd.h"

/* debugsrv.c: `debug: true` under `mokka run` and `mokka exec`: /metrics
 * (the exposition above) of the live state in state_dir, served on the
 * config's debugListen from a thread while the command runs. Says where on
 * stderr; a failure to listen is one warning, never fatal (NULL). */
typedef struct mk_debugsrv mk_debugsrv;
mk_debugsrv *mk_debugsrv_start(const char *cmd, const char *listen, const char *state_dir);
void mk_debugsrv_stop(mk_debugsrv *s);

#endif
