/* smi_doc.c - gathering the smi document through NVML (see smi.h). The
 * keys and their order follow nvidia-smi -q, whose labels smi_query.c maps
 * them back to. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "smi.h"

/* The library being read; set for the duration of mk_smi_gather. */
static const mk_nvml *N;

static json_t *failure(nvmlReturn_t rc)
{
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND)
        return json_null();
    return json_pack("{s:s}", "error", N->nvmlErrorString(rc));
}

/* Sets o[key] to v when rc is SUCCESS, else to what the failure shows. */
static void put(json_t *o, const char *key, nvmlReturn_t rc, json_t *v)
{
    if (rc == NVML_SUCCESS && v) {
        json_object_set_new(o, key, v);
        return;
    }
    json_decref(v);
    json_object_set_new(o, key, failure(rc == NVML_SUCCESS ? NVML_ERROR_UNKNOWN : rc));
}

/* put() after `call`: the value often reads what the call wrote, and C
 * leaves the order of argument evaluation open. */
#define PUT(o, key, call, value) \
    do { \
        nvmlReturn_t rc_ = (call); \
        put((o), (key), rc_, (value)); \
    } while (0)

static json_t *mib(unsigned long long bytes)
{
    return json_integer((json_int_t)(bytes >> 20));
}

static json_t *watts(unsigned mw)
{
    return json_real(mw / 1000.0);
}

static json_t *enabled(unsigned state)
{
    return json_string(state ? "Enabled" : "Disabled");
}

static json_t *hexnum(unsigned v, int digits)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%0*X", digits, v);
    return json_string(buf);
}

static json_t *sub(json_t *o, const char *key)
{
    json_t *s = json_object();
    json_object_set_new(o, key, s);
    return s;
}

static const char *brand_name(unsigned b)
{
    static const char *const names[] = {
        "Unknown", "Quadro", "Tesla", "NVS", "Grid", "GeForce", "Titan", "NVIDIA Virtual Applications",
        "NVIDIA Virtual PC", "NVIDIA Virtual Compute Server", "NVIDIA RTX Virtual Workstation",
        "NVIDIA Cloud Gaming", "Quadro RTX", "NVIDIA RTX", "NVIDIA", "GeForce RTX", "Titan RTX"
    };
    return b < sizeof names / sizeof names[0] ? names[b] : "Unknown";
}

static const char *arch_name(unsigned a)
{
    switch (a) {
    case NVML_DEVICE_ARCH_KEPLER: return "Kepler";
    case NVML_DEVICE_ARCH_MAXWELL: return "Maxwell";
    case NVML_DEVICE_ARCH_PASCAL: return "Pascal";
    case NVML_DEVICE_ARCH_VOLTA: return "Volta";
    case NVML_DEVICE_ARCH_TURING: return "Turing";
    case NVML_DEVICE_ARCH_AMPERE: return "Ampere";
    case NVML_DEVICE_ARCH_ADA: return "Ada Lovelace";
    case NVML_DEVICE_ARCH_HOPPER: return "Hopper";
    case NVML_DEVICE_ARCH_BLACKWELL: return "Blackwell";
    case NVML_DEVICE_ARCH_RUBIN: return "Rubin";
    default: return "Unknown";
    }
}

static const char *compute_mode_name(unsigned m)
{
    switch (m) {
    case NVML_COMPUTEMODE_DEFAULT: return "Default";
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD: return "Exclusive_Thread";
    case NVML_COMPUTEMODE_PROHIBITED: return "Prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return "Exclusive_Process";
    default: return "Unknown";
    }
}

/* --- identity ---------------------------------------------------------------- */

typedef nvmlReturn_t (*str_getter)(nvmlDevice_t, char *, unsigned int);

static void put_str(json_t *o, const char *key, str_getter fn, nvmlDevice_t h)
{
    char buf[256] = "";
    nvmlReturn_t rc = fn ? fn(h, buf, sizeof buf) : NVML_ERROR_FUNCTION_NOT_FOUND;
    put(o, key, rc, json_string(buf));
}

