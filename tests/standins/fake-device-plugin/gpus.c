/* gpus.c - loading NVML the way NVIDIA's plugin does (dlopen of
 * libnvidia-ml.so.1, so a mock preloaded or on the library path answers)
 * and listing the GPUs: UUID, NUMA node from sysfs, lost or not. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugin.h"

const char *mk_nvml_error(const mk_plugin *p, nvmlReturn_t r)
{
    static char buf[32];
    if (p->nvml.ErrorString)
        return p->nvml.ErrorString(r);
    snprintf(buf, sizeof buf, "NVML error %d", r);
    return buf;
}

/* Resolves one entry point; -1 with err when the library lacks it. */
static int sym(mk_plugin *p, void *slot, const char *name, char *err, size_t errlen)
{
    void *f = dlsym(p->nvml.lib, name);
    if (!f) {
        snprintf(err, errlen, "libnvidia-ml.so.1 has no %s", name);
        return -1;
    }
    memcpy(slot, &f, sizeof f);
    return 0;
}

int mk_gpus_init_nvml(mk_plugin *p, char *err, size_t errlen)
{
    mk_nvml *n = &p->nvml;
    n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        snprintf(err, errlen, "could not load NVML library: %s", dlerror());
        return -1;
    }
    if (sym(p, &n->ErrorString, "nvmlErrorString", err, errlen) ||
        sym(p, &n->Init_v2, "nvmlInit_v2", err, errlen) ||
        sym(p, &n->Shutdown, "nvmlShutdown", err, errlen) ||
        sym(p, &n->DeviceGetCount_v2, "nvmlDeviceGetCount_v2", err, errlen) ||
        sym(p, &n->DeviceGetHandleByIndex_v2, "nvmlDeviceGetHandleByIndex_v2", err, errlen) ||
        sym(p, &n->DeviceGetUUID, "nvmlDeviceGetUUID", err, errlen) ||
        sym(p, &n->DeviceGetPciInfo_v3, "nvmlDeviceGetPciInfo_v3", err, errlen) ||
        sym(p, &n->DeviceGetSupportedEventTypes, "nvmlDeviceGetSupportedEventTypes", err, errlen) ||
        sym(p, &n->DeviceRegisterEvents, "nvmlDeviceRegisterEvents", err, errlen) ||
        sym(p, &n->EventSetCreate, "nvmlEventSetCreate", err, errlen) ||
        sym(p, &n->EventSetWait_v2, "nvmlEventSetWait_v2", err, errlen) ||
        sym(p, &n->EventSetFree, "nvmlEventSetFree", err, errlen))
        goto fail;
    nvmlReturn_t r = n->Init_v2();
    if (r != NVML_SUCCESS) {
        snprintf(err, errlen, "failed to initialize NVML: %s", mk_nvml_error(p, r));
        goto fail;
    }
    return 0;

fail:
    dlclose(n->lib);
    memset(n, 0, sizeof *n);
    return -1;
}

/* NUMA node of a GPU from /sys/bus/pci/devices/<bus id>/numa_node, where
 * the bus id is NVML's with the domain cut to 4 digits, in lower case, as
 * NVIDIA's plugin reads it. -1 when absent or negative. */
static int numa_node(const char *bus_id)
{
    char id[32], path[128];
    snprintf(id, sizeof id, "%s", strncmp(bus_id, "0000", 4) == 0 ? bus_id + 4 : bus_id);
    for (char *c = id; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", id);
    FILE *f = fopen(path, "r");
    int node = -1;
    if (f) {
        if (fscanf(f, "%d", &node) != 1 || node < 0)
            node = -1;
        fclose(f);
    }
    return node;
}

/* One GPU; -1 (with err) when it cannot be named. A GPU lost after it gave
 * its UUID is kept, unhealthy. */
static int list_one(mk_plugin *p, unsigned int i, mk_gpu *g, char *err, size_t errlen)
{
    mk_nvml *n = &p->nvml;
    nvmlReturn_t r = n->DeviceGetHandleByIndex_v2(i, &g->handle);
    if (r == NVML_SUCCESS)
        r = n->DeviceGetUUID(g->handle, g->uuid, sizeof g->uuid);
    if (r != NVML_SUCCESS) {
        snprintf(err, errlen, "error getting UUID of device %u: %s", i, mk_nvml_error(p, r));
        return -1;
    }
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    r = n->DeviceGetPciInfo_v3(g->handle, &pci);
    g->numa = r == NVML_SUCCESS ? numa_node(pci.busId) : -1;
    g->lost = r == NVML_ERROR_GPU_IS_LOST;
    if (r != NVML_SUCCESS && !g->lost) {
        snprintf(err, errlen, "error getting PCI Bus Info of device %s: %s", g->uuid,
                 mk_nvml_error(p, r));
        return -1;
    }
    g->healthy = !g->lost;
    return 0;
}

int mk_gpus_list(mk_plugin *p, char *err, size_t errlen)
{
    unsigned int count = 0;
    nvmlReturn_t r = p->nvml.DeviceGetCount_v2(&count);
    if (r != NVML_SUCCESS) {
        snprintf(err, errlen, "error getting device count: %s", mk_nvml_error(p, r));
        return -1;
    }
    p->gpu = count ? calloc(count, sizeof *p->gpu) : NULL;
    if (count && !p->gpu) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned int i = 0; i < count; i++)
        if (list_one(p, i, &p->gpu[i], err, errlen))
            return -1;
    p->ngpu = count;
    for (size_t i = 0; i < p->ngpu; i++)
        mk_log('I', "Found GPU %zu: %s (NUMA node %d)%s", i, p->gpu[i].uuid, p->gpu[i].numa,
               p->gpu[i].lost ? "; GPU is lost, marking it unhealthy" : "");
    return 0;
}

void mk_gpus_reset_health(mk_plugin *p)
{
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->ngpu; i++) {
        /* Asked again, as a restarted plugin would list it anew. */
        nvmlPciInfo_t pci;
        nvmlReturn_t r = p->nvml.DeviceGetPciInfo_v3(p->gpu[i].handle, &pci);
        p->gpu[i].lost = r == NVML_ERROR_GPU_IS_LOST;
        p->gpu[i].healthy = !p->gpu[i].lost;
        if (p->gpu[i].lost)
            mk_log('I', "GPU %s is lost; it stays unhealthy", p->gpu[i].uuid);
    }
    pthread_mutex_unlock(&p->mu);
}

void mk_gpus_shutdown(mk_plugin *p)
{
    if (!p->nvml.lib)
        return;
    nvmlReturn_t r = p->nvml.Shutdown();
    if (r != NVML_SUCCESS)
        mk_log('I', "Error shutting down NVML: %s", mk_nvml_error(p, r));
    /* No dlclose: in NVIDIA's plugin the library stays loaded after its
     * first use, and a library may keep state across nvmlShutdown that only
     * its own statics point to. */
    memset(&p->nvml, 0, sizeof p->nvml);
    free(p->gpu);
    p->gpu = NULL;
    p->ngpu = 0;
}
