/* test_nvml_getters.c - the telemetry and device-query getters of the built
 * libnvidia-ml.so.1 (lib/nvml/nvml_{thermal,power,clocks,utilization,ecc,
 * processes,fields,misc}.c), loaded with dlopen from $MOKKA_BUILD/lib.
 *
 * Every getter is called through a thunk with valid arguments, and checked
 * for the answers NVML's contract fixes: UNINITIALIZED before nvmlInit,
 * INVALID_ARGUMENT for NULL outputs and for handles that are not handles,
 * GPU_IS_LOST on a GPU lost by `mode: lost`, NOT_SUPPORTED on MIG devices
 * for whole-GPU telemetry. Then values, enum and version checks, list
 * conventions, field values, and what injected ECC errors and pinned values
 * do, through the live state file (lib/core/state.h). Configs are written
 * to temporary files; each test runs in its own forked process. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "abi/nvml_abi.h"
#include "state.h"
#include "support/testutil.h"

/* --- the library ----------------------------------------------------------------- */

#define GETTERS(X) \
    X(nvmlDeviceGetTemperature) X(nvmlDeviceGetTemperatureV) X(nvmlDeviceGetTemperatureThreshold) \
    X(nvmlDeviceGetMarginTemperature) X(nvmlDeviceGetThermalSettings) X(nvmlDeviceGetFanSpeed) \
    X(nvmlDeviceGetFanSpeed_v2) X(nvmlDeviceGetTargetFanSpeed) X(nvmlDeviceGetNumFans) \
    X(nvmlDeviceGetMinMaxFanSpeed) X(nvmlDeviceGetFanControlPolicy_v2) X(nvmlDeviceGetPowerUsage) \
    X(nvmlDeviceGetTotalEnergyConsumption) X(nvmlDeviceGetPowerManagementMode) \
    X(nvmlDeviceGetPowerManagementLimit) X(nvmlDeviceGetEnforcedPowerLimit) \
    X(nvmlDeviceGetPowerManagementDefaultLimit) X(nvmlDeviceGetPowerManagementLimitConstraints) \
    X(nvmlDeviceGetPowerSource) X(nvmlDeviceGetPerformanceState) X(nvmlDeviceGetPowerState) \
    X(nvmlDeviceGetSupportedPerformanceStates) X(nvmlDeviceGetClockInfo) X(nvmlDeviceGetMaxClockInfo) \
    X(nvmlDeviceGetApplicationsClock) X(nvmlDeviceGetDefaultApplicationsClock) \
    X(nvmlDeviceGetMaxCustomerBoostClock) X(nvmlDeviceGetClock) X(nvmlDeviceGetSupportedMemoryClocks) \
    X(nvmlDeviceGetSupportedGraphicsClocks) X(nvmlDeviceGetCurrentClocksEventReasons) \
    X(nvmlDeviceGetCurrentClocksThrottleReasons) X(nvmlDeviceGetSupportedClocksEventReasons) \
    X(nvmlDeviceGetSupportedClocksThrottleReasons) X(nvmlDeviceGetAutoBoostedClocksEnabled) \
    X(nvmlDeviceGetViolationStatus) X(nvmlDeviceGetUtilizationRates) X(nvmlDeviceGetEncoderUtilization) \
    X(nvmlDeviceGetDecoderUtilization) X(nvmlDeviceGetJpgUtilization) X(nvmlDeviceGetOfaUtilization) \
    X(nvmlDeviceGetEncoderCapacity) X(nvmlDeviceGetEncoderStats) X(nvmlDeviceGetEncoderSessions) \
    X(nvmlDeviceGetFBCStats) X(nvmlDeviceGetFBCSessions) X(nvmlDeviceGetTotalEccErrors) \
    X(nvmlDeviceGetDetailedEccErrors) X(nvmlDeviceGetMemoryErrorCounter) X(nvmlDeviceGetRetiredPages) \
    X(nvmlDeviceGetRetiredPages_v2) X(nvmlDeviceGetRetiredPagesPendingStatus) \
    X(nvmlDeviceGetRemappedRows) X(nvmlDeviceGetRemappedRows_v2) X(nvmlDeviceGetRowRemapperHistogram) \
    X(nvmlDeviceGetComputeRunningProcesses) X(nvmlDeviceGetComputeRunningProcesses_v2) \
    X(nvmlDeviceGetComputeRunningProcesses_v3) X(nvmlDeviceGetGraphicsRunningProcesses) \
    X(nvmlDeviceGetGraphicsRunningProcesses_v2) X(nvmlDeviceGetGraphicsRunningProcesses_v3) \
    X(nvmlDeviceGetMPSComputeRunningProcesses) X(nvmlDeviceGetMPSComputeRunningProcesses_v2) \
    X(nvmlDeviceGetMPSComputeRunningProcesses_v3) X(nvmlDeviceGetProcessUtilization) \
    X(nvmlDeviceGetAccountingMode) X(nvmlDeviceGetAccountingBufferSize) X(nvmlDeviceGetFieldValues) \
    X(nvmlDeviceClearFieldValues) X(nvmlDeviceGetGpuOperationMode) X(nvmlDeviceGetDriverModel) \
    X(nvmlDeviceGetDriverModel_v2) X(nvmlDeviceGetMemoryBusWidth) X(nvmlDeviceGetPcieThroughput) \
    X(nvmlDeviceGetPcieReplayCounter) X(nvmlDeviceGetIrqNum) X(nvmlDeviceGetGspFirmwareMode) \
    X(nvmlDeviceGetGspFirmwareVersion)

#define OTHERS(X) \
    X(nvmlInit_v2) X(nvmlShutdown) X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetUUID) \
    X(nvmlDeviceGetPciInfo_v3) X(nvmlDeviceGetName) X(nvmlDeviceGetSerial) X(nvmlDeviceGetVbiosVersion) \
    X(nvmlDeviceGetBoardPartNumber) X(nvmlSystemGetDriverVersion) X(nvmlDeviceGetMigDeviceHandleByIndex) \
    X(nvmlDeviceGetModuleId) X(nvmlDeviceGetSramEccErrorStatus)

#define DECLARE(name) static __typeof__(name) *p_##name;
GETTERS(DECLARE)
OTHERS(DECLARE)

static void load_library(void)
{
    const char *build = getenv("MOKKA_BUILD");
    char path[4096];
    snprintf(path, sizeof path, "%s/lib/libnvidia-ml.so.1", build && *build ? build : ".");
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "test_nvml_getters: cannot load %s: %s\n", path, dlerror());
        exit(2);
    }
