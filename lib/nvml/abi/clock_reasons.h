/* clock_reasons.h - the bits reported by nvmlDeviceGetCurrentClocksEventReasons
 * and friends (and their older "throttle reason" names). */
#ifndef MOKKA_NVML_ABI_CLOCK_REASONS_H
#define MOKKA_NVML_ABI_CLOCK_REASONS_H

#include "base.h"

/* --- Clock event reasons --------------------------------------------------- */
#define nvmlClocksEventReasonGpuIdle                      0x0000000000000001LL
#define nvmlClocksEventReasonApplicationsClocksSetting    0x0000000000000002LL
#define nvmlClocksThrottleReasonUserDefinedClocks         nvmlClocksEventReasonApplicationsClocksSetting
#define nvmlClocksEventReasonSwPowerCap                   0x0000000000000004LL
#define nvmlClocksThrottleReasonHwSlowdown                0x0000000000000008LL
#define nvmlClocksEventReasonSyncBoost                    0x0000000000000010LL
#define nvmlClocksEventReasonSwThermalSlowdown            0x0000000000000020LL
#define nvmlClocksThrottleReasonHwThermalSlowdown         0x0000000000000040LL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown      0x0000000000000080LL
#define nvmlClocksEventReasonDisplayClockSetting          0x0000000000000100LL
#define nvmlClocksEventReasonNone                         0x0000000000000000LL
#define nvmlClocksEventReasonAll ( \
    nvmlClocksThrottleReasonNone | \
    nvmlClocksEventReasonGpuIdle | \
    nvmlClocksEventReasonApplicationsClocksSetting | \
    nvmlClocksEventReasonSwPowerCap | \
    nvmlClocksThrottleReasonHwSlowdown | \
    nvmlClocksEventReasonSyncBoost | \
    nvmlClocksEventReasonSwThermalSlowdown | \
    nvmlClocksThrottleReasonHwThermalSlowdown | \
    nvmlClocksThrottleReasonHwPowerBrakeSlowdown | \
    nvmlClocksEventReasonDisplayClockSetting )
#define nvmlClocksThrottleReasonGpuIdle                   nvmlClocksEventReasonGpuIdle
#define nvmlClocksThrottleReasonApplicationsClocksSetting nvmlClocksEventReasonApplicationsClocksSetting
#define nvmlClocksThrottleReasonSyncBoost                 nvmlClocksEventReasonSyncBoost
#define nvmlClocksThrottleReasonSwPowerCap                nvmlClocksEventReasonSwPowerCap
#define nvmlClocksThrottleReasonSwThermalSlowdown         nvmlClocksEventReasonSwThermalSlowdown
#define nvmlClocksThrottleReasonDisplayClockSetting       nvmlClocksEventReasonDisplayClockSetting
#define nvmlClocksThrottleReasonNone                      nvmlClocksEventReasonNone
#define nvmlClocksThrottleReasonAll                       nvmlClocksEventReasonAll

#endif
