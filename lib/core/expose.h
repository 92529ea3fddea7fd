/* expose.h - reading a live state and its metrics exposition, in the core
 * so that `mokka metrics`, `debug: true` beside `mokka run`/`exec`, and the
 * library's own debug server (a host process without the CLI) all serve
 * the same text. Readings never write to the state: looking must not change
 * what the program on the mock sees next. */
#ifndef MOKKA_EXPOSE_H
#define MOKKA_EXPOSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "state.h"
#include "universe.h"

/* stateread.c: a live state and (when known) the universe it was made
 * from, and the readings derived from them. */
typedef struct mk_view {
    mk_state st;
    mk_universe *u;          /* the universe the state was made from, or NULL */
    char why_no_u[1200];     /* why u is NULL */
    char path[4096];         /* the state file */
} mk_view;

/* Attached processes still running: their count, and up to max pids. */
unsigned mk_view_alive(const mk_view *v, int *pids, unsigned max);
/* Every attached slot, running or not. */
unsigned mk_view_attached(const mk_view *v);

/* The current value of metric m on GPU i: 0, or -1 when the GPU has no such
 * sensor (known only with a universe). */
int mk_view_value(const mk_view *v, unsigned i, mk_metric m, int64_t *out);
int mk_view_pinned(const mk_view *v, unsigned i, mk_metric m);
/* Energy since the universe started (mJ), and volatile ECC counts. */
uint64_t mk_view_energy(const mk_view *v, unsigned i);
void mk_view_ecc(const mk_view *v, unsigned i, uint64_t *sbe, uint64_t *dbe);
/* NVML functions the programs called, most called first (then by name). */
typedef struct mk_call_row {
    const char *name;
    uint64_t calls, unsupported;   /* unsupported: answered NOT_SUPPORTED */
} mk_call_row;
/* A malloc'd array of *n rows (functions with calls only), or NULL. */
mk_call_row *mk_view_calls(const mk_view *v, size_t *n);

/* "healthy", "xid 79", "ecc" or "lost". */
void mk_view_health(const mk_view *v, unsigned i, char *buf, size_t len);


/* expose.c: the metrics `mokka metrics` serves for a live state: the
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

#endif