#define LOAD(name) \
    if (!(*(void **)&p_##name = dlsym(lib, #name))) { \
        fprintf(stderr, "test_nvml_getters: %s does not export " #name "\n", path); \
        exit(2); \
    }
    GETTERS(LOAD)
    OTHERS(LOAD)
#undef LOAD
}

/* --- the universe under test -------------------------------------------------------- */

/* GPU 0: an A100 running two processes; 1: a T4 with a fan and no memory
 * sensor (page retirement, GDDR clocks); 2: an A100 in MIG mode with a
 * process; 3: an A100 lost from the start; 4: an RTX 6000 Ada, ECC off;
 * 5: an H100 (GSP firmware). */
static const char config_yaml[] =
    "version: 1.0\n"
    "seed: 42\n"
    "profile: a100-sxm4-40gb\n"
    "count: 6\n"
    "devices:\n"
    "  - index: 0\n"
    "    processes:\n"
    "      - {pid: 4242, name: train, usedMemory: 2GiB}\n"
    "      - {pid: 4343, name: viz, usedMemory: 512MiB, type: both}\n"
    "  - index: 1\n"
    "    profile: t4\n"
    "    fans: 1\n"
    "    fanSpeed: 35-45\n"
    "    memoryTemperature: N/A\n"
    "  - index: 2\n"
    "    mig: {instances: [1g.5gb, 3g.20gb]}\n"
    "    processes:\n"
    "      - {pid: 5151, name: infer, usedMemory: 1GiB}\n"
    "  - index: 3\n"
    "    unhealthy_after_seconds: 0\n"
    "    mode: lost\n"
    "  - index: 4\n"
    "    profile: rtx-6000-ada\n"
    "  - index: 5\n"
    "    profile: h100-sxm5-80gb\n";

enum { A100, T4, MIGGPU, LOST, RTX, H100, NGPU };

static nvmlDevice_t gpu[NGPU];
static mk_state live;          /* the library's live state, for the "live state" tests */

/* Starts NVML on the config, with a state directory when `shared` (mapped
 * into `live`). */
static void start(int shared)
{
    const char *dir = mk_test_tmpdir("getters"), *config = mk_test_path(dir, "config.yaml");
    char err[256] = "";
    mk_test_write(config, config_yaml);
    setenv("MOCK_CONFIG_PATH", config, 1);
    unsetenv("MOKKA_CONFIG");
    unsetenv("MOKKA_STATE_DIR");
    if (shared)
        setenv("MOKKA_STATE_DIR", dir, 1);
    ck_assert_int_eq(p_nvmlInit_v2(), NVML_SUCCESS);
    ck_assert_msg(!shared || mk_state_open_existing(&live, mk_test_path(dir, "state"), err,
                                                    sizeof err) == 0, "live state: %s", err);
    /* The lost GPU's handle comes with GPU_IS_LOST, as from the driver. */
    for (unsigned i = 0; i < NGPU; i++)
        ck_assert_int_eq(p_nvmlDeviceGetHandleByIndex_v2(i, &gpu[i]),
                         i == LOST ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS);
}

static void setup(void) { start(0); }
static void setup_shared(void) { start(1); }

static void teardown(void)
{
    mk_state_close(&live);
    p_nvmlShutdown();
}

/* --- one thunk per getter: valid arguments, or a NULL output when `null` ---------- */

typedef nvmlReturn_t (*thunk)(nvmlDevice_t d, int null);

#define OUT(v) (null ? NULL : &(v))
#define T1(name, T) \
    static nvmlReturn_t t_##name(nvmlDevice_t d, int null) { T v; memset(&v, 0, sizeof v); return p_##name(d, OUT(v)); }
#define T2(name, T) \
    static nvmlReturn_t t_##name(nvmlDevice_t d, int null) { T a = 0, b = 0; return p_##name(d, OUT(a), &b); }
#define TA(name, arg, T) \
    static nvmlReturn_t t_##name(nvmlDevice_t d, int null) { T v; memset(&v, 0, sizeof v); return p_##name(d, arg, OUT(v)); }
#define TAA(name, a1, a2, T) \
    static nvmlReturn_t t_##name(nvmlDevice_t d, int null) { T v; memset(&v, 0, sizeof v); return p_##name(d, a1, a2, OUT(v)); }
#define TLIST(name, T) \
    static nvmlReturn_t t_##name(nvmlDevice_t d, int null) { unsigned n = 8; T v[8]; return p_##name(d, null ? NULL : &n, v); }

TA(nvmlDeviceGetTemperature, NVML_TEMPERATURE_GPU, unsigned)
TA(nvmlDeviceGetTemperatureThreshold, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, unsigned)
TA(nvmlDeviceGetThermalSettings, NVML_THERMAL_TARGET_ALL, nvmlGpuThermalSettings_t)
T1(nvmlDeviceGetFanSpeed, unsigned)
TA(nvmlDeviceGetFanSpeed_v2, 0, unsigned)
TA(nvmlDeviceGetTargetFanSpeed, 0, unsigned)
T1(nvmlDeviceGetNumFans, unsigned)
T2(nvmlDeviceGetMinMaxFanSpeed, unsigned)
TA(nvmlDeviceGetFanControlPolicy_v2, 0, nvmlFanControlPolicy_t)
T1(nvmlDeviceGetPowerUsage, unsigned)
T1(nvmlDeviceGetTotalEnergyConsumption, unsigned long long)
T1(nvmlDeviceGetPowerManagementMode, nvmlEnableState_t)
T1(nvmlDeviceGetPowerManagementLimit, unsigned)
T1(nvmlDeviceGetEnforcedPowerLimit, unsigned)
T1(nvmlDeviceGetPowerManagementDefaultLimit, unsigned)
T2(nvmlDeviceGetPowerManagementLimitConstraints, unsigned)
T1(nvmlDeviceGetPowerSource, nvmlPowerSource_t)
T1(nvmlDeviceGetPerformanceState, nvmlPstates_t)
T1(nvmlDeviceGetPowerState, nvmlPstates_t)
TA(nvmlDeviceGetClockInfo, NVML_CLOCK_SM, unsigned)
TA(nvmlDeviceGetMaxClockInfo, NVML_CLOCK_SM, unsigned)
TA(nvmlDeviceGetApplicationsClock, NVML_CLOCK_GRAPHICS, unsigned)
TA(nvmlDeviceGetDefaultApplicationsClock, NVML_CLOCK_MEM, unsigned)
TA(nvmlDeviceGetMaxCustomerBoostClock, NVML_CLOCK_GRAPHICS, unsigned)
TAA(nvmlDeviceGetClock, NVML_CLOCK_GRAPHICS, NVML_CLOCK_ID_CURRENT, unsigned)
TLIST(nvmlDeviceGetSupportedMemoryClocks, unsigned)
T1(nvmlDeviceGetCurrentClocksEventReasons, unsigned long long)
T1(nvmlDeviceGetCurrentClocksThrottleReasons, unsigned long long)
T1(nvmlDeviceGetSupportedClocksEventReasons, unsigned long long)
T1(nvmlDeviceGetSupportedClocksThrottleReasons, unsigned long long)
T2(nvmlDeviceGetAutoBoostedClocksEnabled, nvmlEnableState_t)
TA(nvmlDeviceGetViolationStatus, NVML_PERF_POLICY_POWER, nvmlViolationTime_t)
T1(nvmlDeviceGetUtilizationRates, nvmlUtilization_t)
T2(nvmlDeviceGetEncoderUtilization, unsigned)
T2(nvmlDeviceGetDecoderUtilization, unsigned)
T2(nvmlDeviceGetJpgUtilization, unsigned)
T2(nvmlDeviceGetOfaUtilization, unsigned)
TA(nvmlDeviceGetEncoderCapacity, NVML_ENCODER_QUERY_H264, unsigned)
TLIST(nvmlDeviceGetEncoderSessions, nvmlEncoderSessionInfo_t)
T1(nvmlDeviceGetFBCStats, nvmlFBCStats_t)
TLIST(nvmlDeviceGetFBCSessions, nvmlFBCSessionInfo_t)
TAA(nvmlDeviceGetTotalEccErrors, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, unsigned long long)
TAA(nvmlDeviceGetDetailedEccErrors, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, nvmlEccErrorCounts_t)
T1(nvmlDeviceGetRetiredPagesPendingStatus, nvmlEnableState_t)
T1(nvmlDeviceGetRemappedRows_v2, nvmlRemappedRowsInfo_v2_t)
T1(nvmlDeviceGetRowRemapperHistogram, nvmlRowRemapperHistogramValues_t)
TLIST(nvmlDeviceGetComputeRunningProcesses, nvmlProcessInfo_v1_t)
TLIST(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t)
TLIST(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_t)
TLIST(nvmlDeviceGetGraphicsRunningProcesses, nvmlProcessInfo_v1_t)
TLIST(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t)
TLIST(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_t)
TLIST(nvmlDeviceGetMPSComputeRunningProcesses, nvmlProcessInfo_v1_t)
TLIST(nvmlDeviceGetMPSComputeRunningProcesses_v2, nvmlProcessInfo_v2_t)
TLIST(nvmlDeviceGetMPSComputeRunningProcesses_v3, nvmlProcessInfo_t)
T1(nvmlDeviceGetAccountingMode, nvmlEnableState_t)
T1(nvmlDeviceGetAccountingBufferSize, unsigned)
T2(nvmlDeviceGetGpuOperationMode, nvmlGpuOperationMode_t)
T2(nvmlDeviceGetDriverModel, nvmlDriverModel_t)
T2(nvmlDeviceGetDriverModel_v2, nvmlDriverModel_t)
T1(nvmlDeviceGetMemoryBusWidth, unsigned)
TA(nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_RX_BYTES, unsigned)
T1(nvmlDeviceGetPcieReplayCounter, unsigned)
T1(nvmlDeviceGetIrqNum, unsigned)
T2(nvmlDeviceGetGspFirmwareMode, unsigned)

static nvmlReturn_t t_nvmlDeviceGetTemperatureV(nvmlDevice_t d, int null)
{
    nvmlTemperature_t t = { .version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU };
    return p_nvmlDeviceGetTemperatureV(d, OUT(t));
}

static nvmlReturn_t t_nvmlDeviceGetMarginTemperature(nvmlDevice_t d, int null)
{
    nvmlMarginTemperature_t m = { .version = nvmlMarginTemperature_v1 };
    return p_nvmlDeviceGetMarginTemperature(d, OUT(m));
}

static nvmlReturn_t t_nvmlDeviceGetSupportedPerformanceStates(nvmlDevice_t d, int null)
{
    nvmlPstates_t p[NVML_MAX_GPU_PERF_PSTATES];
    return p_nvmlDeviceGetSupportedPerformanceStates(d, null ? NULL : p, sizeof p);
}

/* Asks for the graphics clocks at the board's highest memory clock. */
static nvmlReturn_t t_nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t d, int null)
{
    unsigned mem = 0, n = 256, clocks[256];
    p_nvmlDeviceGetMaxClockInfo(d, NVML_CLOCK_MEM, &mem);
    return p_nvmlDeviceGetSupportedGraphicsClocks(d, mem, null ? NULL : &n, clocks);
}

