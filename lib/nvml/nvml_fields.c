/* nvml_fields.c - nvmlDeviceGetFieldValues and nvmlDeviceClearFieldValues.
 *
 * Each requested field gets its own nvmlReturn, value type and timestamp
 * (latency 0, as for cached values); a field Mokka does not model answers
 * NOT_SUPPORTED in its entry while the call itself succeeds, as the driver
 * does. Values come from the same places as the getters (live metrics, live
 * ECC counts, the configured limits), so a field and its getter agree. The
 * modelled fields are the ones monitoring agents ask for: ECC totals and
 * per location, retired pages and remapped rows, memory temperature,
 * energy and power, power limits, PCIe counters, performance-policy
 * violation times and NVLink counts, speeds, states and counters. Field ids
 * from 251 on were renumbered between NVML releases and are left alone. */
#include <unistd.h>
#include "nvml_getters.h"

/* NVLink speed per link and direction in MB/s, by NVLink version: what
 * nvidia-smi nvlink -s prints (A100 25 GB/s, H100 26.562 GB/s; NVLink5
 * doubles NVLink4's lane rate: 53.125 GB/s on B200 and GB200). */
static unsigned nvlink_speed(unsigned version)
{
    static const unsigned mbps[] = { 0, 20000, 25000, 25000, 26562, 53125 };
    return version < sizeof mbps / sizeof mbps[0] ? mbps[version] : 53125;
}

static nvmlReturn_t put_uint(nvmlFieldValue_t *f, unsigned v)
{
    f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    f->value.uiVal = v;
    return NVML_SUCCESS;
}

static nvmlReturn_t put_ull(nvmlFieldValue_t *f, unsigned long long v)
{
    f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    f->value.ullVal = v;
    return NVML_SUCCESS;
}

static nvmlReturn_t put_metric(nvmlFieldValue_t *f, const mk_ref *r, mk_metric m)
{
    int64_t v;
    if (mk_metric_get(r, m, &v))
        return NVML_ERROR_NOT_SUPPORTED;
    return put_uint(f, mk_uint(v));
}

/* --- NVLink fields ------------------------------------------------------------------ */

typedef enum { NVL_COUNTER, NVL_SPEED } nvl_kind;

/* Runs of per-link field ids: nlinks ids for links link0.., then, when
 * `total`, one for all links together. */
static const struct {
    unsigned first, nlinks, link0;
    int total;
    nvl_kind kind;
} nvl_runs[] = {
    { NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0, 6, 0, 1, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0, 6, 0, 1, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0, 6, 0, 1, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0, 6, 0, 1, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_BANDWIDTH_C0_L0, 6, 0, 1, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_BANDWIDTH_C1_L0, 6, 0, 1, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_SPEED_MBPS_L0, 6, 0, 1, NVL_SPEED },
    { NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6, 6, 6, 0, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6, 6, 6, 0, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6, 6, 6, 0, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6, 6, 6, 0, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_BANDWIDTH_C0_L6, 6, 6, 0, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_BANDWIDTH_C1_L6, 6, 6, 0, NVL_COUNTER },
    { NVML_FI_DEV_NVLINK_SPEED_MBPS_L6, 6, 6, 0, NVL_SPEED },
    { NVML_FI_DEV_NVLINK_ECC_DATA_ERROR_COUNT_L0, 12, 0, 1, NVL_COUNTER },
};

/* A per-link field: counters stay at 0 (no errors, no traffic). Returns -1
 * for an id that is not one. */
static int nvlink_run_field(const mk_device *d, nvmlFieldValue_t *f, nvmlReturn_t *rc)
{
    for (size_t i = 0; i < sizeof nvl_runs / sizeof nvl_runs[0]; i++) {
        unsigned k = f->fieldId - nvl_runs[i].first;
        if (k > nvl_runs[i].nlinks || (k == nvl_runs[i].nlinks && !nvl_runs[i].total))
            continue;
        unsigned link = nvl_runs[i].link0 + k;
        if (!d->nvlinks || (k < nvl_runs[i].nlinks && link >= d->nvlinks))
            *rc = NVML_ERROR_NOT_SUPPORTED;
        else if (nvl_runs[i].kind == NVL_SPEED)
            *rc = put_uint(f, nvlink_speed(d->nvlink_version));
        else
            *rc = put_ull(f, 0);
        return 0;
    }
    return -1;
}

