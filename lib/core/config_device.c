/* config_device.c - decoding the device fields of a config into mk_device.
 *
 * The same keys serve a GPU profile (fixtures/profiles), a config's
 * `defaults:` and each `devices:` entry; they are applied in that order on
 * top of a generic baseline, so a later layer overrides only what it names.
 * Keys live in tables (one row per key) so that adding a field is one line;
 * nested maps (pcie, clocks, ...) have tables of their own. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config_int.h"
#include "units.h"

typedef enum { F_STR, F_UINT, F_BOOL, F_MEM, F_POWER, F_TEMP, F_LIVE, F_MAP, F_FN } ftype;

typedef struct field field;
typedef void (*field_fn)(mk_device *dev, const mk_ynode *v, mk_diags *d);
struct field {
    const char *key;
    ftype t;
    size_t off;          /* F_STR, F_UINT, F_BOOL, F_MEM, F_POWER, F_TEMP */
    size_t size;         /* F_STR: buffer size; F_UINT: unsigned max */
    int metric;          /* F_LIVE */
    const field *sub;    /* F_MAP */
    field_fn fn;         /* F_FN */
};

#define STR(k, m)   { k, F_STR, offsetof(mk_device, m), sizeof(((mk_device *)0)->m), 0, 0, 0 }
#define UINT(k, m, max) { k, F_UINT, offsetof(mk_device, m), (max), 0, 0, 0 }
#define BOOL(k, m)  { k, F_BOOL, offsetof(mk_device, m), 0, 0, 0, 0 }
#define MEM(k, m)   { k, F_MEM, offsetof(mk_device, m), 0, 0, 0, 0 }
#define POWER(k, m) { k, F_POWER, offsetof(mk_device, m), 0, 0, 0, 0 }
#define TEMP(k, m)  { k, F_TEMP, offsetof(mk_device, m), 0, 0, 0, 0 }
#define LIVE(k, mt) { k, F_LIVE, 0, 0, (mt), 0, 0 }
#define MAP(k, t)   { k, F_MAP, 0, 0, 0, (t), 0 }
#define FN(k, f)    { k, F_FN, 0, 0, 0, 0, (f) }
#define END         { 0, 0, 0, 0, 0, 0, 0 }

/* --- strict warnings ---------------------------------------------------------- */

/* --strict: a bare number as a size means MB from 1024 up and GB below, which
 * a reader can easily get wrong; each part of a range is looked at. */
static void warn_unitless(const mk_ynode *v, const char *key, mk_diags *d)
{
    char part[64];
    const char *s = v->str, *dash = s[0] ? strchr(s + 1, '-') : NULL;
    size_t n = dash ? (size_t)(dash - s) : strlen(s);
    snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), s);
    if (!mk_memory_unitless(part) && !(dash && mk_memory_unitless(dash + 1)))
        return;
    if (dash)
        mk_ywarn(d, v, "%s: '%s' has no unit (a bare size means MB from 1024 up and GB below); "
                 "write the unit on both ends, like 1GiB-2GiB", key, s);
    else
        mk_ywarn(d, v, "%s: '%s' has no unit (a bare size means MB from 1024 up and GB below); "
                 "write %s%s", key, s, s, strtod(s, NULL) >= 1024 ? "MiB" : "GiB");
}

/* --- live values ------------------------------------------------------------ */

static int bare_number(const char *s)
{
    while (*s == ' ')
        s++;
    if (!*s)
        return 0;
    for (; *s; s++)
        if ((*s < '0' || *s > '9') && *s != ' ')
            return 0;
    return 1;
}