/* A mode as {current, pending} (MIG mode, ECC mode). */
static void put_modes(json_t *g, const char *key, nvmlReturn_t rc, unsigned cur, unsigned pend)
{
    json_t *m = sub(g, key);
    put(m, "current", rc, enabled(cur));
    put(m, "pending", rc, enabled(pend));
}

static void put_mig_mode(json_t *g, nvmlDevice_t h)
{
    unsigned cur = 0, pend = 0;
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetMigMode, h, &cur, &pend);
    put_modes(g, "mig_mode", rc, cur, pend);
}

static void put_inforom(json_t *g, nvmlDevice_t h)
{
    static const struct { const char *key; nvmlInforomObject_t obj; } objs[] = {
        { "oem_object", NVML_INFOROM_OEM },
        { "ecc_object", NVML_INFOROM_ECC },
        { "power_management_object", NVML_INFOROM_POWER },
    };
    json_t *o = sub(g, "inforom_version");
    put_str(o, "image_version", N->nvmlDeviceGetInforomImageVersion, h);
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        char buf[64] = "";
        PUT(o, objs[i].key, MK_NV(N, nvmlDeviceGetInforomVersion, h, objs[i].obj, buf, sizeof buf),
            json_string(buf));
    }
}

static void put_pci(json_t *g, nvmlDevice_t h)
{
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetPciInfo_v3, h, &pci);
    json_t *p = sub(g, "pci");
    put(p, "bus", rc, hexnum(pci.bus, 2));
    put(p, "device", rc, hexnum(pci.device, 2));
    put(p, "domain", rc, hexnum(pci.domain, 4));
    put(p, "device_id", rc, hexnum(pci.pciDeviceId, 8));
    put(p, "bus_id", rc, json_string(pci.busId));
    put(p, "sub_system_id", rc, hexnum(pci.pciSubSystemId, 8));
    json_t *link = sub(p, "gpu_link_info");
    json_t *gen = sub(link, "pcie_generation"), *width = sub(link, "link_width");
    unsigned v = 0;
    PUT(gen, "max", MK_NV(N, nvmlDeviceGetMaxPcieLinkGeneration, h, &v), json_integer(v));
    PUT(gen, "current", MK_NV(N, nvmlDeviceGetCurrPcieLinkGeneration, h, &v), json_integer(v));
    PUT(width, "max_lanes", MK_NV(N, nvmlDeviceGetMaxPcieLinkWidth, h, &v), json_integer(v));
    PUT(width, "current_lanes", MK_NV(N, nvmlDeviceGetCurrPcieLinkWidth, h, &v), json_integer(v));
}

/* --- memory ------------------------------------------------------------------ */

static void put_fb_memory(json_t *o, nvmlDevice_t h)
{
    json_t *m = sub(o, "fb_memory_usage");
    nvmlMemory_v2_t m2 = { .version = nvmlMemory_v2 };
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetMemoryInfo_v2, h, &m2);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
        /* An older library: the v1 call has no reserved memory. */
        nvmlMemory_t m1 = { 0, 0, 0 };
        rc = MK_NV(N, nvmlDeviceGetMemoryInfo, h, &m1);
        put(m, "total_mib", rc, mib(m1.total));
        put(m, "reserved_mib", NVML_ERROR_NOT_SUPPORTED, NULL);
        put(m, "used_mib", rc, mib(m1.used));
        put(m, "free_mib", rc, mib(m1.free));
        return;
    }
    put(m, "total_mib", rc, mib(m2.total));
    put(m, "reserved_mib", rc, mib(m2.reserved));
    put(m, "used_mib", rc, mib(m2.used));
    put(m, "free_mib", rc, mib(m2.free));
}

