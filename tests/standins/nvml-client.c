/* nvml-client.c - an NVML client that does what NVIDIA's device plugin does
 * at start and in its health checker, for checking a build of the library
 * on another architecture (tests/ship/arm64.sh runs the arm64 one under
 * qemu): dlopen("libnvidia-ml.so.1") by its SONAME as go-nvml does, init,
 * count, a handle, name, UUID and memory of every GPU, then XID events.
 *
 *   nvml-client [--xid-gpu N]
 *
 * One line per GPU on stdout ("gpu I NAME UUID total=B free=B"). With
 * --xid-gpu, waits up to 20 s for an XID event and checks it came from GPU
 * N (the config makes one, e.g. unhealthy_after_seconds); without, checks
 * that a short wait times out. Exit 0 when all held, 1 when one did not
 * (naming the call), 2 on a usage error. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi/nvml_abi.h"

#define CLIENT_FNS(X) \
    X(nvmlInit_v2) X(nvmlShutdown) X(nvmlErrorString) X(nvmlDeviceGetCount_v2) \
    X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetIndex) X(nvmlDeviceGetName) \
    X(nvmlDeviceGetUUID) X(nvmlDeviceGetMemoryInfo) X(nvmlEventSetCreate) \
    X(nvmlDeviceRegisterEvents) X(nvmlEventSetWait_v2) X(nvmlEventSetFree)

#define FN_FIELD(f) static __typeof__(&f) p_##f;
CLIENT_FNS(FN_FIELD)
#undef FN_FIELD

static int fail(const char *call, nvmlReturn_t r)
{
    fprintf(stderr, "nvml-client: %s: %s (%d)\n", call, p_nvmlErrorString(r), (int)r);
    return 1;
}

static int load(void)
{
    void *dl = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "nvml-client: cannot load libnvidia-ml.so.1: %s\n", dlerror());
        return 1;
    }
#define FN_LOAD(f)                                                            \
    if (!(p_##f = (__typeof__(&f))dlsym(dl, #f))) {                           \
        fprintf(stderr, "nvml-client: libnvidia-ml.so.1 has no %s\n", #f);    \
        return 1;                                                             \
    }
    CLIENT_FNS(FN_LOAD)
#undef FN_LOAD
    return 0;
}

static int list_devices(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        nvmlDevice_t d;
        char name[96], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        nvmlMemory_t mem;
        unsigned idx;
        nvmlReturn_t r;
        if ((r = p_nvmlDeviceGetHandleByIndex_v2(i, &d)) != NVML_SUCCESS)
            return fail("nvmlDeviceGetHandleByIndex_v2", r);
        if ((r = p_nvmlDeviceGetIndex(d, &idx)) != NVML_SUCCESS || idx != i)
            return fail("nvmlDeviceGetIndex", r);
        if ((r = p_nvmlDeviceGetName(d, name, sizeof name)) != NVML_SUCCESS)
            return fail("nvmlDeviceGetName", r);
        if ((r = p_nvmlDeviceGetUUID(d, uuid, sizeof uuid)) != NVML_SUCCESS)
            return fail("nvmlDeviceGetUUID", r);
        if ((r = p_nvmlDeviceGetMemoryInfo(d, &mem)) != NVML_SUCCESS)
            return fail("nvmlDeviceGetMemoryInfo", r);
        if (strncmp(uuid, "GPU-", 4) != 0 || mem.total == 0 || mem.free > mem.total) {
            fprintf(stderr, "nvml-client: GPU %u: implausible UUID '%s' or memory %llu/%llu\n",
                    i, uuid, mem.free, mem.total);
            return 1;
        }
        printf("gpu %u %s %s total=%llu free=%llu\n", i, name, uuid, mem.total, mem.free);
    }
    return 0;
}

/* Registers XID events on every GPU and waits as the plugin's health
 * checker does: for GPU xid_gpu's event, or (xid_gpu < 0) for a timeout. */
static int events(unsigned n, long xid_gpu)
{
    nvmlEventSet_t set;
    nvmlReturn_t r;
    if ((r = p_nvmlEventSetCreate(&set)) != NVML_SUCCESS)
        return fail("nvmlEventSetCreate", r);
    for (unsigned i = 0; i < n; i++) {
        nvmlDevice_t d;
        if ((r = p_nvmlDeviceGetHandleByIndex_v2(i, &d)) != NVML_SUCCESS)
            return fail("nvmlDeviceGetHandleByIndex_v2", r);
        if ((r = p_nvmlDeviceRegisterEvents(d, nvmlEventTypeXidCriticalError, set)) != NVML_SUCCESS)
            return fail("nvmlDeviceRegisterEvents", r);
    }
    nvmlEventData_t ev;
    int rc = 0;
    r = p_nvmlEventSetWait_v2(set, &ev, xid_gpu < 0 ? 100 : 20000);
    if (xid_gpu < 0) {
        if (r != NVML_ERROR_TIMEOUT)
            rc = fail("nvmlEventSetWait_v2 (expected a timeout, no event)", r);
        else
            printf("events: no XID within 100 ms, as expected\n");
    } else if (r != NVML_SUCCESS) {
        rc = fail("nvmlEventSetWait_v2 (waiting for an XID)", r);
    } else {
        unsigned idx = 0;
        p_nvmlDeviceGetIndex(ev.device, &idx);
        printf("events: XID %llu on gpu %u\n", ev.eventData, idx);
        if (ev.eventType != nvmlEventTypeXidCriticalError || idx != (unsigned)xid_gpu) {
            fprintf(stderr, "nvml-client: the event is type %#llx on GPU %u, not an XID on GPU %ld\n",
                    ev.eventType, idx, xid_gpu);
            rc = 1;
        }
    }
    p_nvmlEventSetFree(set);
    return rc;
}

int main(int argc, char **argv)
{
    long xid_gpu = -1;
    if (argc == 3 && strcmp(argv[1], "--xid-gpu") == 0) {
        char *end;
        xid_gpu = strtol(argv[2], &end, 10);
        if (*end || xid_gpu < 0) {
            fprintf(stderr, "nvml-client: --xid-gpu wants a GPU index, not '%s'\n", argv[2]);
            return 2;
        }
    } else if (argc != 1) {
        fprintf(stderr, "usage: nvml-client [--xid-gpu N]\n");
        return 2;
    }
    if (load() != 0)
        return 1;
    nvmlReturn_t r;
    unsigned n = 0;
    if ((r = p_nvmlInit_v2()) != NVML_SUCCESS)
        return fail("nvmlInit_v2", r);
    if ((r = p_nvmlDeviceGetCount_v2(&n)) != NVML_SUCCESS || n == 0)
        return fail("nvmlDeviceGetCount_v2", r);
    printf("count %u\n", n);
    int rc = list_devices(n);
    if (rc == 0)
        rc = events(n, xid_gpu);
    if ((r = p_nvmlShutdown()) != NVML_SUCCESS && rc == 0)
        rc = fail("nvmlShutdown", r);
    return rc;
}
