/* config.c - compiling a config file into a universe (universe.h).
 *
 * Layers, each overriding only what it names: a generic baseline, the GPU
 * profile (the device's `profile:`, else `defaults:`, else the top-level one,
 * else the built-in profile whose name matches the device's `name:`), then
 * `defaults:`, then the device's own entry. Then the derived parts: UUIDs,
 * serials, bus ids, NUMA, NVLink wiring, fabric, MIG layout. Every problem becomes a
 * diagnostic with its position; nothing is half-loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "config_int.h"
#include "ids.h"
#include "profiles.h"
#include "units.h"

#define MK_MAX_DEVICES 4096

static const char *const top_keys[] = {
    "version", "seed", "driverVersion", "cudaVersion", "nvmlVersion", "profile", "count",
    "defaults", "devices", "topology", "machine", "debug", "debugListen", NULL
};

static void baseline(mk_device *dev, unsigned index)
{
    memset(dev, 0, sizeof *dev);
    dev->index = index;
    dev->minor = index;
    snprintf(dev->name, sizeof dev->name, "NVIDIA GPU");
    dev->brand = 14;          /* NVML_BRAND_NVIDIA */
    dev->arch = 7;            /* NVML_DEVICE_ARCH_AMPERE */
    dev->cc_major = 8;
    dev->sm_count = 108;
    snprintf(dev->vbios, sizeof dev->vbios, "92.00.45.00.03");
    snprintf(dev->board_part, sizeof dev->board_part, "900-00000-0000-000");
    snprintf(dev->inforom_image, sizeof dev->inforom_image, "G000.0000.00.00");
    snprintf(dev->inforom_oem, sizeof dev->inforom_oem, "2.0");
    snprintf(dev->inforom_ecc, sizeof dev->inforom_ecc, "6.16");
    snprintf(dev->inforom_pwr, sizeof dev->inforom_pwr, "N/A");
    dev->pci_device_id = 0x20B010DE;
    dev->pci_subsys_id = 0x134F10DE;
    dev->numa_node = -2;
    dev->pcie_max_gen = dev->pcie_gen = 4;
    dev->pcie_max_width = dev->pcie_width = 16;
    dev->mem_total = 40ull << 30;
    dev->mem_reserved = 512ull << 20;
    dev->bar1_total = 64ull << 30;
    dev->temp_shutdown = 92;
    dev->temp_slowdown = 87;
    dev->temp_gpu_max = 83;
    dev->temp_mem_max = 95;
    dev->temp_target = 83;
    dev->power_default_limit = dev->power_max_limit = 400000;
    dev->power_min_limit = 100000;
    dev->power_idle = 60000;
    dev->clk_max_graphics = dev->clk_max_sm = 1410;
    dev->clk_max_mem = 1215;
    dev->clk_max_video = 1290;
    dev->clk_app_graphics = 1410;
    dev->clk_app_mem = 1215;
    dev->ecc_enabled = 1;
    dev->persistence = 1;
    static const int64_t fixed[MK_M_COUNT] = {
        [MK_M_TEMP] = 32, [MK_M_TEMP_MEM] = 30, [MK_M_POWER] = 60000,
        [MK_M_CLK_GRAPHICS] = 210, [MK_M_CLK_SM] = 210, [MK_M_CLK_MEM] = 1215,
        [MK_M_CLK_VIDEO] = 555,
    };
    for (int m = 0; m < MK_M_COUNT; m++)
        dev->lv[m] = (mk_lv){ MK_LV_FIXED, fixed[m], fixed[m], 0, 0 };
    dev->lv[MK_M_FAN].kind = MK_LV_NA;
    dev->health = (mk_health_rules){ -1, -1, -1, 79, MK_FAULT_XID };
    dev->fabric.given_state = dev->fabric.given_status = -1;
}

/* --- profiles --------------------------------------------------------------- */

typedef struct {
    const char *name;
    mk_ydoc *doc;
} loaded_profile;

typedef struct {
    loaded_profile v[64];
    size_t n;
} profile_cache;

/* The built-in profile a GPU `name:` names (profiles.h has the rule), with
 * a note saying which when the name is not the profile's own; a name that
 * names several is an error listing them. NULL when it names none. */
