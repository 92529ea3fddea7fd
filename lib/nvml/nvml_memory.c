/* nvml_memory.c - framebuffer and BAR1 memory, for GPUs and MIG devices.
 *
 * Used memory is a live value (memoryUsed in the config); the driver's
 * reserved share is counted as used in the first version of the call and
 * reported apart in _v2, as the real library does since R510. */
#include "nvml_getters.h"

/* total, reserved and used bytes of a GPU or MIG device. */
static nvmlReturn_t usage(const mk_ref *r, uint64_t *total, uint64_t *reserved, uint64_t *used)
{
    if (r->m) {
        *total = r->m->memory;
        *reserved = 0;
        *used = 0;
        return NVML_SUCCESS;
    }
    int64_t v;
    nvmlReturn_t rc = mk_metric_get(r, MK_M_MEM_USED, &v);
    *total = r->d->mem_total;
    *reserved = r->d->mem_reserved;
    *used = rc == NVML_SUCCESS && v > 0 ? (uint64_t)v : 0;
    if (*used > *total - *reserved)
        *used = *total - *reserved;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    mk_ref r;
    uint64_t total, reserved, used;
    MK_ENTER(nvmlDeviceGetMemoryInfo);
    MK_ANY_LIVE(device, &r);
    MK_NONNULL(memory);
    usage(&r, &total, &reserved, &used);
    memory->total = total;
    memory->used = reserved + used;
    memory->free = total - reserved - used;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    mk_ref r;
    uint64_t total, reserved, used;
    MK_ENTER(nvmlDeviceGetMemoryInfo_v2);
    MK_ANY_LIVE(device, &r);
    MK_NONNULL(memory);
    if (memory->version != nvmlMemory_v2)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    usage(&r, &total, &reserved, &used);
    memory->total = total;
    memory->reserved = reserved;
    memory->used = used;
    memory->free = total - reserved - used;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetBAR1MemoryInfo);
    MK_ANY_LIVE(device, &r);
    MK_NONNULL(bar1Memory);
    /* A MIG device gets its memory slices' share of the aperture. */
    bar1Memory->bar1Total = r.m && r.d->mig_mem_slices
        ? r.d->bar1_total / r.d->mig_mem_slices * r.d->migp[r.m->profile].mem_slices
        : r.d->bar1_total;
    bar1Memory->bar1Used = r.d->bar1_total ? 1ull << 20 : 0; /* the driver maps a little at idle */
    bar1Memory->bar1Free = bar1Memory->bar1Total - bar1Memory->bar1Used;
    return NVML_SUCCESS;
}
