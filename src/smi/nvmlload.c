/* nvmlload.c - dlopen/dlsym of the NVML functions smi uses (see
 * nvmlload.h). The library is never dlclosed: NVML keeps process-lifetime
 * state (handles stay valid across init/shutdown pairs, driver threads),
 * and unmapping it under that state is what crashes hosts and makes
 * LeakSanitizer report it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "nvmlload.h"

int mk_nvml_open(mk_nvml *n, const char *lib, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    n->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!n->dl) {
        snprintf(err, errlen, "cannot load %s: %s", lib, dlerror());
        return -1;
    }
#define MK_NVML_SYM(name) *(void **)&n->name = dlsym(n->dl, #name);
    MK_NVML_FNS(MK_NVML_SYM)
#undef MK_NVML_SYM
    Dl_info info;
    if (n->nvmlInit_v2 && dladdr((void *)n->nvmlInit_v2, &info) && info.dli_fname)
        snprintf(n->path, sizeof n->path, "%s", info.dli_fname);
    else
        snprintf(n->path, sizeof n->path, "%s", lib);
    if (!n->nvmlInit_v2 || !n->nvmlShutdown || !n->nvmlErrorString ||
        !n->nvmlDeviceGetCount_v2 || !n->nvmlDeviceGetHandleByIndex_v2) {
        snprintf(err, errlen, "%s is not an NVML library (nvmlInit_v2, nvmlDeviceGetCount_v2 "
                 "or nvmlDeviceGetHandleByIndex_v2 missing)", n->path);
        n->dl = NULL;
        return -1;
    }
    nvmlReturn_t rc = n->nvmlInit_v2();
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlInit_v2 failed in %s: %s (NVML error %d)", n->path,
                 n->nvmlErrorString(rc), (int)rc);
        n->dl = NULL;
        return -1;
    }
    return 0;
}

void mk_nvml_close(mk_nvml *n)
{
    if (!n->dl)
        return;
    n->nvmlShutdown();
    n->dl = NULL;
}
