/* nvlink.h - NvLink: link state, versions, capabilities, error and
 * utilization counters, low-power thresholds and bandwidth modes. */
#ifndef MOKKA_NVML_ABI_NVLINK_H
#define MOKKA_NVML_ABI_NVLINK_H

#include "base.h"
#include "device_structs.h"

/* --- NvLink types and constants -------------------------------------------- */
#define NVML_NVLINK_MAX_LINKS 36

typedef enum nvmlNvLinkUtilizationCountUnits_enum {
    NVML_NVLINK_COUNTER_UNIT_CYCLES = 0,
    NVML_NVLINK_COUNTER_UNIT_PACKETS = 1,
    NVML_NVLINK_COUNTER_UNIT_BYTES = 2,
    NVML_NVLINK_COUNTER_UNIT_RESERVED = 3,
    NVML_NVLINK_COUNTER_UNIT_COUNT = 4
} nvmlNvLinkUtilizationCountUnits_t;

typedef enum nvmlNvLinkUtilizationCountPktTypes_enum {
    NVML_NVLINK_COUNTER_PKTFILTER_NOP = 0x1,
    NVML_NVLINK_COUNTER_PKTFILTER_READ = 0x2,
    NVML_NVLINK_COUNTER_PKTFILTER_WRITE = 0x4,
    NVML_NVLINK_COUNTER_PKTFILTER_RATOM = 0x8,
    NVML_NVLINK_COUNTER_PKTFILTER_NRATOM = 0x10,
    NVML_NVLINK_COUNTER_PKTFILTER_FLUSH = 0x20,
    NVML_NVLINK_COUNTER_PKTFILTER_RESPDATA = 0x40,
    NVML_NVLINK_COUNTER_PKTFILTER_RESPNODATA = 0x80,
    NVML_NVLINK_COUNTER_PKTFILTER_ALL = 0xFF
} nvmlNvLinkUtilizationCountPktTypes_t;

typedef struct nvmlNvLinkUtilizationControl_st {
    nvmlNvLinkUtilizationCountUnits_t units;
    nvmlNvLinkUtilizationCountPktTypes_t pktfilter;
} nvmlNvLinkUtilizationControl_t;

typedef enum nvmlNvLinkCapability_enum {
    NVML_NVLINK_CAP_P2P_SUPPORTED = 0,
    NVML_NVLINK_CAP_SYSMEM_ACCESS = 1,
    NVML_NVLINK_CAP_P2P_ATOMICS = 2,
    NVML_NVLINK_CAP_SYSMEM_ATOMICS = 3,
    NVML_NVLINK_CAP_SLI_BRIDGE = 4,
    NVML_NVLINK_CAP_VALID = 5,
    NVML_NVLINK_CAP_COUNT = 6
} nvmlNvLinkCapability_t;

typedef enum nvmlNvLinkErrorCounter_enum {
    NVML_NVLINK_ERROR_DL_REPLAY = 0,
    NVML_NVLINK_ERROR_DL_RECOVERY = 1,
    NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
    NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
    NVML_NVLINK_ERROR_DL_ECC_DATA = 4,
    NVML_NVLINK_ERROR_COUNT = 5
} nvmlNvLinkErrorCounter_t;

typedef enum nvmlIntNvLinkDeviceType_enum {
    NVML_NVLINK_DEVICE_TYPE_GPU = 0x00,
    NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01,
    NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02,
    NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF
} nvmlIntNvLinkDeviceType_t;

#define NVML_NVLINK_LOW_POWER_THRESHOLD_UNIT_100US 0x0
#define NVML_NVLINK_LOW_POWER_THRESHOLD_UNIT_50US  0x1
#define NVML_NVLINK_POWER_STATE_HIGH_SPEED         0x0
#define NVML_NVLINK_POWER_STATE_LOW                0x1
#define NVML_NVLINK_LOW_POWER_THRESHOLD_MIN        0x1
#define NVML_NVLINK_LOW_POWER_THRESHOLD_MAX        0x1FFF
#define NVML_NVLINK_LOW_POWER_THRESHOLD_RESET      0xFFFFFFFF
#define NVML_NVLINK_LOW_POWER_THRESHOLD_DEFAULT    NVML_NVLINK_LOW_POWER_THRESHOLD_RESET

typedef struct nvmlNvLinkPowerThres_st {
    unsigned int lowPwrThreshold;
} nvmlNvLinkPowerThres_t;

/* --- NvLink ---------------------------------------------------------------- */
#define NVML_NVLINK_BER_MANTISSA_SHIFT 8
#define NVML_NVLINK_BER_MANTISSA_WIDTH 0xf
#define NVML_NVLINK_BER_EXP_SHIFT      0
#define NVML_NVLINK_BER_EXP_WIDTH      0xff
/* Mantissa or exponent of a BER counter value: type is BER_MANTISSA or
 * BER_EXP. */