static const char *profile_for_gpu_name(const mk_ynode *name, mk_diags *d)
{
    mk_profile_match m;
    mk_profile_resolve(name->str, &m);
    if (m.p && !m.exact)
        mk_ynote(d, name, "name '%s' is not a profile's GPU name; it names profile %s (%s)%s",
                 name->str, m.p->name, m.p->gpu ? m.p->gpu : "no GPU name",
                 m.family_default ? ", the default of its family (give profile: for another)"
                                  : "");
    if (m.p || m.n < 2)
        return m.p ? m.p->name : NULL;
    char list[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < m.n && i < MK_PROFILE_CANDIDATES && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s (%s)", i ? ", " : "",
                                 m.cand[i]->name, m.cand[i]->gpu ? m.cand[i]->gpu : "no GPU name");
    mk_yerr(d, name, "name '%s' names %zu profiles: %s; give profile: or the full GPU name",
            name->str, m.n, list);
    return NULL;
}

static const mk_ydoc *profile_doc(profile_cache *pc, const char *name, const mk_ynode *at,
                                  mk_diags *d)
{
    for (size_t i = 0; i < pc->n; i++)
        if (strcasecmp(pc->v[i].name, name) == 0)
            return pc->v[i].doc; /* NULL for a name already reported unknown */
    if (pc->n == sizeof pc->v / sizeof pc->v[0])
        return NULL;
    const mk_profile *p = mk_profile_find(name);
    pc->v[pc->n].name = p ? p->name : name;
    pc->v[pc->n].doc = NULL;
    pc->n++;
    if (!p) {
        const char *names[65];
        size_t n = 0;
        for (const mk_profile *q = mk_profiles; q->name && n < 64; q++)
            names[n++] = q->name;
        names[n] = NULL;
        const char *sugg = mk_did_you_mean(name, names);
        if (sugg)
            mk_yerr(d, at, "unknown profile '%s'; did you mean '%s'?", name, sugg);
        else
            mk_yerr(d, at, "unknown profile '%s' (see fixtures/profiles or `mokka render --profiles`)", name);
        return NULL;
    }
    char label[96];
    snprintf(label, sizeof label, "profile %s", p->name);
    return pc->v[pc->n - 1].doc = mk_yunpack(label, &p->tree, d);
}

static const mk_ynode *str_key(const mk_ynode *map, const char *key)
{
    const mk_ynode *n = mk_yget(map, key);
    return n && n->kind == MK_Y_SCALAR ? n : NULL;
}

/* --- derived values --------------------------------------------------------- */

static void finish_live(mk_device *dev)
{
    for (int m = 0; m < MK_M_COUNT; m++) {
        mk_lv *lv = &dev->lv[m];
        if (lv->kind != MK_LV_FOLLOW)
            continue;
        switch (m) {
        case MK_M_POWER:
            lv->lo = dev->power_idle;
            lv->hi = dev->power_limit;
            break;
        case MK_M_MEM_USED:
            lv->lo = 0;
            lv->hi = (int64_t)(dev->mem_total - dev->mem_reserved);
            break;
        case MK_M_TEMP:
            lv->lo = 30;
            lv->hi = dev->temp_gpu_max;
            break;
        case MK_M_CLK_GRAPHICS: lv->lo = dev->clk_max_graphics / 6; lv->hi = dev->clk_max_graphics; break;
        case MK_M_CLK_SM: lv->lo = dev->clk_max_sm / 6; lv->hi = dev->clk_max_sm; break;
        case MK_M_CLK_MEM: lv->lo = lv->hi = dev->clk_max_mem; break;
        case MK_M_CLK_VIDEO: lv->lo = dev->clk_max_video / 3; lv->hi = dev->clk_max_video; break;
        default: break;
        }
    }
}