static void put_bar1(json_t *o, nvmlDevice_t h)
{
    nvmlBAR1Memory_t b = { 0, 0, 0 };
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetBAR1MemoryInfo, h, &b);
    json_t *m = sub(o, "bar1_memory_usage");
    put(m, "total_mib", rc, mib(b.bar1Total));
    put(m, "used_mib", rc, mib(b.bar1Used));
    put(m, "free_mib", rc, mib(b.bar1Free));
}

/* --- utilisation, ECC, temperature, power, clocks ---------------------------- */

static void put_utilization(json_t *g, nvmlDevice_t h)
{
    nvmlUtilization_t u = { 0, 0 };
    unsigned v = 0, period = 0;
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetUtilizationRates, h, &u);
    json_t *o = sub(g, "utilization");
    put(o, "gpu_pct", rc, json_integer(u.gpu));
    put(o, "memory_pct", rc, json_integer(u.memory));
    PUT(o, "encoder_pct", MK_NV(N, nvmlDeviceGetEncoderUtilization, h, &v, &period),
        json_integer(v));
    PUT(o, "decoder_pct", MK_NV(N, nvmlDeviceGetDecoderUtilization, h, &v, &period),
        json_integer(v));
}

static void put_ecc(json_t *g, nvmlDevice_t h)
{
    nvmlEnableState_t cur = 0, pend = 0;
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetEccMode, h, &cur, &pend);
    put_modes(g, "ecc_mode", rc, cur, pend);
    json_t *errs = sub(g, "ecc_errors");
    static const char *const counters[] = { "volatile", "aggregate" };
    for (int c = 0; c < 2; c++) {
        json_t *o = sub(errs, counters[c]);
        unsigned long long n = 0;
        rc = MK_NV(N, nvmlDeviceGetTotalEccErrors, h, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                   (nvmlEccCounterType_t)c, &n);
        put(o, "correctable", rc, json_integer((json_int_t)n));
        rc = MK_NV(N, nvmlDeviceGetTotalEccErrors, h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                   (nvmlEccCounterType_t)c, &n);
        put(o, "uncorrectable", rc, json_integer((json_int_t)n));
    }
}

static void put_temperature(json_t *g, nvmlDevice_t h)
{
    static const struct { const char *key; nvmlTemperatureThresholds_t t; } th[] = {
        { "gpu_shutdown_temp_c", NVML_TEMPERATURE_THRESHOLD_SHUTDOWN },
        { "gpu_slowdown_temp_c", NVML_TEMPERATURE_THRESHOLD_SLOWDOWN },
        { "gpu_max_operating_temp_c", NVML_TEMPERATURE_THRESHOLD_GPU_MAX },
        { "memory_max_operating_temp_c", NVML_TEMPERATURE_THRESHOLD_MEM_MAX },
    };
    json_t *o = sub(g, "temperature");
    unsigned v = 0;
    PUT(o, "gpu_current_temp_c", MK_NV(N, nvmlDeviceGetTemperature, h, NVML_TEMPERATURE_GPU, &v),
        json_integer(v));
    for (size_t i = 0; i < sizeof th / sizeof th[0]; i++)
        PUT(o, th[i].key, MK_NV(N, nvmlDeviceGetTemperatureThreshold, h, th[i].t, &v),
            json_integer(v));
}

static void put_power(json_t *g, nvmlDevice_t h)
{
    json_t *o = sub(g, "gpu_power_readings");
    unsigned v = 0, lo = 0, hi = 0;
    PUT(o, "power_draw_w", MK_NV(N, nvmlDeviceGetPowerUsage, h, &v), watts(v));
    PUT(o, "current_power_limit_w", MK_NV(N, nvmlDeviceGetEnforcedPowerLimit, h, &v), watts(v));
    PUT(o, "requested_power_limit_w", MK_NV(N, nvmlDeviceGetPowerManagementLimit, h, &v),
        watts(v));
    PUT(o, "default_power_limit_w", MK_NV(N, nvmlDeviceGetPowerManagementDefaultLimit, h, &v),
        watts(v));
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetPowerManagementLimitConstraints, h, &lo, &hi);
    put(o, "min_power_limit_w", rc, watts(lo));
    put(o, "max_power_limit_w", rc, watts(hi));
}

