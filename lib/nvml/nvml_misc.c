/* nvml_misc.c - the remaining device queries that monitoring tools read at
 * start-up: GPU operation mode, driver model, memory bus width, PCIe
 * throughput and replays, IRQ, and GSP firmware. */
#include <stdio.h>
#include "nvml_getters.h"

MK_API nvmlReturn_t nvmlDeviceGetGpuOperationMode(nvmlDevice_t device, nvmlGpuOperationMode_t *current, nvmlGpuOperationMode_t *pending)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuOperationMode);
    MK_LIVE(device, &r);
    MK_NONNULL(current);
    MK_NONNULL(pending);
    *current = *pending = NVML_GOM_ALL_ON;
    return NVML_SUCCESS;
}

/* Driver models are a Windows notion: Linux drivers answer NOT_SUPPORTED. */
static nvmlReturn_t driver_model(nvmlDevice_t device, mk_fn fn)
{
    mk_ref r;
    MK_GPU(device, &r);
    return mk_unsupported(fn);
}

MK_API nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    MK_ENTER(nvmlDeviceGetDriverModel);
    (void)current;
    (void)pending;
    return driver_model(device, MK_FN_nvmlDeviceGetDriverModel);
}

MK_API nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    MK_ENTER(nvmlDeviceGetDriverModel_v2);
    (void)current;
    (void)pending;
    return driver_model(device, MK_FN_nvmlDeviceGetDriverModel_v2);
}

/* Memory interface width in bits, by PCI device id (published specs). */
static unsigned bus_width(uint32_t pci_device_id)
{
    static const struct { uint16_t id; uint16_t bits; } table[] = {
        { 0x1EB8, 256 },   /* T4: GDDR6 */
        { 0x20B0, 5120 },  /* A100-SXM4-40GB: HBM2 */
        { 0x20B2, 5120 },  /* A100-SXM4-80GB: HBM2e */
        { 0x2236, 384 },   /* A10: GDDR6 */
        { 0x2330, 5120 },  /* H100 SXM5: HBM3 */
        { 0x2331, 5120 },  /* H100 PCIe: HBM2e */
        { 0x2335, 6144 },  /* H200: HBM3e */
        { 0x26B1, 384 },   /* RTX 6000 Ada: GDDR6 */
        { 0x26B9, 384 },   /* L40S: GDDR6 */
        { 0x27B8, 192 },   /* L4: GDDR6 */
        { 0x2901, 8192 },  /* B200: HBM3e */
        { 0x2941, 8192 },  /* GB200: HBM3e */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].id == pci_device_id >> 16)
            return table[i].bits;
    return 0;
}

MK_API nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMemoryBusWidth);
    MK_LIVE(device, &r);
    MK_NONNULL(busWidth);
    unsigned bits = bus_width(r.d->pci_device_id);
    if (!bits)
        MK_UNSUPPORTED(nvmlDeviceGetMemoryBusWidth);
    *busWidth = bits;
    return NVML_SUCCESS;
}

/* KB/s over the last 20 ms: the virtual GPUs move no data over PCIe. */
MK_API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPcieThroughput);
    MK_LIVE(device, &r);
    MK_NONNULL(value);
    if ((unsigned)counter >= NVML_PCIE_UTIL_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    *value = 0;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPcieReplayCounter);
    MK_LIVE(device, &r);
    MK_NONNULL(value);
    *value = 0;
    return NVML_SUCCESS;
}

/* One MSI vector per GPU, numbered the way the kernel hands them out. */
MK_API nvmlReturn_t nvmlDeviceGetIrqNum(nvmlDevice_t device, unsigned int *irqNum)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetIrqNum);
    MK_LIVE(device, &r);
    MK_NONNULL(irqNum);
    *irqNum = 150 + r.gpu;
    return NVML_SUCCESS;
}

/* The GSP firmware runs the GPU on Hopper and later with every driver, and
 * on Turing and later from the R555 drivers on. */
static int gsp_enabled(const mk_ref *r)
{
    unsigned major = 0;
    sscanf(r->u->driver_version, "%u", &major);
    return r->d->arch >= NVML_DEVICE_ARCH_HOPPER ||
           (r->d->arch >= NVML_DEVICE_ARCH_TURING && major >= 555);
}

MK_API nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int *isEnabled, unsigned int *defaultMode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGspFirmwareMode);
    MK_LIVE(device, &r);
    MK_NONNULL(isEnabled);
    MK_NONNULL(defaultMode);
    *isEnabled = *defaultMode = (unsigned)gsp_enabled(&r);
    return NVML_SUCCESS;
}

/* The firmware ships with the driver and carries its version; the buffer
 * is NVML_GSP_FIRMWARE_VERSION_BUF_SIZE bytes by contract. */
MK_API nvmlReturn_t nvmlDeviceGetGspFirmwareVersion(nvmlDevice_t device, char *version)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGspFirmwareVersion);
    MK_LIVE(device, &r);
    MK_NONNULL(version);
    if (!gsp_enabled(&r))
        MK_UNSUPPORTED(nvmlDeviceGetGspFirmwareVersion);
    return mk_copy_str(version, NVML_GSP_FIRMWARE_VERSION_BUF_SIZE, r.u->driver_version);
}
