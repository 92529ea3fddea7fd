/* power.h - workload power profiles, power smoothing, and the 255-bit mask
 * type they use. */
#ifndef MOKKA_NVML_ABI_POWER_H
#define MOKKA_NVML_ABI_POWER_H

#include "base.h"

/* --- 255-bit masks --------------------------------------------------------- */
#define NVML_255_MASK_BITS_PER_ELEM 32
#define NVML_255_MASK_NUM_ELEMS     8
/* Set or test bit index of an nvmlMask255_t (by value or by pointer). */
#define NVML_255_MASK_BIT_SET(index, nvmlMask) \
    (nvmlMask).mask[(index) / NVML_255_MASK_BITS_PER_ELEM] |= (1 << ((index) % NVML_255_MASK_BITS_PER_ELEM))
#define NVML_255_MASK_BIT_GET(index, nvmlMask) \
    ((nvmlMask).mask[(index) / NVML_255_MASK_BITS_PER_ELEM] & (1 << ((index) % NVML_255_MASK_BITS_PER_ELEM)))
#define NVML_255_MASK_BIT_SET_PTR(index, nvmlMask) \
    (nvmlMask)->mask[(index) / NVML_255_MASK_BITS_PER_ELEM] |= (1 << ((index) % NVML_255_MASK_BITS_PER_ELEM))
#define NVML_255_MASK_BIT_GET_PTR(index, nvmlMask) \
    ((nvmlMask)->mask[(index) / NVML_255_MASK_BITS_PER_ELEM] & (1 << ((index) % NVML_255_MASK_BITS_PER_ELEM)))

typedef struct {
    unsigned int mask[NVML_255_MASK_NUM_ELEMS];
} nvmlMask255_t;

/* --- Workload power profiles ----------------------------------------------- */
#define NVML_WORKLOAD_POWER_MAX_PROFILES (255)

typedef enum {
    NVML_POWER_PROFILE_MAX_P = 0,
    NVML_POWER_PROFILE_MAX_Q = 1,
    NVML_POWER_PROFILE_COMPUTE = 2,
    NVML_POWER_PROFILE_MEMORY_BOUND = 3,
    NVML_POWER_PROFILE_NETWORK = 4,
    NVML_POWER_PROFILE_BALANCED = 5,
    NVML_POWER_PROFILE_LLM_INFERENCE = 6,
    NVML_POWER_PROFILE_LLM_TRAINING = 7,
    NVML_POWER_PROFILE_RBM = 8,
    NVML_POWER_PROFILE_DCPCIE = 9,
    NVML_POWER_PROFILE_HMMA_SPARSE = 10,
    NVML_POWER_PROFILE_HMMA_DENSE = 11,
    NVML_POWER_PROFILE_SYNC_BALANCED = 12,
    NVML_POWER_PROFILE_HPC = 13,
    NVML_POWER_PROFILE_MIG = 14,
    NVML_POWER_PROFILE_MAX = 15
} nvmlPowerProfileType_t;

typedef enum {
    NVML_POWER_PROFILE_OPERATION_CLEAR = 0,
    NVML_POWER_PROFILE_OPERATION_SET = 1,
    NVML_POWER_PROFILE_OPERATION_SET_AND_OVERWRITE = 2,
    NVML_POWER_PROFILE_OPERATION_MAX = 3
} nvmlPowerProfileOperation_t;

typedef struct {
    unsigned int version;
    unsigned int profileId;
    unsigned int priority;
    nvmlMask255_t conflictingMask;
} nvmlWorkloadPowerProfileInfo_v1_t;
typedef nvmlWorkloadPowerProfileInfo_v1_t nvmlWorkloadPowerProfileInfo_t;
#define nvmlWorkloadPowerProfileInfo_v1 NVML_STRUCT_VERSION(WorkloadPowerProfileInfo, 1)

typedef struct {
    unsigned int version;
    nvmlMask255_t perfProfilesMask;
    nvmlWorkloadPowerProfileInfo_t perfProfile[NVML_WORKLOAD_POWER_MAX_PROFILES];
} nvmlWorkloadPowerProfileProfilesInfo_v1_t;
typedef nvmlWorkloadPowerProfileProfilesInfo_v1_t nvmlWorkloadPowerProfileProfilesInfo_t;
#define nvmlWorkloadPowerProfileProfilesInfo_v1 NVML_STRUCT_VERSION(WorkloadPowerProfileProfilesInfo, 1)

typedef struct {
    unsigned int version;
    nvmlMask255_t perfProfilesMask;
    nvmlMask255_t requestedProfilesMask;
    nvmlMask255_t enforcedProfilesMask;
} nvmlWorkloadPowerProfileCurrentProfiles_v1_t;
typedef nvmlWorkloadPowerProfileCurrentProfiles_v1_t nvmlWorkloadPowerProfileCurrentProfiles_t;
#define nvmlWorkloadPowerProfileCurrentProfiles_v1 NVML_STRUCT_VERSION(WorkloadPowerProfileCurrentProfiles, 1)

