/* exposition.c - dcgm-exporter-compatible and mokka_* metrics from a live
 * state (see expose.h).
 *
 * Like dcgm-exporter, a field the GPU cannot report (a sensor the config
 * marks N/A, or any telemetry of a GPU that fell off the bus) has no sample
 * rather than a made-up one, and families keep the order of the exporter's
 * counters file. Values use DCGM's types: integers, and "%f" for the
 * floating-point fields (power, profiling ratios). MIG devices get no series
 * of their own: the live state keeps values per physical GPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expose.h"
#include "procview.h"
#include "units.h"

#define MIB (1ull << 20)

typedef enum {
    V_METRIC,      /* a live metric as an integer */
    V_WATTS,       /* power in W, floating point */
    V_RATIO,       /* a utilisation as a 0..1 ratio (profiling fields) */
    V_ENERGY,      /* mJ since the universe started */
    V_FB_USED, V_FB_FREE, V_FB_RESERVED,   /* MiB */
    V_ECC_SBE, V_ECC_DBE,
    V_LAST_XID,
    V_ZERO,        /* counters of events Mokka never produces */
    V_ZERO_NVLINK, /* the same, for GPUs with NVLinks */
    V_ZERO_REMAP   /* the same, for GPUs with row remapping (Ampere and newer) */
} vkind;

typedef struct dcgm_field {
    const char *name, *type, *help;
    vkind kind;
    mk_metric m;
} dcgm_field;

/* dcgm-exporter's etc/default-counters.csv (GPU fields), plus the volatile
 * ECC totals it ships commented out, which fault tests want to see. */
static const dcgm_field fields[] = {
    { "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", V_METRIC, MK_M_CLK_SM },
    { "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", V_METRIC, MK_M_CLK_MEM },
    { "DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", V_METRIC, MK_M_TEMP_MEM },
    { "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", V_METRIC, MK_M_TEMP },
    { "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", V_WATTS, MK_M_POWER },
    { "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
      "Total energy consumption since boot (in mJ).", V_ENERGY, MK_M_POWER },
    { "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", V_ZERO, 0 },
    { "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", V_METRIC, MK_M_UTIL_GPU },
    { "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", V_METRIC, MK_M_UTIL_MEM },
    { "DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", V_METRIC, MK_M_UTIL_ENC },
    { "DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", V_METRIC, MK_M_UTIL_DEC },
    { "DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", V_LAST_XID, 0 },
    { "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", V_FB_FREE, MK_M_MEM_USED },
    { "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", V_FB_USED, MK_M_MEM_USED },
    { "DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", V_FB_RESERVED,
      MK_M_MEM_USED },
    { "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total number of single-bit volatile ECC errors.",
      V_ECC_SBE, 0 },
    { "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.",
      V_ECC_DBE, 0 },
    { "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter",
      "Total number of NVLink bandwidth counters for all lanes.", V_ZERO_NVLINK, 0 },
    { "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter",
      "Number of remapped rows for uncorrectable errors", V_ZERO_REMAP, 0 },
    { "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter",
      "Number of remapped rows for correctable errors", V_ZERO_REMAP, 0 },
    { "DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed", V_ZERO_REMAP,
      0 },
    { "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.",
      V_RATIO, MK_M_UTIL_GPU },
    { "DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
      "Ratio of cycles the device memory interface is active sending or receiving data.", V_RATIO,
      MK_M_UTIL_MEM },
};

/* The err_msg dcgm-exporter attaches to DCGM_FI_DEV_XID_ERRORS, from
 * NVIDIA's XID catalogue, for the XIDs tests and fault configs use. */
