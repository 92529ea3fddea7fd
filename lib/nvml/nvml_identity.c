/* nvml_identity.c - who a device is: name, UUID, serial, board, brand,
 * architecture, compute capability, PCI info (every version), VBIOS and
 * inforom versions, and its fixed modes. */
#include <stdio.h>
#include <string.h>
#include "nvml_impl.h"

MK_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetName);
    MK_ANY(device, &r);
    if (!r.m)
        return mk_copy_str(name, length, r.d->name);
    /* A MIG device is named after its parent and profile, like the driver does. */
    char buf[MK_NAME_LEN + MK_SHORT_LEN + 8];
    snprintf(buf, sizeof buf, "%s MIG %s", r.d->name, r.d->migp[r.m->profile].name);
    return mk_copy_str(name, length, buf);
}

MK_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetUUID);
    MK_ANY(device, &r);
    return mk_copy_str(uuid, length, r.m ? r.m->uuid : r.d->uuid);
}

MK_API nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetSerial);
    MK_GPU(device, &r);
    return mk_copy_str(serial, length, r.d->serial);
}

MK_API nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetBoardPartNumber);
    MK_GPU(device, &r);
    return mk_copy_str(partNumber, length, r.d->board_part);
}

MK_API nvmlReturn_t nvmlDeviceGetBoardId(nvmlDevice_t device, unsigned int *boardId)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetBoardId);
    MK_GPU(device, &r);
    MK_NONNULL(boardId);
    /* Real boards number themselves from the PCI location when unset. */
    *boardId = r.d->board_id ? r.d->board_id : (r.d->pci_bus << 8) | (r.d->pci_dev << 3);
    return NVML_SUCCESS;
}

/* Whether the GPU is a baseboard module: the SXM profiles (whose names do
 * not all say so: "NVIDIA H100 80GB HBM3"), B200 and GB200, which come
 * only as modules, or a GPU of no profile named SXM. */
static int baseboard_module(const mk_device *d)
{
    return strstr(d->profile, "sxm") || strcmp(d->profile, "b200") == 0 ||
           strcmp(d->profile, "gb200") == 0 || strstr(d->name, "SXM");
}

/* An SXM module's place on its 8-GPU baseboard, 1 to 8; NVML documents 0
 * for boards that are not baseboard modules (PCIe cards). */
MK_API nvmlReturn_t nvmlDeviceGetModuleId(nvmlDevice_t device, unsigned int *moduleId)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetModuleId);
    MK_GPU(device, &r);
    MK_NONNULL(moduleId);
    *moduleId = baseboard_module(r.d) ? r.gpu % 8 + 1 : 0;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMultiGpuBoard(nvmlDevice_t device, unsigned int *multiGpuBool)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMultiGpuBoard);
    MK_GPU(device, &r);
    MK_NONNULL(multiGpuBool);
    *multiGpuBool = 0;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetBrand);
    MK_ANY(device, &r);
    MK_NONNULL(type);
    *type = (nvmlBrandType_t)r.d->brand;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetArchitecture);
    MK_ANY(device, &r);
    MK_NONNULL(arch);
    *arch = r.d->arch;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetCudaComputeCapability);
    MK_ANY(device, &r);
    MK_NONNULL(major);
    MK_NONNULL(minor);
    *major = r.d->cc_major;
    *minor = r.d->cc_minor;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int *numCores)
{
    static const unsigned per_sm[] = { [6] = 64, [7] = 64, [8] = 128, [9] = 128, [10] = 128 };
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNumGpuCores);
    MK_GPU(device, &r);
    MK_NONNULL(numCores);
    unsigned k = r.d->arch < sizeof per_sm / sizeof per_sm[0] && per_sm[r.d->arch] ? per_sm[r.d->arch] : 64;
    *numCores = r.d->sm_count * k;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetVbiosVersion);
    MK_GPU(device, &r);
    return mk_copy_str(version, length, r.d->vbios);
}

MK_API nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetInforomImageVersion);
    MK_GPU(device, &r);
    return mk_copy_str(version, length, r.d->inforom_image);
}

MK_API nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, nvmlInforomObject_t object, char *version, unsigned int length)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetInforomVersion);
    MK_GPU(device, &r);
    const char *v;
    switch (object) {
    case NVML_INFOROM_OEM: v = r.d->inforom_oem; break;
    case NVML_INFOROM_ECC: v = r.d->inforom_ecc; break;
    case NVML_INFOROM_POWER: v = r.d->inforom_pwr; break;
    default: return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!v[0] || strcmp(v, "N/A") == 0)
        MK_UNSUPPORTED(nvmlDeviceGetInforomVersion);
    return mk_copy_str(version, length, v);
}

/* --- PCI ------------------------------------------------------------------------ */

/* Writes the fields every version of nvmlPciInfo_t has: the legacy bus id in
 * the first 16 bytes and the numbers after it. */
static void pci_common(const mk_device *d, nvmlPciInfo_t *pci)
{
    mk_copy_field(pci->busIdLegacy, sizeof pci->busIdLegacy, d->bus_id_legacy);
    pci->domain = d->pci_domain;
    pci->bus = d->pci_bus;
    pci->device = d->pci_dev;
    pci->pciDeviceId = d->pci_device_id;
    pci->pciSubSystemId = d->pci_subsys_id;
}