typedef struct {
    unsigned int version;
    nvmlMask255_t requestedProfilesMask;
} nvmlWorkloadPowerProfileRequestedProfiles_v1_t;
typedef nvmlWorkloadPowerProfileRequestedProfiles_v1_t nvmlWorkloadPowerProfileRequestedProfiles_t;
#define nvmlWorkloadPowerProfileRequestedProfiles_v1 NVML_STRUCT_VERSION(WorkloadPowerProfileRequestedProfiles, 1)

typedef struct {
    nvmlPowerProfileOperation_t operation;
    nvmlMask255_t updateProfilesMask;
} nvmlWorkloadPowerProfileUpdateProfiles_v1_t;
#define nvmlWorkloadPowerProfileUpdateProfiles_v1 NVML_STRUCT_VERSION(WorkloadPowerProfileUpdateProfiles, 1)

MK_API nvmlReturn_t nvmlDeviceWorkloadPowerProfileGetProfilesInfo(nvmlDevice_t device, nvmlWorkloadPowerProfileProfilesInfo_t *profilesInfo);
MK_API nvmlReturn_t nvmlDeviceWorkloadPowerProfileGetCurrentProfiles(nvmlDevice_t device, nvmlWorkloadPowerProfileCurrentProfiles_t *currentProfiles);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceWorkloadPowerProfileSetRequestedProfiles(nvmlDevice_t device, nvmlWorkloadPowerProfileRequestedProfiles_t *requestedProfiles);
/* deprecated in NVML 13 */
MK_API nvmlReturn_t nvmlDeviceWorkloadPowerProfileClearRequestedProfiles(nvmlDevice_t device, nvmlWorkloadPowerProfileRequestedProfiles_t *requestedProfiles);
MK_API nvmlReturn_t nvmlDeviceWorkloadPowerProfileUpdateProfiles_v1(nvmlDevice_t device, nvmlWorkloadPowerProfileUpdateProfiles_v1_t *updateProfiles);

/* Power smoothing field ids (NVML_FI_PWR_SMOOTHING_*, field_values.h) have
 * two unused ranges; this maps an id to a dense index with both skipped. */
#define MK_PWR_SMOOTHING_GAP1 \
    (NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR - NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_HYST_VAL - 1)
#define MK_PWR_SMOOTHING_GAP2 \
    (NVML_FI_PWR_SMOOTHING_SOC_POWER_SMOOTHING_ENABLED - NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_OFFSET - 1)
#define NVML_POWER_SMOOTHING_IDX_FROM_FIELD_VAL(field_val) \
    ((field_val) - NVML_FI_PWR_SMOOTHING_ENABLED \
     - ((field_val) > NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_HYST_VAL ? MK_PWR_SMOOTHING_GAP1 : 0) \
     - ((field_val) >= NVML_FI_PWR_SMOOTHING_SOC_POWER_SMOOTHING_ENABLED ? MK_PWR_SMOOTHING_GAP2 : 0))

/* --- Power smoothing ------------------------------------------------------- */
#define NVML_POWER_SMOOTHING_MAX_NUM_PROFILES 5
#define NVML_POWER_SMOOTHING_NUM_PROFILE_PARAMS 8
#define NVML_POWER_SMOOTHING_ADMIN_OVERRIDE_NOT_SET 0xFFFFFFFFU
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_PERCENT_TMP_FLOOR 0
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_RAMP_UP_RATE 1
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_RAMP_DOWN_RATE 2
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_RAMP_DOWN_HYSTERESIS 3
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_SECONDARY_POWER_FLOOR 4
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_PRIMARY_FLOOR_ACT_WIN_MULT 5
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_PRIMARY_FLOOR_TAR_WIN_MULT 6
#define NVML_POWER_SMOOTHING_PROFILE_PARAM_PRIMARY_FLOOR_ACT_OFFSET 7

typedef struct {
    unsigned int version;
    unsigned int profileId;
    unsigned int paramId;
    double value;
} nvmlPowerSmoothingProfile_v1_t;
typedef nvmlPowerSmoothingProfile_v1_t nvmlPowerSmoothingProfile_t;
#define nvmlPowerSmoothingProfile_v1 NVML_STRUCT_VERSION(PowerSmoothingProfile, 1)

typedef struct {
    unsigned int version;
    nvmlEnableState_t state;
} nvmlPowerSmoothingState_v1_t;
typedef nvmlPowerSmoothingState_v1_t nvmlPowerSmoothingState_t;
#define nvmlPowerSmoothingState_v1 NVML_STRUCT_VERSION(PowerSmoothingState, 1)

MK_API nvmlReturn_t nvmlDevicePowerSmoothingActivatePresetProfile(nvmlDevice_t device, nvmlPowerSmoothingProfile_t *profile);
MK_API nvmlReturn_t nvmlDevicePowerSmoothingUpdatePresetProfileParam(nvmlDevice_t device, nvmlPowerSmoothingProfile_t *profile);
MK_API nvmlReturn_t nvmlDevicePowerSmoothingSetState(nvmlDevice_t device, nvmlPowerSmoothingState_t *state);

#endif