static const char *xid_text(unsigned xid)
{
    static const struct { unsigned xid; const char *text; } t[] = {
        { 0, "No Error" }, { 13, "Graphics Engine Exception" }, { 31, "GPU memory page fault" },
        { 43, "GPU stopped processing" }, { 45, "Preemptive cleanup, due to previous errors -- "
          "Most likely to see when running multiple cuda" },
        { 48, "Double Bit ECC Error" }, { 61, "Internal micro-controller breakpoint/warning" },
        { 62, "Internal micro-controller halt" },
        { 63, "ECC page retirement or row remapping recording event" },
        { 64, "ECC page retirement or row remapper recording failure" }, { 74, "NVLINK Error" },
        { 79, "GPU has fallen off the bus" }, { 92, "High single-bit ECC error rate" },
        { 94, "Contained ECC error" }, { 95, "Uncontained ECC error" },
        { 119, "GSP RPC Timeout" }, { 120, "GSP Error" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].xid == xid)
            return t[i].text;
    return "Unknown Error";
}

/* The sample of field f for GPU i into buf; 0, or -1 when there is none. */
static int field_value(const mk_view *v, unsigned i, const dcgm_field *f, char *buf, size_t len)
{
    const mk_device *d = v->u ? &v->u->dev[i] : NULL;
    int64_t x = 0;
    uint64_t sbe, dbe;
    int lost = atomic_load(&v->st.dev[i].health) == MK_FAULT_LOST;
    if (lost && f->kind != V_LAST_XID)
        return -1; /* DCGM reads nothing from a GPU that fell off the bus */
    if ((f->kind == V_METRIC || f->kind == V_WATTS || f->kind == V_RATIO || f->kind == V_FB_USED ||
         f->kind == V_FB_FREE) && mk_view_value(v, i, f->m, &x) != 0)
        return -1;
    switch (f->kind) {
    case V_METRIC: snprintf(buf, len, "%lld", (long long)x); return 0;
    case V_WATTS: snprintf(buf, len, "%f", (double)x / 1000.0); return 0;
    case V_RATIO: snprintf(buf, len, "%f", (double)x / 100.0); return 0;
    case V_ENERGY:
        snprintf(buf, len, "%llu", (unsigned long long)mk_view_energy(v, i));
        return 0;
    case V_FB_USED: snprintf(buf, len, "%llu", (unsigned long long)x / MIB); return 0;
    case V_FB_FREE:
        if (!d)
            return -1;
        snprintf(buf, len, "%llu", (unsigned long long)(d->mem_total - d->mem_reserved -
                                                        (uint64_t)x) / MIB);
        return 0;
    case V_FB_RESERVED:
        if (!d)
            return -1;
        snprintf(buf, len, "%llu", (unsigned long long)d->mem_reserved / MIB);
        return 0;
    case V_ECC_SBE:
    case V_ECC_DBE:
        if (d && !d->ecc_enabled)
            return -1;
        mk_view_ecc(v, i, &sbe, &dbe);
        snprintf(buf, len, "%llu", (unsigned long long)(f->kind == V_ECC_SBE ? sbe : dbe));
        return 0;
    case V_LAST_XID:
        snprintf(buf, len, "%u", (unsigned)atomic_load(&v->st.dev[i].last_xid));
        return 0;
    case V_ZERO_NVLINK:
        if (!d || !d->nvlinks)
            return -1;
        break;
    case V_ZERO_REMAP:
        if (!d || d->arch < 7) /* row remapping came with Ampere */
            return -1;
        break;
    case V_ZERO:
        break;
    }
    snprintf(buf, len, "0");
    return 0;
}

/* dcgm-exporter's labels for GPU i, in its order; extra pairs go after. */
typedef struct gpu_labels {
    const char *v[24];
    char gpu[16], device[24], err_code[16];
} gpu_labels;

