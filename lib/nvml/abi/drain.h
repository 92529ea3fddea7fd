/* drain.h - drain states and GPU removal/rediscovery. */
#ifndef MOKKA_NVML_ABI_DRAIN_H
#define MOKKA_NVML_ABI_DRAIN_H

#include "base.h"
#include "device_structs.h"

/* --- Drain states ---------------------------------------------------------- */

typedef enum nvmlDetachGpuState_enum {
    NVML_DETACH_GPU_KEEP = 0,
    NVML_DETACH_GPU_REMOVE = 1
} nvmlDetachGpuState_t;

typedef enum nvmlPcieLinkState_enum {
    NVML_PCIE_LINK_KEEP = 0,
    NVML_PCIE_LINK_SHUT_DOWN = 1
} nvmlPcieLinkState_t;

/* --- Drain state and GPU removal ------------------------------------------- */
MK_API nvmlReturn_t nvmlDeviceModifyDrainState(nvmlPciInfo_t *pciInfo, nvmlEnableState_t newState);
MK_API nvmlReturn_t nvmlDeviceQueryDrainState(nvmlPciInfo_t *pciInfo, nvmlEnableState_t *currentState);
/* older version, still exported */
MK_API nvmlReturn_t nvmlDeviceRemoveGpu(nvmlPciInfo_t *pciInfo);
MK_API nvmlReturn_t nvmlDeviceRemoveGpu_v2(nvmlPciInfo_t *pciInfo, nvmlDetachGpuState_t gpuState, nvmlPcieLinkState_t linkState);
MK_API nvmlReturn_t nvmlDeviceDiscoverGpus(nvmlPciInfo_t *pciInfo);

#endif
