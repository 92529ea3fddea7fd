/* nvml.c - loading NVML the way gpu-feature-discovery does: dlopen of
 * libnvidia-ml.so.1, so a mock preloaded or on the library path answers. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "gfd.h"

static int sym(fg_nvml *n, void *slot, const char *name, char *err, size_t errlen)
{
    void *f = dlsym(n->lib, name);
    if (!f) {
        snprintf(err, errlen, "libnvidia-ml.so.1 has no %s", name);
        return -1;
    }
    memcpy(slot, &f, sizeof f);
    return 0;
}

int fg_nvml_load(fg_nvml *n, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    if (!(n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL))) {
        snprintf(err, errlen, "could not load NVML library: %s", dlerror());
        return -1;
    }
#define SYM(field, name) sym(n, &n->field, name, err, errlen)
    if (SYM(Init_v2, "nvmlInit_v2") || SYM(Shutdown, "nvmlShutdown") ||
        SYM(ErrorString, "nvmlErrorString") ||
        SYM(SystemGetDriverVersion, "nvmlSystemGetDriverVersion") ||
        SYM(SystemGetCudaDriverVersion, "nvmlSystemGetCudaDriverVersion") ||
        SYM(DeviceGetCount_v2, "nvmlDeviceGetCount_v2") ||
        SYM(DeviceGetHandleByIndex_v2, "nvmlDeviceGetHandleByIndex_v2") ||
        SYM(DeviceGetName, "nvmlDeviceGetName") ||
        SYM(DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo") ||
        SYM(DeviceGetCudaComputeCapability, "nvmlDeviceGetCudaComputeCapability") ||
        SYM(DeviceGetPciInfo_v3, "nvmlDeviceGetPciInfo_v3") ||
        SYM(DeviceGetMigMode, "nvmlDeviceGetMigMode") ||
        SYM(DeviceGetMaxMigDeviceCount, "nvmlDeviceGetMaxMigDeviceCount") ||
        SYM(DeviceGetMigDeviceHandleByIndex, "nvmlDeviceGetMigDeviceHandleByIndex") ||
        SYM(DeviceGetAttributes_v2, "nvmlDeviceGetAttributes_v2") ||
        SYM(DeviceGetGpuFabricInfo, "nvmlDeviceGetGpuFabricInfo")) {
        dlclose(n->lib);
        n->lib = NULL;
        return -1;
    }
#undef SYM
    return 0;
}
