/* nvml_mig.c - MIG: modes, MIG device handles, GPU and compute instances,
 * and the profile tables, as the device plugin (through go-nvlib) reads them
 * for --mig-strategy=single and mixed.
 *
 * Each configured MIG device is one GPU instance holding one compute
 * instance that spans it (what `nvidia-smi mig -cgi ... -C` makes). GPU
 * instance profiles come from the GPU's profile table; compute instance
 * profiles are derived from the GPU instance by slice count, the way the
 * driver offers them (1, 2, 3, 4, 7 or 8 slices, each at most the GI's). The
 * compute-instance profile id is its NVML index, so that a CI's profileId
 * and the profile table agree (go-nvlib matches them). MIG devices and GPU
 * instances that the process's view hides (visible.h) are not listed. */
#include <stdio.h>
#include "nvml_impl.h"

/* Slices of each NVML_COMPUTE_INSTANCE_PROFILE_* index. */
static const unsigned ci_slices[] = { 1, 2, 3, 4, 7, 8, 6 };
#define N_CI_PROFILES (sizeof ci_slices / sizeof ci_slices[0])

static const mk_mig_profile *gi_profile_by_index(const mk_device *d, unsigned idx)
{
    for (size_t i = 0; i < d->nmigp; i++)
        if (d->migp[i].nvml_profile == idx)
            return &d->migp[i];
    return NULL;
}

static const mk_mig_profile *gi_profile_by_id(const mk_device *d, unsigned id)
{
    for (size_t i = 0; i < d->nmigp; i++)
        if (d->migp[i].id == id)
            return &d->migp[i];
    return NULL;
}

static unsigned ci_index_for(unsigned slices)
{
    for (unsigned j = 0; j < N_CI_PROFILES; j++)
        if (ci_slices[j] == slices)
            return j;
    return 0;
}

/* A GPU that can do MIG at all (else MIG queries are NOT_SUPPORTED). */
static nvmlReturn_t mig_gpu(nvmlDevice_t h, mk_ref *r)
{
    nvmlReturn_t rc = mk_gpu(h, r);
    if (rc == NVML_SUCCESS && !r->d->mig_slices)
        return NVML_ERROR_NOT_SUPPORTED;
    return rc;
}

static nvmlReturn_t mig_dev(nvmlDevice_t h, mk_ref *r)
{
    nvmlReturn_t rc = mk_any(h, r);
    if (rc == NVML_SUCCESS && r->mig < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    return rc;
}

static nvmlReturn_t gi_ref(nvmlGpuInstance_t gi, mk_ref *r)
{
    uintptr_t p = (uintptr_t)gi;
    if (!mk_L.gis || p - (uintptr_t)mk_L.gis >= mk_L.nmigs * sizeof *mk_L.gis ||
        (p - (uintptr_t)mk_L.gis) % sizeof *mk_L.gis)
        return NVML_ERROR_INVALID_ARGUMENT;
    return mk_any(mk_mig_handle(gi->gpu, gi->mig), r);
}

static nvmlReturn_t ci_ref(nvmlComputeInstance_t ci, mk_ref *r)
{
    uintptr_t p = (uintptr_t)ci;
    if (!mk_L.cis || p - (uintptr_t)mk_L.cis >= mk_L.nmigs * sizeof *mk_L.cis ||
        (p - (uintptr_t)mk_L.cis) % sizeof *mk_L.cis)
        return NVML_ERROR_INVALID_ARGUMENT;
    return mk_any(mk_mig_handle(ci->gpu, ci->mig), r);
}

#define MK_MIG_GPU(h, r) do { nvmlReturn_t rc_ = mig_gpu((h), (r)); if (rc_) return rc_; } while (0)
#define MK_MIG_DEV(h, r) do { nvmlReturn_t rc_ = mig_dev((h), (r)); if (rc_) return rc_; } while (0)

/* --- modes and MIG device handles ---------------------------------------------- */

MK_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMigMode);
    nvmlReturn_t rc = mig_gpu(device, &r);
    if (rc == NVML_ERROR_NOT_SUPPORTED)
        MK_UNSUPPORTED(nvmlDeviceGetMigMode);
    if (rc)
        return rc;
    MK_NONNULL(currentMode);
    MK_NONNULL(pendingMode);
    *currentMode = *pendingMode = r.d->mig_enabled ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMaxMigDeviceCount);
    MK_MIG_GPU(device, &r);
    MK_NONNULL(count);
    *count = r.d->mig_slices;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMigDeviceHandleByIndex);
    MK_MIG_GPU(device, &r);
    MK_NONNULL(migDevice);
    if (index >= r.d->mig_slices)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!r.d->mig_enabled)
        return NVML_ERROR_NOT_FOUND;
    /* the index-th MIG device this process's view shows (visible.h) */
    for (unsigned j = 0, k = 0; j < r.d->nmig; j++)
        if (mk_visible_mig(&mk_L.vis, r.gpu, j) && k++ == index) {
            *migDevice = mk_mig_handle(r.gpu, j);
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

MK_API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceIsMigDeviceHandle);
    MK_ANY(device, &r);
    MK_NONNULL(isMigDevice);
    *isMigDevice = r.mig >= 0;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetDeviceHandleFromMigDeviceHandle);
    MK_MIG_DEV(migDevice, &r);
    MK_NONNULL(device);
    *device = mk_gpu_handle(r.gpu);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuInstanceId);
    MK_MIG_DEV(device, &r);
    MK_NONNULL(id);
    *id = r.m->gi_id;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetComputeInstanceId);
    MK_MIG_DEV(device, &r);
    MK_NONNULL(id);
    *id = r.m->ci_id;
    return NVML_SUCCESS;
}

