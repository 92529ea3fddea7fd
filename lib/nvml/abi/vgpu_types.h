/* vgpu_types.h - vGPU enums, constants and structs. */
#ifndef MOKKA_NVML_ABI_VGPU_TYPES_H
#define MOKKA_NVML_ABI_VGPU_TYPES_H

#include "base.h"
#include "device_structs.h"

/* --- vGPU enums, constants and structs ------------------------------------- */

typedef enum nvmlGpuVirtualizationMode {
    NVML_GPU_VIRTUALIZATION_MODE_NONE = 0,
    NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH = 1,
    NVML_GPU_VIRTUALIZATION_MODE_VGPU = 2,
    NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU = 3,
    NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA = 4
} nvmlGpuVirtualizationMode_t;

typedef enum nvmlHostVgpuMode_enum {
    NVML_HOST_VGPU_MODE_NON_SRIOV = 0,
    NVML_HOST_VGPU_MODE_SRIOV = 1
} nvmlHostVgpuMode_t;

typedef enum nvmlVgpuVmIdType {
    NVML_VGPU_VM_ID_DOMAIN_ID = 0,
    NVML_VGPU_VM_ID_UUID = 1
} nvmlVgpuVmIdType_t;

typedef enum nvmlVgpuGuestInfoState_enum {
    NVML_VGPU_INSTANCE_GUEST_INFO_STATE_UNINITIALIZED = 0,
    NVML_VGPU_INSTANCE_GUEST_INFO_STATE_INITIALIZED = 1
} nvmlVgpuGuestInfoState_t;

typedef enum {
    NVML_GRID_LICENSE_FEATURE_CODE_UNKNOWN = 0,
    NVML_GRID_LICENSE_FEATURE_CODE_VGPU = 1,
    NVML_GRID_LICENSE_FEATURE_CODE_NVIDIA_RTX = 2,
    NVML_GRID_LICENSE_FEATURE_CODE_VWORKSTATION = NVML_GRID_LICENSE_FEATURE_CODE_NVIDIA_RTX,
    NVML_GRID_LICENSE_FEATURE_CODE_GAMING = 3,
    NVML_GRID_LICENSE_FEATURE_CODE_COMPUTE = 4
} nvmlGridLicenseFeatureCode_t;

#define NVML_GRID_LICENSE_EXPIRY_NOT_AVAILABLE  0
#define NVML_GRID_LICENSE_EXPIRY_INVALID        1
#define NVML_GRID_LICENSE_EXPIRY_VALID          2
#define NVML_GRID_LICENSE_EXPIRY_NOT_APPLICABLE 3
#define NVML_GRID_LICENSE_EXPIRY_PERMANENT      4

typedef enum nvmlVgpuCapability_enum {
    NVML_VGPU_CAP_NVLINK_P2P = 0,
    NVML_VGPU_CAP_GPUDIRECT = 1,
    NVML_VGPU_CAP_MULTI_VGPU_EXCLUSIVE = 2,
    NVML_VGPU_CAP_EXCLUSIVE_TYPE = 3,
    NVML_VGPU_CAP_EXCLUSIVE_SIZE = 4,
    NVML_VGPU_CAP_COUNT = 5
} nvmlVgpuCapability_t;

typedef enum nvmlVgpuDriverCapability_enum {
    NVML_VGPU_DRIVER_CAP_HETEROGENEOUS_MULTI_VGPU = 0,
    NVML_VGPU_DRIVER_CAP_WARM_UPDATE = 1,
    NVML_VGPU_DRIVER_CAP_COUNT = 2
} nvmlVgpuDriverCapability_t;