MK_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPciInfo_v3);
    MK_ANY(device, &r);
    MK_NONNULL(pci);
    pci_common(r.d, pci);
    mk_copy_field(pci->busId, sizeof pci->busId, r.d->bus_id);
    return NVML_SUCCESS;
}

/* The older versions' callers may have a struct that ends after
 * pciSubSystemId (the 16-byte bus id era): nothing beyond is written. */
MK_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPciInfo_v2);
    MK_ANY(device, &r);
    MK_NONNULL(pci);
    pci_common(r.d, pci);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPciInfo);
    MK_ANY(device, &r);
    MK_NONNULL(pci);
    pci_common(r.d, pci);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_t *pci)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPciInfoExt);
    MK_ANY(device, &r);
    MK_NONNULL(pci);
    if (pci->version != nvmlPciInfoExt_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    pci->domain = r.d->pci_domain;
    pci->bus = r.d->pci_bus;
    pci->device = r.d->pci_dev;
    pci->pciDeviceId = r.d->pci_device_id;
    pci->pciSubSystemId = r.d->pci_subsys_id;
    pci->baseClass = 0x03;  /* display controller */
    pci->subClass = 0x02;   /* 3D controller, as datacenter GPUs report */
    mk_copy_field(pci->busId, sizeof pci->busId, r.d->bus_id);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMaxPcieLinkGeneration);
    MK_GPU(device, &r);
    MK_NONNULL(maxLinkGen);
    *maxLinkGen = r.d->pcie_max_gen;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGenDevice)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuMaxPcieLinkGeneration);
    MK_GPU(device, &r);
    MK_NONNULL(maxLinkGenDevice);
    *maxLinkGenDevice = r.d->pcie_max_gen;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMaxPcieLinkWidth);
    MK_GPU(device, &r);
    MK_NONNULL(maxLinkWidth);
    *maxLinkWidth = r.d->pcie_max_width;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetCurrPcieLinkGeneration);
    MK_LIVE(device, &r);
    MK_NONNULL(currLinkGen);
    *currLinkGen = r.d->pcie_gen;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetCurrPcieLinkWidth);
    MK_LIVE(device, &r);
    MK_NONNULL(currLinkWidth);
    *currLinkWidth = r.d->pcie_width;
    return NVML_SUCCESS;
}

/* MB/s per lane by PCIe generation. */
static unsigned lane_speed(unsigned gen)
{
    static const unsigned mbps[] = { 0, 250, 500, 985, 1969, 3938, 7563 };
    return gen < sizeof mbps / sizeof mbps[0] ? mbps[gen] : 0;
}

MK_API nvmlReturn_t nvmlDeviceGetPcieSpeed(nvmlDevice_t device, unsigned int *pcieSpeed)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPcieSpeed);
    MK_LIVE(device, &r);
    MK_NONNULL(pcieSpeed);
    *pcieSpeed = lane_speed(r.d->pcie_gen) * r.d->pcie_width;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetPcieLinkMaxSpeed(nvmlDevice_t device, unsigned int *maxSpeed)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPcieLinkMaxSpeed);
    MK_GPU(device, &r);
    MK_NONNULL(maxSpeed);
    *maxSpeed = lane_speed(r.d->pcie_max_gen) * r.d->pcie_max_width;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetBusType(nvmlDevice_t device, nvmlBusType_t *type)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetBusType);
    MK_GPU(device, &r);
    MK_NONNULL(type);
    *type = NVML_BUS_TYPE_PCIE;
    return NVML_SUCCESS;
}

/* --- fixed modes ------------------------------------------------------------------ */

static nvmlEnableState_t enabled(int on)
{
    return on ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
}

MK_API nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetPersistenceMode);
    MK_GPU(device, &r);
    MK_NONNULL(mode);
    *mode = enabled(r.d->persistence);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetComputeMode);
    MK_GPU(device, &r);
    MK_NONNULL(mode);
    *mode = (nvmlComputeMode_t)r.d->compute_mode;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *display)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetDisplayMode);
    MK_GPU(device, &r);
    MK_NONNULL(display);
    *display = NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *isActive)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetDisplayActive);
    MK_GPU(device, &r);
    MK_NONNULL(isActive);
    *isActive = NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetEccMode);
    MK_GPU(device, &r);
    MK_NONNULL(current);
    MK_NONNULL(pending);
    *current = *pending = enabled(r.d->ecc_enabled);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetDefaultEccMode(nvmlDevice_t device, nvmlEnableState_t *defaultMode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetDefaultEccMode);
    MK_GPU(device, &r);
    MK_NONNULL(defaultMode);
    *defaultMode = enabled(r.d->ecc_enabled);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *pVirtualMode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetVirtualizationMode);
    MK_GPU(device, &r);
    MK_NONNULL(pVirtualMode);
    *pVirtualMode = NVML_GPU_VIRTUALIZATION_MODE_NONE;
    return NVML_SUCCESS;
}