/* Attributes of a MIG device describe its slice of the GPU; of a whole GPU,
 * the whole GPU. */
static nvmlReturn_t attributes(nvmlDevice_t device, nvmlDeviceAttributes_t *a)
{
    mk_ref r;
    MK_ANY(device, &r);
    MK_NONNULL(a);
    memset(a, 0, sizeof *a);
    if (r.m) {
        const mk_mig_profile *p = &r.d->migp[r.m->profile];
        a->multiprocessorCount = p->sms;
        a->sharedCopyEngineCount = p->copy_engines;
        a->sharedDecoderCount = p->decoders;
        a->sharedEncoderCount = p->encoders;
        a->sharedJpegCount = p->jpegs;
        a->sharedOfaCount = p->ofas;
        a->gpuInstanceSliceCount = p->slices;
        a->computeInstanceSliceCount = p->slices;
        a->memorySizeMB = p->memory >> 20;
    } else {
        a->multiprocessorCount = r.d->sm_count;
        a->gpuInstanceSliceCount = r.d->mig_slices ? r.d->mig_slices : 1;
        a->computeInstanceSliceCount = a->gpuInstanceSliceCount;
        a->memorySizeMB = r.d->mem_total >> 20;
    }
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes_)
{
    MK_ENTER(nvmlDeviceGetAttributes_v2);
    return attributes(device, attributes_);
}

MK_API nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes_)
{
    MK_ENTER(nvmlDeviceGetAttributes);
    return attributes(device, attributes_);
}

/* --- GPU-instance profiles -------------------------------------------------------- */

static void fill_gi_name(char *dst, size_t len, const mk_mig_profile *p)
{
    snprintf(dst, len, "MIG %s", p->name);
}

#define FILL_GI_COMMON(info, p) do { \
        (info)->id = (p)->id; \
        (info)->sliceCount = (p)->slices; \
        (info)->instanceCount = (p)->max_instances; \
        (info)->multiprocessorCount = (p)->sms; \
        (info)->copyEngineCount = (p)->copy_engines; \
        (info)->decoderCount = (p)->decoders; \
        (info)->encoderCount = (p)->encoders; \
        (info)->jpegCount = (p)->jpegs; \
        (info)->ofaCount = (p)->ofas; \
        (info)->memorySizeMB = (p)->memory >> 20; \
    } while (0)

