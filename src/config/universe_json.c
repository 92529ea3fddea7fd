/* universe_json.c - the concrete universe as a JSON tree (see config.h).
 * Key names and value syntax follow the config (lib/core/config_device.c),
 * so a reviewer reads render output with the same eyes as a config. */
#include <stdio.h>
#include <string.h>
#include "fabric.h"
#include "profiles.h"
#include "units.h"
#include "config.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

/* --- values in config syntax ------------------------------------------------------ */

static void fmt_memory(uint64_t b, char *buf, size_t len)
{
    if (b && b % GIB == 0)
        snprintf(buf, len, "%lluGiB", (unsigned long long)(b / GIB));
    else if (b % MIB == 0)
        snprintf(buf, len, "%lluMiB", (unsigned long long)(b / MIB));
    else
        snprintf(buf, len, "%lluB", (unsigned long long)b);
}

static void fmt_power(uint64_t mw, char *buf, size_t len)
{
    if (mw % 1000 == 0)
        snprintf(buf, len, "%lluW", (unsigned long long)(mw / 1000));
    else
        snprintf(buf, len, "%llumW", (unsigned long long)mw);
}

static void fmt_quantity(mk_unit u, int64_t v, char *buf, size_t len)
{
    if (u == MK_U_MEMORY)
        fmt_memory((uint64_t)v, buf, len);
    else if (u == MK_U_POWER)
        fmt_power((uint64_t)v, buf, len);
    else
        snprintf(buf, len, "%lld", (long long)v);
}

/* A quantity: a string with its unit for memory and power, else a number. */
static json_t *quantity(mk_unit u, int64_t v)
{
    char buf[64];
    if (u != MK_U_MEMORY && u != MK_U_POWER)
        return json_integer(v);
    fmt_quantity(u, v, buf, sizeof buf);
    return json_string(buf);
}