static const struct { const char *key; nvmlClockType_t type; } clock_kinds[] = {
    { "graphics_mhz", NVML_CLOCK_GRAPHICS },
    { "sm_mhz", NVML_CLOCK_SM },
    { "memory_mhz", NVML_CLOCK_MEM },
    { "video_mhz", NVML_CLOCK_VIDEO },
};

typedef nvmlReturn_t (*clock_getter)(nvmlDevice_t, nvmlClockType_t, unsigned int *);

/* One clock group; app-clock groups only have graphics and memory. */
static void put_clocks(json_t *g, const char *key, clock_getter fn, nvmlDevice_t h, int app)
{
    json_t *o = sub(g, key);
    for (size_t i = 0; i < sizeof clock_kinds / sizeof clock_kinds[0]; i++) {
        nvmlClockType_t t = clock_kinds[i].type;
        if (app && t != NVML_CLOCK_GRAPHICS && t != NVML_CLOCK_MEM)
            continue;
        unsigned v = 0;
        PUT(o, clock_kinds[i].key, fn ? fn(h, t, &v) : NVML_ERROR_FUNCTION_NOT_FOUND,
            json_integer(v));
    }
}

/* --- processes --------------------------------------------------------------- */

typedef nvmlReturn_t (*proc_getter)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);

/* Reads one process list; *v and *n own a malloc'd array on SUCCESS. */
static nvmlReturn_t read_procs(proc_getter fn, nvmlDevice_t h, nvmlProcessInfo_t **v, unsigned *n)
{
    *v = NULL;
    *n = 0;
    if (!fn)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned cap = *n + 16;
        nvmlProcessInfo_t *buf = calloc(cap, sizeof *buf);
        if (!buf)
            return NVML_ERROR_MEMORY;
        unsigned count = cap;
        nvmlReturn_t rc = fn(h, &count, buf);
        if (rc == NVML_SUCCESS) {
            *v = buf;
            *n = count;
            return rc;
        }
        free(buf);
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
            return rc;
        *n = count; /* processes come and go: retry with what it asked for */
    }
    return NVML_ERROR_INSUFFICIENT_SIZE;
}

static json_t *id_or_na(unsigned id)
{
    return id == 0xFFFFFFFFu ? json_null() : json_integer(id);
}

static void add_procs(json_t *arr, const nvmlProcessInfo_t *v, unsigned n, const char *type)
{
    for (unsigned i = 0; i < n; i++) {
        json_t *p = NULL;
        size_t k;
        json_t *e;
        json_array_foreach(arr, k, e)
            if (json_integer_value(json_object_get(e, "pid")) == v[i].pid)
                p = e;
        if (p) { /* the same process as compute and graphics */
            json_object_set_new(p, "type", json_string("C+G"));
            continue;
        }
        char name[256] = "";
        nvmlReturn_t rc = MK_NV(N, nvmlSystemGetProcessName, v[i].pid, name, sizeof name);
        p = json_object();
        json_object_set_new(p, "gpu_instance_id", id_or_na(v[i].gpuInstanceId));
        json_object_set_new(p, "compute_instance_id", id_or_na(v[i].computeInstanceId));
        json_object_set_new(p, "pid", json_integer(v[i].pid));
        json_object_set_new(p, "type", json_string(type));
        put(p, "name", rc, json_string(name));
        put(p, "used_memory_mib",
            v[i].usedGpuMemory == (unsigned long long)NVML_VALUE_NOT_AVAILABLE
                ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS,
            mib(v[i].usedGpuMemory));
        json_array_append_new(arr, p);
    }
}

static int by_pid(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "pid"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "pid"));
    return (x > y) - (x < y);
}