typedef enum nvmlDeviceVgpuCapability_enum {
    NVML_DEVICE_VGPU_CAP_FRACTIONAL_MULTI_VGPU = 0,
    NVML_DEVICE_VGPU_CAP_HETEROGENEOUS_TIMESLICE_PROFILES = 1,
    NVML_DEVICE_VGPU_CAP_HETEROGENEOUS_TIMESLICE_SIZES = 2,
    NVML_DEVICE_VGPU_CAP_READ_DEVICE_BUFFER_BW = 3,
    NVML_DEVICE_VGPU_CAP_WRITE_DEVICE_BUFFER_BW = 4,
    NVML_DEVICE_VGPU_CAP_DEVICE_STREAMING = 5,
    NVML_DEVICE_VGPU_CAP_MINI_QUARTER_GPU = 6,
    NVML_DEVICE_VGPU_CAP_COMPUTE_MEDIA_ENGINE_GPU = 7,
    NVML_DEVICE_VGPU_CAP_WARM_UPDATE = 8,
    NVML_DEVICE_VGPU_CAP_HOMOGENEOUS_PLACEMENTS = 9,
    NVML_DEVICE_VGPU_CAP_MIG_TIMESLICING_SUPPORTED = 10,
    NVML_DEVICE_VGPU_CAP_MIG_TIMESLICING_ENABLED = 11,
    NVML_DEVICE_VGPU_CAP_COUNT = 12
} nvmlDeviceVgpuCapability_t;

#define NVML_GRID_LICENSE_FEATURE_MAX_COUNT             3
#define INVALID_GPU_INSTANCE_PROFILE_ID                 0xFFFFFFFF
#define INVALID_GPU_INSTANCE_ID                         0xFFFFFFFF
#define NVML_INVALID_VGPU_PLACEMENT_ID                  0xFFFF
#define NVML_VGPU_VIRTUALIZATION_CAP_MIGRATION          0:0
#define NVML_VGPU_VIRTUALIZATION_CAP_MIGRATION_NO       0x0
#define NVML_VGPU_VIRTUALIZATION_CAP_MIGRATION_YES      0x1
#define NVML_VGPU_PGPU_VIRTUALIZATION_CAP_MIGRATION     0:0
#define NVML_VGPU_PGPU_VIRTUALIZATION_CAP_MIGRATION_NO  0x0
#define NVML_VGPU_PGPU_VIRTUALIZATION_CAP_MIGRATION_YES 0x1
#define NVML_VGPU_PGPU_HETEROGENEOUS_MODE               0
#define NVML_VGPU_PGPU_HOMOGENEOUS_MODE                 1

typedef struct {
    unsigned int version;
    unsigned int mode;
} nvmlVgpuHeterogeneousMode_v1_t;
typedef nvmlVgpuHeterogeneousMode_v1_t nvmlVgpuHeterogeneousMode_t;
#define nvmlVgpuHeterogeneousMode_v1 NVML_STRUCT_VERSION(VgpuHeterogeneousMode, 1)

typedef struct {
    unsigned int version;
    unsigned int placementId;
} nvmlVgpuPlacementId_v1_t;
typedef nvmlVgpuPlacementId_v1_t nvmlVgpuPlacementId_t;
#define nvmlVgpuPlacementId_v1 NVML_STRUCT_VERSION(VgpuPlacementId, 1)

typedef struct {
    unsigned int version;
    unsigned int placementSize;
    unsigned int count;
    unsigned int *placementIds;
} nvmlVgpuPlacementList_v1_t;
#define nvmlVgpuPlacementList_v1 NVML_STRUCT_VERSION(VgpuPlacementList, 1)

typedef struct {
    unsigned int version;
    unsigned int placementSize;
    unsigned int count;
    unsigned int *placementIds;
    unsigned int mode;
} nvmlVgpuPlacementList_v2_t;
typedef nvmlVgpuPlacementList_v2_t nvmlVgpuPlacementList_t;
#define nvmlVgpuPlacementList_v2 NVML_STRUCT_VERSION(VgpuPlacementList, 2)

typedef struct {
    unsigned int version;
    unsigned long long bar1Size;
} nvmlVgpuTypeBar1Info_v1_t;
typedef nvmlVgpuTypeBar1Info_v1_t nvmlVgpuTypeBar1Info_t;
#define nvmlVgpuTypeBar1Info_v1 NVML_STRUCT_VERSION(VgpuTypeBar1Info, 1)

