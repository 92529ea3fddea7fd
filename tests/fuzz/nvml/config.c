/* config.c (fuzz target "config") - drives the config loader the way a
 * host program does: the input is written to a file MOCK_CONFIG_PATH names,
 * then nvmlInit_v2, getters on the GPUs and MIG devices it gives (identity,
 * memory, thermals, power, clocks, processes, topology), and nvmlShutdown.
 *
 * The NVML entry points are linked in from their objects (build/
 * libmokkanvml.a) rather than dlopen'd from libnvidia-ml.so.1: one
 * instrumented program whose coverage, ASan and LeakSanitizer see the
 * library as well as the loader, with no second copy of the core and no
 * sanitizer runtime to preload. The live state stays in private memory
 * (no MOKKA_STATE_DIR), so inputs do not share a state file.
 * -close_fd_mask=2: the library's stderr line for each config it refuses
 * would fill the log; libFuzzer's and the sanitizers' reports still show.
 *
 * fuzz-flags: -max_len=16384 -close_fd_mask=2 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "abi/nvml_abi.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "config: %s fails\n", #cond); abort(); } } while (0)
/* Devices looked at per input: enough for every code path, fast with 4096. */
#define MAX_LOOKED_AT 16

static char dir[] = "/tmp/mokka-fuzz-config-XXXXXX";
static char path[sizeof dir + 16];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(path, sizeof path, "%s/config.yaml", dir);
    atexit(cleanup);
    setenv("MOCK_CONFIG_PATH", path, 1);
    setenv("MOKKA_NODE_NAME", "fuzz-node", 1);  /* UUIDs independent of the host */
    unsetenv("MOKKA_CONFIG");
    unsetenv("MOKKA_STATE_DIR");
    return 0;
}

/* A string getter's answer fits its buffer and ends in NUL. */
static void string_ok(nvmlReturn_t rc, const char *buf, size_t len)
{
    if (rc == NVML_SUCCESS)
        CHECK(memchr(buf, 0, len) != NULL);
}

static void query(nvmlDevice_t d)
{
    char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    unsigned v, cur, pending;
    nvmlMemory_t mem;
    nvmlPciInfo_t pci;
    nvmlUtilization_t util;
    string_ok(nvmlDeviceGetName(d, s, sizeof s), s, sizeof s);
    string_ok(nvmlDeviceGetUUID(d, s, sizeof s), s, sizeof s);
    string_ok(nvmlDeviceGetSerial(d, s, sizeof s), s, sizeof s);
    if (nvmlDeviceGetMemoryInfo(d, &mem) == NVML_SUCCESS)
        CHECK(mem.used <= mem.total);
    (void)nvmlDeviceGetPciInfo_v3(d, &pci);
    (void)nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &v);
    (void)nvmlDeviceGetPowerUsage(d, &v);
    (void)nvmlDeviceGetEnforcedPowerLimit(d, &v);
    (void)nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &v);
    (void)nvmlDeviceGetFanSpeed(d, &v);
    (void)nvmlDeviceGetUtilizationRates(d, &util);
    nvmlProcessInfo_t procs[8];
    unsigned nprocs = 8;
    (void)nvmlDeviceGetComputeRunningProcesses_v3(d, &nprocs, procs);
    unsigned long cpus[4];
    (void)nvmlDeviceGetCpuAffinity(d, 4, cpus);
    nvmlEnableState_t link;
    (void)nvmlDeviceGetNvLinkState(d, 0, &link);
    if (nvmlDeviceGetMigMode(d, &cur, &pending) == NVML_SUCCESS &&
        nvmlDeviceGetMaxMigDeviceCount(d, &v) == NVML_SUCCESS) {
        for (unsigned i = 0; i < v && i < MAX_LOOKED_AT; i++) {
            nvmlDevice_t mig;
            if (nvmlDeviceGetMigDeviceHandleByIndex(d, i, &mig) == NVML_SUCCESS) {
                string_ok(nvmlDeviceGetUUID(mig, s, sizeof s), s, sizeof s);
                (void)nvmlDeviceGetMemoryInfo(mig, &mem);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);
    if (nvmlInit_v2() != NVML_SUCCESS)
        return 0;
    unsigned n = 0;
    CHECK(nvmlDeviceGetCount_v2(&n) == NVML_SUCCESS);
    nvmlDevice_t first = NULL;
    for (unsigned i = 0; i < n; i++) {
        if (i == MAX_LOOKED_AT && i < n - 1)
            i = n - 1;
        nvmlDevice_t d;
        CHECK(nvmlDeviceGetHandleByIndex_v2(i, &d) == NVML_SUCCESS);
        unsigned index;
        CHECK(nvmlDeviceGetIndex(d, &index) == NVML_SUCCESS && index == i);
        query(d);
        if (!first)
            first = d;
        nvmlGpuTopologyLevel_t level;
        (void)nvmlDeviceGetTopologyCommonAncestor(first, d, &level);
    }
    CHECK(nvmlShutdown() == NVML_SUCCESS);
    return 0;
}
