/* nvml_ecc.c - ECC error counters, retired pages and remapped rows.
 *
 * Counts come from the live state (mk_live_ecc): a `mode: ecc` fault or
 * `mokka inject` adds double-bit errors, after which single-bit counts keep
 * rising. Corrected errors are single-bit, uncorrected double-bit; all of
 * them are counted in device memory (DRAM). Aggregate counters equal the
 * volatile ones: nothing happened before the universe started. A GPU with
 * ECC off answers NOT_SUPPORTED, as the driver does. Row remapping or page
 * retirement follows the architecture (nvml_getters.h). */
#include "nvml_getters.h"

/* A GPU with ECC on, and valid counter kinds. */
static nvmlReturn_t ecc_gpu(nvmlDevice_t device, mk_ref *r, mk_fn fn)
{
    nvmlReturn_t rc = mk_gpu_live(device, r);
    if (rc)
        return rc;
    return r->d->ecc_enabled ? NVML_SUCCESS : mk_unsupported(fn);
}

/* The same for a GPU or one of its MIG devices, which share its memory and
 * so its counters (nvidia-smi's MIG table shows them). */
static nvmlReturn_t ecc_any(nvmlDevice_t device, mk_ref *r, mk_fn fn)
{
    nvmlReturn_t rc = mk_any_live(device, r);
    if (rc)
        return rc;
    return r->d->ecc_enabled ? NVML_SUCCESS : mk_unsupported(fn);
}

static int kinds_valid(nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType)
{
    return (unsigned)errorType < NVML_MEMORY_ERROR_TYPE_COUNT &&
           (unsigned)counterType < NVML_ECC_COUNTER_TYPE_COUNT;
}

static uint64_t dram_errors(const mk_ref *r, nvmlMemoryErrorType_t errorType)
{
    uint64_t sbe, dbe;
    mk_live_ecc(&mk_L.live, r->gpu, &sbe, &dbe);
    return errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? sbe : dbe;
}

static uint64_t double_bit_errors(const mk_ref *r)
{
    return dram_errors(r, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
}

#define MK_ECC_GPU(h, r, name) \
    do { nvmlReturn_t rc_ = ecc_gpu((h), (r), MK_FN_##name); if (rc_) return rc_; } while (0)

MK_API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetTotalEccErrors);
    MK_ECC_GPU(device, &r, nvmlDeviceGetTotalEccErrors);
    MK_NONNULL(eccCounts);
    if (!kinds_valid(errorType, counterType))
        return NVML_ERROR_INVALID_ARGUMENT;
    *eccCounts = dram_errors(&r, errorType);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetDetailedEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, nvmlEccErrorCounts_t *eccCounts)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetDetailedEccErrors);
    MK_ECC_GPU(device, &r, nvmlDeviceGetDetailedEccErrors);
    MK_NONNULL(eccCounts);
    if (!kinds_valid(errorType, counterType))
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(eccCounts, 0, sizeof *eccCounts);
    eccCounts->deviceMemory = dram_errors(&r, errorType);
    return NVML_SUCCESS;
}

/* Caches, register file and SRAM have counters that stay at 0; texture
 * memory and the CBU only had them on older GPUs. */
MK_API nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, nvmlMemoryLocation_t locationType, unsigned long long *count)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMemoryErrorCounter);
    nvmlReturn_t rc = ecc_any(device, &r, MK_FN_nvmlDeviceGetMemoryErrorCounter);
    if (rc)
        return rc;
    MK_NONNULL(count);
    if (!kinds_valid(errorType, counterType) || (unsigned)locationType >= NVML_MEMORY_LOCATION_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    switch (locationType) {
    case NVML_MEMORY_LOCATION_DRAM:
        *count = dram_errors(&r, errorType);
        return NVML_SUCCESS;
    case NVML_MEMORY_LOCATION_TEXTURE_MEMORY:
    case NVML_MEMORY_LOCATION_TEXTURE_SHM:
    case NVML_MEMORY_LOCATION_CBU:
        MK_UNSUPPORTED(nvmlDeviceGetMemoryErrorCounter);
    default:
        *count = 0;
        return NVML_SUCCESS;
    }
}

/* --- page retirement (before Ampere) ----------------------------------------------- */

/* A pre-Ampere GPU with ECC on. */
static nvmlReturn_t retiring_gpu(nvmlDevice_t device, mk_ref *r, mk_fn fn)
{
    nvmlReturn_t rc = ecc_gpu(device, r, fn);
    if (rc == NVML_SUCCESS && mk_remaps_rows(r->d))
        return mk_unsupported(fn);
    return rc;
}

/* When the GPU's first double-bit error happened, in seconds since 1970. */
static unsigned long long first_dbe_time(unsigned gpu)
{
    const mk_state_hdr *h = mk_L.st.hdr;
    uint64_t mono = atomic_load(&mk_L.st.dev[gpu].ecc_since_ns);
    uint64_t real = mono > h->epoch_mono_ns ? h->epoch_real_ns + (mono - h->epoch_mono_ns)
                                            : h->epoch_real_ns;
    return real / 1000000000ull;
}

