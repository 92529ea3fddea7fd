/* exposition.h - the metrics `mokka metrics` serves for a live state: the
 * GPU fields of dcgm-exporter's default counters (etc/default-counters.csv)
 * with its metric names, types, HELP texts and labels (gpu, UUID,
 * pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION), so that
 * dashboards built for real GPUs show the virtual ones unchanged; plus
 * mokka_* metrics of its own (health, XID count, NVML calls). */
#ifndef MOKKA_EXPOSITION_H
#define MOKKA_EXPOSITION_H

#include <stdio.h>
#include "stateview.h"

void mk_expose(FILE *f, const mk_view *v);

#endif
