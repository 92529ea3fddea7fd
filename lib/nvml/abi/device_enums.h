/* device_enums.h - device enums and the small structs that go with them:
 * brand, temperature, ECC, clocks, P-states, fan, power, architecture,
 * bus type. */
#ifndef MOKKA_NVML_ABI_DEVICE_ENUMS_H
#define MOKKA_NVML_ABI_DEVICE_ENUMS_H

#include "base.h"

/* --- Device enums ---------------------------------------------------------- */

typedef struct {
    unsigned int version;
    nvmlEnableState_t encryptionState;
} nvmlDramEncryptionInfo_v1_t;
typedef nvmlDramEncryptionInfo_v1_t nvmlDramEncryptionInfo_t;
#define nvmlDramEncryptionInfo_v1 NVML_STRUCT_VERSION(DramEncryptionInfo, 1)

typedef enum nvmlBrandType_enum {
    NVML_BRAND_UNKNOWN = 0,
    NVML_BRAND_QUADRO = 1,
    NVML_BRAND_TESLA = 2,
    NVML_BRAND_NVS = 3,
    NVML_BRAND_GRID = 4,
    NVML_BRAND_GEFORCE = 5,
    NVML_BRAND_TITAN = 6,
    NVML_BRAND_NVIDIA_VAPPS = 7,
    NVML_BRAND_NVIDIA_VPC = 8,
    NVML_BRAND_NVIDIA_VCS = 9,
    NVML_BRAND_NVIDIA_VWS = 10,
    NVML_BRAND_NVIDIA_CLOUD_GAMING = 11,
    NVML_BRAND_NVIDIA_VGAMING = NVML_BRAND_NVIDIA_CLOUD_GAMING,
    NVML_BRAND_QUADRO_RTX = 12,
    NVML_BRAND_NVIDIA_RTX = 13,
    NVML_BRAND_NVIDIA = 14,
    NVML_BRAND_GEFORCE_RTX = 15,
    NVML_BRAND_TITAN_RTX = 16,
    NVML_BRAND_COUNT = 18
} nvmlBrandType_t;

typedef enum nvmlTemperatureThresholds_enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN = 4,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR = 5,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX = 6,
    NVML_TEMPERATURE_THRESHOLD_GPS_CURR = 7,
    NVML_TEMPERATURE_THRESHOLD_COUNT = 8
} nvmlTemperatureThresholds_t;

typedef enum nvmlTemperatureSensors_enum {
    NVML_TEMPERATURE_GPU = 0,
    NVML_TEMPERATURE_COUNT = 1
} nvmlTemperatureSensors_t;

typedef struct {
    unsigned int version;
    int marginTemperature;
} nvmlMarginTemperature_v1_t;
typedef nvmlMarginTemperature_v1_t nvmlMarginTemperature_t;
#define nvmlMarginTemperature_v1 NVML_STRUCT_VERSION(MarginTemperature, 1)

typedef enum nvmlComputeMode_enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
    NVML_COMPUTEMODE_COUNT = 4
} nvmlComputeMode_t;

#define MAX_CLK_DOMAINS 32

typedef struct nvmlClkMonFaultInfo_struct {
    unsigned int clkApiDomain;
    unsigned int clkDomainFaultMask;
} nvmlClkMonFaultInfo_t;

typedef struct nvmlClkMonStatus_status {
    unsigned int bGlobalStatus;
    unsigned int clkMonListSize;
    nvmlClkMonFaultInfo_t clkMonList[MAX_CLK_DOMAINS];
} nvmlClkMonStatus_t;

#define nvmlEccBitType_t    nvmlMemoryErrorType_t
#define NVML_SINGLE_BIT_ECC NVML_MEMORY_ERROR_TYPE_CORRECTED
#define NVML_DOUBLE_BIT_ECC NVML_MEMORY_ERROR_TYPE_UNCORRECTED

typedef enum nvmlMemoryErrorType_enum {
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
    NVML_MEMORY_ERROR_TYPE_COUNT = 2
} nvmlMemoryErrorType_t;

typedef enum nvmlEccCounterType_enum {
    NVML_VOLATILE_ECC = 0,
    NVML_AGGREGATE_ECC = 1,
    NVML_ECC_COUNTER_TYPE_COUNT = 2
} nvmlEccCounterType_t;

typedef enum nvmlClockType_enum {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
    NVML_CLOCK_VIDEO = 3,
    NVML_CLOCK_COUNT = 4
} nvmlClockType_t;

typedef enum nvmlClockId_enum {
    NVML_CLOCK_ID_CURRENT = 0,
    NVML_CLOCK_ID_APP_CLOCK_TARGET = 1,
    NVML_CLOCK_ID_APP_CLOCK_DEFAULT = 2,
    NVML_CLOCK_ID_CUSTOMER_BOOST_MAX = 3,
    NVML_CLOCK_ID_COUNT = 4
} nvmlClockId_t;