typedef struct nvmlVgpuInstanceUtilizationSample_st {
    nvmlVgpuInstance_t vgpuInstance;
    unsigned long long timeStamp;
    nvmlValue_t smUtil;
    nvmlValue_t memUtil;
    nvmlValue_t encUtil;
    nvmlValue_t decUtil;
} nvmlVgpuInstanceUtilizationSample_t;

typedef struct {
    unsigned long long timeStamp;
    nvmlVgpuInstance_t vgpuInstance;
    nvmlValue_t smUtil;
    nvmlValue_t memUtil;
    nvmlValue_t encUtil;
    nvmlValue_t decUtil;
    nvmlValue_t jpgUtil;
    nvmlValue_t ofaUtil;
} nvmlVgpuInstanceUtilizationInfo_v1_t;

typedef struct {
    unsigned int version;
    nvmlValueType_t sampleValType;
    unsigned int vgpuInstanceCount;
    unsigned long long lastSeenTimeStamp;
    nvmlVgpuInstanceUtilizationInfo_v1_t *vgpuUtilArray;
} nvmlVgpuInstancesUtilizationInfo_v1_t;
typedef nvmlVgpuInstancesUtilizationInfo_v1_t nvmlVgpuInstancesUtilizationInfo_t;
#define nvmlVgpuInstancesUtilizationInfo_v1 NVML_STRUCT_VERSION(VgpuInstancesUtilizationInfo, 1)