/* A field about one link, the link being the scope id. */
static nvmlReturn_t nvlink_scoped_field(const mk_device *d, nvmlFieldValue_t *f)
{
    unsigned link = f->scopeId;
    if (link >= d->nvlinks)
        return NVML_ERROR_NOT_SUPPORTED;
    switch (f->fieldId) {
    case NVML_FI_DEV_NVLINK_GET_SPEED: return put_uint(f, nvlink_speed(d->nvlink_version));
    case NVML_FI_DEV_NVLINK_GET_STATE: return put_uint(f, (unsigned)mk_nvlink_up(d, link));
    case NVML_FI_DEV_NVLINK_GET_VERSION: return put_uint(f, d->nvlink_version);
    default: /* NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID */
        if (!mk_nvlink_up(d, link))
            return NVML_ERROR_NOT_SUPPORTED;
        return put_uint(f, d->nvlink_peer_link[link]);
    }
}

/* --- every other field ---------------------------------------------------------------- */

static nvmlReturn_t ecc_field(const mk_ref *r, nvmlFieldValue_t *f)
{
    uint64_t sbe, dbe;
    unsigned unc, pending, failed;
    if (!r->d->ecc_enabled)
        return NVML_ERROR_NOT_SUPPORTED;
    mk_live_ecc(&mk_L.live, r->gpu, &sbe, &dbe);
    mk_remapped_rows(dbe, &unc, &pending, &failed);
    switch (f->fieldId) {
    case NVML_FI_DEV_ECC_SBE_VOL_TOTAL: case NVML_FI_DEV_ECC_SBE_AGG_TOTAL:
    case NVML_FI_DEV_ECC_SBE_VOL_DEV: case NVML_FI_DEV_ECC_SBE_AGG_DEV:
        return put_ull(f, sbe);
    case NVML_FI_DEV_ECC_DBE_VOL_TOTAL: case NVML_FI_DEV_ECC_DBE_AGG_TOTAL:
    case NVML_FI_DEV_ECC_DBE_VOL_DEV: case NVML_FI_DEV_ECC_DBE_AGG_DEV:
        return put_ull(f, dbe);
    case NVML_FI_DEV_ECC_SBE_VOL_L1: case NVML_FI_DEV_ECC_DBE_VOL_L1:
    case NVML_FI_DEV_ECC_SBE_VOL_L2: case NVML_FI_DEV_ECC_DBE_VOL_L2:
    case NVML_FI_DEV_ECC_SBE_VOL_REG: case NVML_FI_DEV_ECC_DBE_VOL_REG:
    case NVML_FI_DEV_ECC_SBE_AGG_L1: case NVML_FI_DEV_ECC_DBE_AGG_L1:
    case NVML_FI_DEV_ECC_SBE_AGG_L2: case NVML_FI_DEV_ECC_DBE_AGG_L2:
    case NVML_FI_DEV_ECC_SBE_AGG_REG: case NVML_FI_DEV_ECC_DBE_AGG_REG:
        return put_ull(f, 0);
    case NVML_FI_DEV_RETIRED_SBE: case NVML_FI_DEV_RETIRED_PENDING_SBE:
        return mk_remaps_rows(r->d) ? NVML_ERROR_NOT_SUPPORTED : put_uint(f, 0);
    case NVML_FI_DEV_RETIRED_DBE: case NVML_FI_DEV_RETIRED_PENDING_DBE:
        return mk_remaps_rows(r->d) ? NVML_ERROR_NOT_SUPPORTED : put_uint(f, mk_retired_pages(dbe));
    case NVML_FI_DEV_RETIRED_PENDING:
        return mk_remaps_rows(r->d) ? NVML_ERROR_NOT_SUPPORTED : put_uint(f, dbe > 0);
    case NVML_FI_DEV_REMAPPED_COR: case NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE:
    case NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE:
        return mk_remaps_rows(r->d) ? put_uint(f, 0) : NVML_ERROR_NOT_SUPPORTED;
    case NVML_FI_DEV_REMAPPED_UNC:
        return mk_remaps_rows(r->d) ? put_uint(f, unc) : NVML_ERROR_NOT_SUPPORTED;
    case NVML_FI_DEV_REMAPPED_PENDING:
        return mk_remaps_rows(r->d) ? put_uint(f, pending) : NVML_ERROR_NOT_SUPPORTED;
    case NVML_FI_DEV_REMAPPED_FAILURE:
        return mk_remaps_rows(r->d) ? put_uint(f, failed) : NVML_ERROR_NOT_SUPPORTED;
    default: /* texture memory and CBU: older GPUs only */
        return NVML_ERROR_NOT_SUPPORTED;
    }
}