static void finish_device(mk_universe *u, mk_device *dev, mk_diags *d)
{
    const char *file = u->config_path;
    if (!dev->uuid[0] || strcmp(dev->uuid, "auto") == 0)
        mk_derive_gpu_uuid(u->node, dev->index, dev->uuid, sizeof dev->uuid);
    else if (!mk_uuid_is_canonical(dev->uuid, "GPU-"))
        mk_diag_add(d, MK_DIAG_WARNING, file, dev->line, dev->col,
                    "GPU %u: uuid '%s' is not of the form GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx "
                    "(hex); programs that parse UUIDs may reject it", dev->index, dev->uuid);
    if (!dev->serial[0])
        mk_derive_serial(u->node, dev->index, dev->serial, sizeof dev->serial);
    if (!dev->power_limit)
        dev->power_limit = dev->power_default_limit;
    if (dev->power_min_limit > dev->power_max_limit ||
        dev->power_default_limit < dev->power_min_limit ||
        dev->power_default_limit > dev->power_max_limit ||
        dev->power_limit < dev->power_min_limit || dev->power_limit > dev->power_max_limit)
        mk_diag_add(d, MK_DIAG_ERROR, file, dev->line, dev->col,
                    "GPU %u: powerLimits need min <= default <= max and min <= enforced <= max "
                    "(got min %u W, default %u W, max %u W, enforced %u W)", dev->index,
                    dev->power_min_limit / 1000, dev->power_default_limit / 1000,
                    dev->power_max_limit / 1000, dev->power_limit / 1000);
    if (dev->mem_reserved > dev->mem_total)
        mk_diag_add(d, MK_DIAG_ERROR, file, dev->line, dev->col,
                    "GPU %u: memoryReserved is larger than memory", dev->index);
    const mk_lv *mu = &dev->lv[MK_M_MEM_USED];
    if (mu->kind != MK_LV_FOLLOW && mu->kind != MK_LV_NA &&
        (uint64_t)mu->hi > dev->mem_total - dev->mem_reserved)
        mk_diag_add(d, MK_DIAG_ERROR, file, dev->line, dev->col,
                    "GPU %u: memoryUsed can reach %llu MiB, more than the %llu MiB usable",
                    dev->index, (unsigned long long)mu->hi >> 20,
                    (unsigned long long)(dev->mem_total - dev->mem_reserved) >> 20);
    if (dev->fans == 0 && dev->lv[MK_M_FAN].kind != MK_LV_NA)
        dev->fans = 1;
    finish_live(dev);
    /* An empty instances: list asks for nothing (it may undo defaults:). */
    int asked = dev->mig_request && dev->mig_request->n > 0;
    if (dev->mig_enabled && !dev->mig_slices) {
        mk_diag_add(d, MK_DIAG_ERROR, file, dev->line, dev->col,
                    "GPU %u (%s) does not support MIG (its profile has no migSlices)", dev->index,
                    dev->name);
    } else if (asked && !dev->mig_enabled) {
        mk_yerr(d, dev->mig_request, "GPU %u: MIG instances given but MIG mode is disabled",
                dev->index);
    } else {
        mk_config_mig_layout(dev, d);
        if (dev->mig_enabled && !asked)
            mk_diag_add(d, MK_DIAG_WARNING, file, dev->line, dev->col,
                        "GPU %u: MIG is enabled but no instances are configured, so it offers no "
                        "MIG devices (add mig: {instances: [...]})", dev->index);
    }
    dev->mig_request = NULL;
}

static void finish_mig_ids(mk_universe *u)
{
    for (size_t i = 0; i < u->ndev; i++) {
        mk_device *dev = &u->dev[i];
        for (size_t j = 0; j < dev->nmig; j++) {
            mk_mig_dev *m = &dev->mig[j];
            mk_derive_mig_uuid(dev->uuid, m->gi_id, m->ci_id, m->uuid, sizeof m->uuid);
            /* /proc/driver/nvidia-caps/mig-minors: 15 GPU instances of 1 + 8
             * minors each per GPU, after "config" (1) and "monitor" (2). */
            m->gi_minor = 3 + dev->minor * 135 + m->gi_id * 9;
            m->ci_minor = m->gi_minor + 1 + m->ci_id;
        }
    }
}

/* --- top level ---------------------------------------------------------------- */

/* A version string into its field, refused (like a device's name:) when it
 * does not fit: NVML has no way to return more. */
static void version_field(const mk_ynode *n, const char *key, char *out, size_t size,
                          mk_diags *d)
{
    const char *s;
    if (mk_ystr(n, key, &s, d) != 0)
        return;
    if (strlen(s) >= size)
        mk_yerr(d, n, "%s: longer than %zu characters", key, size - 1);
    else
        memcpy(out, s, strlen(s) + 1);
}

