/* accounting.h - per-process accounting statistics and the functions that
 * switch accounting on and read it. */
#ifndef MOKKA_NVML_ABI_ACCOUNTING_H
#define MOKKA_NVML_ABI_ACCOUNTING_H

#include "base.h"

/* --- Accounting statistics ------------------------------------------------- */

typedef struct nvmlAccountingStats_st {
    unsigned int gpuUtilization;
    unsigned int memoryUtilization;
    unsigned long long maxMemoryUsage;
    unsigned long long time;
    unsigned long long startTime;
    unsigned int isRunning;
    unsigned int reserved[5];
} nvmlAccountingStats_t;

typedef struct {
    unsigned int pid;
    unsigned int isRunning;
    unsigned int gpuUtilization;
    unsigned int memoryUtilization;
    unsigned long long maxMemoryUsage;
    unsigned int sampleCount;
    unsigned long long sumGpuUtil;
    unsigned long long sumFbUtil;
    unsigned long long time;
    unsigned long long startTime;
} nvmlAccountingStats_v2_t;

/* --- Accounting queries ---------------------------------------------------- */
MK_API nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode);
MK_API nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned int pid, nvmlAccountingStats_t *stats);
MK_API nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t device, unsigned int *count, unsigned int *pids);
MK_API nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int *bufferSize);
MK_API nvmlReturn_t nvmlDeviceGetAccountingStats_v2(nvmlDevice_t device, nvmlAccountingStats_v2_t *stats);

/* --- Accounting control ---------------------------------------------------- */
MK_API nvmlReturn_t nvmlDeviceSetAccountingMode(nvmlDevice_t device, nvmlEnableState_t mode);
MK_API nvmlReturn_t nvmlDeviceClearAccountingPids(nvmlDevice_t device);

#endif
