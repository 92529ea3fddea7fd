/* nvml_enum.c - finding devices: count, handles by index, UUID, serial and
 * PCI bus id, and a device's index and minor number, all within the
 * process's view (NVIDIA_VISIBLE_DEVICES, visible.h): indexes are the
 * view's, and what it hides is not found. */
#include <stdio.h>
#include <strings.h>
#include "nvml_impl.h"

static nvmlReturn_t count(unsigned int *deviceCount)
{
    MK_NONNULL(deviceCount);
    *deviceCount = (unsigned)mk_L.vis.n;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    MK_ENTER(nvmlDeviceGetCount_v2);
    return count(deviceCount);
}

MK_API nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
    MK_ENTER(nvmlDeviceGetCount);
    return count(deviceCount);
}

static nvmlReturn_t by_index(unsigned int index, nvmlDevice_t *device)
{
    MK_NONNULL(device);
    if (index >= mk_L.vis.n)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = mk_gpu_handle(mk_L.vis.gpu[index]);
    /* As the driver does for a GPU that fell off the bus; the handle is
     * still written, and its identity stays readable. */
    return mk_gpu_lost(mk_L.vis.gpu[index]) ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    MK_ENTER(nvmlDeviceGetHandleByIndex_v2);
    return by_index(index, device);
}

MK_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    MK_ENTER(nvmlDeviceGetHandleByIndex);
    return by_index(index, device);
}

/* GPU and MIG UUIDs both resolve: the device plugin looks MIG devices up by
 * their UUID to register health events. */
static nvmlReturn_t by_uuid(const char *uuid, nvmlDevice_t *device)
{
    const mk_universe *u = mk_universe_now();
    MK_NONNULL(uuid);
    MK_NONNULL(device);
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        if (!mk_gpu_shown(i))
            continue;
        if (strcmp(d->uuid, uuid) == 0) {
            *device = mk_gpu_handle(i);
            return NVML_SUCCESS;
        }
        for (unsigned j = 0; j < d->nmig; j++)
            if (mk_visible_mig(&mk_L.vis, i, j) && strcmp(d->mig[j].uuid, uuid) == 0) {
                *device = mk_mig_handle(i, j);
                return NVML_SUCCESS;
            }
    }
    return NVML_ERROR_NOT_FOUND;
}

MK_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    MK_ENTER(nvmlDeviceGetHandleByUUID);
    return by_uuid(uuid, device);
}

MK_API nvmlReturn_t nvmlDeviceGetHandleByUUIDV(const nvmlUUID_t *uuid, nvmlDevice_t *device)
{
    MK_ENTER(nvmlDeviceGetHandleByUUIDV);
    MK_NONNULL(uuid);
    if (uuid->type != NVML_UUID_TYPE_ASCII)
        MK_UNSUPPORTED(nvmlDeviceGetHandleByUUIDV);
    return by_uuid(uuid->value.str, device);
}

MK_API nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device)
{
    const mk_universe *u;
    MK_ENTER(nvmlDeviceGetHandleBySerial);
    MK_NONNULL(serial);
    MK_NONNULL(device);
    u = mk_universe_now();
    for (unsigned i = 0; i < u->ndev; i++)
        if (mk_gpu_shown(i) && strcmp(u->dev[i].serial, serial) == 0) {
            *device = mk_gpu_handle(i);
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

/* Accepts "domain:bus:device.function" with any width of hex domain, and
 * "bus:device.function" (domain 0), case-insensitively, as NVML does. */
static nvmlReturn_t by_bus_id(const char *bus, nvmlDevice_t *device)
{
    unsigned dom = 0, b, dv, fn = 0;
    char tail;
    MK_NONNULL(bus);
    MK_NONNULL(device);
    if (sscanf(bus, "%x:%x:%x.%x%c", &dom, &b, &dv, &fn, &tail) != 4 &&
        sscanf(bus, "%x:%x:%x%c", &dom, &b, &dv, &tail) != 3) {
        dom = 0;
        if (sscanf(bus, "%x:%x.%x%c", &b, &dv, &fn, &tail) != 3)
            return NVML_ERROR_INVALID_ARGUMENT;
    }
    const mk_universe *u = mk_universe_now();
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        if (mk_gpu_shown(i) && d->pci_domain == dom && d->pci_bus == b && d->pci_dev == dv && d->pci_func == fn) {
            *device = mk_gpu_handle(i);
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

MK_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    MK_ENTER(nvmlDeviceGetHandleByPciBusId_v2);
    return by_bus_id(pciBusId, device);
}

MK_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
    MK_ENTER(nvmlDeviceGetHandleByPciBusId);
    return by_bus_id(pciBusId, device);
}

MK_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetIndex);
    MK_ANY(device, &r);
    MK_NONNULL(index);
    if (!mk_gpu_shown(r.gpu))
        return NVML_ERROR_INVALID_ARGUMENT;
    /* A MIG device answers its index on its GPU: nvidia-smi's MIG table
     * shows it as "MIG Dev", and skips devices without one. */
    *index = r.mig >= 0 ? (unsigned)r.mig : (unsigned)mk_L.vis.pos[r.gpu];
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMinorNumber);
    MK_GPU(device, &r);
    MK_NONNULL(minorNumber);
    *minorNumber = r.d->minor;
    return NVML_SUCCESS;
}
