/* nvml_thermal.c - temperatures, thermal thresholds and margin, thermal
 * sensor settings, and fans.
 *
 * The GPU temperature is the live metric MK_M_TEMP, so ranges, drift, values
 * pinned by `mokka inject` and the unhealthy_on_temperature rule all act on
 * what these getters answer. Boards without fans (SXM modules, passively
 * cooled cards), or whose fan speed is configured N/A, answer NOT_SUPPORTED
 * for every fan query, as such boards do; the acoustic target temperature
 * belongs to the fan controller, so only boards with fans report it. */
#include "nvml_getters.h"

MK_API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp)
{
    mk_ref r;
    int64_t v;
    MK_ENTER(nvmlDeviceGetTemperature);
    MK_LIVE(device, &r);
    MK_NONNULL(temp);
    if (sensorType != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    MK_METRIC(nvmlDeviceGetTemperature, &r, MK_M_TEMP, &v);
    *temp = mk_uint(v);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature)
{
    mk_ref r;
    int64_t v;
    MK_ENTER(nvmlDeviceGetTemperatureV);
    MK_LIVE(device, &r);
    MK_NONNULL(temperature);
    if (temperature->version != nvmlTemperature_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (temperature->sensorType != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    MK_METRIC(nvmlDeviceGetTemperatureV, &r, MK_M_TEMP, &v);
    temperature->temperature = (int)v;
    return NVML_SUCCESS;
}

/* A threshold in C, or -1 where the board has none. */
static int threshold(const mk_device *d, nvmlTemperatureThresholds_t type)
{
    switch (type) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN: return d->temp_shutdown;
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN: return d->temp_slowdown;
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX: return d->temp_gpu_max;
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
        return d->lv[MK_M_TEMP_MEM].kind == MK_LV_NA ? -1 : d->temp_mem_max;
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR:
        return d->fans ? d->temp_target : -1; /* the fan controller's target */
    default: return -1;                       /* acoustic range, GPS: not modelled */
    }
}

MK_API nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType, unsigned int *temp)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetTemperatureThreshold);
    MK_LIVE(device, &r);
    MK_NONNULL(temp);
    if ((unsigned)thresholdType >= NVML_TEMPERATURE_THRESHOLD_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    int t = threshold(r.d, thresholdType);
    if (t <= 0)
        MK_UNSUPPORTED(nvmlDeviceGetTemperatureThreshold);
    *temp = (unsigned)t;
    return NVML_SUCCESS;
}

/* How far the GPU is below its maximum operating temperature (nvidia-smi's
 * "GPU T.Limit Temp"). */