/* Power fields are scoped: the GPU's own draw is known, the module's and
 * memory's are not. */
static nvmlReturn_t power_field(const mk_ref *r, nvmlFieldValue_t *f)
{
    const mk_device *d = r->d;
    if (f->scopeId != NVML_POWER_SCOPE_GPU)
        return NVML_ERROR_NOT_SUPPORTED;
    switch (f->fieldId) {
    case NVML_FI_DEV_POWER_AVERAGE: case NVML_FI_DEV_POWER_INSTANT:
        return put_metric(f, r, MK_M_POWER);
    case NVML_FI_DEV_POWER_MIN_LIMIT: return put_uint(f, d->power_min_limit);
    case NVML_FI_DEV_POWER_MAX_LIMIT: return put_uint(f, d->power_max_limit);
    case NVML_FI_DEV_POWER_DEFAULT_LIMIT: return put_uint(f, d->power_default_limit);
    case NVML_FI_DEV_POWER_CURRENT_LIMIT: case NVML_FI_DEV_POWER_REQUESTED_LIMIT:
        return put_uint(f, d->power_limit);
    default: /* NVML_FI_DEV_ENERGY */
        if (d->lv[MK_M_POWER].kind == MK_LV_NA)
            return NVML_ERROR_NOT_SUPPORTED;
        return put_ull(f, mk_live_energy(&mk_L.live, r->u, r->gpu));
    }
}

/* Whether the GPU's current fault needs a GPU reset (nvidia-smi -q "Reset
 * Required") or, for errors that may have corrupted running work, a drain
 * of its jobs first ("Drain and Reset Recommended"). The XIDs are those
 * NVIDIA's XID catalogue resolves with a reset: 48 double-bit ECC, 63/64
 * row remapping, 74 NVLink, 79 fallen off the bus, 94/95 contained and
 * uncontained ECC, 119/120 GSP; 48 and 95 may have hit running work. */
static unsigned needs_reset(const mk_ref *r, int drain)
{
    static const unsigned reset_xids[] = { 48, 63, 64, 74, 79, 94, 95, 119, 120 };
    unsigned health = atomic_load_explicit(&mk_L.st.dev[r->gpu].health, memory_order_relaxed);
    unsigned xid = atomic_load_explicit(&mk_L.st.dev[r->gpu].last_xid, memory_order_relaxed);
    if (health == MK_FAULT_NONE)
        return 0;
    if (health == MK_FAULT_ECC)
        return 1;
    if (drain)
        return xid == 48 || xid == 95;
    for (size_t i = 0; i < sizeof reset_xids / sizeof reset_xids[0]; i++)
        if (xid == reset_xids[i])
            return 1;
    return 0;
}

