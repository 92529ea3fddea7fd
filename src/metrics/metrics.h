/* metrics.h - the metrics `mokka metrics` serves: the exposition of a
 * live state, the Prometheus text writer, and the small HTTP server. */
#ifndef MOKKA_METRICS_H
#define MOKKA_METRICS_H

#include <stddef.h>
#include <stdio.h>
#include "stateview/stateview.h"

/* exposition.c: the metrics `mokka metrics` serves for a live state: the
 * GPU fields of dcgm-exporter's default counters (etc/default-counters.csv)
 * with its metric names, types, HELP texts and labels (gpu, UUID,
 * pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION), so that
 * dashboards built for real GPUs show the virtual ones unchanged; plus
 * mokka_* metrics of its own (health, XID count, NVML calls). */
void mk_expose(FILE *f, const mk_view *v);
/* The exposition as a malloc'd text of *len bytes; NULL when out of memory. */
char *mk_expose_text(const mk_view *v, size_t *len);


/* prom.c: writing the Prometheus text exposition format (0.0.4): a family
 * is its HELP and TYPE lines followed by its samples; label values and help
 * texts are escaped as the format requires. */
#define MK_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

void mk_prom_family(FILE *f, const char *name, const char *type, const char *help);
/* labels: name, value, name, value, ..., NULL (may be NULL for none). */
void mk_prom_sample(FILE *f, const char *name, const char *const *labels, const char *value);


/* httpd.c: the small HTTP server behind `mokka metrics`: one thread, poll()
 * over the listening socket and its clients (so a slow client cannot hold up
 * a scrape), GET and HEAD only, one response per connection, and a clean
 * stop on SIGINT or SIGTERM. */
typedef struct mk_http_resp {
    int status;            /* 200, 404, 503, ... */
    const char *type;      /* Content-Type */
    char *body;            /* malloc'd; the server frees it */
    size_t len;
} mk_http_resp;

/* Fills r for a GET of `path` (without the query string). */
typedef void (*mk_http_handler)(const char *path, mk_http_resp *r, void *ctx);

/* Binds and listens on "HOST:PORT", "[V6ADDR]:PORT" or ":PORT" (every
 * interface). Writes the bound address (with the real port when PORT is 0)
 * and whether it is a loopback address. Returns the socket, or with err -2
 * when addr is not of that form and -1 when it cannot be used. */
int mk_http_listen(const char *addr, char *bound, size_t blen, int *loopback, char *err,
                   size_t errlen);

/* Serves until SIGINT or SIGTERM; closes fd. Returns 0, or -1 with err on a
 * failure of the server itself. */
int mk_http_serve(int fd, mk_http_handler h, void *ctx, char *err, size_t errlen);
/* Serves fd from a thread of its own until mk_http_bg_stop (which closes
 * fd); NULL with err (fd closed) when the thread cannot start. */
typedef struct mk_http_bg mk_http_bg;
mk_http_bg *mk_http_bg_start(int fd, mk_http_handler h, void *ctx, char *err, size_t errlen);
void mk_http_bg_stop(mk_http_bg *b);


/* debugsrv.c: `debug: true` under `mokka run` and `mokka exec`: /metrics
 * (the exposition above) of the live state in state_dir, served on the
 * config's debugListen from a thread while the command runs. Says where on
 * stderr; a failure to listen is one warning, never fatal (NULL). */
typedef struct mk_debugsrv mk_debugsrv;
mk_debugsrv *mk_debugsrv_start(const char *cmd, const char *listen, const char *state_dir);
void mk_debugsrv_stop(mk_debugsrv *s);

#endif