static nvmlReturn_t t_nvmlDeviceGetEncoderStats(nvmlDevice_t d, int null)
{
    unsigned a, b, c;
    return p_nvmlDeviceGetEncoderStats(d, OUT(a), &b, &c);
}

static nvmlReturn_t t_nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t d, int null)
{
    unsigned long long v;
    return p_nvmlDeviceGetMemoryErrorCounter(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
                                             NVML_MEMORY_LOCATION_DRAM, OUT(v));
}

static nvmlReturn_t t_nvmlDeviceGetRetiredPages(nvmlDevice_t d, int null)
{
    unsigned n = 64;
    unsigned long long a[64];
    return p_nvmlDeviceGetRetiredPages(d, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, null ? NULL : &n, a);
}

static nvmlReturn_t t_nvmlDeviceGetRetiredPages_v2(nvmlDevice_t d, int null)
{
    unsigned n = 64;
    unsigned long long a[64], ts[64];
    return p_nvmlDeviceGetRetiredPages_v2(d, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
                                          null ? NULL : &n, a, ts);
}

static nvmlReturn_t t_nvmlDeviceGetRemappedRows(nvmlDevice_t d, int null)
{
    unsigned a, b, c, e;
    return p_nvmlDeviceGetRemappedRows(d, OUT(a), &b, &c, &e);
}

static nvmlReturn_t t_nvmlDeviceGetProcessUtilization(nvmlDevice_t d, int null)
{
    unsigned n = 8;
    nvmlProcessUtilizationSample_t s[8];
    return p_nvmlDeviceGetProcessUtilization(d, s, null ? NULL : &n, 0);
}

static nvmlReturn_t t_nvmlDeviceGetFieldValues(nvmlDevice_t d, int null)
{
    nvmlFieldValue_t v[2] = { { .fieldId = NVML_FI_DEV_ECC_CURRENT }, { .fieldId = NVML_FI_DEV_MEMORY_TEMP } };
    return p_nvmlDeviceGetFieldValues(d, 2, null ? NULL : v);
}

static nvmlReturn_t t_nvmlDeviceClearFieldValues(nvmlDevice_t d, int null)
{
    nvmlFieldValue_t v[1] = { { .fieldId = NVML_FI_DEV_ECC_SBE_VOL_TOTAL } };
    return p_nvmlDeviceClearFieldValues(d, 1, null ? NULL : v);
}

static nvmlReturn_t t_nvmlDeviceGetGspFirmwareVersion(nvmlDevice_t d, int null)
{
    char v[NVML_GSP_FIRMWARE_VERSION_BUF_SIZE];
    return p_nvmlDeviceGetGspFirmwareVersion(d, null ? NULL : v);
}

enum {
    MIG_OK = 1,     /* answers for MIG device handles too */
    NOT_LIVE = 2,   /* not telemetry: a lost GPU does not make it GPU_IS_LOST */
    NEVER = 4,      /* answers NOT_SUPPORTED (or NO_PERMISSION) everywhere */
};

static const struct getter {
    const char *name;
    thunk call;
    unsigned flags;
} getters[] = {
#define G(name, flags) { #name, t_##name, flags },
    G(nvmlDeviceGetTemperature, 0) G(nvmlDeviceGetTemperatureV, 0)
    G(nvmlDeviceGetTemperatureThreshold, 0) G(nvmlDeviceGetMarginTemperature, 0)
    G(nvmlDeviceGetThermalSettings, 0) G(nvmlDeviceGetFanSpeed, 0) G(nvmlDeviceGetFanSpeed_v2, 0)
    G(nvmlDeviceGetTargetFanSpeed, 0) G(nvmlDeviceGetNumFans, 0) G(nvmlDeviceGetMinMaxFanSpeed, 0)
    G(nvmlDeviceGetFanControlPolicy_v2, 0) G(nvmlDeviceGetPowerUsage, 0)
    G(nvmlDeviceGetTotalEnergyConsumption, 0) G(nvmlDeviceGetPowerManagementMode, 0)
    G(nvmlDeviceGetPowerManagementLimit, 0) G(nvmlDeviceGetEnforcedPowerLimit, 0)
    G(nvmlDeviceGetPowerManagementDefaultLimit, 0) G(nvmlDeviceGetPowerManagementLimitConstraints, 0)
    G(nvmlDeviceGetPowerSource, 0) G(nvmlDeviceGetPerformanceState, 0) G(nvmlDeviceGetPowerState, 0)
    G(nvmlDeviceGetSupportedPerformanceStates, 0) G(nvmlDeviceGetClockInfo, 0)
    G(nvmlDeviceGetMaxClockInfo, 0) G(nvmlDeviceGetApplicationsClock, 0)
    G(nvmlDeviceGetDefaultApplicationsClock, 0) G(nvmlDeviceGetMaxCustomerBoostClock, 0)
    G(nvmlDeviceGetClock, 0) G(nvmlDeviceGetSupportedMemoryClocks, 0)
    G(nvmlDeviceGetSupportedGraphicsClocks, 0) G(nvmlDeviceGetCurrentClocksEventReasons, 0)
    G(nvmlDeviceGetCurrentClocksThrottleReasons, 0) G(nvmlDeviceGetSupportedClocksEventReasons, 0)
    G(nvmlDeviceGetSupportedClocksThrottleReasons, 0) G(nvmlDeviceGetAutoBoostedClocksEnabled, NEVER)
    G(nvmlDeviceGetViolationStatus, 0) G(nvmlDeviceGetUtilizationRates, 0)
    G(nvmlDeviceGetEncoderUtilization, 0) G(nvmlDeviceGetDecoderUtilization, 0)
    G(nvmlDeviceGetJpgUtilization, 0) G(nvmlDeviceGetOfaUtilization, 0)
    G(nvmlDeviceGetEncoderCapacity, 0) G(nvmlDeviceGetEncoderStats, 0)
    G(nvmlDeviceGetEncoderSessions, 0) G(nvmlDeviceGetFBCStats, 0) G(nvmlDeviceGetFBCSessions, 0)
    G(nvmlDeviceGetTotalEccErrors, 0) G(nvmlDeviceGetDetailedEccErrors, 0)
    G(nvmlDeviceGetMemoryErrorCounter, MIG_OK) G(nvmlDeviceGetRetiredPages, 0)
    G(nvmlDeviceGetRetiredPages_v2, 0) G(nvmlDeviceGetRetiredPagesPendingStatus, 0)
    G(nvmlDeviceGetRemappedRows, 0) G(nvmlDeviceGetRemappedRows_v2, 0)
    G(nvmlDeviceGetRowRemapperHistogram, 0)
    G(nvmlDeviceGetComputeRunningProcesses, MIG_OK) G(nvmlDeviceGetComputeRunningProcesses_v2, MIG_OK)
    G(nvmlDeviceGetComputeRunningProcesses_v3, MIG_OK) G(nvmlDeviceGetGraphicsRunningProcesses, MIG_OK)
    G(nvmlDeviceGetGraphicsRunningProcesses_v2, MIG_OK)
    G(nvmlDeviceGetGraphicsRunningProcesses_v3, MIG_OK)
    G(nvmlDeviceGetMPSComputeRunningProcesses, MIG_OK)
    G(nvmlDeviceGetMPSComputeRunningProcesses_v2, MIG_OK)
    G(nvmlDeviceGetMPSComputeRunningProcesses_v3, MIG_OK) G(nvmlDeviceGetProcessUtilization, 0)
    G(nvmlDeviceGetAccountingMode, 0) G(nvmlDeviceGetAccountingBufferSize, 0)
    G(nvmlDeviceGetFieldValues, MIG_OK) G(nvmlDeviceClearFieldValues, NEVER)
    G(nvmlDeviceGetGpuOperationMode, 0) G(nvmlDeviceGetDriverModel, NEVER | NOT_LIVE)
    G(nvmlDeviceGetDriverModel_v2, NEVER | NOT_LIVE) G(nvmlDeviceGetMemoryBusWidth, 0)
    G(nvmlDeviceGetPcieThroughput, 0) G(nvmlDeviceGetPcieReplayCounter, 0) G(nvmlDeviceGetIrqNum, 0)
    G(nvmlDeviceGetGspFirmwareMode, 0) G(nvmlDeviceGetGspFirmwareVersion, 0)
#undef G
};
#define NGETTERS ((int)(sizeof getters / sizeof getters[0]))