static void top_level(mk_universe *u, const mk_ynode *root, mk_diags *d)
{
    const mk_ynode *n;
    const char *s;
    long long v;
    if ((n = mk_yget(root, "version"))) {
        if (n->kind != MK_Y_SCALAR || (strcmp(n->str, "1") && strcmp(n->str, "1.0")))
            mk_yerr(d, n, "version: this Mokka reads config version 1.0, not '%s'",
                    n->kind == MK_Y_SCALAR ? n->str : "?");
    }
    if ((n = mk_yget(root, "profile")) && n->kind != MK_Y_SCALAR)
        mk_yerr(d, n, "profile: expected a profile name like h100-sxm5-80gb");
    if ((n = mk_yget(root, "seed")) && mk_yint(n, "seed", 0, INT64_MAX, &v, d) == 0) {
        u->seed = (uint64_t)v;
        u->has_seed = 1;
    }
    snprintf(u->driver_version, sizeof u->driver_version, "535.261.03");
    u->cuda_version = 12020;
    if ((n = mk_yget(root, "driverVersion")))
        version_field(n, "driverVersion", u->driver_version, sizeof u->driver_version, d);
    if ((n = mk_yget(root, "cudaVersion")) && mk_ystr(n, "cudaVersion", &s, d) == 0) {
        int maj, min = 0;
        char tail;
        if (sscanf(s, "%d.%d%c", &maj, &min, &tail) < 1 || sscanf(s, "%d.%d%c", &maj, &min, &tail) > 2 ||
            maj < 1 || maj > 99 || min < 0 || min > 99)
            mk_yerr(d, n, "cudaVersion: expected MAJOR.MINOR like \"12.2\"");
        else
            u->cuda_version = maj * 1000 + min * 10;
    }
    /* At most 2 + 1 + 63 characters: it fits. */
    snprintf(u->nvml_version, sizeof u->nvml_version, "%d.%s", (u->cuda_version / 1000) % 100,
             u->driver_version);
    if ((n = mk_yget(root, "nvmlVersion")))
        version_field(n, "nvmlVersion", u->nvml_version, sizeof u->nvml_version, d);
}

/* Finds each device's entry: entries[i] describes GPU i (or NULL). */
static size_t device_entries(const mk_ynode *root, const mk_ynode ***out, mk_diags *d)
{
    const mk_ynode *count = mk_yget(root, "count"), *list = mk_yget(root, "devices");
    long long n = 0;
    *out = NULL;
    if (list && list->kind != MK_Y_SEQ) {
        mk_yerr(d, list, "devices: expected a list of devices");
        list = NULL;
    }
    if (count) {
        if (mk_yint(count, "count", 1, MK_MAX_DEVICES, &n, d))
            return 0;
    } else if (list) {
        n = (long long)list->n;
    }
    if (n == 0) {
        mk_yerr(d, root, "no devices: give `profile:` and `count:`, or a `devices:` list");
        return 0;
    }
    if (n > MK_MAX_DEVICES) {
        mk_yerr(d, list, "at most %d devices", MK_MAX_DEVICES);
        return 0;
    }
    const mk_ynode **e = calloc((size_t)n, sizeof *e);
    if (!e)
        return 0;
    for (size_t i = 0; list && i < list->n; i++) {
        const mk_ynode *dev = list->vals[i], *idx;
        long long index = (long long)i;
        if (dev->kind != MK_Y_MAP) {
            mk_yerr(d, dev, "devices: expected a map per device");
            continue;
        }
        if ((idx = mk_yget(dev, "index")) && mk_yint(idx, "index", 0, n - 1, &index, d))
            continue;
        if (!idx && index >= n) {
            mk_yerr(d, dev, "devices: entry %zu would be GPU %lld, but count: is %lld (give it "
                    "an index: below %lld, or raise count:)", i + 1, index, n, n);
            continue;
        }
        if (e[index]) {
            mk_yerr(d, idx ? idx : dev, "duplicate device index %lld (first at line %d)", index,
                    e[index]->line);
            continue;
        }
        e[index] = dev;
    }
    if (!count)
        for (long long i = 0; i < n; i++)
            if (!e[i]) {
                mk_yerr(d, list, "device indexes must run 0..%lld without gaps: %lld is missing "
                        "(or give count:)", n - 1, i);
                break;
            }
    *out = e;
    return (size_t)n;
}

/* Devices that share a profile share everything up to their own entry: the
 * baseline, the profile and `defaults:` are applied once per profile and
 * copied, so a 256-GPU config costs one profile application, not 256. */
typedef struct {
    const char *pname;     /* NULL: no profile */
    unsigned links;        /* the profile's NVLinks: no layer may add to them */
    mk_device dev;
} dev_template;