/* A live value spec as the config writes it. */
static json_t *live_spec(const mk_lv *lv, mk_metric m)
{
    mk_unit u = mk_metrics[m].unit;
    char lo[48], hi[48], buf[100];
    switch (lv->kind) {
    case MK_LV_NA:
        return json_string("N/A");
    case MK_LV_FOLLOW:
        return json_string("follow");
    case MK_LV_RANGE:
        fmt_quantity(u, lv->lo, lo, sizeof lo);
        fmt_quantity(u, lv->hi, hi, sizeof hi);
        snprintf(buf, sizeof buf, "%s-%s", lo, hi);
        return json_string(buf);
    case MK_LV_DRIFT:
        if (lv->start < 0) /* `-1`: the start is drawn from the seed */
            return json_integer(-1);
        return json_pack("{s:o, s:o, s:o, s:o}", "min", quantity(u, lv->lo), "max",
                         quantity(u, lv->hi), "step", quantity(u, lv->step), "start",
                         quantity(u, lv->start));
    case MK_LV_FIXED:
    default:
        return quantity(u, lv->lo);
    }
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static json_t *hex32(uint32_t v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08X", v);
    return json_string(buf);
}

/* --- device parts ----------------------------------------------------------------- */

static json_t *health_json(const mk_health_rules *h)
{
    json_t *o = json_object();
    if (h->after_seconds >= 0) {
        double s = h->after_seconds;
        json_object_set_new(o, "unhealthy_after_seconds",
                            s == (double)(long long)s ? json_integer((long long)s) : json_real(s));
    }
    if (h->on_memory_exceed >= 0)
        json_object_set_new(o, "unhealthy_on_memory_exceed", json_integer(h->on_memory_exceed));
    if (h->on_temperature >= 0)
        json_object_set_new(o, "unhealthy_on_temperature", json_integer(h->on_temperature));
    json_object_set_new(o, "xid", json_integer(h->xid));
    json_object_set_new(o, "mode", json_string(mk_fault_mode_name(h->mode)));
    return o;
}

static json_t *mig_json(const mk_device *d)
{
    json_t *inst = json_array();
    char mem[48];
    for (size_t j = 0; j < d->nmig; j++) {
        const mk_mig_dev *m = &d->mig[j];
        const mk_mig_profile *p = &d->migp[m->profile];
        fmt_memory(m->memory, mem, sizeof mem);
        json_array_append_new(inst, json_pack(
            "{s:s, s:i, s:i, s:{s:i, s:i}, s:s, s:s, s:{s:i, s:i}}",
            "profile", p->name, "gpuInstance", (int)m->gi_id, "computeInstance", (int)m->ci_id,
            "placement", "start", (int)m->start, "size", (int)p->placement_size,
            "memory", mem, "uuid", m->uuid,
            "capsMinors", "gpuInstance", (int)m->gi_minor, "computeInstance", (int)m->ci_minor));
    }
    return json_pack("{s:s, s:o}", "mode", d->mig_enabled ? "enabled" : "disabled",
                     "instances", inst);
}

/* The fabric in config syntax: only its state when the GPU has none; the
 * rack when the cluster UUID was derived from one. */
static json_t *fabric_json(const mk_device *d)
{
    const mk_fabric *f = &d->fabric;
    char uuid[40];
    json_t *o = json_object(), *health;
    json_object_set_new(o, "state", json_string(mk_fabric_state_names[f->state]));
    if (f->state == MK_FABRIC_NOT_SUPPORTED)
        return o;
    json_object_set_new(o, "status", json_string(mk_nvml_return_name((unsigned)f->status)));
    mk_cluster_uuid_format(f->cluster, uuid, sizeof uuid);
    json_object_set_new(o, "clusterUuid", json_string(uuid));
    if (f->cluster_auto)
        json_object_set_new(o, "rack", json_string(f->rack));
    json_object_set_new(o, "cliqueId", json_integer(f->clique));
    health = json_array();
    for (int b = 0; b < MK_FABRIC_HEALTH_BITS; b++)
        if (f->health & (1u << b))
            json_array_append_new(health, json_string(mk_fabric_health_names[b]));
    json_object_set_new(o, "health", health);
    return o;
}

/* A GPU's links: to peer GPUs (peers), or on a fabric to the switches
 * (switchLinks: the switch's index in the universe's nvswitches, its port). */
static json_t *nvlink_json(const mk_device *d)
{
    json_t *peers = json_array(), *sw = json_array();
    for (unsigned l = 0; l < d->nvlinks && l < MK_MAX_NVLINKS; l++) {
        if (d->nvlink_switched)
            json_array_append_new(sw, json_pack("{s:i, s:i, s:i}", "link", (int)l, "switch",
                                                (int)d->nvlink_switch[l], "port",
                                                (int)d->nvlink_peer_link[l]));
        else if (d->nvlink_peer[l] >= 0)
            json_array_append_new(peers, json_pack("{s:i, s:i, s:i}", "link", (int)l, "gpu",
                                                   d->nvlink_peer[l], "peerLink",
                                                   (int)d->nvlink_peer_link[l]));
    }
    return json_pack("{s:i, s:i, s:s, s:o, s:o}", "version", (int)d->nvlink_version, "links",
                     (int)d->nvlinks, "fabric", d->nvlink_switched ? "nvswitch" : "direct",
                     "peers", peers, "switchLinks", sw);
}

static json_t *topology_json(const mk_universe *u)
{
    json_t *sw = json_array();
    for (size_t k = 0; k < u->nswitch; k++)
        json_array_append_new(sw, json_pack("{s:i, s:s, s:o}", "index", (int)k, "pciBusID",
                                            u->sw[k].bus_id_legacy, "pciDeviceId",
                                            hex32(u->sw[k].pci_device_id)));
    return json_pack("{s:i, s:i, s:o}", "numaNodes", (int)u->numa_nodes, "cpus", (int)u->cpus,
                     "nvswitches", sw);
}

static json_t *processes_json(const mk_device *d)
{
    json_t *a = json_array();
    char mem[48];
    for (size_t i = 0; i < d->nprocs; i++) {
        const mk_process *p = &d->procs[i];
        fmt_memory(p->used_memory, mem, sizeof mem);
        json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:s}", "pid", (int)p->pid, "name",
                                           p->name, "usedMemory", mem, "type",
                                           p->graphics ? "both" : "compute"));
    }
    return a;
}

static void set_live(json_t *o, const char *key, const mk_device *d, mk_metric m)
{
    json_object_set_new(o, key, live_spec(&d->lv[m], m));
}

