/* nvml_fabric.c - the GPU fabric chapter: whether a GPU has registered with
 * the NVLink fabric (NVSwitch systems, multi-node NVLink racks), its cluster
 * UUID and clique id, and the fabric's health. The answer is the universe's
 * fabric (config_fabric.c) with what `mokka inject` set over it in the live
 * state; a GPU without a fabric answers NOT_SUPPORTED, as the driver does
 * (go-nvlib's IsFabricAttached and GFD's clique label read that as "no
 * fabric"). */
#include "fabric.h"
#include "nvml_impl.h"

/* The fabric of a whole, not lost GPU now, for a caller's struct at out;
 * NOT_SUPPORTED (counted against fn) without one. */
static nvmlReturn_t fabric_now(nvmlDevice_t device, mk_fn fn, const void *out, mk_fabric *f)
{
    mk_ref r;
    MK_LIVE(device, &r);
    uint64_t live = atomic_load_explicit(&mk_L.st.dev[r.gpu].fabric, memory_order_relaxed);
    /* No override makes a fabric of a GPU that has none. */
    *f = r.d->fabric.state == MK_FABRIC_NOT_SUPPORTED ? r.d->fabric : mk_fabric_now(r.d, live);
    if (f->state == MK_FABRIC_NOT_SUPPORTED)
        return mk_unsupported(fn);
    MK_NONNULL(out);
    return NVML_SUCCESS;
}

/* The fields every version has, each where the caller's struct has it. */
static void fill(const mk_fabric *f, unsigned char *uuid, nvmlReturn_t *status, unsigned *clique,
                 nvmlGpuFabricState_t *state)
{
    memcpy(uuid, f->cluster, NVML_GPU_FABRIC_UUID_LEN);
    *status = (nvmlReturn_t)f->status;
    *clique = f->clique;
    *state = (nvmlGpuFabricState_t)f->state;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)
{
    mk_fabric f;
    MK_ENTER(nvmlDeviceGetGpuFabricInfo);
    nvmlReturn_t rc = fabric_now(device, MK_FN_nvmlDeviceGetGpuFabricInfo, gpuFabricInfo, &f);
    if (rc)
        return rc;
    fill(&f, gpuFabricInfo->clusterUuid, &gpuFabricInfo->status, &gpuFabricInfo->cliqueId,
         &gpuFabricInfo->state);
    return NVML_SUCCESS;
}

/* The versioned struct: v2 adds the health mask, v3 (NVML 13) the health
 * summary; the caller's version field says which one it passed. */
MK_API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
    mk_fabric f;
    MK_ENTER(nvmlDeviceGetGpuFabricInfoV);
    nvmlReturn_t rc = fabric_now(device, MK_FN_nvmlDeviceGetGpuFabricInfoV, gpuFabricInfo, &f);
    if (rc)
        return rc;
    unsigned version = gpuFabricInfo->version;
    if (version != nvmlGpuFabricInfo_v2 && version != nvmlGpuFabricInfo_v3)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    /* v2 is v3 without its last field: only v3 callers have room for it. */
    nvmlGpuFabricInfo_v2_t *v2 = (nvmlGpuFabricInfo_v2_t *)gpuFabricInfo;
    fill(&f, v2->clusterUuid, &v2->status, &v2->cliqueId, &v2->state);
    v2->healthMask = mk_fabric_health_mask(f.health);
    if (version == nvmlGpuFabricInfo_v3)
        gpuFabricInfo->healthSummary = (unsigned char)mk_fabric_health_summary(f.health);
    return NVML_SUCCESS;
}