/* A GPU has the NVLinks its hardware has: a layer may cut a profile's links
 * (a board with links down), never add to them. A profile without NVLink
 * may gain some: PCIe cards take NVLink bridges. */
static void check_links(const mk_device *dev, const dev_template *t, const mk_ynode *map,
                        mk_diags *d)
{
    const mk_ynode *nv = map && map->kind == MK_Y_MAP ? mk_yget(map, "nvlink") : NULL;
    const mk_ynode *links = nv && nv->kind == MK_Y_MAP ? mk_yget(nv, "links") : NULL;
    if (links && t->pname && t->links && dev->nvlinks > t->links)
        mk_yerr(d, links, "nvlink.links: %u, but the profile %s has %u NVLinks", dev->nvlinks,
                t->dev.profile, t->links);
}

typedef struct {
    dev_template v[64];
    size_t n;
} template_cache;

/* What every device looks up above its own entry, found once: a map of
 * many keys would otherwise be searched again for each of 4096 GPUs. */
typedef struct {
    const mk_ynode *root, *count, *profile;
    const mk_ynode *defaults, *defaults_profile, *defaults_name;
} top_nodes;

static top_nodes find_top(const mk_ynode *root)
{
    const mk_ynode *defaults = mk_yget(root, "defaults");
    return (top_nodes){ root, mk_yget(root, "count"), str_key(root, "profile"), defaults,
                        str_key(defaults, "profile"), str_key(defaults, "name") };
}

static const char *profile_name(const mk_ynode *entry, const top_nodes *top, const mk_ynode **at,
                                mk_diags *d)
{
    const mk_ynode *pn = entry ? str_key(entry, "profile") : NULL, *name;
    if (!pn) pn = top->defaults_profile;
    if (!pn) pn = top->profile;
    *at = pn ? pn : top->root;
    if (pn)
        return pn->str;
    name = entry ? str_key(entry, "name") : NULL;
    if (!name)
        name = top->defaults_name;
    return name ? profile_for_gpu_name(name, d) : NULL;
}

static const dev_template *make_template(mk_universe *u, unsigned i, const char *pname,
                                         const mk_ynode *at, const mk_ynode *entry,
                                         const top_nodes *top, profile_cache *pc,
                                         template_cache *tc, mk_diags *d)
{
    const mk_ynode *defaults = top->defaults;
    if (!tc)
        return NULL;
    for (size_t k = 0; k < tc->n; k++)
        if (tc->v[k].pname == pname || (pname && tc->v[k].pname && strcmp(tc->v[k].pname, pname) == 0))
            return &tc->v[k];
    if (tc->n == sizeof tc->v / sizeof tc->v[0])
        return NULL;
    dev_template *t = &tc->v[tc->n++];
    t->pname = pname;
    mk_device *dev = &t->dev;
    baseline(dev, 0);
    if (pname) {
        const mk_ydoc *pd = profile_doc(pc, pname, at, d);
        if (pd && pd->root) {
            mk_device_apply(dev, pd->root, pname, d);
            snprintf(dev->profile, sizeof dev->profile, "%s", mk_profile_find(pname)->name);
        }
        t->links = dev->nvlinks;
    } else {
        const mk_ynode *name = entry ? str_key(entry, "name") : NULL;
        if (!name)
            name = top->defaults_name;
        const mk_ynode *pos = entry ? entry : top->count;
        int line = pos ? pos->line : 0, col = pos ? pos->col : 0;
        mk_profile_match m = { .n = 0 };
        if (name)
            mk_profile_resolve(name->str, &m);
        if (name && m.n == 0)
            mk_diag_add(d, MK_DIAG_WARNING, u->config_path, line, col,
                        "GPU %u: no profile, and no built-in profile is named '%s': generic "
                        "values are used for everything the config does not set", i, name->str);
        else if (!name)
            mk_diag_add(d, MK_DIAG_WARNING, u->config_path, line, col,
                        "GPU %u: no profile and no name: generic values are used for everything "
                        "the config does not set", i);
    }
    if (defaults) {
        if (defaults->kind != MK_Y_MAP)
            mk_yerr(d, defaults, "defaults: expected a map of device fields");
        else if (mk_yget(defaults, "index"))
            mk_yerr(d, mk_yget(defaults, "index"), "defaults: index belongs to a device entry");
        else
            mk_device_apply(dev, defaults, "defaults", d);
        check_links(dev, t, defaults, d);
    }
    return t;
}