#define NVML_NVLINK_ERROR_COUNTER_BER_GET(var, type) \
    (((var) >> NVML_NVLINK_##type##_SHIFT) & (NVML_NVLINK_##type##_WIDTH))
#define NVML_NVLINK_STATE_INACTIVE     0x0
#define NVML_NVLINK_STATE_ACTIVE       0x1
#define NVML_NVLINK_STATE_SLEEP        0x2

typedef enum nvmlNvlinkVersion_enum {
    NVML_NVLINK_VERSION_INVALID = 0,
    NVML_NVLINK_VERSION_1_0 = 1,
    NVML_NVLINK_VERSION_2_0 = 2,
    NVML_NVLINK_VERSION_2_2 = 3,
    NVML_NVLINK_VERSION_3_0 = 4,
    NVML_NVLINK_VERSION_3_1 = 5,
    NVML_NVLINK_VERSION_4_0 = 6,
    NVML_NVLINK_VERSION_5_0 = 7,
    NVML_NVLINK_VERSION_6_0 = 8
} nvmlNvlinkVersion_t;

#define NVML_NVLINK_TOTAL_SUPPORTED_BW_MODES 23

typedef struct {
    unsigned int version;
    unsigned char bwModes[NVML_NVLINK_TOTAL_SUPPORTED_BW_MODES];
    unsigned char totalBwModes;
} nvmlNvlinkSupportedBwModes_v1_t;
typedef nvmlNvlinkSupportedBwModes_v1_t nvmlNvlinkSupportedBwModes_t;
#define nvmlNvlinkSupportedBwModes_v1 NVML_STRUCT_VERSION(NvlinkSupportedBwModes, 1)

typedef struct {
    unsigned int version;
    unsigned int bIsBest;
    unsigned char bwMode;
} nvmlNvlinkGetBwMode_v1_t;
typedef nvmlNvlinkGetBwMode_v1_t nvmlNvlinkGetBwMode_t;
#define nvmlNvlinkGetBwMode_v1 NVML_STRUCT_VERSION(NvlinkGetBwMode, 1)

typedef struct {
    unsigned int version;
    unsigned int bSetBest;
    unsigned char bwMode;
} nvmlNvlinkSetBwMode_v1_t;
typedef nvmlNvlinkSetBwMode_v1_t nvmlNvlinkSetBwMode_t;
#define nvmlNvlinkSetBwMode_v1 NVML_STRUCT_VERSION(NvlinkSetBwMode, 1)

typedef struct {
    unsigned int version;
    unsigned int isNvleEnabled;
} nvmlNvLinkInfo_v1_t;
#define nvmlNvLinkInfo_v1 NVML_STRUCT_VERSION(NvLinkInfo, 1)

#define NVML_NVLINK_FIRMWARE_UCODE_TYPE_MSE        0x1
#define NVML_NVLINK_FIRMWARE_UCODE_TYPE_NETIR      0x2
#define NVML_NVLINK_FIRMWARE_UCODE_TYPE_NETIR_UPHY 0x3
#define NVML_NVLINK_FIRMWARE_UCODE_TYPE_NETIR_CLN  0x4
#define NVML_NVLINK_FIRMWARE_UCODE_TYPE_NETIR_DLN  0x5
#define NVML_NVLINK_FIRMWARE_VERSION_LENGTH        100

typedef struct {
    unsigned char ucodeType;
    unsigned int major;
    unsigned int minor;
    unsigned int subMinor;
} nvmlNvlinkFirmwareVersion_t;

typedef struct {
    nvmlNvlinkFirmwareVersion_t firmwareVersion[NVML_NVLINK_FIRMWARE_VERSION_LENGTH];
    unsigned int numValidEntries;
} nvmlNvlinkFirmwareInfo_t;

typedef struct {
    unsigned int version;
    unsigned int isNvleEnabled;
    nvmlNvlinkFirmwareInfo_t firmwareInfo;
} nvmlNvLinkInfo_v2_t;
typedef nvmlNvLinkInfo_v2_t nvmlNvLinkInfo_t;
#define nvmlNvLinkInfo_v2 NVML_STRUCT_VERSION(NvLinkInfo, 2)

MK_API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive);
MK_API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version);
MK_API nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link, nvmlNvLinkCapability_t capability, unsigned int *capResult);
/* older version, still exported */
MK_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci);
MK_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci);
MK_API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter, unsigned long long *counterValue);
MK_API nvmlReturn_t nvmlDeviceResetNvLinkErrorCounters(nvmlDevice_t device, unsigned int link);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceSetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link, unsigned int counter, nvmlNvLinkUtilizationControl_t *control, unsigned int reset);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceGetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link, unsigned int counter, nvmlNvLinkUtilizationControl_t *control);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceGetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link, unsigned int counter, unsigned long long *rxcounter, unsigned long long *txcounter);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceFreezeNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link, unsigned int counter, nvmlEnableState_t freeze);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceResetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link, unsigned int counter);
MK_API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType);
MK_API nvmlReturn_t nvmlDeviceSetNvLinkDeviceLowPowerThreshold(nvmlDevice_t device, nvmlNvLinkPowerThres_t *info);
MK_API nvmlReturn_t nvmlSystemSetNvlinkBwMode(unsigned int nvlinkBwMode);
MK_API nvmlReturn_t nvmlSystemGetNvlinkBwMode(unsigned int *nvlinkBwMode);
MK_API nvmlReturn_t nvmlDeviceGetNvlinkSupportedBwModes(nvmlDevice_t device, nvmlNvlinkSupportedBwModes_t *supportedBwMode);
MK_API nvmlReturn_t nvmlDeviceGetNvlinkBwMode(nvmlDevice_t device, nvmlNvlinkGetBwMode_t *getBwMode);
MK_API nvmlReturn_t nvmlDeviceSetNvlinkBwMode(nvmlDevice_t device, nvmlNvlinkSetBwMode_t *setBwMode);
MK_API nvmlReturn_t nvmlDeviceGetNvLinkInfo(nvmlDevice_t device, nvmlNvLinkInfo_t *info);

#endif