typedef struct nvmlVgpuProcessUtilizationSample_st {
    nvmlVgpuInstance_t vgpuInstance;
    unsigned int pid;
    char processName[NVML_VGPU_NAME_BUFFER_SIZE];
    unsigned long long timeStamp;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlVgpuProcessUtilizationSample_t;

typedef struct {
    char processName[NVML_VGPU_NAME_BUFFER_SIZE];
    unsigned long long timeStamp;
    nvmlVgpuInstance_t vgpuInstance;
    unsigned int pid;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
    unsigned int jpgUtil;
    unsigned int ofaUtil;
} nvmlVgpuProcessUtilizationInfo_v1_t;

typedef struct {
    unsigned int version;
    unsigned int vgpuProcessCount;
    unsigned long long lastSeenTimeStamp;
    nvmlVgpuProcessUtilizationInfo_v1_t *vgpuProcUtilArray;
} nvmlVgpuProcessesUtilizationInfo_v1_t;
typedef nvmlVgpuProcessesUtilizationInfo_v1_t nvmlVgpuProcessesUtilizationInfo_t;
#define nvmlVgpuProcessesUtilizationInfo_v1 NVML_STRUCT_VERSION(VgpuProcessesUtilizationInfo, 1)

typedef struct {
    unsigned int version;
    unsigned long long size;
} nvmlVgpuRuntimeState_v1_t;
typedef nvmlVgpuRuntimeState_v1_t nvmlVgpuRuntimeState_t;
#define nvmlVgpuRuntimeState_v1 NVML_STRUCT_VERSION(VgpuRuntimeState, 1)

#define NVML_VGPU_SCHEDULER_POLICY_UNKNOWN         0
#define NVML_VGPU_SCHEDULER_POLICY_BEST_EFFORT     1
#define NVML_VGPU_SCHEDULER_POLICY_EQUAL_SHARE     2
#define NVML_VGPU_SCHEDULER_POLICY_FIXED_SHARE     3
#define NVML_SUPPORTED_VGPU_SCHEDULER_POLICY_COUNT 3
#define NVML_SCHEDULER_SW_MAX_LOG_ENTRIES          200
#define NVML_VGPU_SCHEDULER_ARR_DEFAULT            0
#define NVML_VGPU_SCHEDULER_ARR_DISABLE            1
#define NVML_VGPU_SCHEDULER_ARR_ENABLE             2
#define NVML_VGPU_SCHEDULER_ENGINE_TYPE_GRAPHICS   1
#define NVML_VGPU_SCHEDULER_ENGINE_TYPE_NVENC1     2
#define NVML_VGPU_SCHEDULER_ENGINE_TYPE_NVENC0     3

typedef union {
    struct {
        unsigned int avgFactor;
        unsigned int timeslice;
    } vgpuSchedDataWithARR;
    struct {
        unsigned int timeslice;
    } vgpuSchedData;
} nvmlVgpuSchedulerParams_t;

typedef struct nvmlVgpuSchedulerLogEntries_st {
    unsigned long long timestamp;
    unsigned long long timeRunTotal;
    unsigned long long timeRun;
    unsigned int swRunlistId;
    unsigned long long targetTimeSlice;
    unsigned long long cumulativePreemptionTime;
} nvmlVgpuSchedulerLogEntry_t;

typedef struct nvmlVgpuSchedulerLog_st {
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int arrMode;
    nvmlVgpuSchedulerParams_t schedulerParams;
    unsigned int entriesCount;
    nvmlVgpuSchedulerLogEntry_t logEntries[NVML_SCHEDULER_SW_MAX_LOG_ENTRIES];
} nvmlVgpuSchedulerLog_t;

typedef struct nvmlVgpuSchedulerGetState_st {
    unsigned int schedulerPolicy;
    unsigned int arrMode;
    nvmlVgpuSchedulerParams_t schedulerParams;
} nvmlVgpuSchedulerGetState_t;

typedef union {
    struct {
        unsigned int avgFactor;
        unsigned int frequency;
    } vgpuSchedDataWithARR;
    struct {
        unsigned int timeslice;
    } vgpuSchedData;
} nvmlVgpuSchedulerSetParams_t;

typedef struct nvmlVgpuSchedulerSetState_st {
    unsigned int schedulerPolicy;
    unsigned int enableARRMode;
    nvmlVgpuSchedulerSetParams_t schedulerParams;
} nvmlVgpuSchedulerSetState_t;

typedef struct nvmlVgpuSchedulerCapabilities_st {
    unsigned int supportedSchedulers[NVML_SUPPORTED_VGPU_SCHEDULER_POLICY_COUNT];
    unsigned int maxTimeslice;
    unsigned int minTimeslice;
    unsigned int isArrModeSupported;
    unsigned int maxFrequencyForARR;
    unsigned int minFrequencyForARR;
    unsigned int maxAvgFactorForARR;
    unsigned int minAvgFactorForARR;
} nvmlVgpuSchedulerCapabilities_t;

typedef struct nvmlVgpuLicenseExpiry_st {
    unsigned int year;
    unsigned short month;
    unsigned short day;
    unsigned short hour;
    unsigned short min;
    unsigned short sec;
    unsigned char status;
} nvmlVgpuLicenseExpiry_t;

#define NVML_GRID_LICENSE_STATE_UNKNOWN                 0
#define NVML_GRID_LICENSE_STATE_UNINITIALIZED           1
#define NVML_GRID_LICENSE_STATE_UNLICENSED_UNRESTRICTED 2
#define NVML_GRID_LICENSE_STATE_UNLICENSED_RESTRICTED   3
#define NVML_GRID_LICENSE_STATE_UNLICENSED              4
#define NVML_GRID_LICENSE_STATE_LICENSED                5

typedef struct nvmlVgpuLicenseInfo_st {
    unsigned char isLicensed;
    nvmlVgpuLicenseExpiry_t licenseExpiry;
    unsigned int currentState;
} nvmlVgpuLicenseInfo_t;

typedef struct nvmlGridLicenseExpiry_st {
    unsigned int year;
    unsigned short month;
    unsigned short day;
    unsigned short hour;
    unsigned short min;
    unsigned short sec;
    unsigned char status;
} nvmlGridLicenseExpiry_t;

typedef struct nvmlGridLicensableFeature_st {
    nvmlGridLicenseFeatureCode_t featureCode;
    unsigned int featureState;
    char licenseInfo[NVML_GRID_LICENSE_BUFFER_SIZE];
    char productName[NVML_GRID_LICENSE_BUFFER_SIZE];
    unsigned int featureEnabled;
    nvmlGridLicenseExpiry_t licenseExpiry;
} nvmlGridLicensableFeature_t;

typedef struct nvmlGridLicensableFeatures_st {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    nvmlGridLicensableFeature_t gridLicensableFeatures[NVML_GRID_LICENSE_FEATURE_MAX_COUNT];
} nvmlGridLicensableFeatures_t;

typedef enum nvmlDeviceGpuRecoveryAction_s {
    NVML_GPU_RECOVERY_ACTION_NONE = 0,
    NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1,
    NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2,
    NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3,
    NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4,
    NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN = 5
} nvmlDeviceGpuRecoveryAction_t;

typedef struct {
    unsigned int version;
    unsigned int vgpuCount;
    nvmlVgpuTypeId_t *vgpuTypeIds;
} nvmlVgpuTypeIdInfo_v1_t;
typedef nvmlVgpuTypeIdInfo_v1_t nvmlVgpuTypeIdInfo_t;
#define nvmlVgpuTypeIdInfo_v1 NVML_STRUCT_VERSION(VgpuTypeIdInfo, 1)

typedef struct {
    unsigned int version;
    nvmlVgpuTypeId_t vgpuTypeId;
    unsigned int maxInstancePerGI;
} nvmlVgpuTypeMaxInstance_v1_t;
typedef nvmlVgpuTypeMaxInstance_v1_t nvmlVgpuTypeMaxInstance_t;
#define nvmlVgpuTypeMaxInstance_v1 NVML_STRUCT_VERSION(VgpuTypeMaxInstance, 1)

typedef struct {
    unsigned int version;
    unsigned int vgpuCount;
    nvmlVgpuInstance_t *vgpuInstances;
} nvmlActiveVgpuInstanceInfo_v1_t;
typedef nvmlActiveVgpuInstanceInfo_v1_t nvmlActiveVgpuInstanceInfo_t;
#define nvmlActiveVgpuInstanceInfo_v1 NVML_STRUCT_VERSION(ActiveVgpuInstanceInfo, 1)

typedef struct {
    unsigned int version;
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int enableARRMode;
    nvmlVgpuSchedulerSetParams_t schedulerParams;
} nvmlVgpuSchedulerState_v1_t;
typedef nvmlVgpuSchedulerState_v1_t nvmlVgpuSchedulerState_t;
#define nvmlVgpuSchedulerState_v1 NVML_STRUCT_VERSION(VgpuSchedulerState, 1)

typedef struct {
    unsigned int version;
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int arrMode;
    nvmlVgpuSchedulerParams_t schedulerParams;
} nvmlVgpuSchedulerStateInfo_v1_t;
typedef nvmlVgpuSchedulerStateInfo_v1_t nvmlVgpuSchedulerStateInfo_t;
#define nvmlVgpuSchedulerStateInfo_v1 NVML_STRUCT_VERSION(VgpuSchedulerStateInfo, 1)

typedef struct {
    unsigned int version;
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int arrMode;
    nvmlVgpuSchedulerParams_t schedulerParams;
    unsigned int entriesCount;
    nvmlVgpuSchedulerLogEntry_t logEntries[NVML_SCHEDULER_SW_MAX_LOG_ENTRIES];
} nvmlVgpuSchedulerLogInfo_v1_t;
typedef nvmlVgpuSchedulerLogInfo_v1_t nvmlVgpuSchedulerLogInfo_t;
#define nvmlVgpuSchedulerLogInfo_v1 NVML_STRUCT_VERSION(VgpuSchedulerLogInfo, 1)

typedef struct {
    unsigned int version;
    nvmlVgpuTypeId_t vgpuTypeId;
    unsigned int count;
    unsigned int *placementIds;
    unsigned int placementSize;
} nvmlVgpuCreatablePlacementInfo_v1_t;
typedef nvmlVgpuCreatablePlacementInfo_v1_t nvmlVgpuCreatablePlacementInfo_t;
#define nvmlVgpuCreatablePlacementInfo_v1 NVML_STRUCT_VERSION(VgpuCreatablePlacementInfo, 1)

typedef struct {
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int avgFactor;
    unsigned int timeslice;
} nvmlVgpuSchedulerStateInfo_v2_t;

typedef struct {
    unsigned long long timestamp;
    unsigned long long timeRunTotal;
    unsigned long long timeRun;
    unsigned int swRunlistId;
    unsigned long long targetTimeSlice;
    unsigned long long cumulativePreemptionTime;
    unsigned int weight;
} nvmlVgpuSchedulerLogEntry_v2_t;

typedef struct {
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int avgFactor;
    unsigned int timeslice;
    unsigned int entriesCount;
    nvmlVgpuSchedulerLogEntry_v2_t logEntries[NVML_SCHEDULER_SW_MAX_LOG_ENTRIES];
} nvmlVgpuSchedulerLogInfo_v2_t;

typedef struct {
    unsigned int engineId;
    unsigned int schedulerPolicy;
    unsigned int avgFactor;
    unsigned int frequency;
} nvmlVgpuSchedulerState_v2_t;

/* --- vGPU migration structs ------------------------------------------------ */

typedef struct nvmlVgpuVersion_st {
    unsigned int minVersion;
    unsigned int maxVersion;
} nvmlVgpuVersion_t;

typedef struct nvmlVgpuMetadata_st {
    unsigned int version;
    unsigned int revision;
    nvmlVgpuGuestInfoState_t guestInfoState;
    char guestDriverVersion[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    char hostDriverVersion[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    unsigned int reserved[6];
    unsigned int vgpuVirtualizationCaps;
    unsigned int guestVgpuVersion;
    unsigned int opaqueDataSize;
    char opaqueData[4];
} nvmlVgpuMetadata_t;

typedef struct nvmlVgpuPgpuMetadata_st {
    unsigned int version;
    unsigned int revision;
    char hostDriverVersion[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    unsigned int pgpuVirtualizationCaps;
    unsigned int reserved[5];
    nvmlVgpuVersion_t hostSupportedVgpuRange;
    unsigned int opaqueDataSize;
    char opaqueData[4];
} nvmlVgpuPgpuMetadata_t;

typedef enum nvmlVgpuVmCompatibility_enum {
    NVML_VGPU_VM_COMPATIBILITY_NONE = 0x0,
    NVML_VGPU_VM_COMPATIBILITY_COLD = 0x1,
    NVML_VGPU_VM_COMPATIBILITY_HIBERNATE = 0x2,
    NVML_VGPU_VM_COMPATIBILITY_SLEEP = 0x4,
    NVML_VGPU_VM_COMPATIBILITY_LIVE = 0x8
} nvmlVgpuVmCompatibility_t;

typedef enum nvmlVgpuPgpuCompatibilityLimitCode_enum {
    NVML_VGPU_COMPATIBILITY_LIMIT_NONE = 0x0,
    NVML_VGPU_COMPATIBILITY_LIMIT_HOST_DRIVER = 0x1,
    NVML_VGPU_COMPATIBILITY_LIMIT_GUEST_DRIVER = 0x2,
    NVML_VGPU_COMPATIBILITY_LIMIT_GPU = 0x4,
    NVML_VGPU_COMPATIBILITY_LIMIT_OTHER = 0x80000000
} nvmlVgpuPgpuCompatibilityLimitCode_t;

typedef struct nvmlVgpuPgpuCompatibility_st {
    nvmlVgpuVmCompatibility_t vgpuVmCompatibility;
    nvmlVgpuPgpuCompatibilityLimitCode_t compatibilityLimitCode;
} nvmlVgpuPgpuCompatibility_t;

#endif