static size_t dcgm_labels(const mk_view *v, unsigned i, gpu_labels *l)
{
    const mk_state_dev *sd = &v->st.dev[i];
    size_t n = 0;
    snprintf(l->gpu, sizeof l->gpu, "%u", i);
    snprintf(l->device, sizeof l->device, "nvidia%u", i);
    l->v[n++] = "gpu"; l->v[n++] = l->gpu;
    l->v[n++] = "UUID"; l->v[n++] = sd->uuid;
    l->v[n++] = "pci_bus_id"; l->v[n++] = sd->bus_id;
    l->v[n++] = "device"; l->v[n++] = l->device;
    l->v[n++] = "modelName"; l->v[n++] = sd->name;
    if (v->st.hdr->node[0]) {
        l->v[n++] = "Hostname";
        l->v[n++] = v->st.hdr->node;
    }
    l->v[n++] = "DCGM_FI_DRIVER_VERSION"; l->v[n++] = v->st.hdr->driver_version;
    l->v[n] = NULL;
    return n;
}

static void expose_dcgm(FILE *f, const mk_view *v)
{
    char val[64];
    gpu_labels l;
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        const dcgm_field *fd = &fields[k];
        mk_prom_family(f, fd->name, fd->type, fd->help);
        for (unsigned i = 0; i < v->st.hdr->ndev; i++) {
            if (field_value(v, i, fd, val, sizeof val) != 0)
                continue;
            size_t n = dcgm_labels(v, i, &l);
            if (fd->kind == V_LAST_XID) {
                unsigned xid = (unsigned)atomic_load(&v->st.dev[i].last_xid);
                snprintf(l.err_code, sizeof l.err_code, "%u", xid);
                l.v[n++] = "err_code"; l.v[n++] = l.err_code;
                l.v[n++] = "err_msg"; l.v[n++] = xid_text(xid);
                l.v[n] = NULL;
            }
            mk_prom_sample(f, fd->name, l.v, val);
        }
    }
}

/* --- mokka's own -------------------------------------------------------------------- */

static void expose_health(FILE *f, const mk_view *v)
{
    static const char *const states[] = { "healthy", "xid", "ecc", "lost" };
    char gpu[16], val[32];
    mk_prom_family(f, "mokka_gpu_health_state", "gauge",
                   "Health of the virtual GPU: 1 for its current state (healthy, xid, ecc, lost).");
    for (unsigned i = 0; i < v->st.hdr->ndev; i++) {
        uint32_t h = atomic_load(&v->st.dev[i].health);
        snprintf(gpu, sizeof gpu, "%u", i);
        for (uint32_t s = 0; s < 4; s++) {
            const char *l[] = { "gpu", gpu, "uuid", v->st.dev[i].uuid, "state", states[s], NULL };
            mk_prom_sample(f, "mokka_gpu_health_state", l, h == s ? "1" : "0");
        }
    }
    mk_prom_family(f, "mokka_gpu_xid_errors_total", "counter",
                   "XID errors raised on the virtual GPU (rules, mokka inject, ECC double-bit).");
    for (unsigned i = 0; i < v->st.hdr->ndev; i++) {
        snprintf(gpu, sizeof gpu, "%u", i);
        const char *l[] = { "gpu", gpu, "uuid", v->st.dev[i].uuid, NULL };
        snprintf(val, sizeof val, "%llu", (unsigned long long)atomic_load(&v->st.dev[i].xid_count));
        mk_prom_sample(f, "mokka_gpu_xid_errors_total", l, val);
    }
    mk_prom_family(f, "mokka_gpu_metric_pinned", "gauge",
                   "Live values pinned by mokka inject --set (1 per pinned metric).");
    for (unsigned i = 0; i < v->st.hdr->ndev; i++)
        for (int m = 0; m < MK_M_COUNT; m++)
            if (mk_view_pinned(v, i, (mk_metric)m)) {
                snprintf(gpu, sizeof gpu, "%u", i);
                const char *l[] = { "gpu", gpu, "uuid", v->st.dev[i].uuid, "metric",
                                    mk_metrics[m].name, NULL };
                mk_prom_sample(f, "mokka_gpu_metric_pinned", l, "1");
            }
}