/* nvidia-smi lists a GPU's processes by PID. */
static json_t *sorted_by_pid(json_t *arr)
{
    size_t n = json_array_size(arr);
    json_t **v = calloc(n ? n : 1, sizeof *v), *out = json_array();
    for (size_t i = 0; v && i < n; i++)
        v[i] = json_array_get(arr, i);
    if (v)
        qsort(v, n, sizeof *v, by_pid);
    for (size_t i = 0; i < n; i++)
        json_array_append(out, v ? v[i] : json_array_get(arr, i));
    free(v);
    json_decref(arr);
    return out;
}

static void put_processes(json_t *g, nvmlDevice_t h)
{
    nvmlProcessInfo_t *cv, *gv;
    unsigned cn, gn;
    nvmlReturn_t crc = read_procs(N->nvmlDeviceGetComputeRunningProcesses_v3, h, &cv, &cn);
    nvmlReturn_t grc = read_procs(N->nvmlDeviceGetGraphicsRunningProcesses_v3, h, &gv, &gn);
    if (crc != NVML_SUCCESS && grc != NVML_SUCCESS) {
        put(g, "processes", crc, NULL);
        return;
    }
    json_t *arr = json_array();
    add_procs(arr, cv, cn, "C");
    add_procs(arr, gv, gn, "G");
    free(cv);
    free(gv);
    json_object_set_new(g, "processes", sorted_by_pid(arr));
}

/* --- MIG devices ------------------------------------------------------------- */

static void put_mig_device(json_t *arr, nvmlDevice_t m, unsigned j)
{
    json_t *o = json_object();
    unsigned v = 0;
    char name[256] = "";
    json_object_set_new(o, "index", json_integer(j));
    PUT(o, "gpu_instance_id", MK_NV(N, nvmlDeviceGetGpuInstanceId, m, &v), json_integer(v));
    PUT(o, "compute_instance_id", MK_NV(N, nvmlDeviceGetComputeInstanceId, m, &v),
        json_integer(v));
    /* The profile is the end of the MIG device's name: "... MIG 1g.5gb". */
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetName, m, name, sizeof name);
    const char *mig = strstr(name, "MIG ");
    put(o, "profile", rc == NVML_SUCCESS && !mig ? NVML_ERROR_NOT_SUPPORTED : rc,
        json_string(mig ? mig + 4 : name));
    put_str(o, "uuid", N->nvmlDeviceGetUUID, m);
    nvmlDeviceAttributes_t a;
    memset(&a, 0, sizeof a);
    rc = MK_NV(N, nvmlDeviceGetAttributes_v2, m, &a);
    json_t *shared = sub(sub(o, "device_attributes"), "shared");
    put(shared, "multiprocessor_count", rc, json_integer(a.multiprocessorCount));
    put(shared, "copy_engine_count", rc, json_integer(a.sharedCopyEngineCount));
    put(shared, "encoder_count", rc, json_integer(a.sharedEncoderCount));
    put(shared, "decoder_count", rc, json_integer(a.sharedDecoderCount));
    put(shared, "ofa_count", rc, json_integer(a.sharedOfaCount));
    put(shared, "jpg_count", rc, json_integer(a.sharedJpegCount));
    put_fb_memory(o, m);
    put_bar1(o, m);
    /* A MIG device shares its GPU's memory and so its ECC counters. */
    unsigned long long unc = 0;
    put(sub(sub(o, "ecc_errors"), "volatile"), "uncorrectable",
        MK_NV(N, nvmlDeviceGetMemoryErrorCounter, m, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
              NVML_VOLATILE_ECC, NVML_MEMORY_LOCATION_DRAM, &unc),
        json_integer((json_int_t)unc));
    json_array_append_new(arr, o);
}

/* The MIG devices of a GPU in MIG mode; none (not N/A) when a MIG-capable
 * GPU has MIG off, as nvidia-smi -q shows "MIG Devices : None". */
