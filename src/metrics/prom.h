/* prom.h - writing the Prometheus text exposition format (0.0.4): a family
 * is its HELP and TYPE lines followed by its samples; label values and help
 * texts are escaped as the format requires. */
#ifndef MOKKA_PROM_H
#define MOKKA_PROM_H

#include <stdio.h>

#define MK_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

void mk_prom_family(FILE *f, const char *name, const char *type, const char *help);
/* labels: name, value, name, value, ..., NULL (may be NULL for none). */
void mk_prom_sample(FILE *f, const char *name, const char *const *labels, const char *value);

#endif
