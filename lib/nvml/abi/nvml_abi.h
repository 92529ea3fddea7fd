/* nvml_abi.h - Mokka's own declaration of the NVML ABI: every type,
 * constant and exported function of libnvidia-ml.so.1, under NVIDIA's
 * names, split by NVML's chapters. Include this file, not the parts.
 * tests/abi/check_abi.py compares it with NVIDIA's nvml.h. */
#ifndef MOKKA_NVML_ABI_H
#define MOKKA_NVML_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

#include "base.h"
#include "device_structs.h"
#include "device_enums.h"
#include "clock_reasons.h"
#include "device_queries.h"
#include "device_commands.h"
#include "topology.h"
#include "nvlink.h"
#include "field_values.h"
#include "events.h"
#include "accounting.h"
#include "encoder_fbc.h"
#include "drain.h"
#include "confcompute.h"
#include "fabric.h"
#include "system.h"
#include "unit.h"
#include "mig.h"
#include "gpm.h"
#include "vgpu_types.h"
#include "vgpu.h"
#include "power.h"
#include "prm.h"

#ifdef __cplusplus
}
#endif

#endif