static void free_templates(template_cache *tc)
{
    for (size_t k = 0; k < tc->n; k++)
        free(tc->v[k].dev.procs);
}

static void build_device(mk_universe *u, mk_device *dev, unsigned i, const mk_ynode *entry,
                         const top_nodes *top, profile_cache *pc, template_cache *tc,
                         mk_diags *d)
{
    const mk_ynode *at;
    char what[32];
    const char *pname = profile_name(entry, top, &at, d);
    const dev_template *t = make_template(u, i, pname, at, entry, top, pc, tc, d);
    if (t)
        *dev = t->dev;
    else
        baseline(dev, i); /* more than 64 distinct profiles: no sharing */
    dev->index = i;
    if (dev->minor == 0)
        dev->minor = i; /* the baseline's default; an explicit minorNumber is kept */
    if (dev->nprocs) {
        mk_process *p = calloc(dev->nprocs, sizeof *p);
        if (p)
            memcpy(p, dev->procs, dev->nprocs * sizeof *p);
        dev->procs = p;
        dev->nprocs = p ? dev->nprocs : 0;
    } else {
        dev->procs = NULL;
    }
    /* Checks made after all layers name the device's entry, or for a GPU
     * that only count: makes, the count. */
    const mk_ynode *pos = entry ? entry : top->count;
    if (pos) {
        dev->line = pos->line;
        dev->col = pos->col;
    }
    if (entry) {
        snprintf(what, sizeof what, "device %u", i);
        mk_device_apply(dev, entry, what, d);
        if (t)
            check_links(dev, t, entry, d);
    }
}

static mk_universe *build(mk_ydoc *doc, const char *path, const char *node, mk_diags *d)
{
    size_t errors0 = d->errors;
    const mk_ynode *root = doc->root;
    if (!root || root->kind != MK_Y_MAP) {
        mk_diag_add(d, MK_DIAG_ERROR, doc->file, root ? root->line : 1, root ? root->col : 1,
                    "expected a config map with `devices:` or `profile:` and `count:`");
        return NULL;
    }
    mk_universe *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->config_path = path ? strdup(path) : NULL;
    mk_node_name(u->node, sizeof u->node, node);
    mk_ycheck_keys(root, "the config", top_keys, d);
    top_level(u, root, d);
    const mk_ynode **entries;
    u->ndev = device_entries(root, &entries, d);
    u->dev = u->ndev ? calloc(u->ndev, sizeof *u->dev) : NULL;
    if (u->ndev && u->dev) {
        profile_cache pc = { .n = 0 };
        template_cache *tc = calloc(1, sizeof *tc);
        top_nodes top = find_top(root);
        for (unsigned i = 0; i < u->ndev; i++)
            build_device(u, &u->dev[i], i, entries[i], &top, &pc, tc, d);
        if (tc)
            free_templates(tc);
        free(tc);
        for (unsigned i = 0; i < u->ndev; i++)
            finish_device(u, &u->dev[i], d);
        const mk_ynode *topo = mk_yget(root, "topology");
        if (topo && topo->kind != MK_Y_MAP) {
            mk_yerr(d, topo, "topology: expected a map");
            topo = NULL;
        }
        mk_config_topology(u, topo, d);
        mk_config_fabric(u, d);
        finish_mig_ids(u);
        mk_config_node(u, root, d);
        for (size_t i = 0; i < pc.n; i++)
            mk_yfree(pc.v[i].doc);
    }
    free(entries);
    if (d->errors > errors0 || !u->dev) {
        mk_universe_free(u);
        return NULL;
    }
    return u;
}

mk_universe *mk_universe_load_mem(const char *name, const char *yaml, size_t len,
                                  const char *node_name_given, mk_diags *d)
{
    mk_ydoc *doc = mk_yload_mem(name, yaml, len, d);
    if (!doc)
        return NULL;
    mk_universe *u = build(doc, name, node_name_given, d);
    mk_yfree(doc);
    return u;
}

mk_universe *mk_universe_load(const char *path, const char *node_name_given, mk_diags *d)
{
    /* Without a config: the DGX A100 fixture, parsed at build time. */
    mk_ydoc *doc = path ? mk_yload_file(path, d)
                        : mk_yunpack("built-in default", &mk_default_config, d);
    if (!doc)
        return NULL;
    mk_universe *u = build(doc, path, node_name_given, d);
    mk_yfree(doc);
    return u;
}
