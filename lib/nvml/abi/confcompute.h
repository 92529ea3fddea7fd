/* confcompute.h - confidential computing: system and GPU state, certificates,
 * attestation and key rotation. */
#ifndef MOKKA_NVML_ABI_CONFCOMPUTE_H
#define MOKKA_NVML_ABI_CONFCOMPUTE_H

#include "base.h"
#include "device_structs.h"

/* --- Confidential computing ------------------------------------------------ */
#define NVML_CC_SYSTEM_CPU_CAPS_NONE         0
#define NVML_CC_SYSTEM_CPU_CAPS_AMD_SEV      1
#define NVML_CC_SYSTEM_CPU_CAPS_INTEL_TDX    2
#define NVML_CC_SYSTEM_CPU_CAPS_AMD_SEV_SNP  3
#define NVML_CC_SYSTEM_CPU_CAPS_AMD_SNP_VTOM 4
#define NVML_CC_SYSTEM_GPUS_CC_NOT_CAPABLE   0
#define NVML_CC_SYSTEM_GPUS_CC_CAPABLE       1

typedef struct nvmlConfComputeSystemCaps_st {
    unsigned int cpuCaps;
    unsigned int gpusCaps;
} nvmlConfComputeSystemCaps_t;

#define NVML_CC_SYSTEM_DEVTOOLS_MODE_OFF       0
#define NVML_CC_SYSTEM_DEVTOOLS_MODE_ON        1
#define NVML_CC_SYSTEM_ENVIRONMENT_UNAVAILABLE 0
#define NVML_CC_SYSTEM_ENVIRONMENT_SIM         1
#define NVML_CC_SYSTEM_ENVIRONMENT_PROD        2
#define NVML_CC_SYSTEM_FEATURE_DISABLED        0
#define NVML_CC_SYSTEM_FEATURE_ENABLED         1

typedef struct nvmlConfComputeSystemState_st {
    unsigned int environment;
    unsigned int ccFeature;
    unsigned int devToolsMode;
} nvmlConfComputeSystemState_t;

#define NVML_CC_SYSTEM_MULTIGPU_NONE           0
#define NVML_CC_SYSTEM_MULTIGPU_PROTECTED_PCIE 1
#define NVML_CC_SYSTEM_MULTIGPU_NVLE           2

typedef struct {
    unsigned int version;
    unsigned int environment;
    unsigned int ccFeature;
    unsigned int devToolsMode;
    unsigned int multiGpuMode;
} nvmlSystemConfComputeSettings_v1_t;
typedef nvmlSystemConfComputeSettings_v1_t nvmlSystemConfComputeSettings_t;
#define nvmlSystemConfComputeSettings_v1 NVML_STRUCT_VERSION(SystemConfComputeSettings, 1)

typedef struct nvmlConfComputeMemSizeInfo_st {
    unsigned long long protectedMemSizeKib;
    unsigned long long unprotectedMemSizeKib;
} nvmlConfComputeMemSizeInfo_t;

#define NVML_CC_ACCEPTING_CLIENT_REQUESTS_FALSE 0
#define NVML_CC_ACCEPTING_CLIENT_REQUESTS_TRUE  1
#define NVML_GPU_CERT_CHAIN_SIZE                0x1000
#define NVML_GPU_ATTESTATION_CERT_CHAIN_SIZE    0x1400

typedef struct nvmlConfComputeGpuCertificate_st {
    unsigned int certChainSize;
    unsigned int attestationCertChainSize;
    unsigned char certChain[NVML_GPU_CERT_CHAIN_SIZE];
    unsigned char attestationCertChain[NVML_GPU_ATTESTATION_CERT_CHAIN_SIZE];
} nvmlConfComputeGpuCertificate_t;

