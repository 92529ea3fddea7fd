/* events.h - event type bits, event data and event sets (per device and
 * system wide). */
#ifndef MOKKA_NVML_ABI_EVENTS_H
#define MOKKA_NVML_ABI_EVENTS_H

#include "base.h"

/* --- Event types and event data -------------------------------------------- */
#define nvmlEventTypeNone                   0x0000000000000000LL
#define nvmlEventTypeSingleBitEccError      0x0000000000000001LL
#define nvmlEventTypeDoubleBitEccError      0x0000000000000002LL
#define nvmlEventTypePState                 0x0000000000000004LL
#define nvmlEventTypeXidCriticalError       0x0000000000000008LL
#define nvmlEventTypeClock                  0x0000000000000010LL
#define nvmlEventTypePowerSourceChange      0x0000000000000080LL
#define nvmlEventMigConfigChange            0x0000000000000100LL
#define nvmlEventTypeSingleBitEccErrorStorm 0x0000000000000200LL
#define nvmlEventTypeDramRetirementEvent    0x0000000000000400LL
#define nvmlEventTypeDramRetirementFailure  0x0000000000000800LL
#define nvmlEventTypeNonFatalPoisonError    0x0000000000001000LL
#define nvmlEventTypeFatalPoisonError       0x0000000000002000LL
#define nvmlEventTypeGpuUnavailableError    0x0000000000004000LL
#define nvmlEventTypeGpuRecoveryAction      0x0000000000008000LL
#define nvmlEventTypeAll ( \
    nvmlEventTypeNone | \
    nvmlEventTypeSingleBitEccError | \
    nvmlEventTypeDoubleBitEccError | \
    nvmlEventTypePState | \
    nvmlEventTypeClock | \
    nvmlEventTypeXidCriticalError | \
    nvmlEventTypePowerSourceChange | \
    nvmlEventMigConfigChange | \
    nvmlEventTypeSingleBitEccErrorStorm | \
    nvmlEventTypeDramRetirementEvent | \
    nvmlEventTypeDramRetirementFailure | \
    nvmlEventTypeNonFatalPoisonError | \
    nvmlEventTypeFatalPoisonError | \
    nvmlEventTypeGpuUnavailableError | \
    nvmlEventTypeGpuRecoveryAction)

/* gpuInstanceId/computeInstanceId came with MIG and nvmlEventSetWait_v2;
 * callers of the old nvmlEventSetWait may pass the struct without them. */
typedef struct nvmlEventData_st {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

#define nvmlSystemEventTypeGpuDriverUnbind 0x0000000000000001LL
#define nvmlSystemEventTypeGpuDriverBind   0x0000000000000002LL
#define nvmlSystemEventTypeCount           2

typedef struct {
    unsigned int version;
    nvmlSystemEventSet_t set;
} nvmlSystemEventSetCreateRequest_v1_t;
typedef nvmlSystemEventSetCreateRequest_v1_t nvmlSystemEventSetCreateRequest_t;
#define nvmlSystemEventSetCreateRequest_v1 NVML_STRUCT_VERSION(SystemEventSetCreateRequest, 1)

typedef struct {
    unsigned int version;
    nvmlSystemEventSet_t set;
} nvmlSystemEventSetFreeRequest_v1_t;
typedef nvmlSystemEventSetFreeRequest_v1_t nvmlSystemEventSetFreeRequest_t;
#define nvmlSystemEventSetFreeRequest_v1 NVML_STRUCT_VERSION(SystemEventSetFreeRequest, 1)

typedef struct {
    unsigned int version;
    unsigned long long eventTypes;
    nvmlSystemEventSet_t set;
} nvmlSystemRegisterEventRequest_v1_t;
typedef nvmlSystemRegisterEventRequest_v1_t nvmlSystemRegisterEventRequest_t;
#define nvmlSystemRegisterEventRequest_v1 NVML_STRUCT_VERSION(SystemRegisterEventRequest, 1)

typedef struct {
    unsigned long long eventType;
    unsigned int gpuId;
} nvmlSystemEventData_v1_t;

typedef struct {
    unsigned int version;
    unsigned int timeoutms;
    nvmlSystemEventSet_t set;
    nvmlSystemEventData_v1_t *data;
    unsigned int dataSize;
    unsigned int numEvent;
} nvmlSystemEventSetWaitRequest_v1_t;
typedef nvmlSystemEventSetWaitRequest_v1_t nvmlSystemEventSetWaitRequest_t;
#define nvmlSystemEventSetWaitRequest_v1 NVML_STRUCT_VERSION(SystemEventSetWaitRequest, 1)

/* --- Event sets ------------------------------------------------------------ */
MK_API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
MK_API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set);
MK_API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
/* older version, still exported */
MK_API nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
MK_API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
MK_API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
MK_API nvmlReturn_t nvmlSystemEventSetCreate(nvmlSystemEventSetCreateRequest_t *request);
MK_API nvmlReturn_t nvmlSystemEventSetFree(nvmlSystemEventSetFreeRequest_t *request);
MK_API nvmlReturn_t nvmlSystemRegisterEvents(nvmlSystemRegisterEventRequest_t *request);
MK_API nvmlReturn_t nvmlSystemEventSetWait(nvmlSystemEventSetWaitRequest_t *request);

#endif