typedef enum nvmlDriverModel_enum {
    NVML_DRIVER_WDDM = 0,
    NVML_DRIVER_WDM = 1,
    NVML_DRIVER_MCDM = 2
} nvmlDriverModel_t;

#define NVML_MAX_GPU_PERF_PSTATES 16

typedef enum nvmlPStates_enum {
    NVML_PSTATE_0 = 0,
    NVML_PSTATE_1 = 1,
    NVML_PSTATE_2 = 2,
    NVML_PSTATE_3 = 3,
    NVML_PSTATE_4 = 4,
    NVML_PSTATE_5 = 5,
    NVML_PSTATE_6 = 6,
    NVML_PSTATE_7 = 7,
    NVML_PSTATE_8 = 8,
    NVML_PSTATE_9 = 9,
    NVML_PSTATE_10 = 10,
    NVML_PSTATE_11 = 11,
    NVML_PSTATE_12 = 12,
    NVML_PSTATE_13 = 13,
    NVML_PSTATE_14 = 14,
    NVML_PSTATE_15 = 15,
    NVML_PSTATE_UNKNOWN = 32
} nvmlPstates_t;

typedef struct {
    unsigned int version;
    nvmlClockType_t type;
    nvmlPstates_t pstate;
    int clockOffsetMHz;
    int minClockOffsetMHz;
    int maxClockOffsetMHz;
} nvmlClockOffset_v1_t;
typedef nvmlClockOffset_v1_t nvmlClockOffset_t;
#define nvmlClockOffset_v1 NVML_STRUCT_VERSION(ClockOffset, 1)

typedef struct {
    unsigned int version;
    unsigned int fan;
    unsigned int speed;
} nvmlFanSpeedInfo_v1_t;
typedef nvmlFanSpeedInfo_v1_t nvmlFanSpeedInfo_t;
#define nvmlFanSpeedInfo_v1 NVML_STRUCT_VERSION(FanSpeedInfo, 1)

typedef struct {
    unsigned int version;
    char str[NVML_PERF_MODES_BUFFER_SIZE];
} nvmlDevicePerfModes_v1_t;
typedef nvmlDevicePerfModes_v1_t nvmlDevicePerfModes_t;
#define nvmlDevicePerfModes_v1 NVML_STRUCT_VERSION(DevicePerfModes, 1)

typedef struct {
    unsigned int version;
    char str[NVML_PERF_MODES_BUFFER_SIZE];
} nvmlDeviceCurrentClockFreqs_v1_t;
typedef nvmlDeviceCurrentClockFreqs_v1_t nvmlDeviceCurrentClockFreqs_t;
#define nvmlDeviceCurrentClockFreqs_v1 NVML_STRUCT_VERSION(DeviceCurrentClockFreqs, 1)

#define NVML_POWER_MIZER_MODE_ADAPTIVE                      0
#define NVML_POWER_MIZER_MODE_PREFER_MAXIMUM_PERFORMANCE    1
#define NVML_POWER_MIZER_MODE_AUTO                          2
#define NVML_POWER_MIZER_MODE_PREFER_CONSISTENT_PERFORMANCE 3

typedef struct {
    unsigned int currentMode;
    unsigned int mode;
    unsigned int supportedPowerMizerModes;
} nvmlDevicePowerMizerModes_v1_t;

typedef enum nvmlGom_enum {
    NVML_GOM_ALL_ON = 0,
    NVML_GOM_COMPUTE = 1,
    NVML_GOM_LOW_DP = 2
} nvmlGpuOperationMode_t;

typedef enum nvmlInforomObject_enum {
    NVML_INFOROM_OEM = 0,
    NVML_INFOROM_ECC = 1,
    NVML_INFOROM_POWER = 2,
    NVML_INFOROM_DEN = 3,
    NVML_INFOROM_COUNT = 4
} nvmlInforomObject_t;

typedef enum nvmlMemoryLocation_enum {
    NVML_MEMORY_LOCATION_L1_CACHE = 0,
    NVML_MEMORY_LOCATION_L2_CACHE = 1,
    NVML_MEMORY_LOCATION_DRAM = 2,
    NVML_MEMORY_LOCATION_DEVICE_MEMORY = 2,
    NVML_MEMORY_LOCATION_REGISTER_FILE = 3,
    NVML_MEMORY_LOCATION_TEXTURE_MEMORY = 4,
    NVML_MEMORY_LOCATION_TEXTURE_SHM = 5,
    NVML_MEMORY_LOCATION_CBU = 6,
    NVML_MEMORY_LOCATION_SRAM = 7,
    NVML_MEMORY_LOCATION_COUNT = 8
} nvmlMemoryLocation_t;