/* The profile for an NVML profile index; NOT_SUPPORTED when the GPU has none
 * (go-nvlib walks every index and skips those). */
static nvmlReturn_t gi_profile(nvmlDevice_t device, unsigned profile, const mk_mig_profile **out)
{
    mk_ref r;
    MK_MIG_GPU(device, &r);
    if (profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    *out = gi_profile_by_index(r.d, profile);
    return *out ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_t *info)
{
    const mk_mig_profile *p;
    MK_ENTER(nvmlDeviceGetGpuInstanceProfileInfo);
    nvmlReturn_t rc = gi_profile(device, profile, &p);
    if (rc)
        return rc;
    MK_NONNULL(info);
    memset(info, 0, sizeof *info);
    FILL_GI_COMMON(info, p);
    return NVML_SUCCESS;
}

static nvmlReturn_t gi_info_v(const mk_mig_profile *p, void *out)
{
    unsigned version = *(unsigned *)out;
    if (version == nvmlGpuInstanceProfileInfo_v2) {
        nvmlGpuInstanceProfileInfo_v2_t *info = out;
        memset(info, 0, sizeof *info);
        info->version = version;
        FILL_GI_COMMON(info, p);
        fill_gi_name(info->name, sizeof info->name, p);
        return NVML_SUCCESS;
    }
    if (version == nvmlGpuInstanceProfileInfo_v3) {
        nvmlGpuInstanceProfileInfo_v3_t *info = out;
        memset(info, 0, sizeof *info);
        info->version = version;
        FILL_GI_COMMON(info, p);
        fill_gi_name(info->name, sizeof info->name, p);
        return NVML_SUCCESS;
    }
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_v2_t *info)
{
    const mk_mig_profile *p;
    MK_ENTER(nvmlDeviceGetGpuInstanceProfileInfoV);
    nvmlReturn_t rc = gi_profile(device, profile, &p);
    if (rc)
        return rc;
    MK_NONNULL(info);
    return gi_info_v(p, info);
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoByIdV(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstanceProfileInfo_v2_t *info)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuInstanceProfileInfoByIdV);
    MK_MIG_GPU(device, &r);
    MK_NONNULL(info);
    const mk_mig_profile *p = gi_profile_by_id(r.d, profileId);
    if (!p)
        return NVML_ERROR_INVALID_ARGUMENT;
    return gi_info_v(p, info);
}

static nvmlReturn_t placements(nvmlDevice_t device, unsigned profileId,
                               nvmlGpuInstancePlacement_t *out, unsigned *count)
{
    mk_ref r;
    MK_MIG_GPU(device, &r);
    MK_NONNULL(count);
    const mk_mig_profile *p = gi_profile_by_id(r.d, profileId);
    if (!p)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!out) {
        *count = p->nplacements;
        return NVML_SUCCESS;
    }
    if (*count < p->nplacements) {
        *count = p->nplacements;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < p->nplacements; i++)
        out[i] = (nvmlGpuInstancePlacement_t){ p->placements[i], p->placement_size };
    *count = p->nplacements;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstancePlacement_t *placements_, unsigned int *count)
{
    MK_ENTER(nvmlDeviceGetGpuInstancePossiblePlacements_v2);
    return placements(device, profileId, placements_, count);
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstancePlacement_t *placements_, unsigned int *count)
{
    MK_ENTER(nvmlDeviceGetGpuInstancePossiblePlacements);
    return placements(device, profileId, placements_, count);
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId, unsigned int *count)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuInstanceRemainingCapacity);
    MK_MIG_GPU(device, &r);
    MK_NONNULL(count);
    const mk_mig_profile *p = gi_profile_by_id(r.d, profileId);
    if (!p)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* Free placements for this profile: starts whose slots no instance uses. */
    unsigned used = 0, free_starts = 0;
    for (size_t j = 0; j < r.d->nmig; j++) {
        const mk_mig_profile *q = &r.d->migp[r.d->mig[j].profile];
        used |= ((1u << q->placement_size) - 1) << r.d->mig[j].start;
    }
    for (unsigned i = 0; i < p->nplacements; i++) {
        unsigned m = ((1u << p->placement_size) - 1) << p->placements[i];
        if (!(used & m)) {
            used |= m;
            free_starts++;
        }
    }
    *count = r.d->mig_enabled ? free_starts : 0;
    return NVML_SUCCESS;
}