static void put_mig_devices(json_t *g, nvmlDevice_t h)
{
    unsigned max = 0;
    json_t *cur = mk_smi_at(g, "mig_mode.current");
    if (!json_is_string(cur)) {
        json_object_set(g, "mig_devices", cur); /* MIG mode's own N/A or error */
        return;
    }
    json_t *arr = json_array();
    json_object_set_new(g, "mig_devices", arr);
    if (strcmp(json_string_value(cur), "Enabled") != 0 ||
        MK_NV(N, nvmlDeviceGetMaxMigDeviceCount, h, &max) != NVML_SUCCESS)
        return;
    for (unsigned j = 0; j < max; j++) {
        nvmlDevice_t m;
        if (MK_NV(N, nvmlDeviceGetMigDeviceHandleByIndex, h, j, &m) == NVML_SUCCESS)
            put_mig_device(arr, m, j);
    }
}

/* The fabric as nvidia-smi -q shows it: state and status (status only once
 * registration completed) as 535 prints them, then the clique, the cluster
 * UUID and the health as the drivers whose nvidia-smi print those (R550
 * on). The versioned call where the library has it (v3; drivers before
 * NVML 13 know v2 only), else the first one, which has no health. */
static void put_fabric(json_t *g, nvmlDevice_t h)
{
    static const char *const states[] = { NULL, "Not Started", "In Progress", "Completed" };
    static const char *const health[] = { "bandwidth", "route_recovery_in_progress",
                                          "route_unhealthy", "access_timeout_recovery" };
    json_t *f = sub(g, "fabric");
    nvmlGpuFabricInfoV_t v = { .version = nvmlGpuFabricInfo_v3 };
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetGpuFabricInfoV, h, &v);
    if (rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
        v.version = nvmlGpuFabricInfo_v2;
        rc = N->nvmlDeviceGetGpuFabricInfoV(h, &v);
    }
    int has_health = rc == NVML_SUCCESS;
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        nvmlGpuFabricInfo_t v1;
        rc = MK_NV(N, nvmlDeviceGetGpuFabricInfo, h, &v1);
        memcpy(v.clusterUuid, v1.clusterUuid, sizeof v.clusterUuid);
        v.status = v1.status;
        v.cliqueId = v1.cliqueId;
        v.state = v1.state;
    }
    if (rc == NVML_SUCCESS && (v.state < 1 || v.state > 3))
        rc = NVML_ERROR_NOT_SUPPORTED;
    put(f, "state", rc, rc ? NULL : json_string(states[v.state]));
    int done = rc == NVML_SUCCESS && v.state == NVML_GPU_FABRIC_STATE_COMPLETED;
    put(f, "status", done ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED,
        done ? json_string(N->nvmlErrorString(v.status)) : NULL);
    if (rc != NVML_SUCCESS)
        return;
    char uuid[40];
    const unsigned char *u = v.clusterUuid;
    snprintf(uuid, sizeof uuid, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
    json_object_set_new(f, "clique_id", json_integer(v.cliqueId));
    json_object_set_new(f, "cluster_uuid", json_string(uuid));
    if (!has_health)
        return;
    json_t *hl = sub(f, "health");
    for (int b = 0; b < 4; b++) {
        unsigned x = (v.healthMask >> (2 * b)) & 3;   /* 1 true, 2 false, 0 not supported */
        const char *text = x == 0 ? NULL : b == 0 ? (x == 1 ? "Degraded" : "Full")
                                                  : (x == 1 ? "True" : "False");
        put(hl, health[b], text ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED,
            text ? json_string(text) : NULL);
    }
}

/* --- one GPU ----------------------------------------------------------------- */