#define NVML_CC_GPU_CEC_NONCE_SIZE 0x20
#define NVML_CC_GPU_ATTESTATION_REPORT_SIZE 0x2000
#define NVML_CC_GPU_CEC_ATTESTATION_REPORT_SIZE 0x1000
#define NVML_CC_CEC_ATTESTATION_REPORT_NOT_PRESENT 0
#define NVML_CC_CEC_ATTESTATION_REPORT_PRESENT 1
#define NVML_CC_KEY_ROTATION_THRESHOLD_ATTACKER_ADVANTAGE_MIN 50
#define NVML_CC_KEY_ROTATION_THRESHOLD_ATTACKER_ADVANTAGE_MAX 65

typedef struct nvmlConfComputeGpuAttestationReport_st {
    unsigned int isCecAttestationReportPresent;
    unsigned int attestationReportSize;
    unsigned int cecAttestationReportSize;
    unsigned char nonce[NVML_CC_GPU_CEC_NONCE_SIZE];
    unsigned char attestationReport[NVML_CC_GPU_ATTESTATION_REPORT_SIZE];
    unsigned char cecAttestationReport[NVML_CC_GPU_CEC_ATTESTATION_REPORT_SIZE];
} nvmlConfComputeGpuAttestationReport_t;

typedef struct nvmlConfComputeSetKeyRotationThresholdInfo_st {
    unsigned int version;
    unsigned long long maxAttackerAdvantage;
} nvmlConfComputeSetKeyRotationThresholdInfo_v1_t;
typedef nvmlConfComputeSetKeyRotationThresholdInfo_v1_t nvmlConfComputeSetKeyRotationThresholdInfo_t;
#define nvmlConfComputeSetKeyRotationThresholdInfo_v1 NVML_STRUCT_VERSION(ConfComputeSetKeyRotationThresholdInfo, 1)

typedef struct nvmlConfComputeGetKeyRotationThresholdInfo_st {
    unsigned int version;
    unsigned long long attackerAdvantage;
} nvmlConfComputeGetKeyRotationThresholdInfo_v1_t;
typedef nvmlConfComputeGetKeyRotationThresholdInfo_v1_t nvmlConfComputeGetKeyRotationThresholdInfo_t;
#define nvmlConfComputeGetKeyRotationThresholdInfo_v1 NVML_STRUCT_VERSION(ConfComputeGetKeyRotationThresholdInfo, 1)

/* --- Confidential computing queries ---------------------------------------- */
MK_API nvmlReturn_t nvmlSystemGetConfComputeCapabilities(nvmlConfComputeSystemCaps_t *capabilities);
MK_API nvmlReturn_t nvmlSystemGetConfComputeState(nvmlConfComputeSystemState_t *state);
MK_API nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, nvmlConfComputeMemSizeInfo_t *memInfo);
MK_API nvmlReturn_t nvmlSystemGetConfComputeGpusReadyState(unsigned int *isAcceptingWork);
MK_API nvmlReturn_t nvmlDeviceGetConfComputeProtectedMemoryUsage(nvmlDevice_t device, nvmlMemory_t *memory);
MK_API nvmlReturn_t nvmlDeviceGetConfComputeGpuCertificate(nvmlDevice_t device, nvmlConfComputeGpuCertificate_t *gpuCert);
MK_API nvmlReturn_t nvmlDeviceGetConfComputeGpuAttestationReport(nvmlDevice_t device, nvmlConfComputeGpuAttestationReport_t *gpuAtstReport);
MK_API nvmlReturn_t nvmlSystemGetConfComputeKeyRotationThresholdInfo(nvmlConfComputeGetKeyRotationThresholdInfo_t *pKeyRotationThrInfo);
MK_API nvmlReturn_t nvmlDeviceSetConfComputeUnprotectedMemSize(nvmlDevice_t device, unsigned long long sizeKiB);
MK_API nvmlReturn_t nvmlSystemSetConfComputeGpusReadyState(unsigned int isAcceptingWork);
MK_API nvmlReturn_t nvmlSystemSetConfComputeKeyRotationThresholdInfo(nvmlConfComputeSetKeyRotationThresholdInfo_t *pKeyRotationThrInfo);
MK_API nvmlReturn_t nvmlSystemGetConfComputeSettings(nvmlSystemConfComputeSettings_t *settings);

#endif