/* --- GPU instances ------------------------------------------------------------------ */

MK_API nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances, unsigned int *count)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuInstances);
    MK_MIG_GPU(device, &r);
    MK_NONNULL(count);
    if (!gi_profile_by_id(r.d, profileId))
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned n = 0;
    for (size_t j = 0; j < r.d->nmig; j++) {
        if (r.d->migp[r.d->mig[j].profile].id != profileId || !mk_visible_mig(&mk_L.vis, r.gpu, j))
            continue;
        if (gpuInstances && n < *count)
            gpuInstances[n] = &mk_L.gis[mk_L.mig_base[r.gpu] + j];
        n++;
    }
    if (gpuInstances && n > *count) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *count = n;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetGpuInstanceById);
    MK_MIG_GPU(device, &r);
    MK_NONNULL(gpuInstance);
    if (!r.d->mig_enabled)
        return NVML_ERROR_INVALID_STATE;
    for (size_t j = 0; j < r.d->nmig; j++)
        if (r.d->mig[j].gi_id == id && mk_visible_mig(&mk_L.vis, r.gpu, j)) {
            *gpuInstance = &mk_L.gis[mk_L.mig_base[r.gpu] + j];
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

MK_API nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info)
{
    mk_ref r;
    MK_ENTER(nvmlGpuInstanceGetInfo);
    nvmlReturn_t rc = gi_ref(gpuInstance, &r);
    if (rc)
        return rc;
    MK_NONNULL(info);
    const mk_mig_profile *p = &r.d->migp[r.m->profile];
    info->device = mk_gpu_handle(r.gpu);
    info->id = r.m->gi_id;
    info->profileId = p->id;
    info->placement.start = r.m->start;
    info->placement.size = p->placement_size;
    return NVML_SUCCESS;
}

/* --- compute instances --------------------------------------------------------------- */