/* temperature: 42 | "35-45" | -1 (drift) | follow | "N/A" | {min, max, step, start} */
static void decode_live(mk_device *dev, int metric, const mk_ynode *v, mk_diags *d)
{
    const char *key = mk_metrics[metric].name;
    mk_unit u = mk_metrics[metric].unit;
    mk_lv lv = { MK_LV_FIXED, 0, 0, 0, 0 };
    const char *why;
    int64_t a, b;
    int64_t umax = u == MK_U_PERCENT ? 100 : u == MK_U_CELSIUS ? 150 : INT64_MAX / 4;

    if (v->kind == MK_Y_MAP) {
        static const char *const keys[] = { "min", "max", "step", "start", NULL };
        mk_ycheck_keys(v, key, keys, d);
        lv.kind = MK_LV_DRIFT;
        lv.lo = 0;
        lv.hi = umax;
        lv.step = u == MK_U_PERCENT || u == MK_U_CELSIUS ? 5 : 0;
        const mk_ynode *n;
        if ((n = mk_yget(v, "min")) && mk_parse_quantity(u, n->str ? n->str : "", &lv.lo, &why))
            mk_yerr(d, n, "%s.min: %s", key, why);
        if ((n = mk_yget(v, "max")) && mk_parse_quantity(u, n->str ? n->str : "", &lv.hi, &why))
            mk_yerr(d, n, "%s.max: %s", key, why);
        if ((n = mk_yget(v, "step")) && mk_parse_quantity(u, n->str ? n->str : "", &lv.step, &why))
            mk_yerr(d, n, "%s.step: %s", key, why);
        if (!lv.step)
            lv.step = (lv.hi - lv.lo) / 20 + 1;
        lv.start = (lv.lo + lv.hi) / 2;
        if ((n = mk_yget(v, "start")) && mk_parse_quantity(u, n->str ? n->str : "", &lv.start, &why))
            mk_yerr(d, n, "%s.start: %s", key, why);
        if (lv.lo > lv.hi || lv.start < lv.lo || lv.start > lv.hi)
            mk_yerr(d, v, "%s: needs min <= start <= max", key);
        dev->lv[metric] = lv;
        return;
    }
    if (v->kind != MK_Y_SCALAR) {
        mk_yerr(d, v, "%s: expected a value, a range like 35-45, -1, follow or a map", key);
        return;
    }
    const char *s = v->str;
    if (strcasecmp(s, "N/A") == 0) {
        lv.kind = MK_LV_NA;
    } else if (strcasecmp(s, "follow") == 0) {
        if (metric != MK_M_POWER && metric != MK_M_MEM_USED && metric != MK_M_TEMP &&
            metric != MK_M_CLK_GRAPHICS && metric != MK_M_CLK_SM && metric != MK_M_CLK_MEM &&
            metric != MK_M_CLK_VIDEO) {
            mk_yerr(d, v, "%s: only power, temperature, memoryUsed and clocks can follow utilization", key);
            return;
        }
        lv.kind = MK_LV_FOLLOW; /* bounds are filled in by mk_device_finish */
    } else if (strcmp(s, "-1") == 0 && (u == MK_U_PERCENT || u == MK_U_CELSIUS)) {
        lv.kind = MK_LV_DRIFT;
        lv.lo = u == MK_U_PERCENT ? 0 : 25;
        lv.hi = u == MK_U_PERCENT ? 100 : 90;
        lv.step = 5;
        lv.start = -1; /* drawn from the seed when the live state starts */
    } else if (s[0] && s[0] != '-' && strchr(s + 1, '-')) {
        const char *dash = strchr(s + 1, '-');
        char lo[64];
        size_t n = (size_t)(dash - s);
        if (n >= sizeof lo) n = sizeof lo - 1;
        memcpy(lo, s, n);
        lo[n] = 0;
        if (mk_parse_quantity(u, lo, &a, &why) || mk_parse_quantity(u, dash + 1, &b, &why)) {
            mk_yerr(d, v, "%s: bad range '%s': %s", key, s, why);
            return;
        }
        if (u == MK_U_MEMORY && bare_number(lo) && bare_number(dash + 1)) {
            /* One unit for both ends: "1000-2000" is MB, not 1000 GB to 2000 MB. */
            uint64_t mult = strtoull(dash + 1, NULL, 10) >= 1024 ? 1ull << 20 : 1ull << 30;
            a = (int64_t)(strtoull(lo, NULL, 10) * mult);
            b = (int64_t)(strtoull(dash + 1, NULL, 10) * mult);
        }
        if (a > b) {
            mk_yerr(d, v, "%s: range '%s' runs backwards", key, s);
            return;
        }
        if (u == MK_U_MEMORY)
            warn_unitless(v, key, d);
        lv.kind = a == b ? MK_LV_FIXED : MK_LV_RANGE;
        lv.lo = a;
        lv.hi = b;
    } else {
        if (mk_parse_quantity(u, s, &a, &why)) {
            mk_yerr(d, v, "%s: '%s': %s", key, s, why);
            return;
        }
        if (u == MK_U_MEMORY)
            warn_unitless(v, key, d);
        lv.lo = lv.hi = a;
    }
    dev->lv[metric] = lv;
}

