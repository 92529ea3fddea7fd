/* prm.h - raw PRM register access and PRM counters. */
#ifndef MOKKA_NVML_ABI_PRM_H
#define MOKKA_NVML_ABI_PRM_H

#include "base.h"
#include "device_structs.h"

/* --- PRM register access --------------------------------------------------- */
#define NVML_PRM_DATA_MAX_SIZE 496

typedef struct {
    unsigned int dataSize;
    unsigned int status;
    union {
        unsigned char inData[NVML_PRM_DATA_MAX_SIZE];
        unsigned char outData[NVML_PRM_DATA_MAX_SIZE];
    };
} nvmlPRMTLV_v1_t;

MK_API nvmlReturn_t nvmlDeviceReadWritePRM_v1(nvmlDevice_t device, nvmlPRMTLV_v1_t *buffer);

/* --- PRM counters ---------------------------------------------------------- */

typedef enum {
    NVML_PRM_COUNTER_ID_NONE = 0,
    NVML_PRM_COUNTER_ID_PPCNT_PHYSICAL_LAYER_CTRS_LINK_DOWN_EVENTS = 1,
    NVML_PRM_COUNTER_ID_PPCNT_PHYSICAL_LAYER_CTRS_SUCCESSFUL_RECOVERY_EVENTS = 2,
    NVML_PRM_COUNTER_ID_PPCNT_RECOVERY_CTRS_TOTAL_SUCCESSFUL_RECOVERY_EVENTS = 101,
    NVML_PRM_COUNTER_ID_PPCNT_RECOVERY_CTRS_TIME_SINCE_LAST_RECOVERY = 102,
    NVML_PRM_COUNTER_ID_PPCNT_RECOVERY_CTRS_TIME_BETWEEN_LAST_TWO_RECOVERIES = 103,
    NVML_PRM_COUNTER_ID_PPCNT_PORTCOUNTERS_PORT_XMIT_WAIT = 201,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_RCV_CODES = 301,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_RCV_CODE_ERR = 302,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_RCV_UNCORRECTABLE_CODE = 303,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_XMIT_CODES = 304,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_XMIT_RETRY_CODES = 305,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_XMIT_RETRY_EVENTS = 306,
    NVML_PRM_COUNTER_ID_PPCNT_PLR_SYNC_EVENTS = 307,
    NVML_PRM_COUNTER_ID_PPRM_OPER_RECOVERY = 1001
} nvmlPRMCounterId_t;

typedef struct {
    unsigned int localPort;
} nvmlPRMCounterInput_v1_t;

typedef struct {
    nvmlReturn_t status;
    nvmlValueType_t outputType;
    nvmlValue_t outputValue;
} nvmlPRMCounterValue_v1_t;

typedef struct {
    unsigned int counterId;
    nvmlPRMCounterInput_v1_t inData;
    nvmlPRMCounterValue_v1_t counterValue;
} nvmlPRMCounter_v1_t;

typedef struct {
    unsigned int numCounters;
    nvmlPRMCounter_v1_t *counters;
} nvmlPRMCounterList_v1_t;

MK_API nvmlReturn_t nvmlDeviceReadPRMCounters_v1(nvmlDevice_t device, nvmlPRMCounterList_v1_t *counterList);

#endif