static json_t *gather_gpu(unsigned index)
{
    json_t *g = json_object();
    nvmlDevice_t h;
    json_object_set_new(g, "index", json_integer(index));
    nvmlReturn_t hrc = N->nvmlDeviceGetHandleByIndex_v2(index, &h);
    if (hrc != NVML_SUCCESS) {
        json_object_set_new(g, "error", json_string(N->nvmlErrorString(hrc)));
        return g;
    }
    unsigned v = 0;
    nvmlEnableState_t st = 0;
    nvmlBrandType_t brand = NVML_BRAND_UNKNOWN;
    nvmlDeviceArchitecture_t arch = NVML_DEVICE_ARCH_UNKNOWN;
    put_str(g, "product_name", N->nvmlDeviceGetName, h);
    PUT(g, "product_brand", MK_NV(N, nvmlDeviceGetBrand, h, &brand), json_string(brand_name(brand)));
    PUT(g, "product_architecture", MK_NV(N, nvmlDeviceGetArchitecture, h, &arch),
        json_string(arch_name(arch)));
    PUT(g, "display_mode", MK_NV(N, nvmlDeviceGetDisplayMode, h, &st), enabled(st));
    PUT(g, "display_active", MK_NV(N, nvmlDeviceGetDisplayActive, h, &st), enabled(st));
    PUT(g, "persistence_mode", MK_NV(N, nvmlDeviceGetPersistenceMode, h, &st), enabled(st));
    put_mig_mode(g, h);
    put_mig_devices(g, h);
    put_str(g, "serial_number", N->nvmlDeviceGetSerial, h);
    put_str(g, "uuid", N->nvmlDeviceGetUUID, h);
    PUT(g, "minor_number", MK_NV(N, nvmlDeviceGetMinorNumber, h, &v), json_integer(v));
    put_str(g, "vbios_version", N->nvmlDeviceGetVbiosVersion, h);
    PUT(g, "multigpu_board", MK_NV(N, nvmlDeviceGetMultiGpuBoard, h, &v),
        json_string(v ? "Yes" : "No"));
    char board[16];
    nvmlReturn_t brc = MK_NV(N, nvmlDeviceGetBoardId, h, &v);
    snprintf(board, sizeof board, "0x%x", v); /* nvidia-smi writes this one in lower case */
    put(g, "board_id", brc, json_string(board));
    put_str(g, "board_part_number", N->nvmlDeviceGetBoardPartNumber, h);
    put_inforom(g, h);
    put_pci(g, h);
    PUT(g, "fan_speed_pct", MK_NV(N, nvmlDeviceGetFanSpeed, h, &v), json_integer(v));
    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    char pstate[16] = "Unknown";
    nvmlReturn_t rc = MK_NV(N, nvmlDeviceGetPerformanceState, h, &ps);
    if ((unsigned)ps < 16)
        snprintf(pstate, sizeof pstate, "P%u", (unsigned)ps);
    put(g, "performance_state", rc, json_string(pstate));
    put_fb_memory(g, h);
    put_bar1(g, h);
    nvmlComputeMode_t cm = NVML_COMPUTEMODE_DEFAULT;
    PUT(g, "compute_mode", MK_NV(N, nvmlDeviceGetComputeMode, h, &cm),
        json_string(compute_mode_name(cm)));
    put_utilization(g, h);
    put_ecc(g, h);
    put_temperature(g, h);
    put_power(g, h);
    put_clocks(g, "clocks", N->nvmlDeviceGetClockInfo, h, 0);
    put_clocks(g, "applications_clocks", N->nvmlDeviceGetApplicationsClock, h, 1);
    put_clocks(g, "default_applications_clocks", N->nvmlDeviceGetDefaultApplicationsClock, h, 1);
    put_clocks(g, "max_clocks", N->nvmlDeviceGetMaxClockInfo, h, 0);
    put_fabric(g, h);
    put_processes(g, h);
    return g;
}

/* --- the document ------------------------------------------------------------ */