/* --- special fields --------------------------------------------------------- */

int mk_config_enum(const mk_ynode *v, const char *key, const char *const *names,
                   const unsigned *vals, unsigned *out, mk_diags *d)
{
    if (v->kind != MK_Y_SCALAR) {
        mk_yerr(d, v, "%s: expected a name", key);
        return -1;
    }
    for (size_t i = 0; names[i]; i++)
        if (strcasecmp(names[i], v->str) == 0) {
            *out = vals ? vals[i] : (unsigned)i;
            return 0;
        }
    const char *sugg = mk_did_you_mean(v->str, names);
    char list[512] = "";
    for (size_t i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    if (sugg)
        mk_yerr(d, v, "%s: unknown value '%s'; did you mean '%s'?", key, v->str, sugg);
    else
        mk_yerr(d, v, "%s: unknown value '%s' (one of: %s)", key, v->str, list);
    return -1;
}

static void f_brand(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    mk_config_enum(v, "brand", mk_brand_names, NULL, &dev->brand, d);
}

static void f_arch(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    static const char *const n[] = { "kepler", "maxwell", "pascal", "volta", "turing",
        "ampere", "ada", "hopper", "blackwell", NULL };
    static const unsigned val[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    mk_config_enum(v, "architecture", n, val, &dev->arch, d);
}

static void f_compute_mode(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    mk_config_enum(v, "computeMode", mk_compute_mode_names, NULL, &dev->compute_mode, d);
}

static void f_cc(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    int maj, min;
    char tail;
    if (v->kind != MK_Y_SCALAR || sscanf(v->str, "%d.%d%c", &maj, &min, &tail) != 2 ||
        maj < 1 || maj > 99 || min < 0 || min > 99) {
        mk_yerr(d, v, "computeCapability: expected MAJOR.MINOR like \"9.0\"");
        return;
    }
    dev->cc_major = maj;
    dev->cc_minor = min;
}

static void f_pstate(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    const char *s = v->kind == MK_Y_SCALAR ? v->str : "";
    const char *digits = s + (s[0] == 'P' || s[0] == 'p');
    char *end;
    long long p = strtoll(digits, &end, 10);
    if (!isdigit((unsigned char)digits[0]) || *end || p > 15) {
        mk_yerr(d, v, "pstate: expected 0 to 15 or P0 to P15");
        return;
    }
    dev->pstate = (unsigned)p;
}

static void f_hex32(mk_device *dev, const mk_ynode *v, mk_diags *d, uint32_t *out, const char *key)
{
    long long x;
    (void)dev;
    if (mk_yint(v, key, 0, 0xffffffffLL, &x, d) == 0)
        *out = (uint32_t)x;
}

static void f_pci_device_id(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    f_hex32(dev, v, d, &dev->pci_device_id, "pciDeviceId");
}

static void f_pci_subsys_id(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    f_hex32(dev, v, d, &dev->pci_subsys_id, "pciSubsystemId");
}

static void f_switch_pci_id(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    f_hex32(dev, v, d, &dev->nvlink_switch_pci_id, "nvlink.switchPciDeviceId");
}

static void f_bus_id(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    const char *s;
    if (mk_ystr(v, "pciBusID", &s, d))
        return;
    if (mk_parse_bus_id(s, dev) != 0)
        mk_yerr(d, v, "pciBusID: '%s' is not a PCI address like 0000:07:00.0 (hex domain:bus:device.function)", s);
}

static void f_numa(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    long long n;
    if (mk_yint(v, "numaNode", -1, 1023, &n, d) == 0)
        dev->numa_node = (int)n;
}

/* The profile is layered in by config.c; here only its form is checked. */
static void f_profile(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    (void)dev;
    if (v->kind != MK_Y_SCALAR)
        mk_yerr(d, v, "profile: expected a profile name like h100-sxm5-80gb");
}

static void f_mig_enabled(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    mk_ybool(v, "migEnabled", &dev->mig_enabled, d);
}

static void f_mig(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    static const char *const keys[] = { "mode", "instances", NULL };
    if (v->kind != MK_Y_MAP) {
        mk_yerr(d, v, "mig: expected a map like {mode: enabled, instances: [1g.5gb]}");
        return;
    }
    mk_ycheck_keys(v, "mig", keys, d);
    const mk_ynode *m = mk_yget(v, "mode");
    if (m) {
        static const char *const n[] = { "enabled", "disabled", NULL };
        static const unsigned val[] = { 1, 0 };
        unsigned on;
        if (mk_config_enum(m, "mig.mode", n, val, &on, d) == 0)
            dev->mig_enabled = (int)on;
    }
    const mk_ynode *inst = mk_yget(v, "instances");
    if (inst) {
        if (inst->kind != MK_Y_SEQ) {
            mk_yerr(d, inst, "mig.instances: expected a list of profile names like [1g.5gb, 3g.20gb]");
            return;
        }
        if (!m)
            dev->mig_enabled = 1;
        mk_config_set_mig_request(dev, inst);
    }
}

static void f_processes(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    static const char *const keys[] = { "pid", "name", "usedMemory", "type", NULL };
    if (v->kind != MK_Y_SEQ) {
        mk_yerr(d, v, "processes: expected a list of {pid, name, usedMemory}");
        return;
    }
    free(dev->procs);
    dev->procs = calloc(v->n ? v->n : 1, sizeof *dev->procs);
    dev->nprocs = 0;
    if (!dev->procs)
        return;
    for (size_t i = 0; i < v->n; i++) {
        const mk_ynode *p = v->vals[i], *n;
        mk_process *pr = &dev->procs[dev->nprocs];
        if (p->kind != MK_Y_MAP) {
            mk_yerr(d, p, "processes: expected {pid, name, usedMemory}");
            continue;
        }
        mk_ycheck_keys(p, "a process", keys, d);
        long long pid = 0;
        if (!(n = mk_yget(p, "pid")))
            mk_yerr(d, p, "processes: pid is required");
        else
            mk_yint(n, "pid", 1, 0x7fffffff, &pid, d);
        pr->pid = (unsigned)pid;
        const char *s;
        if ((n = mk_yget(p, "name")) && mk_ystr(n, "name", &s, d) == 0)
            snprintf(pr->name, sizeof pr->name, "%s", s);
        const char *why;
        if ((n = mk_yget(p, "usedMemory")) &&
            (n->kind != MK_Y_SCALAR || mk_parse_memory(n->str, &pr->used_memory, &why)))
            mk_yerr(d, n, "usedMemory: expected a size like 2GiB");
        if ((n = mk_yget(p, "type"))) {
            static const char *const tn[] = { "compute", "graphics", "both", NULL };
            static const unsigned tv[] = { 0, 1, 1 };
            unsigned g;
            if (mk_config_enum(n, "type", tn, tv, &g, d) == 0)
                pr->graphics = (int)g;
        }
        dev->nprocs++;
    }
}

static void f_fault_mode(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    static const char *const n[] = { "xid", "ecc", "lost", NULL };
    static const unsigned val[] = { MK_FAULT_XID, MK_FAULT_ECC, MK_FAULT_LOST };
    unsigned m;
    if (mk_config_enum(v, "mode", n, val, &m, d) == 0)
        dev->health.mode = (mk_fault_mode)m;
}

static void f_after(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    const char *why;
    double s;
    if (v->kind != MK_Y_SCALAR || mk_parse_duration(v->str, &s, &why))
        mk_yerr(d, v, "unhealthy_after_seconds: expected seconds like 300 or a duration like 5m");
    else
        dev->health.after_seconds = s;
}

static void f_mem_exceed(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    long long p;
    if (mk_yint(v, "unhealthy_on_memory_exceed", 1, 100, &p, d) == 0)
        dev->health.on_memory_exceed = (int)p;
}

static void f_on_temp(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    long long t;
    if (mk_yint(v, "unhealthy_on_temperature", 1, 200, &t, d) == 0)
        dev->health.on_temperature = (int)t;
}

static void f_xid(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    long long x;
    if (mk_yint(v, "xid", 1, 999, &x, d) == 0)
        dev->health.xid = (unsigned)x;
}

static void f_mig_profiles(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    mk_config_mig_profiles(dev, v, d);
}

static void f_utilization_live(mk_device *dev, const mk_ynode *v, mk_diags *d);
static void f_clocks_live(mk_device *dev, const mk_ynode *v, mk_diags *d);

/* --- tables ----------------------------------------------------------------- */

static const field pcie_fields[] = {
    UINT("maxGen", pcie_max_gen, 6), UINT("gen", pcie_gen, 6),
    UINT("maxWidth", pcie_max_width, 32), UINT("width", pcie_width, 32), END
};
static const field threshold_fields[] = {
    TEMP("shutdown", temp_shutdown), TEMP("slowdown", temp_slowdown),
    TEMP("gpuMax", temp_gpu_max), TEMP("memoryMax", temp_mem_max), TEMP("target", temp_target), END
};
static const field power_limit_fields[] = {
    POWER("default", power_default_limit), POWER("min", power_min_limit),
    POWER("max", power_max_limit), POWER("enforced", power_limit), END
};
static const field max_clock_fields[] = {
    UINT("graphics", clk_max_graphics, 100000), UINT("sm", clk_max_sm, 100000),
    UINT("memory", clk_max_mem, 100000), UINT("video", clk_max_video, 100000), END
};
static const field app_clock_fields[] = {
    UINT("graphics", clk_app_graphics, 100000), UINT("memory", clk_app_mem, 100000), END
};
static const field inforom_fields[] = {
    STR("image", inforom_image), STR("oem", inforom_oem), STR("ecc", inforom_ecc),
    STR("power", inforom_pwr), END
};
static const field nvlink_fields[] = {
    UINT("version", nvlink_version, 10), UINT("links", nvlinks, MK_MAX_NVLINKS),
    UINT("switches", nvlink_switches, MK_MAX_NVSWITCHES),
    FN("switchPciDeviceId", f_switch_pci_id), END
};
static const field health_fields[] = {
    FN("unhealthy_after_seconds", f_after), FN("unhealthy_on_memory_exceed", f_mem_exceed),
    FN("unhealthy_on_temperature", f_on_temp), FN("xid", f_xid), FN("mode", f_fault_mode), END
};
static const field util_fields[] = {
    LIVE("gpu", MK_M_UTIL_GPU), LIVE("memory", MK_M_UTIL_MEM),
    LIVE("encoder", MK_M_UTIL_ENC), LIVE("decoder", MK_M_UTIL_DEC), END
};
static const field clock_fields[] = {
    LIVE("graphics", MK_M_CLK_GRAPHICS), LIVE("sm", MK_M_CLK_SM),
    LIVE("memory", MK_M_CLK_MEM), LIVE("video", MK_M_CLK_VIDEO), END
};

static const field device_fields[] = {
    { "index", F_FN, 0, 0, 0, 0, 0 },   /* handled by config.c */
    FN("profile", f_profile),
    STR("name", name), FN("brand", f_brand), FN("architecture", f_arch),
    FN("computeCapability", f_cc), UINT("smCount", sm_count, 100000),
    STR("uuid", uuid), STR("serial", serial), STR("boardPartNumber", board_part),
    UINT("boardId", board_id, 0xffffffffu), STR("vbiosVersion", vbios),
    MAP("inforom", inforom_fields), UINT("minorNumber", minor, 255),
    FN("pciBusID", f_bus_id), FN("pciDeviceId", f_pci_device_id),
    FN("pciSubsystemId", f_pci_subsys_id), FN("numaNode", f_numa), MAP("pcie", pcie_fields),
    MEM("memory", mem_total), MEM("memoryReserved", mem_reserved), MEM("bar1Memory", bar1_total),
    LIVE("memoryUsed", MK_M_MEM_USED),
    LIVE("temperature", MK_M_TEMP), LIVE("memoryTemperature", MK_M_TEMP_MEM),
    MAP("thresholds", threshold_fields),
    LIVE("power", MK_M_POWER), POWER("powerIdle", power_idle), MAP("powerLimits", power_limit_fields),
    FN("clocks", f_clocks_live), MAP("maxClocks", max_clock_fields),
    MAP("applicationClocks", app_clock_fields),
    FN("utilization", f_utilization_live), UINT("fans", fans, 16), LIVE("fanSpeed", MK_M_FAN),
    BOOL("ecc", ecc_enabled), BOOL("persistenceMode", persistence),
    FN("computeMode", f_compute_mode), FN("pstate", f_pstate),
    FN("migEnabled", f_mig_enabled), FN("mig", f_mig), UINT("migSlices", mig_slices, 8),
    UINT("migMemorySlices", mig_mem_slices, 8), FN("migProfiles", f_mig_profiles),
    MAP("nvlink", nvlink_fields), FN("fabric", mk_config_fabric_key), FN("processes", f_processes),
    MAP("health", health_fields),
    FN("unhealthy_after_seconds", f_after), FN("unhealthy_on_memory_exceed", f_mem_exceed),
    FN("unhealthy_on_temperature", f_on_temp), FN("xid", f_xid), FN("mode", f_fault_mode),
    END
};

static void apply_table(mk_device *dev, const mk_ynode *map, const field *tab,
                        const char *what, mk_diags *d);

static void f_utilization_live(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    apply_table(dev, v, util_fields, "utilization", d);
}

static void f_clocks_live(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    apply_table(dev, v, clock_fields, "clocks", d);
}

static void apply_field(mk_device *dev, const field *f, const mk_ynode *v, mk_diags *d)
{
    char *base = (char *)dev;
    const char *s, *why;
    long long x;
    uint64_t u;
    switch (f->t) {
    case F_STR:
        if (mk_ystr(v, f->key, &s, d) == 0) {
            if (strlen(s) >= f->size)
                mk_yerr(d, v, "%s: longer than %zu characters", f->key, f->size - 1);
            else
                memcpy(base + f->off, s, strlen(s) + 1);
        }
        break;
    case F_UINT:
        if (mk_yint(v, f->key, 0, (long long)f->size, &x, d) == 0)
            *(unsigned *)(base + f->off) = (unsigned)x;
        break;
    case F_BOOL:
        mk_ybool(v, f->key, (int *)(base + f->off), d);
        break;
    case F_TEMP:
        if (mk_yint(v, f->key, -50, 200, &x, d) == 0)
            *(int *)(base + f->off) = (int)x;
        break;
    case F_MEM:
        if (v->kind != MK_Y_SCALAR || mk_parse_memory(v->str, &u, &why))
            mk_yerr(d, v, "%s: %s", f->key,
                    "expected a size like 40GB, 40GiB, 4864MiB or a bare number (MB from 1024 up, GB below)");
        else {
            warn_unitless(v, f->key, d);
            *(uint64_t *)(base + f->off) = u;
        }
        break;
    case F_POWER:
        if (v->kind != MK_Y_SCALAR || mk_parse_power(v->str, &u, &why))
            mk_yerr(d, v, "%s: expected a power like 210, 210W, 0.21kW or 210000mW", f->key);
        else
            *(unsigned *)(base + f->off) = (unsigned)u;
        break;
    case F_LIVE:
        decode_live(dev, f->metric, v, d);
        break;
    case F_MAP:
        apply_table(dev, v, f->sub, f->key, d);
        break;
    case F_FN:
        if (f->fn)
            f->fn(dev, v, d);
        break;
    }
}

static void apply_table(mk_device *dev, const mk_ynode *map, const field *tab,
                        const char *what, mk_diags *d)
{
    const char *keys[96];
    size_t nk = 0;
    if (map->kind != MK_Y_MAP) {
        mk_yerr(d, map, "%s: expected a map", what);
        return;
    }
    for (const field *f = tab; f->key && nk < 95; f++)
        keys[nk++] = f->key;
    keys[nk] = NULL;
    mk_ycheck_keys(map, what, keys, d);
    for (size_t i = 0; i < map->n; i++)
        for (const field *f = tab; f->key; f++)
            if (strcmp(f->key, map->keys[i]->str) == 0) {
                apply_field(dev, f, map->vals[i], d);
                break;
            }
}

void mk_device_apply(mk_device *dev, const mk_ynode *map, const char *what, mk_diags *d)
{
    apply_table(dev, map, device_fields, what, d);
}

size_t mk_device_keys(const char **out, size_t max)
{
    size_t n = 0;
    for (const field *f = device_fields; f->key && n + 1 < max; f++)
        out[n++] = f->key;
    out[n] = NULL;
    return n;
}
