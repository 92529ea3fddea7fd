/* nvmlload.h - the NVML functions `mokka smi` uses, found with dlopen and
 * dlsym in whatever libnvidia-ml.so.1 the loader picks (the real driver's on
 * a GPU machine, Mokka's under `mokka exec` or with --mock). Only the public
 * API: the prototypes come from lib/nvml/abi, nothing is linked. */
#ifndef MOKKA_NVMLLOAD_H
#define MOKKA_NVMLLOAD_H

#include <stddef.h>
#include "abi/nvml_abi.h"

/* Every function smi may call. A library that lacks one (an older driver)
 * answers FUNCTION_NOT_FOUND for it, shown as N/A. */
#define MK_NVML_FNS(X) \
    X(nvmlInit_v2) X(nvmlShutdown) X(nvmlErrorString) \
    X(nvmlSystemGetDriverVersion) X(nvmlSystemGetNVMLVersion) \
    X(nvmlSystemGetCudaDriverVersion_v2) X(nvmlSystemGetProcessName) \
    X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetHandleByIndex_v2) \
    X(nvmlDeviceGetHandleByUUID) X(nvmlDeviceGetHandleByPciBusId_v2) X(nvmlDeviceGetIndex) \
    X(nvmlDeviceGetName) X(nvmlDeviceGetBrand) X(nvmlDeviceGetArchitecture) \
    X(nvmlDeviceGetSerial) X(nvmlDeviceGetUUID) X(nvmlDeviceGetMinorNumber) \
    X(nvmlDeviceGetVbiosVersion) X(nvmlDeviceGetMultiGpuBoard) X(nvmlDeviceGetBoardId) \
    X(nvmlDeviceGetBoardPartNumber) X(nvmlDeviceGetInforomImageVersion) \
    X(nvmlDeviceGetInforomVersion) X(nvmlDeviceGetDisplayMode) X(nvmlDeviceGetDisplayActive) \
    X(nvmlDeviceGetPersistenceMode) X(nvmlDeviceGetMigMode) X(nvmlDeviceGetPciInfo_v3) \
    X(nvmlDeviceGetMaxPcieLinkGeneration) X(nvmlDeviceGetCurrPcieLinkGeneration) \
    X(nvmlDeviceGetMaxPcieLinkWidth) X(nvmlDeviceGetCurrPcieLinkWidth) \
    X(nvmlDeviceGetFanSpeed) X(nvmlDeviceGetPerformanceState) \
    X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetMemoryInfo_v2) X(nvmlDeviceGetBAR1MemoryInfo) \
    X(nvmlDeviceGetComputeMode) X(nvmlDeviceGetUtilizationRates) \
    X(nvmlDeviceGetEncoderUtilization) X(nvmlDeviceGetDecoderUtilization) \
    X(nvmlDeviceGetEccMode) X(nvmlDeviceGetTotalEccErrors) X(nvmlDeviceGetMemoryErrorCounter) \
    X(nvmlDeviceGetTemperature) X(nvmlDeviceGetTemperatureThreshold) \
    X(nvmlDeviceGetPowerUsage) X(nvmlDeviceGetPowerManagementLimit) \
    X(nvmlDeviceGetEnforcedPowerLimit) X(nvmlDeviceGetPowerManagementDefaultLimit) \
    X(nvmlDeviceGetPowerManagementLimitConstraints) \
    X(nvmlDeviceGetClockInfo) X(nvmlDeviceGetApplicationsClock) \
    X(nvmlDeviceGetDefaultApplicationsClock) X(nvmlDeviceGetMaxClockInfo) \
    X(nvmlDeviceGetComputeRunningProcesses_v3) X(nvmlDeviceGetGraphicsRunningProcesses_v3) \
    X(nvmlDeviceGetMaxMigDeviceCount) X(nvmlDeviceGetMigDeviceHandleByIndex) \
    X(nvmlDeviceGetGpuInstanceId) X(nvmlDeviceGetComputeInstanceId) \
    X(nvmlDeviceGetAttributes_v2) X(nvmlDeviceGetGpuFabricInfo) X(nvmlDeviceGetGpuFabricInfoV)

typedef struct mk_nvml {
    void *dl;
    char path[4096];           /* the file the library was loaded from */
#define MK_NVML_FIELD(name) __typeof__(&name) name;
    MK_NVML_FNS(MK_NVML_FIELD)
#undef MK_NVML_FIELD
} mk_nvml;

/* Calls an NVML function, or answers FUNCTION_NOT_FOUND when the library
 * does not have it. */
#define MK_NV(n, fn, ...) ((n)->fn ? (n)->fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* Loads `lib` (a file name or path) and runs nvmlInit_v2. Returns 0, or -1
 * with what failed and NVML's own words in err. */
int mk_nvml_open(mk_nvml *n, const char *lib, char *err, size_t errlen);
/* nvmlShutdown (the library stays loaded: see nvmlload.c). */
void mk_nvml_close(mk_nvml *n);

#endif
