/* smi_doc.h - what `mokka smi` shows, gathered through NVML once into one
 * JSON document: the model behind every view. --json prints it; the table,
 * -L and -q render it, so every view shows the same reading.
 *
 * Values: numbers and strings as read; null where NVML answers NOT_SUPPORTED
 * (or the library lacks the function), shown as "N/A"; {"error": "..."}
 * where NVML answers another error, with NVML's own words. Keys carry their
 * unit: _mib, _mhz, _c (degrees C), _w (watts), _pct, _lanes. */
#ifndef MOKKA_SMI_DOC_H
#define MOKKA_SMI_DOC_H

#include <jansson.h>
#include <stdio.h>
#include "nvmlload.h"

#define MK_SMI_MAX_GPUS 1024

/* Turns -i's comma-separated indices, UUIDs or PCI bus ids into GPU
 * indices. Returns how many, or -1 with err. */
int mk_smi_select(const mk_nvml *n, const char *spec, unsigned *sel, char *err, size_t errlen);
/* The document for GPUs sel[0..nsel) (all GPUs when sel is NULL). */
json_t *mk_smi_gather(const mk_nvml *n, const unsigned *sel, int nsel);

/* Reading the document back: the value at a dotted path ("pci.bus_id"). */
json_t *mk_smi_at(json_t *o, const char *path);
/* 1 with the integer at path, 0 when N/A, -1 when NVML failed. */
int mk_smi_int(json_t *o, const char *path, long long *v);
/* The string at path, "N/A", or "ERR!" (as nvidia-smi's table shows them). */
const char *mk_smi_str(json_t *o, const char *path);

/* The views. */
void mk_smi_print_table(json_t *doc, FILE *f);
void mk_smi_print_list(json_t *doc, FILE *f);
void mk_smi_print_query(json_t *doc, FILE *f);

/* nvidia-smi's lines for a GPU without a handle ("gpu " in -L, "GPU" before
 * the table), with its advice for a lost GPU (smi_list.c). */
void mk_smi_print_handle_error(FILE *f, const char *gpu, long long index, const char *why);

#endif
