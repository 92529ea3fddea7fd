/* nvml_clocks.c - clocks: current (live), maximum, applications, customer
 * boost, the supported clock tables, clock event ("throttle") reasons and
 * performance-policy violation counters.
 *
 * Graphics and SM share the graphics applications clock and boost to their
 * maximum; memory clocks do not boost, and video clocks have neither, as
 * nvidia-smi -q shows for datacenter boards. The supported memory clocks are
 * the maximum and, on boards that idle lower (GDDR), the idle clock; the
 * graphics clocks run down from the maximum in 15 MHz steps to the idle
 * clock, which is the shape of a real table. */
#include "nvml_getters.h"

#define CLOCK_STEP_MHZ 15

static const mk_metric clock_metric[NVML_CLOCK_COUNT] = {
    MK_M_CLK_GRAPHICS, MK_M_CLK_SM, MK_M_CLK_MEM, MK_M_CLK_VIDEO
};

static unsigned max_clock(const mk_device *d, nvmlClockType_t type)
{
    switch (type) {
    case NVML_CLOCK_GRAPHICS: return d->clk_max_graphics;
    case NVML_CLOCK_SM: return d->clk_max_sm;
    case NVML_CLOCK_MEM: return d->clk_max_mem;
    default: return d->clk_max_video;
    }
}

/* 0 where the clock has no applications setting. */
static unsigned app_clock(const mk_device *d, nvmlClockType_t type)
{
    switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM: return d->clk_app_graphics;
    case NVML_CLOCK_MEM: return d->clk_app_mem;
    default: return 0;
    }
}

/* 0 where the clock does not boost. */
static unsigned boost_clock(const mk_device *d, nvmlClockType_t type)
{
    return type == NVML_CLOCK_GRAPHICS || type == NVML_CLOCK_SM ? max_clock(d, type) : 0;
}

/* The lowest value a live clock takes (its idle clock), or 0. */
static unsigned idle_clock(const mk_device *d, mk_metric m)
{
    const mk_lv *lv = &d->lv[m];
    return lv->kind == MK_LV_NA || lv->lo < 0 ? 0 : (unsigned)lv->lo;
}

/* A clock's answer: 0 means the board has no such clock (NOT_SUPPORTED). */
static nvmlReturn_t answer(unsigned mhz, unsigned int *out, mk_fn fn)
{
    if (!mhz)
        return mk_unsupported(fn);
    *out = mhz;
    return NVML_SUCCESS;
}

static nvmlReturn_t current_clock(const mk_ref *r, nvmlClockType_t type, unsigned int *out, mk_fn fn)
{
    int64_t v;
    if (mk_metric_get(r, clock_metric[type], &v))
        return mk_unsupported(fn);
    *out = mk_uint(v);
    return NVML_SUCCESS;
}

/* The handle, the output pointer and the clock type every clock getter takes. */
static nvmlReturn_t clock_args(nvmlDevice_t device, nvmlClockType_t type, const unsigned int *out, mk_ref *r)
{
    nvmlReturn_t rc = mk_gpu_live(device, r);
    if (rc)
        return rc;
    if (!out || (unsigned)type >= NVML_CLOCK_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

#define MK_CLOCK_ARGS(h, type, out, r) \
    do { nvmlReturn_t rc_ = clock_args((h), (type), (out), (r)); if (rc_) return rc_; } while (0)

MK_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetClockInfo);
    MK_CLOCK_ARGS(device, type, clock, &r);
    return current_clock(&r, type, clock, MK_FN_nvmlDeviceGetClockInfo);
}

MK_API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMaxClockInfo);
    MK_CLOCK_ARGS(device, type, clock, &r);
    return answer(max_clock(r.d, type), clock, MK_FN_nvmlDeviceGetMaxClockInfo);
}

/* The set functions are not modelled: the target is the default. */
MK_API nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetApplicationsClock);
    MK_CLOCK_ARGS(device, clockType, clockMHz, &r);
    return answer(app_clock(r.d, clockType), clockMHz, MK_FN_nvmlDeviceGetApplicationsClock);
}

MK_API nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetDefaultApplicationsClock);
    MK_CLOCK_ARGS(device, clockType, clockMHz, &r);
    return answer(app_clock(r.d, clockType), clockMHz, MK_FN_nvmlDeviceGetDefaultApplicationsClock);
}

MK_API nvmlReturn_t nvmlDeviceGetMaxCustomerBoostClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMaxCustomerBoostClock);
    MK_CLOCK_ARGS(device, clockType, clockMHz, &r);
    return answer(boost_clock(r.d, clockType), clockMHz, MK_FN_nvmlDeviceGetMaxCustomerBoostClock);
}

MK_API nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType, nvmlClockId_t clockId, unsigned int *clockMHz)
{
    mk_ref r;
    const mk_fn fn = MK_FN_nvmlDeviceGetClock;
    MK_ENTER(nvmlDeviceGetClock);
    MK_CLOCK_ARGS(device, clockType, clockMHz, &r);
    switch (clockId) {
    case NVML_CLOCK_ID_CURRENT: return current_clock(&r, clockType, clockMHz, fn);
    case NVML_CLOCK_ID_APP_CLOCK_TARGET:
    case NVML_CLOCK_ID_APP_CLOCK_DEFAULT: return answer(app_clock(r.d, clockType), clockMHz, fn);
    case NVML_CLOCK_ID_CUSTOMER_BOOST_MAX: return answer(boost_clock(r.d, clockType), clockMHz, fn);
    default: return NVML_ERROR_INVALID_ARGUMENT;
    }
}