int mk_smi_select(const mk_nvml *n, const char *spec, unsigned *sel, char *err, size_t errlen)
{
    unsigned count = 0;
    n->nvmlDeviceGetCount_v2(&count);
    char *copy = strdup(spec), *save = NULL;
    int nsel = 0;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        nvmlDevice_t h;
        unsigned idx = 0;
        char *end;
        unsigned long num = strtoul(t, &end, 10);
        nvmlReturn_t rc;
        if (*t && *end == 0) {
            rc = num < count ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
            idx = (unsigned)num;
        } else {
            rc = strchr(t, ':') ? MK_NV(n, nvmlDeviceGetHandleByPciBusId_v2, t, &h)
                                : MK_NV(n, nvmlDeviceGetHandleByUUID, t, &h);
            if (rc == NVML_SUCCESS)
                rc = MK_NV(n, nvmlDeviceGetIndex, h, &idx);
        }
        if (rc != NVML_SUCCESS || nsel >= MK_SMI_MAX_GPUS) {
            snprintf(err, errlen, "no GPU '%s' (-i takes an index 0-%u, a UUID or a PCI bus id; "
                     "%s)", t, count ? count - 1 : 0, n->nvmlErrorString(rc));
            free(copy);
            return -1;
        }
        sel[nsel++] = idx;
    }
    free(copy);
    if (nsel == 0)
        snprintf(err, errlen, "-i needs an index, a UUID or a PCI bus id");
    return nsel ? nsel : -1;
}

static void put_system(json_t *doc, unsigned count)
{
    char buf[96] = "", ts[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(ts, sizeof ts, "%a %b %e %H:%M:%S %Y", localtime_r(&now, &tm));
    json_object_set_new(doc, "timestamp", json_string(ts));
    PUT(doc, "driver_version", MK_NV(N, nvmlSystemGetDriverVersion, buf, sizeof buf),
        json_string(buf));
    int cuda = 0;
    nvmlReturn_t rc = MK_NV(N, nvmlSystemGetCudaDriverVersion_v2, &cuda);
    snprintf(buf, sizeof buf, "%d.%d", cuda / 1000, cuda % 1000 / 10);
    put(doc, "cuda_version", rc, json_string(buf));
    buf[0] = 0;
    PUT(doc, "nvml_version", MK_NV(N, nvmlSystemGetNVMLVersion, buf, sizeof buf),
        json_string(buf));
    json_object_set_new(doc, "attached_gpus", json_integer(count));
}

json_t *mk_smi_gather(const mk_nvml *n, const unsigned *sel, int nsel)
{
    N = n;
    unsigned count = 0;
    json_t *doc = json_object();
    nvmlReturn_t rc = n->nvmlDeviceGetCount_v2(&count);
    put_system(doc, rc == NVML_SUCCESS ? count : 0);
    json_t *gpus = json_array();
    json_object_set_new(doc, "gpus", gpus);
    if (!sel)
        for (unsigned i = 0; i < count; i++)
            json_array_append_new(gpus, gather_gpu(i));
    for (int i = 0; sel && i < nsel; i++)
        json_array_append_new(gpus, gather_gpu(sel[i]));
    N = NULL;
    return doc;
}

/* --- reading it back --------------------------------------------------------- */

json_t *mk_smi_at(json_t *o, const char *path)
{
    char key[128];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        o = json_object_get(o, key);
        path += n + (path[n] == '.');
    }
    return o;
}

int mk_smi_int(json_t *o, const char *path, long long *v)
{
    json_t *x = mk_smi_at(o, path);
    if (json_is_integer(x)) {
        *v = json_integer_value(x);
        return 1;
    }
    if (json_is_real(x)) {
        *v = (long long)(json_real_value(x) + 0.5);
        return 1;
    }
    return json_is_object(x) ? -1 : 0;
}

const char *mk_smi_str(json_t *o, const char *path)
{
    json_t *x = mk_smi_at(o, path);
    if (json_is_string(x))
        return json_string_value(x);
    return json_is_object(x) ? "ERR!" : "N/A";
}
