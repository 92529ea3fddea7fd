/* nvml_power.c - power draw, limits, energy, power source and performance
 * states.
 *
 * The draw is the live metric MK_M_POWER (`power: follow` ties it to the
 * GPU's utilisation); total energy is that draw integrated over time by
 * mk_live_energy, so it grows for as long as the universe runs. Limits are
 * the board's configured ones. */
#include "nvml_getters.h"

MK_API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    mk_ref r;
    int64_t v;
    MK_ENTER(nvmlDeviceGetPowerUsage);
    MK_LIVE(device, &r);
    MK_NONNULL(power);
    MK_METRIC(nvmlDeviceGetPowerUsage, &r, MK_M_POWER, &v);
    *power = mk_uint(v);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetTotalEnergyConsumption);
    MK_LIVE(device, &r);
    MK_NONNULL(energy);
    if (r.d->lv[MK_M_POWER].kind == MK_LV_NA)
        MK_UNSUPPORTED(nvmlDeviceGetTotalEnergyConsumption);
    *energy = mk_live_energy(&mk_L.live, r.u, r.gpu);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPowerManagementMode);
    MK_LIVE(device, &r);
    MK_NONNULL(mode);
    *mode = NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

/* Without the set functions, the enforced limit is the configured one. */
static nvmlReturn_t enforced_limit(nvmlDevice_t device, unsigned int *limit)
{
    mk_ref r;
    MK_LIVE(device, &r);
    MK_NONNULL(limit);
    *limit = r.d->power_limit;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    MK_ENTER(nvmlDeviceGetPowerManagementLimit);
    return enforced_limit(device, limit);
}

MK_API nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    MK_ENTER(nvmlDeviceGetEnforcedPowerLimit);
    return enforced_limit(device, limit);
}

MK_API nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPowerManagementDefaultLimit);
    MK_LIVE(device, &r);
    MK_NONNULL(defaultLimit);
    *defaultLimit = r.d->power_default_limit;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit, unsigned int *maxLimit)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPowerManagementLimitConstraints);
    MK_LIVE(device, &r);
    MK_NONNULL(minLimit);
    MK_NONNULL(maxLimit);
    *minLimit = r.d->power_min_limit;
    *maxLimit = r.d->power_max_limit;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPowerSource(nvmlDevice_t device, nvmlPowerSource_t *powerSource)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPowerSource);
    MK_LIVE(device, &r);
    MK_NONNULL(powerSource);
    *powerSource = NVML_POWER_SOURCE_AC;
    return NVML_SUCCESS;
}

/* --- performance states ---------------------------------------------------------- */

static nvmlReturn_t current_pstate(nvmlDevice_t device, nvmlPstates_t *pState)
{
    mk_ref r;
    MK_LIVE(device, &r);
    MK_NONNULL(pState);
    *pState = (nvmlPstates_t)r.d->pstate;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    MK_ENTER(nvmlDeviceGetPerformanceState);
    return current_pstate(device, pState);
}

/* The older name of the same query. */
MK_API nvmlReturn_t nvmlDeviceGetPowerState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    MK_ENTER(nvmlDeviceGetPowerState);
    return current_pstate(device, pState);
}

/* P0, where work runs, and the configured state when a board idles in
 * another one (P8 on most PCIe cards). `size` is in bytes, as pynvml and
 * the driver use it; the rest of the array is NVML_PSTATE_UNKNOWN. */
MK_API nvmlReturn_t nvmlDeviceGetSupportedPerformanceStates(nvmlDevice_t device, nvmlPstates_t *pstates, unsigned int size)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetSupportedPerformanceStates);
    MK_LIVE(device, &r);
    MK_NONNULL(pstates);
    unsigned room = size / sizeof *pstates, n = r.d->pstate ? 2 : 1;
    if (room < n)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    pstates[0] = NVML_PSTATE_0;
    if (n == 2)
        pstates[1] = (nvmlPstates_t)r.d->pstate;
    for (unsigned i = n; i < room; i++)
        pstates[i] = NVML_PSTATE_UNKNOWN;
    return NVML_SUCCESS;
}