/* --- the contract, getter by getter ------------------------------------------------------ */

START_TEST(before_init)
{
    const struct getter *g = &getters[_i];
    ck_assert_msg(g->call((nvmlDevice_t)(uintptr_t)0x1000, 0) == NVML_ERROR_UNINITIALIZED,
                  "%s before nvmlInit", g->name);
}
END_TEST

START_TEST(bad_handles)
{
    const struct getter *g = &getters[_i];
    static int not_a_handle[4];
    nvmlDevice_t bad[] = {
        NULL,
        (nvmlDevice_t)((char *)gpu[A100] + 1),        /* the middle of a handle */
        (nvmlDevice_t)(void *)&not_a_handle[1],
        (nvmlDevice_t)(uintptr_t)0xdeadbeef,
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        ck_assert_msg(g->call(bad[k], 0) == NVML_ERROR_INVALID_ARGUMENT, "%s: bad handle %zu: %d",
                      g->name, k, g->call(bad[k], 0));
}
END_TEST

/* A NULL output is INVALID_ARGUMENT where the call would succeed; where the
 * board lacks the feature, NOT_SUPPORTED may come first. */
START_TEST(null_outputs_and_support)
{
    const struct getter *g = &getters[_i];
    static const unsigned devs[] = { A100, T4, MIGGPU, RTX, H100 };
    int succeeded = 0;
    for (size_t k = 0; k < sizeof devs / sizeof devs[0]; k++) {
        nvmlReturn_t ok = g->call(gpu[devs[k]], 0), null = g->call(gpu[devs[k]], 1);
        succeeded |= ok == NVML_SUCCESS;
        if (ok == NVML_SUCCESS)
            ck_assert_msg(null == NVML_ERROR_INVALID_ARGUMENT, "%s(GPU %u, NULL) = %d", g->name, devs[k], null);
        else
            ck_assert_msg(null == NVML_ERROR_INVALID_ARGUMENT || null == ok, "%s(GPU %u): %d, with NULL %d",
                          g->name, devs[k], ok, null);
        if (g->flags & NEVER)
            ck_assert_msg(ok == NVML_ERROR_NOT_SUPPORTED || ok == NVML_ERROR_NO_PERMISSION,
                          "%s(GPU %u) = %d", g->name, devs[k], ok);
        else
            ck_assert_msg(ok == NVML_SUCCESS || ok == NVML_ERROR_NOT_SUPPORTED || ok == NVML_ERROR_NOT_FOUND,
                          "%s(GPU %u) = %d", g->name, devs[k], ok);
    }
    ck_assert_msg(succeeded || (g->flags & NEVER), "%s succeeds on none of the test GPUs", g->name);
}
END_TEST

START_TEST(lost_gpu)
{
    const struct getter *g = &getters[_i];
    nvmlReturn_t rc = g->call(gpu[LOST], 0);
    if (g->flags & NOT_LIVE)
        ck_assert_msg(rc != NVML_ERROR_GPU_IS_LOST && rc != NVML_SUCCESS, "%s on a lost GPU: %d", g->name, rc);
    else
        ck_assert_msg(rc == NVML_ERROR_GPU_IS_LOST, "%s on a lost GPU: %d", g->name, rc);
}
END_TEST

START_TEST(mig_device)
{
    const struct getter *g = &getters[_i];
    nvmlDevice_t mig;
    ck_assert_int_eq(p_nvmlDeviceGetMigDeviceHandleByIndex(gpu[MIGGPU], 0, &mig), NVML_SUCCESS);
    nvmlReturn_t rc = g->call(mig, 0);
    ck_assert_msg(rc == ((g->flags & MIG_OK) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED),
                  "%s on a MIG device: %d", g->name, rc);
}
END_TEST

/* --- values ----------------------------------------------------------------------------- */

START_TEST(lost_gpu_keeps_identity)
{
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlPciInfo_t pci;
    ck_assert_int_eq(p_nvmlDeviceGetUUID(gpu[LOST], uuid, sizeof uuid), NVML_SUCCESS);
    ck_assert(strncmp(uuid, "GPU-", 4) == 0);
    ck_assert_int_eq(p_nvmlDeviceGetPciInfo_v3(gpu[LOST], &pci), NVML_SUCCESS);
    ck_assert_int_eq(strlen(pci.busId), 16);
    unsigned t;
    ck_assert_int_eq(p_nvmlDeviceGetTemperature(gpu[A100], NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
}
END_TEST

START_TEST(thermal_values)
{
    unsigned t, v;
    ck_assert_int_eq(p_nvmlDeviceGetTemperature(gpu[A100], NVML_TEMPERATURE_GPU, &t), NVML_SUCCESS);
    ck_assert_uint_eq(t, 30); /* the profile's idle temperature */
    static const struct { nvmlTemperatureThresholds_t type; unsigned a100, t4; } th[] = {
        { NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 92, 96 },
        { NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, 89, 93 },
        { NVML_TEMPERATURE_THRESHOLD_MEM_MAX, 95, 0 },   /* the T4 has no memory sensor */
        { NVML_TEMPERATURE_THRESHOLD_GPU_MAX, 85, 85 },
        { NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN, 0, 0 },
        { NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR, 0, 83 },
        { NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX, 0, 0 },
        { NVML_TEMPERATURE_THRESHOLD_GPS_CURR, 0, 0 },
    };
    for (size_t i = 0; i < sizeof th / sizeof th[0]; i++) {
        unsigned want[2] = { th[i].a100, th[i].t4 };
        for (int k = 0; k < 2; k++) {
            nvmlReturn_t rc = p_nvmlDeviceGetTemperatureThreshold(gpu[k ? T4 : A100], th[i].type, &v);
            if (want[k]) {
                ck_assert_int_eq(rc, NVML_SUCCESS);
                ck_assert_uint_eq(v, want[k]);
            } else {
                ck_assert_msg(rc == NVML_ERROR_NOT_SUPPORTED, "threshold %d on GPU %d: %d", th[i].type, k, rc);
            }
        }
    }
    nvmlMarginTemperature_t m = { .version = nvmlMarginTemperature_v1 };
    ck_assert_int_eq(p_nvmlDeviceGetMarginTemperature(gpu[A100], &m), NVML_SUCCESS);
    ck_assert_int_eq(m.marginTemperature, 85 - 30);
    nvmlGpuThermalSettings_t s;
    ck_assert_int_eq(p_nvmlDeviceGetThermalSettings(gpu[A100], NVML_THERMAL_TARGET_ALL, &s), NVML_SUCCESS);
    ck_assert_uint_eq(s.count, 2);
    ck_assert_int_eq(s.sensor[0].target, NVML_THERMAL_TARGET_GPU);
    ck_assert_int_eq(s.sensor[0].currentTemp, 30);
    ck_assert_int_eq(s.sensor[1].target, NVML_THERMAL_TARGET_MEMORY);
    ck_assert_int_eq(p_nvmlDeviceGetThermalSettings(gpu[T4], 1, &s), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetThermalSettings(gpu[T4], 0, &s), NVML_SUCCESS);
    ck_assert_uint_eq(s.count, 1);
}
END_TEST

START_TEST(fan_values)
{
    unsigned v, lo, hi, n;
    ck_assert_int_eq(p_nvmlDeviceGetFanSpeed(gpu[A100], &v), NVML_ERROR_NOT_SUPPORTED);  /* SXM */
    ck_assert_int_eq(p_nvmlDeviceGetNumFans(gpu[A100], &n), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetNumFans(gpu[T4], &n), NVML_SUCCESS);
    ck_assert_uint_eq(n, 1);
    for (int i = 0; i < 20; i++) {
        ck_assert_int_eq(p_nvmlDeviceGetFanSpeed_v2(gpu[T4], 0, &v), NVML_SUCCESS);
        ck_assert_msg(v >= 35 && v <= 45, "fan speed %u outside 35-45", v);
    }
    ck_assert_int_eq(p_nvmlDeviceGetFanSpeed_v2(gpu[T4], 1, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetTargetFanSpeed(gpu[T4], 1, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetMinMaxFanSpeed(gpu[T4], &lo, &hi), NVML_SUCCESS);
    ck_assert(lo < hi && hi == 100);
}
END_TEST

START_TEST(power_values)
{
    unsigned v, lo, hi;
    ck_assert_int_eq(p_nvmlDeviceGetPowerUsage(gpu[A100], &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 53000);
    ck_assert_int_eq(p_nvmlDeviceGetPowerManagementLimit(gpu[A100], &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 400000);
    ck_assert_int_eq(p_nvmlDeviceGetPowerManagementLimitConstraints(gpu[T4], &lo, &hi), NVML_SUCCESS);
    ck_assert_uint_eq(lo, 60000);
    ck_assert_uint_eq(hi, 70000);
    nvmlPstates_t p[NVML_MAX_GPU_PERF_PSTATES];
    ck_assert_int_eq(p_nvmlDeviceGetSupportedPerformanceStates(gpu[T4], p, sizeof p), NVML_SUCCESS);
    ck_assert_int_eq(p[0], NVML_PSTATE_0);
    ck_assert_int_eq(p[1], NVML_PSTATE_8);
    ck_assert_int_eq(p[2], NVML_PSTATE_UNKNOWN);
    ck_assert_int_eq(p[NVML_MAX_GPU_PERF_PSTATES - 1], NVML_PSTATE_UNKNOWN);
    ck_assert_int_eq(p_nvmlDeviceGetSupportedPerformanceStates(gpu[T4], p, sizeof p[0]), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_int_eq(p_nvmlDeviceGetPerformanceState(gpu[T4], &p[0]), NVML_SUCCESS);
    ck_assert_int_eq(p[0], NVML_PSTATE_8);
}
END_TEST

/* Energy grows, also for a client that polls faster than a millijoule. */
START_TEST(energy_grows)
{
    unsigned long long e0, e1, e;
    ck_assert_int_eq(p_nvmlDeviceGetTotalEnergyConsumption(gpu[T4], &e0), NVML_SUCCESS);
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    ck_assert_int_eq(p_nvmlDeviceGetTotalEnergyConsumption(gpu[T4], &e1), NVML_SUCCESS);
    ck_assert_msg(e1 > e0, "energy %llu then %llu", e0, e1);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    /* The clock is read before each reading, so that the last reading comes
     * after 20 ms have passed, however long this process waits for a CPU. */
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
        ck_assert_int_eq(p_nvmlDeviceGetTotalEnergyConsumption(gpu[T4], &e), NVML_SUCCESS);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + now.tv_nsec - start.tv_nsec < 20000000L);
    /* 14 W for 20 ms: 280 mJ, whatever the polling rate */
    ck_assert_msg(e >= e1 + 200, "energy %llu after 20 ms of polling from %llu", e, e1);
}
END_TEST

START_TEST(clock_values)
{
    unsigned v, n, c[256];
    ck_assert_int_eq(p_nvmlDeviceGetClockInfo(gpu[A100], NVML_CLOCK_GRAPHICS, &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 210);
    ck_assert_int_eq(p_nvmlDeviceGetApplicationsClock(gpu[A100], NVML_CLOCK_SM, &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 1095);
    ck_assert_int_eq(p_nvmlDeviceGetApplicationsClock(gpu[A100], NVML_CLOCK_VIDEO, &v), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetClock(gpu[A100], NVML_CLOCK_GRAPHICS, NVML_CLOCK_ID_CUSTOMER_BOOST_MAX, &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 1410);
    ck_assert_int_eq(p_nvmlDeviceGetClock(gpu[A100], NVML_CLOCK_MEM, NVML_CLOCK_ID_APP_CLOCK_DEFAULT, &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 1215);
    ck_assert_int_eq(p_nvmlDeviceGetMaxCustomerBoostClock(gpu[A100], NVML_CLOCK_MEM, &v), NVML_ERROR_NOT_SUPPORTED);
    n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetSupportedMemoryClocks(gpu[T4], &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(p_nvmlDeviceGetSupportedMemoryClocks(gpu[T4], &n, c), NVML_SUCCESS);
    ck_assert_uint_eq(c[0], 5001);
    ck_assert_uint_eq(c[1], 405);
    n = 256;
    ck_assert_int_eq(p_nvmlDeviceGetSupportedGraphicsClocks(gpu[A100], 1215, &n, c), NVML_SUCCESS);
    ck_assert_uint_eq(n, 81);
    ck_assert_uint_eq(c[0], 1410);
    ck_assert_uint_eq(c[80], 210);
    for (unsigned i = 1; i < n; i++)
        ck_assert_uint_eq(c[i - 1] - c[i], 15);
    n = 10;
    ck_assert_int_eq(p_nvmlDeviceGetSupportedGraphicsClocks(gpu[A100], 1215, &n, c), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 81);
    ck_assert_int_eq(p_nvmlDeviceGetSupportedGraphicsClocks(gpu[A100], 1000, &n, c), NVML_ERROR_NOT_FOUND);
    unsigned long long r;
    ck_assert_int_eq(p_nvmlDeviceGetCurrentClocksEventReasons(gpu[A100], &r), NVML_SUCCESS);
    ck_assert_uint_eq(r, nvmlClocksEventReasonGpuIdle);
    nvmlEnableState_t a, b;
    ck_assert_int_eq(p_nvmlDeviceGetAutoBoostedClocksEnabled(gpu[A100], &a, &b), NVML_ERROR_NOT_SUPPORTED);
}
END_TEST

START_TEST(engine_values)
{
    unsigned u, period;
    ck_assert_int_eq(p_nvmlDeviceGetDecoderUtilization(gpu[A100], &u, &period), NVML_SUCCESS);
    ck_assert_uint_eq(u, 0);
    ck_assert_uint_eq(period, 167000);
    ck_assert_int_eq(p_nvmlDeviceGetJpgUtilization(gpu[A100], &u, &period), NVML_SUCCESS);
    ck_assert_int_eq(p_nvmlDeviceGetJpgUtilization(gpu[T4], &u, &period), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetEncoderCapacity(gpu[A100], NVML_ENCODER_QUERY_H264, &u), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetEncoderCapacity(gpu[T4], NVML_ENCODER_QUERY_HEVC, &u), NVML_SUCCESS);
    ck_assert_uint_eq(u, 100);
    ck_assert_int_eq(p_nvmlDeviceGetEncoderCapacity(gpu[T4], NVML_ENCODER_QUERY_AV1, &u), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetEncoderCapacity(gpu[RTX], NVML_ENCODER_QUERY_AV1, &u), NVML_SUCCESS);
    unsigned n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetEncoderSessions(gpu[T4], &n, NULL), NVML_SUCCESS);
    ck_assert_uint_eq(n, 0);
    unsigned w;
    ck_assert_int_eq(p_nvmlDeviceGetMemoryBusWidth(gpu[A100], &w), NVML_SUCCESS);
    ck_assert_uint_eq(w, 5120);
    ck_assert_int_eq(p_nvmlDeviceGetMemoryBusWidth(gpu[T4], &w), NVML_SUCCESS);
    ck_assert_uint_eq(w, 256);
}
END_TEST

START_TEST(ecc_off_and_on)
{
    unsigned long long c;
    unsigned a, b, x, y;
    ck_assert_int_eq(p_nvmlDeviceGetTotalEccErrors(gpu[RTX], NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &c),
                     NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetRemappedRows(gpu[RTX], &a, &b, &x, &y), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetTotalEccErrors(gpu[A100], NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &c),
                     NVML_SUCCESS);
    ck_assert_uint_eq(c, 0);
    ck_assert_int_eq(p_nvmlDeviceGetMemoryErrorCounter(gpu[A100], NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                                                       NVML_MEMORY_LOCATION_L2_CACHE, &c), NVML_SUCCESS);
    ck_assert_int_eq(p_nvmlDeviceGetMemoryErrorCounter(gpu[A100], NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                                                       NVML_MEMORY_LOCATION_CBU, &c), NVML_ERROR_NOT_SUPPORTED);
    /* Ampere remaps rows, Turing retires pages */
    ck_assert_int_eq(p_nvmlDeviceGetRemappedRows(gpu[A100], &a, &b, &x, &y), NVML_SUCCESS);
    ck_assert(a == 0 && b == 0 && x == 0 && y == 0);
    unsigned n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPages(gpu[A100], NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &n, NULL),
                     NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPages(gpu[T4], NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &n, NULL),
                     NVML_SUCCESS);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(p_nvmlDeviceGetRemappedRows(gpu[T4], &a, &b, &x, &y), NVML_ERROR_NOT_SUPPORTED);
    nvmlRowRemapperHistogramValues_t h;
    ck_assert_int_eq(p_nvmlDeviceGetRowRemapperHistogram(gpu[A100], &h), NVML_SUCCESS);
    ck_assert_uint_eq(h.max, 640);
    ck_assert_uint_eq(h.high + h.partial + h.low + h.none, 0);
}
END_TEST

/* Invalid enum values are INVALID_ARGUMENT, whatever else is right. */
START_TEST(invalid_enums)
{
    nvmlDevice_t d = gpu[A100];
    unsigned v, w;
    unsigned long long c;
    nvmlEccErrorCounts_t ec;
    nvmlViolationTime_t vt;
    ck_assert_int_eq(p_nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetTemperatureThreshold(d, NVML_TEMPERATURE_THRESHOLD_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetClockInfo(d, NVML_CLOCK_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetMaxClockInfo(d, (nvmlClockType_t)-1, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetClock(d, NVML_CLOCK_SM, NVML_CLOCK_ID_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_COUNT, NVML_VOLATILE_ECC, &c), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetDetailedEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_ECC_COUNTER_TYPE_COUNT, &ec), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetMemoryErrorCounter(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
                                                       NVML_MEMORY_LOCATION_COUNT, &c), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPages(gpu[T4], NVML_PAGE_RETIREMENT_CAUSE_COUNT, &v, NULL), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetEncoderCapacity(d, NVML_ENCODER_QUERY_UNKNOWN, &v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetViolationStatus(d, (nvmlPerfPolicyType_t)7, &vt), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetViolationStatus(d, NVML_PERF_POLICY_TOTAL_BASE_CLOCKS, &vt), NVML_SUCCESS);
    ck_assert_int_eq(p_nvmlDeviceGetThermalSettings(d, 3, &(nvmlGpuThermalSettings_t){ 0 }), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetFanSpeed_v2(gpu[T4], 7, &w), NVML_ERROR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(struct_versions)
{
    nvmlTemperature_t t = { .version = nvmlTemperature_v1 + 1, .sensorType = NVML_TEMPERATURE_GPU };
    ck_assert_int_eq(p_nvmlDeviceGetTemperatureV(gpu[A100], &t), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    t.version = 0;
    ck_assert_int_eq(p_nvmlDeviceGetTemperatureV(gpu[A100], &t), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    t.version = nvmlTemperature_v1;
    t.sensorType = NVML_TEMPERATURE_COUNT;
    ck_assert_int_eq(p_nvmlDeviceGetTemperatureV(gpu[A100], &t), NVML_ERROR_INVALID_ARGUMENT);
    t.sensorType = NVML_TEMPERATURE_GPU;
    ck_assert_int_eq(p_nvmlDeviceGetTemperatureV(gpu[A100], &t), NVML_SUCCESS);
    ck_assert_int_eq(t.temperature, 30);
    nvmlMarginTemperature_t m = { .version = 2u << 24 | sizeof m };
    ck_assert_int_eq(p_nvmlDeviceGetMarginTemperature(gpu[A100], &m), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
}
END_TEST

/* Too-small string buffers: one byte short fails, the exact size fits. */
START_TEST(string_buffers)
{
    typedef nvmlReturn_t (*str_getter)(nvmlDevice_t, char *, unsigned);
    const str_getter fns[] = { p_nvmlDeviceGetName, p_nvmlDeviceGetUUID, p_nvmlDeviceGetSerial,
                               p_nvmlDeviceGetVbiosVersion, p_nvmlDeviceGetBoardPartNumber };
    char buf[128], small[128];
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        ck_assert_int_eq(fns[i](gpu[A100], buf, sizeof buf), NVML_SUCCESS);
        unsigned len = (unsigned)strlen(buf);
        ck_assert_int_eq(fns[i](gpu[A100], small, len), NVML_ERROR_INSUFFICIENT_SIZE);
        ck_assert_int_eq(fns[i](gpu[A100], small, len + 1), NVML_SUCCESS);
        ck_assert_str_eq(small, buf);
        ck_assert_int_eq(fns[i](gpu[A100], NULL, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);
    }
    ck_assert_int_eq(p_nvmlSystemGetDriverVersion(small, 3), NVML_ERROR_INSUFFICIENT_SIZE);
    char gsp[NVML_GSP_FIRMWARE_VERSION_BUF_SIZE];
    ck_assert_int_eq(p_nvmlDeviceGetGspFirmwareVersion(gpu[A100], gsp), NVML_ERROR_NOT_SUPPORTED); /* Ampere on R535 */
    ck_assert_int_eq(p_nvmlDeviceGetGspFirmwareVersion(gpu[H100], gsp), NVML_SUCCESS);
    ck_assert_int_eq(p_nvmlSystemGetDriverVersion(buf, sizeof buf), NVML_SUCCESS);
    ck_assert_str_eq(gsp, buf);
}
END_TEST

/* NVML's count convention on the process lists. */
START_TEST(process_lists)
{
    nvmlProcessInfo_t v3[4];
    nvmlProcessInfo_v1_t v1[4];
    unsigned n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(gpu[A100], &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 2);
    n = 5;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(gpu[A100], &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 2);
    n = 1;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(gpu[A100], &n, v3), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 2);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(gpu[A100], &n, v3), NVML_SUCCESS);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(v3[0].pid, 4242);
    ck_assert_uint_eq(v3[0].usedGpuMemory, 2ull << 30);
    ck_assert_uint_eq(v3[0].gpuInstanceId, 0xFFFFFFFFu);
    ck_assert_uint_eq(v3[0].computeInstanceId, 0xFFFFFFFFu);
    ck_assert_uint_eq(v3[1].pid, 4343);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses(gpu[A100], &n, v1), NVML_SUCCESS);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(v1[1].pid, 4343);
    ck_assert_uint_eq(v1[1].usedGpuMemory, 512ull << 20);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetGraphicsRunningProcesses_v2(gpu[A100], &n, v3), NVML_SUCCESS);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(v3[0].pid, 4343);
    n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetMPSComputeRunningProcesses_v3(gpu[A100], &n, NULL), NVML_SUCCESS);
    ck_assert_uint_eq(n, 0);
    n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(gpu[T4], &n, NULL), NVML_SUCCESS);
    ck_assert_uint_eq(n, 0);
    /* in MIG mode, processes run in the first MIG device */
    nvmlDevice_t mig0, mig1;
    ck_assert_int_eq(p_nvmlDeviceGetMigDeviceHandleByIndex(gpu[MIGGPU], 0, &mig0), NVML_SUCCESS);
    ck_assert_int_eq(p_nvmlDeviceGetMigDeviceHandleByIndex(gpu[MIGGPU], 1, &mig1), NVML_SUCCESS);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(gpu[MIGGPU], &n, v3), NVML_SUCCESS);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_ne(v3[0].gpuInstanceId, 0xFFFFFFFFu);
    unsigned gi = v3[0].gpuInstanceId;
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(mig0, &n, v3), NVML_SUCCESS);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(v3[0].gpuInstanceId, gi);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetComputeRunningProcesses_v3(mig1, &n, v3), NVML_SUCCESS);
    ck_assert_uint_eq(n, 0);
    /* process utilisation: one sample per process, none without processes */
    nvmlProcessUtilizationSample_t s[4];
    n = 0;
    ck_assert_int_eq(p_nvmlDeviceGetProcessUtilization(gpu[A100], NULL, &n, 0), NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(p_nvmlDeviceGetProcessUtilization(gpu[A100], s, &n, 0), NVML_SUCCESS);
    ck_assert_uint_eq(s[1].pid, 4343);
    ck_assert_uint_gt(s[1].timeStamp, 0);
    ck_assert_int_eq(p_nvmlDeviceGetProcessUtilization(gpu[A100], s, &n, s[1].timeStamp + 60000000ull), NVML_ERROR_NOT_FOUND);
    ck_assert_int_eq(p_nvmlDeviceGetProcessUtilization(gpu[T4], NULL, &n, 0), NVML_ERROR_NOT_FOUND);
}
END_TEST

/* What nvidia-smi -q reads beside the getters above: the SXM module's
 * place, SRAM ECC status (Ampere and later, versioned), reset status. */
START_TEST(module_sram_and_reset_status)
{
    unsigned id = 99;
    ck_assert_int_eq(p_nvmlDeviceGetModuleId(gpu[A100], &id), NVML_SUCCESS);
    ck_assert_uint_eq(id, 1);                       /* SXM4 board, GPU 0 */
    ck_assert_int_eq(p_nvmlDeviceGetModuleId(gpu[H100], &id), NVML_SUCCESS);
    ck_assert_uint_eq(id, 6);
    ck_assert_int_eq(p_nvmlDeviceGetModuleId(gpu[T4], &id), NVML_SUCCESS);
    ck_assert_uint_eq(id, 0);                       /* a PCIe card is no module */
    ck_assert_int_eq(p_nvmlDeviceGetModuleId(gpu[A100], NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlEccSramErrorStatus_t st = { .version = nvmlEccSramErrorStatus_v1, .aggregateCor = 7 };
    ck_assert_int_eq(p_nvmlDeviceGetSramEccErrorStatus(gpu[A100], &st), NVML_SUCCESS);
    ck_assert_uint_eq(st.aggregateCor, 0);
    ck_assert_uint_eq(st.bThresholdExceeded, 0);
    ck_assert_uint_eq(st.version, nvmlEccSramErrorStatus_v1);
    st.version = 1;
    ck_assert_int_eq(p_nvmlDeviceGetSramEccErrorStatus(gpu[A100], &st),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    st.version = nvmlEccSramErrorStatus_v1;
    ck_assert_int_eq(p_nvmlDeviceGetSramEccErrorStatus(gpu[T4], &st), NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceGetSramEccErrorStatus(gpu[A100], NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlFieldValue_t v[] = { { .fieldId = NVML_FI_DEV_RESET_STATUS },
                             { .fieldId = NVML_FI_DEV_DRAIN_AND_RESET_STATUS } };
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[A100], 2, v), NVML_SUCCESS);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(v[i].nvmlReturn, NVML_SUCCESS);
        ck_assert_uint_eq(v[i].value.uiVal, 0);     /* healthy: no reset needed */
    }
}
END_TEST

START_TEST(field_values)
{
    nvmlFieldValue_t v[] = {
        { .fieldId = NVML_FI_DEV_ECC_CURRENT },
        { .fieldId = 9999 },
        { .fieldId = NVML_FI_DEV_MEMORY_TEMP },
        { .fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION },
        { .fieldId = 0 },
        { .fieldId = NVML_FI_DEV_POWER_INSTANT, .scopeId = NVML_POWER_SCOPE_GPU },
        { .fieldId = NVML_FI_DEV_POWER_INSTANT, .scopeId = NVML_POWER_SCOPE_MODULE },
        { .fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT },
        { .fieldId = NVML_FI_DEV_NVLINK_GET_SPEED, .scopeId = 11 },
        { .fieldId = NVML_FI_DEV_NVLINK_GET_SPEED, .scopeId = 12 },
        { .fieldId = NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL },
        { .fieldId = NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L11 },
        { .fieldId = NVML_FI_DEV_ECC_DBE_VOL_TOTAL },
        { .fieldId = NVML_FI_DEV_REMAPPED_UNC },
        { .fieldId = NVML_FI_DEV_RETIRED_DBE },
        { .fieldId = NVML_FI_DEV_POWER_CURRENT_LIMIT },
    };
    static const struct { nvmlReturn_t rc; nvmlValueType_t type; unsigned long long value; } want[] = {
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 1 },
        { NVML_ERROR_NOT_SUPPORTED, 0, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 32 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, ~0ull },   /* any */
        { NVML_ERROR_NOT_SUPPORTED, 0, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 53000 },
        { NVML_ERROR_NOT_SUPPORTED, 0, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 12 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 25000 },
        { NVML_ERROR_NOT_SUPPORTED, 0, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, 0 },
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 0 },
        { NVML_ERROR_NOT_SUPPORTED, 0, 0 },                          /* Ampere remaps rows */
        { NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 400000 },
    };
    const int n = (int)(sizeof v / sizeof v[0]);
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[A100], n, v), NVML_SUCCESS);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(v[i].nvmlReturn == want[i].rc, "field %u: %d", v[i].fieldId, v[i].nvmlReturn);
        ck_assert_msg(v[i].timestamp > 0 && v[i].latencyUsec == 0, "field %u: timestamp", v[i].fieldId);
        if (want[i].rc != NVML_SUCCESS)
            continue;
        ck_assert_msg(v[i].valueType == want[i].type, "field %u: type %d", v[i].fieldId, v[i].valueType);
        unsigned long long got = v[i].valueType == NVML_VALUE_TYPE_UNSIGNED_INT ? v[i].value.uiVal : v[i].value.ullVal;
        if (want[i].value != ~0ull)
            ck_assert_msg(got == want[i].value, "field %u: %llu, want %llu", v[i].fieldId, got, want[i].value);
    }
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[A100], -1, v), NVML_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[A100], 0, v), NVML_SUCCESS);
    /* ECC off: the mode answers, the counters do not */
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[RTX], 1, &v[0]), NVML_SUCCESS);
    ck_assert_int_eq(v[0].nvmlReturn, NVML_SUCCESS);
    ck_assert_uint_eq(v[0].value.uiVal, 0);
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[RTX], 1, &v[12]), NVML_SUCCESS);
    ck_assert_int_eq(v[12].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    /* a MIG device: the call succeeds, every whole-GPU field is unsupported */
    nvmlDevice_t mig;
    ck_assert_int_eq(p_nvmlDeviceGetMigDeviceHandleByIndex(gpu[MIGGPU], 1, &mig), NVML_SUCCESS);
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(mig, 1, &v[0]), NVML_SUCCESS);
    ck_assert_int_eq(v[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(p_nvmlDeviceClearFieldValues(gpu[A100], 1, v),
                     geteuid() == 0 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_NO_PERMISSION);
}
END_TEST

/* --- through the live state -------------------------------------------------------------- */

START_TEST(injected_ecc_errors)
{
    mk_state *st = &live;
    mk_state_raise_ecc(st, A100, 1, -1);
    mk_state_raise_ecc(st, T4, 1, -1);
    unsigned long long c;
    ck_assert_int_eq(p_nvmlDeviceGetTotalEccErrors(gpu[A100], NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &c),
                     NVML_SUCCESS);
    ck_assert_uint_eq(c, 1);
    ck_assert_int_eq(p_nvmlDeviceGetMemoryErrorCounter(gpu[A100], NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
                                                       NVML_MEMORY_LOCATION_DRAM, &c), NVML_SUCCESS);
    ck_assert_uint_eq(c, 1);
    unsigned corr, unc, pending, failed;
    ck_assert_int_eq(p_nvmlDeviceGetRemappedRows(gpu[A100], &corr, &unc, &pending, &failed), NVML_SUCCESS);
    ck_assert(corr == 0 && unc == 1 && pending == 1 && failed == 0);
    for (int i = 0; i < 8; i++)
        mk_state_raise_ecc(st, A100, 1, -1);
    ck_assert_int_eq(p_nvmlDeviceGetRemappedRows(gpu[A100], &corr, &unc, &pending, &failed), NVML_SUCCESS);
    ck_assert(unc == 8 && pending == 1 && failed == 1);
    nvmlRowRemapperHistogramValues_t h;
    ck_assert_int_eq(p_nvmlDeviceGetRowRemapperHistogram(gpu[A100], &h), NVML_SUCCESS);
    ck_assert(h.max == 639 && h.none == 1);
    nvmlFieldValue_t f[] = { { .fieldId = NVML_FI_DEV_REMAPPED_UNC }, { .fieldId = NVML_FI_DEV_REMAPPED_FAILURE },
                             { .fieldId = NVML_FI_DEV_ECC_DBE_AGG_TOTAL } };
    ck_assert_int_eq(p_nvmlDeviceGetFieldValues(gpu[A100], 3, f), NVML_SUCCESS);
    ck_assert_uint_eq(f[0].value.uiVal, 8);
    ck_assert_uint_eq(f[1].value.uiVal, 1);
    ck_assert_uint_eq(f[2].value.ullVal, 9);
    /* the T4 retired a page, pending until reset */
    unsigned n = 0;
    unsigned long long addr[4], ts[4];
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPages(gpu[T4], NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &n, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    ck_assert_uint_eq(n, 1);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPages_v2(gpu[T4], NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &n, addr, ts),
                     NVML_SUCCESS);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_ne(addr[0], 0);
    ck_assert_uint_ge(ts[0], (unsigned long long)time(NULL) - 60);
    n = 4;
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPages(gpu[T4], NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &n, addr),
                     NVML_SUCCESS);
    ck_assert_uint_eq(n, 0);
    nvmlEnableState_t p;
    ck_assert_int_eq(p_nvmlDeviceGetRetiredPagesPendingStatus(gpu[T4], &p), NVML_SUCCESS);
    ck_assert_int_eq(p, NVML_FEATURE_ENABLED);
}
END_TEST

/* Values pinned by `mokka inject --set` reach every getter that reads them. */
START_TEST(pinned_values)
{
    mk_state *st = &live;
    mk_state_pin(st, A100, MK_M_TEMP, 77);
    mk_state_pin(st, A100, MK_M_POWER, 300000);
    mk_state_pin(st, A100, MK_M_UTIL_GPU, 50);
    mk_state_pin(st, A100, MK_M_CLK_SM, 1410);
    unsigned v;
    ck_assert_int_eq(p_nvmlDeviceGetTemperature(gpu[A100], NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 77);
    nvmlMarginTemperature_t m = { .version = nvmlMarginTemperature_v1 };
    ck_assert_int_eq(p_nvmlDeviceGetMarginTemperature(gpu[A100], &m), NVML_SUCCESS);
    ck_assert_int_eq(m.marginTemperature, 85 - 77);
    ck_assert_int_eq(p_nvmlDeviceGetPowerUsage(gpu[A100], &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 300000);
    ck_assert_int_eq(p_nvmlDeviceGetClockInfo(gpu[A100], NVML_CLOCK_SM, &v), NVML_SUCCESS);
    ck_assert_uint_eq(v, 1410);
    nvmlUtilization_t u;
    ck_assert_int_eq(p_nvmlDeviceGetUtilizationRates(gpu[A100], &u), NVML_SUCCESS);
    ck_assert_uint_eq(u.gpu, 50);
    unsigned long long r;
    ck_assert_int_eq(p_nvmlDeviceGetCurrentClocksThrottleReasons(gpu[A100], &r), NVML_SUCCESS);
    ck_assert_uint_eq(r, nvmlClocksEventReasonNone);
    /* energy integrates the pinned draw: 300 W for 20 ms is 6 J */
    unsigned long long e0, e1;
    ck_assert_int_eq(p_nvmlDeviceGetTotalEnergyConsumption(gpu[A100], &e0), NVML_SUCCESS);
    nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
    ck_assert_int_eq(p_nvmlDeviceGetTotalEnergyConsumption(gpu[A100], &e1), NVML_SUCCESS);
    ck_assert_msg(e1 - e0 >= 5999, "%llu mJ in 20 ms at 300 W", e1 - e0);
    /* what the getters handed out is published for `mokka stats` */
    ck_assert_int_eq(atomic_load(&st->dev[A100].value[MK_M_TEMP]), 77);
}
END_TEST

int main(void)
{
    load_library();
    Suite *s = suite_create("nvml_getters");

    TCase *tc = tcase_create("uninitialized");
    tcase_add_loop_test(tc, before_init, 0, NGETTERS);
    suite_add_tcase(s, tc);

    tc = tcase_create("contract");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, bad_handles, 0, NGETTERS);
    tcase_add_loop_test(tc, null_outputs_and_support, 0, NGETTERS);
    tcase_add_loop_test(tc, lost_gpu, 0, NGETTERS);
    tcase_add_loop_test(tc, mig_device, 0, NGETTERS);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, lost_gpu_keeps_identity);
    tcase_add_test(tc, thermal_values);
    tcase_add_test(tc, fan_values);
    tcase_add_test(tc, power_values);
    tcase_add_test(tc, energy_grows);
    tcase_add_test(tc, clock_values);
    tcase_add_test(tc, engine_values);
    tcase_add_test(tc, ecc_off_and_on);
    tcase_add_test(tc, invalid_enums);
    tcase_add_test(tc, struct_versions);
    tcase_add_test(tc, string_buffers);
    tcase_add_test(tc, process_lists);
    tcase_add_test(tc, field_values);
    tcase_add_test(tc, module_sram_and_reset_status);
    suite_add_tcase(s, tc);

    tc = tcase_create("live state");
    tcase_add_checked_fixture(tc, setup_shared, teardown);
    tcase_add_test(tc, injected_ecc_errors);
    tcase_add_test(tc, pinned_values);
    suite_add_tcase(s, tc);

    return mk_test_run(s);
}