/* The live values first..last, keyed by what follows the dot of their
 * config names ("clocks.sm" -> sm): the clocks: and utilization: maps. */
static json_t *live_group(const mk_device *d, mk_metric first, mk_metric last)
{
    json_t *o = json_object();
    for (int m = first; m <= (int)last; m++)
        set_live(o, strchr(mk_metrics[m].name, '.') + 1, d, (mk_metric)m);
    return o;
}

static void set_q(json_t *o, const char *key, mk_unit u, int64_t v)
{
    json_object_set_new(o, key, quantity(u, v));
}

static json_t *device_json(const mk_device *d)
{
    json_t *o = json_object(), *x;
    char buf[64];
    json_object_set_new(o, "index", json_integer(d->index));
    json_object_set_new(o, "profile", str_or_null(d->profile));
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "brand", json_string(mk_brand_name(d->brand)));
    json_object_set_new(o, "architecture", json_string(mk_arch_name(d->arch)));
    snprintf(buf, sizeof buf, "%d.%d", d->cc_major, d->cc_minor);
    json_object_set_new(o, "computeCapability", json_string(buf));
    json_object_set_new(o, "smCount", json_integer(d->sm_count));
    json_object_set_new(o, "uuid", json_string(d->uuid));
    json_object_set_new(o, "serial", json_string(d->serial));
    json_object_set_new(o, "boardPartNumber", json_string(d->board_part));
    json_object_set_new(o, "boardId", json_integer(d->board_id));
    json_object_set_new(o, "vbiosVersion", json_string(d->vbios));
    json_object_set_new(o, "inforom", json_pack("{s:s, s:s, s:s, s:s}", "image", d->inforom_image,
                                                "oem", d->inforom_oem, "ecc", d->inforom_ecc,
                                                "power", d->inforom_pwr));
    json_object_set_new(o, "minorNumber", json_integer(d->minor));
    json_object_set_new(o, "pciBusID", json_string(d->bus_id));
    json_object_set_new(o, "pciDeviceId", hex32(d->pci_device_id));
    json_object_set_new(o, "pciSubsystemId", hex32(d->pci_subsys_id));
    json_object_set_new(o, "numaNode", json_integer(d->numa_node));
    json_object_set_new(o, "pcie", json_pack("{s:i, s:i, s:i, s:i}", "maxGen", (int)d->pcie_max_gen,
                                             "gen", (int)d->pcie_gen, "maxWidth",
                                             (int)d->pcie_max_width, "width", (int)d->pcie_width));
    set_q(o, "memory", MK_U_MEMORY, (int64_t)d->mem_total);
    set_q(o, "memoryReserved", MK_U_MEMORY, (int64_t)d->mem_reserved);
    set_q(o, "bar1Memory", MK_U_MEMORY, (int64_t)d->bar1_total);
    set_live(o, "memoryUsed", d, MK_M_MEM_USED);
    set_live(o, "temperature", d, MK_M_TEMP);
    set_live(o, "memoryTemperature", d, MK_M_TEMP_MEM);
    json_object_set_new(o, "thresholds", json_pack("{s:i, s:i, s:i, s:i, s:i}", "shutdown",
                                                   d->temp_shutdown, "slowdown", d->temp_slowdown,
                                                   "gpuMax", d->temp_gpu_max, "memoryMax",
                                                   d->temp_mem_max, "target", d->temp_target));
    set_live(o, "power", d, MK_M_POWER);
    set_q(o, "powerIdle", MK_U_POWER, d->power_idle);
    x = json_object();
    set_q(x, "default", MK_U_POWER, d->power_default_limit);
    set_q(x, "min", MK_U_POWER, d->power_min_limit);
    set_q(x, "max", MK_U_POWER, d->power_max_limit);
    set_q(x, "enforced", MK_U_POWER, d->power_limit);
    json_object_set_new(o, "powerLimits", x);
    json_object_set_new(o, "clocks", live_group(d, MK_M_CLK_GRAPHICS, MK_M_CLK_VIDEO));
    json_object_set_new(o, "maxClocks", json_pack("{s:i, s:i, s:i, s:i}", "graphics",
                                                  (int)d->clk_max_graphics, "sm", (int)d->clk_max_sm,
                                                  "memory", (int)d->clk_max_mem, "video",
                                                  (int)d->clk_max_video));
    json_object_set_new(o, "applicationClocks", json_pack("{s:i, s:i}", "graphics",
                                                          (int)d->clk_app_graphics, "memory",
                                                          (int)d->clk_app_mem));
    json_object_set_new(o, "utilization", live_group(d, MK_M_UTIL_GPU, MK_M_UTIL_DEC));
    json_object_set_new(o, "fans", json_integer(d->fans));
    set_live(o, "fanSpeed", d, MK_M_FAN);
    json_object_set_new(o, "ecc", json_boolean(d->ecc_enabled));
    json_object_set_new(o, "persistenceMode", json_boolean(d->persistence));
    json_object_set_new(o, "computeMode", json_string(mk_compute_mode_name(d->compute_mode)));
    snprintf(buf, sizeof buf, "P%u", d->pstate);
    json_object_set_new(o, "pstate", json_string(buf));
    json_object_set_new(o, "health", health_json(&d->health));
    if (d->mig_slices) {
        json_object_set_new(o, "migSlices", json_integer(d->mig_slices));
        json_object_set_new(o, "migMemorySlices", json_integer(d->mig_mem_slices));
        json_object_set_new(o, "mig", mig_json(d));
    }
    json_object_set_new(o, "nvlink", nvlink_json(d));
    if (d->nprocs)
        json_object_set_new(o, "processes", processes_json(d));
    json_object_set_new(o, "fabric", fabric_json(d));
    return o;
}