MK_API nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device, nvmlMarginTemperature_t *marginTempInfo)
{
    mk_ref r;
    int64_t v;
    MK_ENTER(nvmlDeviceGetMarginTemperature);
    MK_LIVE(device, &r);
    MK_NONNULL(marginTempInfo);
    if (marginTempInfo->version != nvmlMarginTemperature_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    MK_METRIC(nvmlDeviceGetMarginTemperature, &r, MK_M_TEMP, &v);
    marginTempInfo->marginTemperature = r.d->temp_gpu_max - (int)v;
    return NVML_SUCCESS;
}

/* Sensor 0 is the GPU's internal sensor, sensor 1 the memory's where it has
 * one; NVML_THERMAL_TARGET_ALL asks for every sensor at once. */
MK_API nvmlReturn_t nvmlDeviceGetThermalSettings(nvmlDevice_t device, unsigned int sensorIndex, nvmlGpuThermalSettings_t *pThermalSettings)
{
    mk_ref r;
    int64_t v[2];
    static const nvmlThermalTarget_t target[2] = { NVML_THERMAL_TARGET_GPU, NVML_THERMAL_TARGET_MEMORY };
    MK_ENTER(nvmlDeviceGetThermalSettings);
    MK_LIVE(device, &r);
    MK_NONNULL(pThermalSettings);
    MK_METRIC(nvmlDeviceGetThermalSettings, &r, MK_M_TEMP, &v[0]);
    unsigned n = mk_metric_get(&r, MK_M_TEMP_MEM, &v[1]) == NVML_SUCCESS ? 2 : 1;
    unsigned first = 0;
    if (sensorIndex != NVML_THERMAL_TARGET_ALL) {
        if (sensorIndex >= n)
            return NVML_ERROR_INVALID_ARGUMENT;
        first = sensorIndex;
        n = sensorIndex + 1;
    }
    memset(pThermalSettings, 0, sizeof *pThermalSettings);
    pThermalSettings->count = n - first;
    for (unsigned i = first; i < n; i++) {
        pThermalSettings->sensor[i - first].controller = NVML_THERMAL_CONTROLLER_GPU_INTERNAL;
        pThermalSettings->sensor[i - first].defaultMinTemp = 0;
        pThermalSettings->sensor[i - first].defaultMaxTemp = i ? r.d->temp_mem_max : r.d->temp_shutdown;
        pThermalSettings->sensor[i - first].currentTemp = (int)v[i];
        pThermalSettings->sensor[i - first].target = target[i];
    }
    return NVML_SUCCESS;
}

/* --- fans ------------------------------------------------------------------------ */

/* A GPU with fans; with `fan` < fans unless fan is NULL. */
static nvmlReturn_t fan_gpu(nvmlDevice_t device, const unsigned *fan, mk_ref *r, mk_fn fn)
{
    nvmlReturn_t rc = mk_gpu_live(device, r);
    if (rc)
        return rc;
    if (!r->d->fans || r->d->lv[MK_M_FAN].kind == MK_LV_NA)
        return mk_unsupported(fn);
    if (fan && *fan >= r->d->fans)
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

#define MK_FAN_GPU(h, fan, r, name) \
    do { nvmlReturn_t rc_ = fan_gpu((h), (fan), (r), MK_FN_##name); if (rc_) return rc_; } while (0)

/* Every fan of a board turns at the same (live) speed. */
static nvmlReturn_t fan_speed(const mk_ref *r, unsigned int *speed, mk_fn fn)
{
    int64_t v;
    if (!speed)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (mk_metric_get(r, MK_M_FAN, &v))
        return mk_unsupported(fn);
    *speed = mk_uint(v);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetFanSpeed);
    MK_FAN_GPU(device, NULL, &r, nvmlDeviceGetFanSpeed);
    return fan_speed(&r, speed, MK_FN_nvmlDeviceGetFanSpeed);
}

MK_API nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetFanSpeed_v2);
    MK_FAN_GPU(device, &fan, &r, nvmlDeviceGetFanSpeed_v2);
    return fan_speed(&r, speed, MK_FN_nvmlDeviceGetFanSpeed_v2);
}

/* Fans run under the driver's automatic policy: the target is the speed. */
MK_API nvmlReturn_t nvmlDeviceGetTargetFanSpeed(nvmlDevice_t device, unsigned int fan, unsigned int *targetSpeed)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetTargetFanSpeed);
    MK_FAN_GPU(device, &fan, &r, nvmlDeviceGetTargetFanSpeed);
    return fan_speed(&r, targetSpeed, MK_FN_nvmlDeviceGetTargetFanSpeed);
}

MK_API nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNumFans);
    MK_FAN_GPU(device, NULL, &r, nvmlDeviceGetNumFans);
    MK_NONNULL(numFans);
    *numFans = r.d->fans;
    return NVML_SUCCESS;
}

/* The range a fan may be set to: what blower boards report. */
MK_API nvmlReturn_t nvmlDeviceGetMinMaxFanSpeed(nvmlDevice_t device, unsigned int *minSpeed, unsigned int *maxSpeed)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMinMaxFanSpeed);
    MK_FAN_GPU(device, NULL, &r, nvmlDeviceGetMinMaxFanSpeed);
    MK_NONNULL(minSpeed);
    MK_NONNULL(maxSpeed);
    *minSpeed = 30;
    *maxSpeed = 100;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan, nvmlFanControlPolicy_t *policy)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetFanControlPolicy_v2);
    MK_FAN_GPU(device, &fan, &r, nvmlDeviceGetFanControlPolicy_v2);
    MK_NONNULL(policy);
    *policy = NVML_FAN_POLICY_TEMPERATURE_CONTINOUS_SW;
    return NVML_SUCCESS;
}