static nvmlReturn_t field(const mk_ref *r, nvmlFieldValue_t *f)
{
    const mk_device *d = r->d;
    nvmlReturn_t rc;
    unsigned id = f->fieldId;
    if (nvlink_run_field(d, f, &rc) == 0)
        return rc;
    if (id == NVML_FI_DEV_ECC_CURRENT || id == NVML_FI_DEV_ECC_PENDING)
        return put_uint(f, d->ecc_enabled != 0);
    if ((id >= NVML_FI_DEV_ECC_SBE_VOL_TOTAL && id <= NVML_FI_DEV_RETIRED_PENDING) ||
        id == NVML_FI_DEV_RETIRED_PENDING_SBE || id == NVML_FI_DEV_RETIRED_PENDING_DBE ||
        (id >= NVML_FI_DEV_REMAPPED_COR && id <= NVML_FI_DEV_REMAPPED_FAILURE) ||
        id == NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE || id == NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE)
        return ecc_field(r, f);
    if (id >= NVML_FI_DEV_POWER_AVERAGE && id <= NVML_FI_DEV_POWER_REQUESTED_LIMIT)
        return power_field(r, f);
    if (id >= NVML_FI_DEV_PERF_POLICY_POWER && id <= NVML_FI_DEV_PERF_POLICY_TOTAL_BASE_CLOCKS)
        return put_ull(f, 0); /* ns held back by each policy */
    if ((id >= NVML_FI_DEV_PCIE_COUNT_CORRECTABLE_ERRORS && id <= NVML_FI_DEV_PCIE_COUNT_LANE_ERROR) ||
        id == NVML_FI_DEV_PCIE_REPLAY_COUNTER || id == NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER ||
        id == NVML_FI_DEV_PCIE_L0_TO_RECOVERY_COUNTER)
        return put_uint(f, 0);
    switch (id) {
    case NVML_FI_DEV_MEMORY_TEMP:
        return put_metric(f, r, MK_M_TEMP_MEM);
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
        if (d->lv[MK_M_POWER].kind == MK_LV_NA)
            return NVML_ERROR_NOT_SUPPORTED;
        return put_ull(f, mk_live_energy(&mk_L.live, r->u, r->gpu));
    case NVML_FI_DEV_PCIE_COUNT_TX_BYTES: case NVML_FI_DEV_PCIE_COUNT_RX_BYTES:
        return put_ull(f, 0);
    case NVML_FI_DEV_RESET_STATUS: case NVML_FI_DEV_DRAIN_AND_RESET_STATUS:
        return put_uint(f, needs_reset(r, id == NVML_FI_DEV_DRAIN_AND_RESET_STATUS));
    case NVML_FI_DEV_NVLINK_LINK_COUNT:
        return d->nvlinks ? put_uint(f, d->nvlinks) : NVML_ERROR_NOT_SUPPORTED;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX: case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX: case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX:
        return d->nvlinks ? put_ull(f, 0) : NVML_ERROR_NOT_SUPPORTED;
    case NVML_FI_DEV_NVSWITCH_CONNECTED_LINK_COUNT:
        /* nvidia-smi's topo -m prints NV<n> for two GPUs that both reach
         * the fabric over n links (NV12 on a DGX A100, NV18 on an HGX H100) */
        return d->nvlinks ? put_uint(f, d->nvlink_switched ? d->nvlinks : 0)
                          : NVML_ERROR_NOT_SUPPORTED;
    case NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID: case NVML_FI_DEV_NVLINK_GET_SPEED:
    case NVML_FI_DEV_NVLINK_GET_STATE: case NVML_FI_DEV_NVLINK_GET_VERSION:
        return nvlink_scoped_field(d, f);
    default:
        return NVML_ERROR_NOT_SUPPORTED;
    }
}

/* MIG device handles have none of these whole-GPU values. */
MK_API nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetFieldValues);
    MK_ANY_LIVE(device, &r);
    MK_NONNULL(values);
    if (valuesCount < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < valuesCount; i++) {
        nvmlFieldValue_t *f = &values[i];
        f->timestamp = mk_now_us();
        f->latencyUsec = 0;
        f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        memset(&f->value, 0, sizeof f->value);
        f->nvmlReturn = r.m ? NVML_ERROR_NOT_SUPPORTED : field(&r, f);
    }
    return NVML_SUCCESS;
}

/* Resetting counters needs root; as root, nothing here can be reset. */
MK_API nvmlReturn_t nvmlDeviceClearFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceClearFieldValues);
    MK_LIVE(device, &r);
    MK_NONNULL(values);
    if (valuesCount < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (geteuid() != 0)
        return NVML_ERROR_NO_PERMISSION;
    MK_UNSUPPORTED(nvmlDeviceClearFieldValues);
}