/* --- universe and profiles ---------------------------------------------------------- */

json_t *mk_universe_json(const mk_universe *u)
{
    json_t *o = json_object(), *devs = json_array();
    char cuda[16];
    snprintf(cuda, sizeof cuda, "%d.%d", u->cuda_version / 1000, (u->cuda_version % 1000) / 10);
    json_object_set_new(o, "node", json_string(u->node));
    json_object_set_new(o, "seed", u->has_seed ? json_integer((json_int_t)u->seed) : json_null());
    json_object_set_new(o, "driverVersion", json_string(u->driver_version));
    json_object_set_new(o, "cudaVersion", json_string(cuda));
    json_object_set_new(o, "nvmlVersion", json_string(u->nvml_version));
    json_object_set_new(o, "count", json_integer((json_int_t)u->ndev));
    json_object_set_new(o, "topology", topology_json(u));
    for (size_t i = 0; i < u->ndev; i++)
        json_array_append_new(devs, device_json(&u->dev[i]));
    json_object_set_new(o, "devices", devs);
    return o;
}

json_t *mk_profiles_json(void)
{
    json_t *a = json_array();
    char yaml[160], mem[48];
    for (size_t i = 0; mk_profiles[i].name; i++) {
        const char *name = mk_profiles[i].name;
        mk_diags d;
        mk_diags_init(&d);
        int n = snprintf(yaml, sizeof yaml, "profile: %s\ncount: 1\n", name);
        mk_universe *u = mk_universe_load_mem(name, yaml, (size_t)n, "profiles", &d);
        if (!u) {
            const mk_diag *g = mk_diags_first_error(&d);
            char line[512] = "?";
            if (g)
                mk_diag_format(g, line, sizeof line);
            fprintf(stderr, "mokka render: built-in profile %s does not load: %s\n", name, line);
            mk_diags_free(&d);
            json_decref(a);
            return NULL;
        }
        const mk_device *dv = &u->dev[0];
        json_t *mig = json_array();
        for (size_t j = 0; j < dv->nmigp; j++)
            json_array_append_new(mig, json_string(dv->migp[j].name));
        fmt_memory(dv->mem_total, mem, sizeof mem);
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:{s:i, s:i, s:i}, s:o}",
                                           "profile", name, "name", dv->name, "architecture",
                                           mk_arch_name(dv->arch), "memory", mem, "nvlink",
                                           "version", (int)dv->nvlink_version, "links",
                                           (int)dv->nvlinks, "switches",
                                           (int)dv->nvlink_switches, "migProfiles", mig));
        mk_universe_free(u);
        mk_diags_free(&d);
    }
    return a;
}
