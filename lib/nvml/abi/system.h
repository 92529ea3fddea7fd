/* system.h - system-wide queries (driver/NVML/CUDA versions, process
 * names, HIC), CPER records and excluded GPUs. */
#ifndef MOKKA_NVML_ABI_SYSTEM_H
#define MOKKA_NVML_ABI_SYSTEM_H

#include "base.h"
#include "device_structs.h"
#include "unit.h"

/* Split a CUDA driver version (e.g. 12020) into major (12) and minor (2). */
#define NVML_CUDA_DRIVER_VERSION_MAJOR(v) ((v) / 1000)
#define NVML_CUDA_DRIVER_VERSION_MINOR(v) (((v) % 1000) / 10)

/* --- CPER records ---------------------------------------------------------- */
typedef unsigned long long nvmlCPERCursorHandle_t;
#define NVML_CPER_CURSOR_HANDLE_INIT ((nvmlCPERCursorHandle_t) 0)

typedef enum {
    NVML_CPER_ACCESS_TYPE_GPU = 1
} nvmlCPERType_t;

typedef struct {
    unsigned int cperTypeMask;
    char uuid[NVML_DEVICE_UUID_BUFFER_SIZE];
    nvmlCPERCursorHandle_t handle;
} nvmlCPERCursor_v1_t;

typedef struct {
    nvmlCPERCursor_v1_t cursor;
    unsigned char *buffer;
    unsigned int bufferSize;
} nvmlGetCPER_v1_t;

/* --- System queries -------------------------------------------------------- */
MK_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
MK_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
MK_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
MK_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
MK_API nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length);
MK_API nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount, nvmlHwbcEntry_t *hwbcEntries);

typedef struct {
    unsigned int version;
    char branch[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
} nvmlSystemDriverBranchInfo_v1_t;
typedef nvmlSystemDriverBranchInfo_v1_t nvmlSystemDriverBranchInfo_t;
#define nvmlSystemDriverBranchInfo_v1 NVML_STRUCT_VERSION(SystemDriverBranchInfo, 1)

MK_API nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *branchInfo, unsigned int length);
MK_API nvmlReturn_t nvmlSystemGetCPER_v1(nvmlGetCPER_v1_t *cper);

/* --- Excluded GPUs --------------------------------------------------------- */

typedef struct nvmlExcludedDeviceInfo_st {
    nvmlPciInfo_t pciInfo;
    char uuid[NVML_DEVICE_UUID_BUFFER_SIZE];
} nvmlExcludedDeviceInfo_t;

MK_API nvmlReturn_t nvmlGetExcludedDeviceCount(unsigned int *deviceCount);
MK_API nvmlReturn_t nvmlGetExcludedDeviceInfoByIndex(unsigned int index, nvmlExcludedDeviceInfo_t *info);

/* The earlier "blacklist" names: the header maps them to the excluded
 * ones with macros, but the driver also exports them as symbols. */
typedef nvmlExcludedDeviceInfo_t nvmlBlacklistDeviceInfo_t;
MK_API nvmlReturn_t nvmlGetBlacklistDeviceCount(unsigned int *deviceCount);
MK_API nvmlReturn_t nvmlGetBlacklistDeviceInfoByIndex(unsigned int index, nvmlBlacklistDeviceInfo_t *info);

#endif
