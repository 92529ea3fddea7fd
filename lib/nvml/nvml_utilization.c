/* nvml_utilization.c - GPU, memory, encoder, decoder, JPEG and OFA
 * utilisation, and the video encoder and frame-buffer-capture sessions.
 *
 * GPU, memory, encoder and decoder utilisation are live metrics (ranges,
 * drift, pinned values), reported by every board (an A100 without NVENC
 * shows "Encoder 0 %"). Which engines a board really has comes from its MIG
 * profile table where it has one (`encoders: 0` in every row of an A100 or
 * H100); boards without MIG are PCIe cards with NVENC and NVDEC, and JPEG
 * and OFA engines from Ampere on. No encoder or FBC session ever runs. */
#include "nvml_getters.h"

/* What the driver reports as the sampling period of engine utilisation. */
#define SAMPLING_PERIOD_US 167000

typedef enum { ENGINE_ENC, ENGINE_DEC, ENGINE_JPG, ENGINE_OFA } engine;

static int has_engine(const mk_device *d, engine e)
{
    if (!d->nmigp)
        return d->arch >= NVML_DEVICE_ARCH_AMPERE || e == ENGINE_ENC || e == ENGINE_DEC;
    for (size_t i = 0; i < d->nmigp; i++) {
        const mk_mig_profile *p = &d->migp[i];
        unsigned n = e == ENGINE_ENC ? p->encoders : e == ENGINE_DEC ? p->decoders
                   : e == ENGINE_JPG ? p->jpegs : p->ofas;
        if (n)
            return 1;
    }
    return 0;
}

MK_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    mk_ref r;
    int64_t gpu, mem;
    MK_ENTER(nvmlDeviceGetUtilizationRates);
    MK_LIVE(device, &r);
    MK_NONNULL(utilization);
    MK_METRIC(nvmlDeviceGetUtilizationRates, &r, MK_M_UTIL_GPU, &gpu);
    MK_METRIC(nvmlDeviceGetUtilizationRates, &r, MK_M_UTIL_MEM, &mem);
    utilization->gpu = mk_uint(gpu);
    utilization->memory = mk_uint(mem);
    return NVML_SUCCESS;
}

/* An engine's utilisation: the live metric of the encoder and decoder; 0
 * from the JPEG and OFA engines, NOT_SUPPORTED on boards without them. */
static nvmlReturn_t engine_util(nvmlDevice_t device, engine e, unsigned int *utilization,
                                unsigned int *samplingPeriodUs, mk_fn fn)
{
    mk_ref r;
    int64_t v = 0;
    MK_LIVE(device, &r);
    MK_NONNULL(utilization);
    MK_NONNULL(samplingPeriodUs);
    if (e == ENGINE_ENC || e == ENGINE_DEC) {
        if (mk_metric_get(&r, e == ENGINE_ENC ? MK_M_UTIL_ENC : MK_M_UTIL_DEC, &v))
            return mk_unsupported(fn);
    } else if (!has_engine(r.d, e)) {
        return mk_unsupported(fn);
    }
    *utilization = mk_uint(v);
    *samplingPeriodUs = SAMPLING_PERIOD_US;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    MK_ENTER(nvmlDeviceGetEncoderUtilization);
    return engine_util(device, ENGINE_ENC, utilization, samplingPeriodUs, MK_FN_nvmlDeviceGetEncoderUtilization);
}

MK_API nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    MK_ENTER(nvmlDeviceGetDecoderUtilization);
    return engine_util(device, ENGINE_DEC, utilization, samplingPeriodUs, MK_FN_nvmlDeviceGetDecoderUtilization);
}

MK_API nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    MK_ENTER(nvmlDeviceGetJpgUtilization);
    return engine_util(device, ENGINE_JPG, utilization, samplingPeriodUs, MK_FN_nvmlDeviceGetJpgUtilization);
}

MK_API nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    MK_ENTER(nvmlDeviceGetOfaUtilization);
    return engine_util(device, ENGINE_OFA, utilization, samplingPeriodUs, MK_FN_nvmlDeviceGetOfaUtilization);
}

/* --- encoder and FBC sessions ----------------------------------------------------- */

/* Of 100 %: how much of the encoder one more session of this codec could
 * use. AV1 encoding arrived with Ada. */
MK_API nvmlReturn_t nvmlDeviceGetEncoderCapacity(nvmlDevice_t device, nvmlEncoderType_t encoderQueryType, unsigned int *encoderCapacity)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetEncoderCapacity);
    MK_LIVE(device, &r);
    MK_NONNULL(encoderCapacity);
    if (encoderQueryType != NVML_ENCODER_QUERY_H264 && encoderQueryType != NVML_ENCODER_QUERY_HEVC &&
        encoderQueryType != NVML_ENCODER_QUERY_AV1)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!has_engine(r.d, ENGINE_ENC) ||
        (encoderQueryType == NVML_ENCODER_QUERY_AV1 && r.d->arch < NVML_DEVICE_ARCH_ADA))
        MK_UNSUPPORTED(nvmlDeviceGetEncoderCapacity);
    *encoderCapacity = 100;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetEncoderStats);
    MK_LIVE(device, &r);
    MK_NONNULL(sessionCount);
    MK_NONNULL(averageFps);
    MK_NONNULL(averageLatency);
    *sessionCount = *averageFps = *averageLatency = 0;
    return NVML_SUCCESS;
}

/* No session runs: the list convention with nothing in the list. */
static nvmlReturn_t no_sessions(nvmlDevice_t device, unsigned int *sessionCount)
{
    mk_ref r;
    MK_LIVE(device, &r);
    MK_NONNULL(sessionCount);
    return mk_list_done(sessionCount, 0, 0);
}

MK_API nvmlReturn_t nvmlDeviceGetEncoderSessions(nvmlDevice_t device, unsigned int *sessionCount, nvmlEncoderSessionInfo_t *sessionInfos)
{
    MK_ENTER(nvmlDeviceGetEncoderSessions);
    (void)sessionInfos;
    return no_sessions(device, sessionCount);
}

MK_API nvmlReturn_t nvmlDeviceGetFBCSessions(nvmlDevice_t device, unsigned int *sessionCount, nvmlFBCSessionInfo_t *sessionInfo)
{
    MK_ENTER(nvmlDeviceGetFBCSessions);
    (void)sessionInfo;
    return no_sessions(device, sessionCount);
}

MK_API nvmlReturn_t nvmlDeviceGetFBCStats(nvmlDevice_t device, nvmlFBCStats_t *fbcStats)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetFBCStats);
    MK_LIVE(device, &r);
    MK_NONNULL(fbcStats);
    fbcStats->sessionsCount = fbcStats->averageFPS = fbcStats->averageLatency = 0;
    return NVML_SUCCESS;
}