static nvmlReturn_t ci_profile(nvmlGpuInstance_t gi, unsigned profile, unsigned engProfile,
                               mk_ref *r, const mk_mig_profile **gp)
{
    nvmlReturn_t rc = gi_ref(gi, r);
    if (rc)
        return rc;
    if (profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT ||
        engProfile >= NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    *gp = &r->d->migp[r->m->profile];
    if (profile >= N_CI_PROFILES || ci_slices[profile] > (*gp)->slices)
        return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

#define FILL_CI_COMMON(info, gp, profile) do { \
        unsigned c_ = ci_slices[profile]; \
        (info)->id = (profile); \
        (info)->sliceCount = c_; \
        (info)->instanceCount = (gp)->slices / c_; \
        (info)->multiprocessorCount = (gp)->sms * c_ / (gp)->slices; \
        (info)->sharedCopyEngineCount = (gp)->copy_engines; \
        (info)->sharedDecoderCount = (gp)->decoders; \
        (info)->sharedEncoderCount = (gp)->encoders; \
        (info)->sharedJpegCount = (gp)->jpegs; \
        (info)->sharedOfaCount = (gp)->ofas; \
    } while (0)

static void ci_name(char *dst, size_t len, const mk_mig_profile *gp, unsigned profile)
{
    unsigned c = ci_slices[profile];
    if (c == gp->slices)
        snprintf(dst, len, "MIG %s", gp->name);
    else
        snprintf(dst, len, "MIG %uc.%s", c, gp->name);
}

MK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile, nvmlComputeInstanceProfileInfo_t *info)
{
    mk_ref r;
    const mk_mig_profile *gp;
    MK_ENTER(nvmlGpuInstanceGetComputeInstanceProfileInfo);
    nvmlReturn_t rc = ci_profile(gpuInstance, profile, engProfile, &r, &gp);
    if (rc)
        return rc;
    MK_NONNULL(info);
    memset(info, 0, sizeof *info);
    FILL_CI_COMMON(info, gp, profile);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile, nvmlComputeInstanceProfileInfo_v2_t *info)
{
    mk_ref r;
    const mk_mig_profile *gp;
    MK_ENTER(nvmlGpuInstanceGetComputeInstanceProfileInfoV);
    nvmlReturn_t rc = ci_profile(gpuInstance, profile, engProfile, &r, &gp);
    if (rc)
        return rc;
    MK_NONNULL(info);
    unsigned version = info->version;
    if (version == nvmlComputeInstanceProfileInfo_v2) {
        memset(info, 0, sizeof *info);
        info->version = version;
        FILL_CI_COMMON(info, gp, profile);
        ci_name(info->name, sizeof info->name, gp, profile);
        return NVML_SUCCESS;
    }
    if (version == nvmlComputeInstanceProfileInfo_v3) {
        nvmlComputeInstanceProfileInfo_v3_t *v3 = (nvmlComputeInstanceProfileInfo_v3_t *)info;
        memset(v3, 0, sizeof *v3);
        v3->version = version;
        FILL_CI_COMMON(v3, gp, profile);
        ci_name(v3->name, sizeof v3->name, gp, profile);
        return NVML_SUCCESS;
    }
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

MK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId, nvmlComputeInstance_t *computeInstances, unsigned int *count)
{
    mk_ref r;
    MK_ENTER(nvmlGpuInstanceGetComputeInstances);
    nvmlReturn_t rc = gi_ref(gpuInstance, &r);
    if (rc)
        return rc;
    MK_NONNULL(count);
    if (profileId >= N_CI_PROFILES)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned full = ci_index_for(r.d->migp[r.m->profile].slices);
    unsigned n = profileId == full ? 1 : 0;
    /* *count is only an answer: NVML's callers size the array by the
     * profile's instanceCount, and nvidia-smi mig -lci passes 0 in it. */
    if (computeInstances && n)
        computeInstances[0] = &mk_L.cis[mk_L.mig_base[r.gpu] + (unsigned)r.mig];
    *count = n;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id, nvmlComputeInstance_t *computeInstance)
{
    mk_ref r;
    MK_ENTER(nvmlGpuInstanceGetComputeInstanceById);
    nvmlReturn_t rc = gi_ref(gpuInstance, &r);
    if (rc)
        return rc;
    MK_NONNULL(computeInstance);
    if (id != r.m->ci_id)
        return NVML_ERROR_NOT_FOUND;
    *computeInstance = &mk_L.cis[mk_L.mig_base[r.gpu] + (unsigned)r.mig];
    return NVML_SUCCESS;
}

static nvmlReturn_t ci_info(nvmlComputeInstance_t ci, nvmlComputeInstanceInfo_t *info, int with_placement)
{
    mk_ref r;
    nvmlReturn_t rc = ci_ref(ci, &r);
    if (rc)
        return rc;
    MK_NONNULL(info);
    const mk_mig_profile *gp = &r.d->migp[r.m->profile];
    info->device = mk_gpu_handle(r.gpu);
    info->gpuInstance = &mk_L.gis[mk_L.mig_base[r.gpu] + (unsigned)r.mig];
    info->id = r.m->ci_id;
    info->profileId = ci_index_for(gp->slices);
    if (with_placement) {
        info->placement.start = 0;
        info->placement.size = gp->slices;
    }
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    MK_ENTER(nvmlComputeInstanceGetInfo_v2);
    return ci_info(computeInstance, info, 1);
}

/* The first version's struct had no placement: it is not written. */
MK_API nvmlReturn_t nvmlComputeInstanceGetInfo(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    MK_ENTER(nvmlComputeInstanceGetInfo);
    return ci_info(computeInstance, info, 0);
}