/* Retired pages sit at 2 MiB strides from 1 GiB up; timestamps may be NULL. */
static nvmlReturn_t retired_pages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount,
                                  unsigned long long *addresses, unsigned long long *timestamps, mk_fn fn)
{
    mk_ref r;
    nvmlReturn_t rc = retiring_gpu(device, &r, fn);
    if (rc)
        return rc;
    MK_NONNULL(pageCount);
    if ((unsigned)cause >= NVML_PAGE_RETIREMENT_CAUSE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned n = cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
                 ? mk_retired_pages(double_bit_errors(&r)) : 0;
    unsigned room = mk_list_room(pageCount, addresses);
    for (unsigned i = 0; i < n && i < room; i++) {
        addresses[i] = (1ull << 30) + ((unsigned long long)i << 21);
        if (timestamps)
            timestamps[i] = first_dbe_time(r.gpu);
    }
    return mk_list_done(pageCount, room, n);
}

MK_API nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses)
{
    MK_ENTER(nvmlDeviceGetRetiredPages);
    return retired_pages(device, cause, pageCount, addresses, NULL, MK_FN_nvmlDeviceGetRetiredPages);
}

MK_API nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses, unsigned long long *timestamps)
{
    MK_ENTER(nvmlDeviceGetRetiredPages_v2);
    return retired_pages(device, cause, pageCount, addresses, timestamps, MK_FN_nvmlDeviceGetRetiredPages_v2);
}

MK_API nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetRetiredPagesPendingStatus);
    nvmlReturn_t rc = retiring_gpu(device, &r, MK_FN_nvmlDeviceGetRetiredPagesPendingStatus);
    if (rc)
        return rc;
    MK_NONNULL(isPending);
    *isPending = double_bit_errors(&r) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

/* --- row remapping (Ampere on) ------------------------------------------------------ */

/* An Ampere or later GPU with ECC on. */
static nvmlReturn_t remapping_gpu(nvmlDevice_t device, mk_ref *r, mk_fn fn)
{
    nvmlReturn_t rc = ecc_gpu(device, r, fn);
    if (rc == NVML_SUCCESS && !mk_remaps_rows(r->d))
        return mk_unsupported(fn);
    return rc;
}

#define MK_REMAPPING_GPU(h, r, name) \
    do { nvmlReturn_t rc_ = remapping_gpu((h), (r), MK_FN_##name); if (rc_) return rc_; } while (0)

MK_API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows, unsigned int *isPending, unsigned int *failureOccurred)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetRemappedRows);
    MK_REMAPPING_GPU(device, &r, nvmlDeviceGetRemappedRows);
    MK_NONNULL(corrRows);
    MK_NONNULL(uncRows);
    MK_NONNULL(isPending);
    MK_NONNULL(failureOccurred);
    *corrRows = 0;
    mk_remapped_rows(double_bit_errors(&r), uncRows, isPending, failureOccurred);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetRemappedRows_v2(nvmlDevice_t device, nvmlRemappedRowsInfo_v2_t *info)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetRemappedRows_v2);
    MK_REMAPPING_GPU(device, &r, nvmlDeviceGetRemappedRows_v2);
    MK_NONNULL(info);
    memset(info, 0, sizeof *info);
    mk_remapped_rows(double_bit_errors(&r), &info->uncActiveRemaps, &info->bPending, &info->bFailureOccurred);
    return NVML_SUCCESS;
}

/* How many banks have all, most, some, few or none of their spare rows
 * left: 16 banks per GiB, one of which takes every uncorrectable error. */
MK_API nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device, nvmlRowRemapperHistogramValues_t *values)
{
    mk_ref r;
    unsigned unc, pending, failed;
    MK_ENTER(nvmlDeviceGetRowRemapperHistogram);
    MK_REMAPPING_GPU(device, &r, nvmlDeviceGetRowRemapperHistogram);
    MK_NONNULL(values);
    mk_remapped_rows(double_bit_errors(&r), &unc, &pending, &failed);
    memset(values, 0, sizeof *values);
    values->max = (unsigned)(r.d->mem_total >> 30) * 16;
    if (unc == 0 || values->max == 0)
        return NVML_SUCCESS;
    values->max--;
    if (unc == MK_SPARE_ROWS)
        values->none = 1;
    else if (unc * 4 >= MK_SPARE_ROWS * 3)
        values->low = 1;
    else if (unc * 2 >= MK_SPARE_ROWS)
        values->partial = 1;
    else
        values->high = 1;
    return NVML_SUCCESS;
}

/* SRAM errors are not modelled (a `mode: ecc` fault hits DRAM), so every
 * counter is 0 and no threshold is crossed; Ampere and later report them. */
MK_API nvmlReturn_t nvmlDeviceGetSramEccErrorStatus(nvmlDevice_t device, nvmlEccSramErrorStatus_t *status)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetSramEccErrorStatus);
    MK_REMAPPING_GPU(device, &r, nvmlDeviceGetSramEccErrorStatus);
    MK_NONNULL(status);
    if (status->version != nvmlEccSramErrorStatus_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memset(status, 0, sizeof *status);
    status->version = nvmlEccSramErrorStatus_v1;
    return NVML_SUCCESS;
}
