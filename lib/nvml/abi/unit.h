/* unit.h - S-class units (chassis): unit structs, queries and commands. */
#ifndef MOKKA_NVML_ABI_UNIT_H
#define MOKKA_NVML_ABI_UNIT_H

#include "base.h"

/* --- Unit structs ---------------------------------------------------------- */

typedef struct nvmlHwbcEntry_st {
    unsigned int hwbcId;
    char firmwareVersion[32];
} nvmlHwbcEntry_t;

typedef enum nvmlFanState_enum {
    NVML_FAN_NORMAL = 0,
    NVML_FAN_FAILED = 1
} nvmlFanState_t;

typedef enum nvmlLedColor_enum {
    NVML_LED_COLOR_GREEN = 0,
    NVML_LED_COLOR_AMBER = 1
} nvmlLedColor_t;

typedef struct nvmlLedState_st {
    char cause[256];
    nvmlLedColor_t color;
} nvmlLedState_t;

typedef struct nvmlUnitInfo_st {
    char name[96];
    char id[96];
    char serial[96];
    char firmwareVersion[96];
} nvmlUnitInfo_t;

typedef struct nvmlPSUInfo_st {
    char state[256];
    unsigned int current;
    unsigned int voltage;
    unsigned int power;
} nvmlPSUInfo_t;

typedef struct nvmlUnitFanInfo_st {
    unsigned int speed;
    nvmlFanState_t state;
} nvmlUnitFanInfo_t;

typedef struct nvmlUnitFanSpeeds_st {
    nvmlUnitFanInfo_t fans[24];
    unsigned int count;
} nvmlUnitFanSpeeds_t;

/* --- Unit queries ---------------------------------------------------------- */
MK_API nvmlReturn_t nvmlUnitGetCount(unsigned int *unitCount);
MK_API nvmlReturn_t nvmlUnitGetHandleByIndex(unsigned int index, nvmlUnit_t *unit);
MK_API nvmlReturn_t nvmlUnitGetUnitInfo(nvmlUnit_t unit, nvmlUnitInfo_t *info);
MK_API nvmlReturn_t nvmlUnitGetLedState(nvmlUnit_t unit, nvmlLedState_t *state);
MK_API nvmlReturn_t nvmlUnitGetPsuInfo(nvmlUnit_t unit, nvmlPSUInfo_t *psu);
MK_API nvmlReturn_t nvmlUnitGetTemperature(nvmlUnit_t unit, unsigned int type, unsigned int *temp);
MK_API nvmlReturn_t nvmlUnitGetFanSpeedInfo(nvmlUnit_t unit, nvmlUnitFanSpeeds_t *fanSpeeds);
MK_API nvmlReturn_t nvmlUnitGetDevices(nvmlUnit_t unit, unsigned int *deviceCount, nvmlDevice_t *devices);

/* --- Unit commands --------------------------------------------------------- */
MK_API nvmlReturn_t nvmlUnitSetLedState(nvmlUnit_t unit, nvmlLedColor_t color);

#endif
