/* units.h - the quantities a config or suite may write, and the live-metric
 * names shared by the config, `mokka inject --set` and suites.
 *
 * Memory: 40960 (bare numbers from 1024 up are MB), 48 (bare numbers below
 * 1024 are GB), 40GB, 40GiB, 48 GB, 4864MiB, 1.5TB. Mokka follows
 * nvidia-smi: MB and MiB both mean 2^20 bytes, GB and GiB 2^30.
 * Power: 210 (W), 210W, 0.21kW, 210000mW. Durations: 500ms, 30s, 5m, 1h,
 * a bare number is seconds. Temperatures are whole degrees C. */
#ifndef MOKKA_UNITS_H
#define MOKKA_UNITS_H

#include <stdint.h>
#include "universe.h"

typedef enum {
    MK_U_COUNT,     /* plain integer */
    MK_U_CELSIUS,
    MK_U_PERCENT,
    MK_U_MHZ,
    MK_U_MEMORY,    /* bytes */
    MK_U_POWER      /* milliwatts */
} mk_unit;

/* Each parser returns 0 and the value, or -1 with a static explanation in
 * *why ("expected a size like 40GB or 40960 (MB)"). */
int mk_parse_memory(const char *s, uint64_t *bytes, const char **why);
int mk_parse_power(const char *s, uint64_t *mw, const char **why);
/* Durations are at most MK_DURATION_MAX_S, so that nanoseconds fit. */
#define MK_DURATION_MAX_S 1e9
int mk_parse_duration(const char *s, double *seconds, const char **why);
int mk_parse_quantity(mk_unit u, const char *s, int64_t *out, const char **why);
/* Whether a memory size is a bare number, whose unit then depends on its
 * size (MB or GB): legal, but worth a --strict warning. */
int mk_memory_unitless(const char *s);

/* A live metric's config name ("temperature", "utilization.gpu",
 * "memoryUsed", "clocks.sm", ...) and unit. */
typedef struct mk_metric_info {
    const char *name;
    mk_unit unit;
} mk_metric_info;
extern const mk_metric_info mk_metrics[MK_M_COUNT];
/* The metric called `name`, or -1. */
int mk_metric_by_name(const char *name);

/* Formats a quantity for people: "40 GiB", "210 W", "42 C", "15 %". */
void mk_format_quantity(mk_unit u, int64_t v, char *buf, size_t len);

#endif