static void expose_calls(FILE *f, const mk_view *v)
{
    size_t n;
    char val[32];
    mk_call_row *rows = mk_view_calls(v, &n);
    mk_prom_family(f, "mokka_nvml_calls_total", "counter",
                   "NVML calls made by the programs on this universe, per function.");
    for (size_t i = 0; i < n; i++) {
        const char *l[] = { "function", rows[i].name, NULL };
        snprintf(val, sizeof val, "%llu", (unsigned long long)rows[i].calls);
        mk_prom_sample(f, "mokka_nvml_calls_total", l, val);
    }
    mk_prom_family(f, "mokka_nvml_not_supported_total", "counter",
                   "NVML calls answered NVML_ERROR_NOT_SUPPORTED, per function: what the programs "
                   "use that the mock does not implement.");
    for (size_t i = 0; i < n; i++)
        if (rows[i].unsupported) {
            const char *l[] = { "function", rows[i].name, NULL };
            snprintf(val, sizeof val, "%llu", (unsigned long long)rows[i].unsupported);
            mk_prom_sample(f, "mokka_nvml_not_supported_total", l, val);
        }
    free(rows);
}

static void expose_process(FILE *f, const mk_view *v)
{
    char val[32];
    mk_prom_family(f, "mokka_processes_attached", "gauge",
                   "Running processes attached to this universe's live state.");
    snprintf(val, sizeof val, "%u", mk_view_alive(v, NULL, 0));
    mk_prom_sample(f, "mokka_processes_attached", NULL, val);
    mk_prom_family(f, "mokka_config_reloads_total", "counter",
                   "Config reloads applied to the running universe.");
    snprintf(val, sizeof val, "%u", (unsigned)atomic_load(&v->st.hdr->reloads));
    mk_prom_sample(f, "mokka_config_reloads_total", NULL, val);
}

/* Attached processes whose NVIDIA_VISIBLE_DEVICES restricts their view. */
static void expose_views(FILE *f, const mk_view *v)
{
    mk_procview *pv;
    size_t n = mk_view_procviews(v, &pv);
    char pid[16], val[32], gpu[16], index[24];
    mk_prom_family(f, "mokka_process_visible_gpus", "gauge",
                   "GPUs an attached process sees when NVIDIA_VISIBLE_DEVICES restricts its "
                   "view (-1: unknown, no universe to read it against).");
    for (size_t i = 0; i < n; i++) {
        snprintf(pid, sizeof pid, "%d", (int)pv[i].pid);
        snprintf(val, sizeof val, "%lld", pv[i].gpus ? (long long)pv[i].n : -1LL);
        const char *l[] = { "pid", pid, "visible_devices", pv[i].spec, NULL };
        mk_prom_sample(f, "mokka_process_visible_gpus", l, val);
    }
    mk_prom_family(f, "mokka_process_visible_gpu", "gauge",
                   "1 per GPU a process with a restricted view sees: gpu is its index in the "
                   "universe, index the one the process sees.");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; pv[i].gpus && j < pv[i].n; j++) {
            snprintf(pid, sizeof pid, "%d", (int)pv[i].pid);
            snprintf(gpu, sizeof gpu, "%u", pv[i].gpus[j]);
            snprintf(index, sizeof index, "%zu", j);
            const char *l[] = { "pid", pid, "gpu", gpu, "uuid", v->st.dev[pv[i].gpus[j]].uuid,
                                "index", index, NULL };
            mk_prom_sample(f, "mokka_process_visible_gpu", l, "1");
        }
    mk_procviews_free(pv, n);
}

void mk_expose(FILE *f, const mk_view *v)
{
    expose_dcgm(f, v);
    expose_health(f, v);
    expose_calls(f, v);
    expose_process(f, v);
    expose_views(f, v);
}

char *mk_expose_text(const mk_view *v, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    mk_expose(f, v);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