typedef enum nvmlPageRetirementCause_enum {
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
    NVML_PAGE_RETIREMENT_CAUSE_COUNT = 2
} nvmlPageRetirementCause_t;

typedef enum nvmlRestrictedAPI_enum {
    NVML_RESTRICTED_API_SET_APPLICATION_CLOCKS = 0,
    NVML_RESTRICTED_API_SET_AUTO_BOOSTED_CLOCKS = 1,
    NVML_RESTRICTED_API_COUNT = 2
} nvmlRestrictedAPI_t;

typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
    unsigned long long timeStamp;
    unsigned int pid;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
    unsigned int jpgUtil;
    unsigned int ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct {
    unsigned int version;
    unsigned int processSamplesCount;
    unsigned long long lastSeenTimeStamp;
    nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;
typedef nvmlProcessesUtilizationInfo_v1_t nvmlProcessesUtilizationInfo_t;
#define nvmlProcessesUtilizationInfo_v1 NVML_STRUCT_VERSION(ProcessesUtilizationInfo, 1)

typedef struct {
    unsigned int version;
    unsigned long long aggregateUncParity;
    unsigned long long aggregateUncSecDed;
    unsigned long long aggregateCor;
    unsigned long long volatileUncParity;
    unsigned long long volatileUncSecDed;
    unsigned long long volatileCor;
    unsigned long long aggregateUncBucketL2;
    unsigned long long aggregateUncBucketSm;
    unsigned long long aggregateUncBucketPcie;
    unsigned long long aggregateUncBucketMcu;
    unsigned long long aggregateUncBucketOther;
    unsigned int bThresholdExceeded;
} nvmlEccSramErrorStatus_v1_t;
typedef nvmlEccSramErrorStatus_v1_t nvmlEccSramErrorStatus_t;
#define nvmlEccSramErrorStatus_v1 NVML_STRUCT_VERSION(EccSramErrorStatus, 1)

typedef struct {
    unsigned int version;
    unsigned char ibGuid[16];
    unsigned char rackGuid[16];
    unsigned char chassisPhysicalSlotNumber;
    unsigned char computeSlotIndex;
    unsigned char nodeIndex;
    unsigned char peerType;
    unsigned char moduleId;
} nvmlPlatformInfo_v1_t;
#define nvmlPlatformInfo_v1 NVML_STRUCT_VERSION(PlatformInfo, 1)

typedef struct {
    unsigned int version;
    unsigned char ibGuid[16];
    unsigned char chassisSerialNumber[16];
    unsigned char slotNumber;
    unsigned char trayIndex;
    unsigned char hostId;
    unsigned char peerType;
    unsigned char moduleId;
} nvmlPlatformInfo_v2_t;
typedef nvmlPlatformInfo_v2_t nvmlPlatformInfo_t;
#define nvmlPlatformInfo_v2 NVML_STRUCT_VERSION(PlatformInfo, 2)

typedef struct {
    char value[NVML_DEVICE_HOSTNAME_BUFFER_SIZE];
} nvmlHostname_v1_t;

typedef struct {
    unsigned int unit;
    unsigned int location;
    unsigned int sublocation;
    unsigned int extlocation;
    unsigned int address;
    unsigned int isParity;
    unsigned int count;
} nvmlEccSramUniqueUncorrectedErrorEntry_v1_t;

typedef struct {
    unsigned int version;
    unsigned int entryCount;
    nvmlEccSramUniqueUncorrectedErrorEntry_v1_t *entries;
} nvmlEccSramUniqueUncorrectedErrorCounts_v1_t;
typedef nvmlEccSramUniqueUncorrectedErrorCounts_v1_t nvmlEccSramUniqueUncorrectedErrorCounts_t;
#define nvmlEccSramUniqueUncorrectedErrorCounts_v1 NVML_STRUCT_VERSION(EccSramUniqueUncorrectedErrorCounts, 1)

typedef struct nvmlRemappedRowsInfo_v2_t {
    unsigned int corrActiveRemaps;
    unsigned int corrInactiveRemaps;
    unsigned int uncActiveRemaps;
    unsigned int uncInactiveRemaps;
    unsigned int bPending;
    unsigned int bFailureOccurred;
} nvmlRemappedRowsInfo_v2_t;

#define NVML_RUSD_POLL_NONE      0x0
#define NVML_RUSD_POLL_CLOCK     0x1
#define NVML_RUSD_POLL_PERF      0x2
#define NVML_RUSD_POLL_MEMORY    0x4
#define NVML_RUSD_POLL_POWER     0x8
#define NVML_RUSD_POLL_THERMAL   0x10
#define NVML_RUSD_POLL_PCI       0x20
#define NVML_RUSD_POLL_FAN       0x40
#define NVML_RUSD_POLL_PROC_UTIL 0x80
#define NVML_RUSD_POLL_ALL       0xFFFFFFFFFFFFFFFF

typedef struct {
    unsigned int version;
    unsigned long long pollMask;
} nvmlRusdSettings_v1_t;
#define nvmlRusdSettings_v1 NVML_STRUCT_VERSION(RusdSettings, 1)

#define NVML_DEVICE_ARCH_KEPLER    2
#define NVML_DEVICE_ARCH_MAXWELL   3
#define NVML_DEVICE_ARCH_PASCAL    4
#define NVML_DEVICE_ARCH_VOLTA     5
#define NVML_DEVICE_ARCH_TURING    6
#define NVML_DEVICE_ARCH_AMPERE    7
#define NVML_DEVICE_ARCH_ADA       8
#define NVML_DEVICE_ARCH_HOPPER    9
#define NVML_DEVICE_ARCH_BLACKWELL 10
#define NVML_DEVICE_ARCH_RUBIN     13
#define NVML_DEVICE_ARCH_UNKNOWN   0xffffffff
typedef unsigned int nvmlDeviceArchitecture_t;
#define NVML_BUS_TYPE_UNKNOWN 0
#define NVML_BUS_TYPE_PCI     1
#define NVML_BUS_TYPE_PCIE    2
#define NVML_BUS_TYPE_FPCI    3
#define NVML_BUS_TYPE_AGP     4
typedef unsigned int nvmlBusType_t;
#define NVML_FAN_POLICY_TEMPERATURE_CONTINOUS_SW 0
#define NVML_FAN_POLICY_MANUAL                   1
typedef unsigned int nvmlFanControlPolicy_t;
#define NVML_POWER_SOURCE_AC         0x00000000
#define NVML_POWER_SOURCE_BATTERY    0x00000001
#define NVML_POWER_SOURCE_UNDERSIZED 0x00000002
typedef unsigned int nvmlPowerSource_t;
#define NVML_PCIE_LINK_MAX_SPEED_INVALID            0x00000000
#define NVML_PCIE_LINK_MAX_SPEED_2500MBPS           0x00000001
#define NVML_PCIE_LINK_MAX_SPEED_5000MBPS           0x00000002
#define NVML_PCIE_LINK_MAX_SPEED_8000MBPS           0x00000003
#define NVML_PCIE_LINK_MAX_SPEED_16000MBPS          0x00000004
#define NVML_PCIE_LINK_MAX_SPEED_32000MBPS          0x00000005
#define NVML_PCIE_LINK_MAX_SPEED_64000MBPS          0x00000006
#define NVML_ADAPTIVE_CLOCKING_INFO_STATUS_DISABLED 0x00000000
#define NVML_ADAPTIVE_CLOCKING_INFO_STATUS_ENABLED  0x00000001
#define NVML_MAX_GPU_UTILIZATIONS                   8

typedef enum nvmlGpuUtilizationDomainId_t {
    NVML_GPU_UTILIZATION_DOMAIN_GPU = 0,
    NVML_GPU_UTILIZATION_DOMAIN_FB = 1,
    NVML_GPU_UTILIZATION_DOMAIN_VID = 2,
    NVML_GPU_UTILIZATION_DOMAIN_BUS = 3
} nvmlGpuUtilizationDomainId_t;

typedef struct nvmlGpuDynamicPstatesInfo_st {
    unsigned int flags;
    struct {
        unsigned int bIsPresent;
        unsigned int percentage;
        unsigned int incThreshold;
        unsigned int decThreshold;
    } utilization[NVML_MAX_GPU_UTILIZATIONS];
} nvmlGpuDynamicPstatesInfo_t;

#define NVML_PCIE_ATOMICS_CAP_FETCHADD32 0x01
#define NVML_PCIE_ATOMICS_CAP_FETCHADD64 0x02
#define NVML_PCIE_ATOMICS_CAP_SWAP32     0x04
#define NVML_PCIE_ATOMICS_CAP_SWAP64     0x08
#define NVML_PCIE_ATOMICS_CAP_CAS32      0x10
#define NVML_PCIE_ATOMICS_CAP_CAS64      0x20
#define NVML_PCIE_ATOMICS_CAP_CAS128     0x40
#define NVML_PCIE_ATOMICS_OPS_MAX        7
#define NVML_POWER_SCOPE_GPU             0U
#define NVML_POWER_SCOPE_MODULE          1U
#define NVML_POWER_SCOPE_MEMORY          2U
#define NVML_POWER_SCOPE_GPU_BASE        3U
#define NVML_POWER_SCOPE_COUNT           4U
typedef unsigned char nvmlPowerScopeType_t;

typedef struct {
    unsigned int version;
    nvmlPowerScopeType_t powerScope;
    unsigned int powerValueMw;
} nvmlPowerValue_v2_t;
#define nvmlPowerValue_v2 NVML_STRUCT_VERSION(PowerValue, 2)

#endif