/* --- supported clock tables ------------------------------------------------------ */

/* The supported memory clocks, highest first; returns how many (1 or 2). */
static unsigned memory_clocks(const mk_device *d, unsigned out[2])
{
    unsigned idle = idle_clock(d, MK_M_CLK_MEM);
    out[0] = d->clk_max_mem;
    out[1] = idle;
    return idle && idle < d->clk_max_mem ? 2 : 1;
}

MK_API nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t device, unsigned int *count, unsigned int *clocksMHz)
{
    mk_ref r;
    unsigned mem[2];
    MK_ENTER(nvmlDeviceGetSupportedMemoryClocks);
    MK_LIVE(device, &r);
    MK_NONNULL(count);
    unsigned n = memory_clocks(r.d, mem), room = mk_list_room(count, clocksMHz);
    for (unsigned i = 0; i < n && i < room; i++)
        clocksMHz[i] = mem[i];
    return mk_list_done(count, room, n);
}

MK_API nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t device, unsigned int memoryClockMHz, unsigned int *count, unsigned int *clocksMHz)
{
    mk_ref r;
    unsigned mem[2];
    MK_ENTER(nvmlDeviceGetSupportedGraphicsClocks);
    MK_LIVE(device, &r);
    MK_NONNULL(count);
    unsigned nmem = memory_clocks(r.d, mem);
    if (memoryClockMHz != mem[0] && (nmem < 2 || memoryClockMHz != mem[1]))
        return NVML_ERROR_NOT_FOUND;
    unsigned top = r.d->clk_max_graphics, low = idle_clock(r.d, MK_M_CLK_GRAPHICS);
    if (!low || low > top)
        low = top;
    unsigned n = (top - low) / CLOCK_STEP_MHZ + 1, room = mk_list_room(count, clocksMHz);
    for (unsigned i = 0; i < n && i < room; i++)
        clocksMHz[i] = top - i * CLOCK_STEP_MHZ;
    return mk_list_done(count, room, n);
}

/* --- clock event reasons ---------------------------------------------------------- */

/* An idle GPU runs its clocks down; a busy one runs unhindered. */
static nvmlReturn_t event_reasons(nvmlDevice_t device, unsigned long long *reasons)
{
    mk_ref r;
    int64_t util;
    MK_LIVE(device, &r);
    MK_NONNULL(reasons);
    if (mk_metric_get(&r, MK_M_UTIL_GPU, &util))
        util = 0;
    *reasons = util == 0 ? nvmlClocksEventReasonGpuIdle : nvmlClocksEventReasonNone;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *clocksEventReasons)
{
    MK_ENTER(nvmlDeviceGetCurrentClocksEventReasons);
    return event_reasons(device, clocksEventReasons);
}

MK_API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *clocksThrottleReasons)
{
    MK_ENTER(nvmlDeviceGetCurrentClocksThrottleReasons);
    return event_reasons(device, clocksThrottleReasons);
}

static nvmlReturn_t supported_reasons(nvmlDevice_t device, unsigned long long *reasons)
{
    mk_ref r;
    MK_LIVE(device, &r);
    MK_NONNULL(reasons);
    *reasons = nvmlClocksEventReasonAll;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device, unsigned long long *supportedClocksEventReasons)
{
    MK_ENTER(nvmlDeviceGetSupportedClocksEventReasons);
    return supported_reasons(device, supportedClocksEventReasons);
}

MK_API nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t device, unsigned long long *supportedClocksThrottleReasons)
{
    MK_ENTER(nvmlDeviceGetSupportedClocksThrottleReasons);
    return supported_reasons(device, supportedClocksThrottleReasons);
}

/* Datacenter boards have no auto boost setting. */
MK_API nvmlReturn_t nvmlDeviceGetAutoBoostedClocksEnabled(nvmlDevice_t device, nvmlEnableState_t *isEnabled, nvmlEnableState_t *defaultIsEnabled)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetAutoBoostedClocksEnabled);
    MK_LIVE(device, &r);
    MK_NONNULL(isEnabled);
    MK_NONNULL(defaultIsEnabled);
    MK_UNSUPPORTED(nvmlDeviceGetAutoBoostedClocksEnabled);
}

/* Time spent held back by each policy: none, since no limit is ever hit. */
MK_API nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType, nvmlViolationTime_t *violTime)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetViolationStatus);
    MK_LIVE(device, &r);
    MK_NONNULL(violTime);
    if ((unsigned)perfPolicyType > NVML_PERF_POLICY_RELIABILITY &&
        perfPolicyType != NVML_PERF_POLICY_TOTAL_APP_CLOCKS &&
        perfPolicyType != NVML_PERF_POLICY_TOTAL_BASE_CLOCKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    violTime->referenceTime = (unsigned long long)mk_now_us();
    violTime->violationTime = 0;
    return NVML_SUCCESS;
}
