/* device_structs.h - structs that device queries fill in (PCI, memory,
 * processes, bridge chips, samples, thermal, UUID ...) and the enums
 * embedded in them. */
#ifndef MOKKA_NVML_ABI_DEVICE_STRUCTS_H
#define MOKKA_NVML_ABI_DEVICE_STRUCTS_H

#include "base.h"

/* --- Device structs -------------------------------------------------------- */

typedef struct {
    unsigned int version;
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    unsigned int baseClass;
    unsigned int subClass;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfoExt_v1_t;
typedef nvmlPciInfoExt_v1_t nvmlPciInfoExt_t;
#define nvmlPciInfoExt_v1 NVML_STRUCT_VERSION(PciInfoExt, 1)

/* Filled by nvmlDeviceGetPciInfo_v3. The older nvmlDeviceGetPciInfo and
 * _v2 come from headers whose struct may end before busId: they must not
 * write past pciSubSystemId. */
typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

#define NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT "%04X:%02X:%02X.0"
#define NVML_DEVICE_PCI_BUS_ID_FMT        "%08X:%02X:%02X.0"
/* printf(NVML_DEVICE_PCI_BUS_ID_FMT, NVML_DEVICE_PCI_BUS_ID_FMT_ARGS(&pci)) */
#define NVML_DEVICE_PCI_BUS_ID_FMT_ARGS(pciInfo) \
    (pciInfo)->domain, (pciInfo)->bus, (pciInfo)->device

typedef struct nvmlEccErrorCounts_st {
    unsigned long long l1Cache;
    unsigned long long l2Cache;
    unsigned long long deviceMemory;
    unsigned long long registerFile;
} nvmlEccErrorCounts_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef struct nvmlBAR1Memory_st {
    unsigned long long bar1Total;
    unsigned long long bar1Free;
    unsigned long long bar1Used;
} nvmlBAR1Memory_t;

/* Running processes: v1 for the unversioned getters, v2 for _v2 and _v3.
 * Since NVML 12 nvmlProcessInfo_t names struct nvmlProcessInfo_v2_st; NVML
 * 11 had a separate struct nvmlProcessInfo_st with the same layout (only
 * C++ name mangling differs). */
typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_v2_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;
typedef struct nvmlProcessInfo_v2_st nvmlProcessInfo_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t;

typedef enum nvmlProcessMode_enum {
    NVML_PROCESS_MODE_COMPUTE = 0,
    NVML_PROCESS_MODE_GRAPHICS = 1,
    NVML_PROCESS_MODE_MPS = 2,
    NVML_PROCESS_MODE_ALL = 3,
    NVML_PROCESS_MODE_MAX = 4
} nvmlProcessMode_t;

typedef struct {
    unsigned int version;
    unsigned int mode;
    unsigned int numProcArrayEntries;
    nvmlProcessDetail_v1_t *procArray;
} nvmlProcessDetailList_v1_t;
typedef nvmlProcessDetailList_v1_t nvmlProcessDetailList_t;
#define nvmlProcessDetailList_v1 NVML_STRUCT_VERSION(ProcessDetailList, 1)

typedef struct nvmlDeviceAttributes_st {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

typedef struct {
    unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;
#define nvmlC2cModeInfo_v1 NVML_STRUCT_VERSION(C2cModeInfo, 1)

typedef enum {
    NVML_DEVICE_ADDRESSING_MODE_NONE = 0,
    NVML_DEVICE_ADDRESSING_MODE_HMM = 1,
    NVML_DEVICE_ADDRESSING_MODE_ATS = 2
} nvmlDeviceAddressingModeType_t;

typedef struct {
    unsigned int version;
    unsigned int value;
} nvmlDeviceAddressingMode_v1_t;
typedef nvmlDeviceAddressingMode_v1_t nvmlDeviceAddressingMode_t;
#define nvmlDeviceAddressingMode_v1 NVML_STRUCT_VERSION(DeviceAddressingMode, 1)

typedef struct {
    unsigned int version;
    unsigned int bChannelRepairPending;
    unsigned int bTpcRepairPending;
} nvmlRepairStatus_v1_t;
typedef nvmlRepairStatus_v1_t nvmlRepairStatus_t;
#define nvmlRepairStatus_v1 NVML_STRUCT_VERSION(RepairStatus, 1)

typedef struct {
    unsigned int bUnrepairableMemory;
} nvmlUnrepairableMemoryStatus_v1_t;

typedef struct nvmlRowRemapperHistogramValues_st {
    unsigned int max;
    unsigned int high;
    unsigned int partial;
    unsigned int low;
    unsigned int none;
} nvmlRowRemapperHistogramValues_t;

typedef enum nvmlBridgeChipType_enum {
    NVML_BRIDGE_CHIP_PLX = 0,
    NVML_BRIDGE_CHIP_BRO4 = 1
} nvmlBridgeChipType_t;

#define NVML_MAX_PHYSICAL_BRIDGE (128)

typedef struct nvmlBridgeChipInfo_st {
    nvmlBridgeChipType_t type;
    unsigned int fwVersion;
} nvmlBridgeChipInfo_t;

typedef struct nvmlBridgeChipHierarchy_st {
    unsigned char bridgeCount;
    nvmlBridgeChipInfo_t bridgeChipInfo[NVML_MAX_PHYSICAL_BRIDGE];
} nvmlBridgeChipHierarchy_t;

typedef enum nvmlSamplingType_enum {
    NVML_TOTAL_POWER_SAMPLES = 0,
    NVML_GPU_UTILIZATION_SAMPLES = 1,
    NVML_MEMORY_UTILIZATION_SAMPLES = 2,
    NVML_ENC_UTILIZATION_SAMPLES = 3,
    NVML_DEC_UTILIZATION_SAMPLES = 4,
    NVML_PROCESSOR_CLK_SAMPLES = 5,
    NVML_MEMORY_CLK_SAMPLES = 6,
    NVML_MODULE_POWER_SAMPLES = 7,
    NVML_JPG_UTILIZATION_SAMPLES = 8,
    NVML_OFA_UTILIZATION_SAMPLES = 9,
    NVML_SAMPLINGTYPE_COUNT = 10
} nvmlSamplingType_t;

typedef enum nvmlPcieUtilCounter_enum {
    NVML_PCIE_UTIL_TX_BYTES = 0,
    NVML_PCIE_UTIL_RX_BYTES = 1,
    NVML_PCIE_UTIL_COUNT = 2
} nvmlPcieUtilCounter_t;

typedef enum nvmlValueType_enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
    NVML_VALUE_TYPE_COUNT = 7
} nvmlValueType_t;

/* siVal and usVal arrived in NVML 12; the size (8) did not change. */
typedef union nvmlValue_st {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlSample_st {
    unsigned long long timeStamp;
    nvmlValue_t sampleValue;
} nvmlSample_t;

typedef enum nvmlPerfPolicyType_enum {
    NVML_PERF_POLICY_POWER = 0,
    NVML_PERF_POLICY_THERMAL = 1,
    NVML_PERF_POLICY_SYNC_BOOST = 2,
    NVML_PERF_POLICY_BOARD_LIMIT = 3,
    NVML_PERF_POLICY_LOW_UTILIZATION = 4,
    NVML_PERF_POLICY_RELIABILITY = 5,
    NVML_PERF_POLICY_TOTAL_APP_CLOCKS = 10,
    NVML_PERF_POLICY_TOTAL_BASE_CLOCKS = 11,
    NVML_PERF_POLICY_COUNT = 12
} nvmlPerfPolicyType_t;

typedef struct nvmlViolationTime_st {
    unsigned long long referenceTime;
    unsigned long long violationTime;
} nvmlViolationTime_t;

#define NVML_MAX_THERMAL_SENSORS_PER_GPU 3

typedef enum {
    NVML_THERMAL_TARGET_NONE = 0,
    NVML_THERMAL_TARGET_GPU = 1,
    NVML_THERMAL_TARGET_MEMORY = 2,
    NVML_THERMAL_TARGET_POWER_SUPPLY = 4,
    NVML_THERMAL_TARGET_BOARD = 8,
    NVML_THERMAL_TARGET_VCD_BOARD = 9,
    NVML_THERMAL_TARGET_VCD_INLET = 10,
    NVML_THERMAL_TARGET_VCD_OUTLET = 11,
    NVML_THERMAL_TARGET_ALL = 15,
    NVML_THERMAL_TARGET_UNKNOWN = -1
} nvmlThermalTarget_t;

typedef enum {
    NVML_THERMAL_CONTROLLER_NONE = 0,
    NVML_THERMAL_CONTROLLER_GPU_INTERNAL = 1,
    NVML_THERMAL_CONTROLLER_ADM1032 = 2,
    NVML_THERMAL_CONTROLLER_ADT7461 = 3,
    NVML_THERMAL_CONTROLLER_MAX6649 = 4,
    NVML_THERMAL_CONTROLLER_MAX1617 = 5,
    NVML_THERMAL_CONTROLLER_LM99 = 6,
    NVML_THERMAL_CONTROLLER_LM89 = 7,
    NVML_THERMAL_CONTROLLER_LM64 = 8,
    NVML_THERMAL_CONTROLLER_G781 = 9,
    NVML_THERMAL_CONTROLLER_ADT7473 = 10,
    NVML_THERMAL_CONTROLLER_SBMAX6649 = 11,
    NVML_THERMAL_CONTROLLER_VBIOSEVT = 12,
    NVML_THERMAL_CONTROLLER_OS = 13,
    NVML_THERMAL_CONTROLLER_NVSYSCON_CANOAS = 14,
    NVML_THERMAL_CONTROLLER_NVSYSCON_E551 = 15,
    NVML_THERMAL_CONTROLLER_MAX6649R = 16,
    NVML_THERMAL_CONTROLLER_ADT7473S = 17,
    NVML_THERMAL_CONTROLLER_UNKNOWN = -1
} nvmlThermalController_t;

typedef struct {
    unsigned int count;
    struct {
        nvmlThermalController_t controller;
        int defaultMinTemp;
        int defaultMaxTemp;
        int currentTemp;
        nvmlThermalTarget_t target;
    } sensor[NVML_MAX_THERMAL_SENSORS_PER_GPU];
} nvmlGpuThermalSettings_t;

typedef enum nvmlCoolerControl_enum {
    NVML_THERMAL_COOLER_SIGNAL_NONE = 0,
    NVML_THERMAL_COOLER_SIGNAL_TOGGLE = 1,
    NVML_THERMAL_COOLER_SIGNAL_VARIABLE = 2,
    NVML_THERMAL_COOLER_SIGNAL_COUNT = 3
} nvmlCoolerControl_t;

typedef enum nvmlCoolerTarget_enum {
    NVML_THERMAL_COOLER_TARGET_NONE = 1,
    NVML_THERMAL_COOLER_TARGET_GPU = 2,
    NVML_THERMAL_COOLER_TARGET_MEMORY = 4,
    NVML_THERMAL_COOLER_TARGET_POWER_SUPPLY = 8,
    NVML_THERMAL_COOLER_TARGET_GPU_RELATED = 14
} nvmlCoolerTarget_t;

typedef struct {
    unsigned int version;
    unsigned int index;
    nvmlCoolerControl_t signalType;
    nvmlCoolerTarget_t target;
} nvmlCoolerInfo_v1_t;
typedef nvmlCoolerInfo_v1_t nvmlCoolerInfo_t;
#define nvmlCoolerInfo_v1 NVML_STRUCT_VERSION(CoolerInfo, 1)

#define NVML_DEVICE_UUID_ASCII_LEN  41
#define NVML_DEVICE_UUID_BINARY_LEN 16

typedef enum {
    NVML_UUID_TYPE_NONE = 0,
    NVML_UUID_TYPE_ASCII = 1,
    NVML_UUID_TYPE_BINARY = 2
} nvmlUUIDType_t;

typedef union {
    char str[NVML_DEVICE_UUID_ASCII_LEN];
    unsigned char bytes[NVML_DEVICE_UUID_BINARY_LEN];
} nvmlUUIDValue_t;

typedef struct {
    unsigned int version;
    unsigned int type;
    nvmlUUIDValue_t value;
} nvmlUUID_v1_t;
typedef nvmlUUID_v1_t nvmlUUID_t;
#define nvmlUUID_v1 NVML_STRUCT_VERSION(UUID, 1)

typedef struct {
    unsigned int version;
    unsigned long long value;
} nvmlPdi_v1_t;
typedef nvmlPdi_v1_t nvmlPdi_t;
#define nvmlPdi_v1 NVML_STRUCT_VERSION(Pdi, 1)

typedef struct {
    unsigned int timeRun;
} nvmlBBXTimeData_v1_t;

#endif
