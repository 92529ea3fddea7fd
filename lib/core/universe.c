/* universe.c - freeing and comparing universes, and names for their enums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "units.h"
#include "universe.h"

void mk_universe_free(mk_universe *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->ndev; i++) {
        free(u->dev[i].mig);
        free(u->dev[i].procs);
    }
    free(u->dev);
    free(u->config_path);
    free(u);
}

int mk_universe_same_identity(const mk_universe *a, const mk_universe *b, char *why, size_t len)
{
    if (a->ndev != b->ndev) {
        snprintf(why, len, "the GPU count changed from %zu to %zu", a->ndev, b->ndev);
        return 0;
    }
    for (size_t i = 0; i < a->ndev; i++) {
        const mk_device *x = &a->dev[i], *y = &b->dev[i];
        if (strcmp(x->uuid, y->uuid) != 0) {
            snprintf(why, len, "GPU %zu's uuid changed from %s to %s", i, x->uuid, y->uuid);
            return 0;
        }
        if (strcmp(x->bus_id, y->bus_id) != 0) {
            snprintf(why, len, "GPU %zu's pciBusID changed from %s to %s", i, x->bus_id_legacy,
                     y->bus_id_legacy);
            return 0;
        }
        if (x->minor != y->minor) {
            snprintf(why, len, "GPU %zu's minorNumber changed from %u to %u", i, x->minor, y->minor);
            return 0;
        }
        if (x->mig_enabled != y->mig_enabled || x->nmig != y->nmig) {
            snprintf(why, len, "GPU %zu's MIG layout changed", i);
            return 0;
        }
        for (size_t j = 0; j < x->nmig; j++)
            if (strcmp(x->mig[j].uuid, y->mig[j].uuid) != 0 || x->mig[j].profile != y->mig[j].profile) {
                snprintf(why, len, "GPU %zu's MIG layout changed", i);
                return 0;
            }
    }
    return 1;
}

const char *mk_metric_name(mk_metric m)
{
    return (unsigned)m < MK_M_COUNT ? mk_metrics[m].name : "?";
}

const char *mk_arch_name(unsigned arch)
{
    static const char *const names[] = { "?", "?", "kepler", "maxwell", "pascal", "volta",
                                         "turing", "ampere", "ada", "hopper", "blackwell" };
    return arch < sizeof names / sizeof names[0] ? names[arch] : "unknown";
}

const char *const mk_brand_names[] = { "unknown", "quadro", "tesla", "nvs", "grid", "geforce",
    "titan", "nvidia_vapps", "nvidia_vpc", "nvidia_vcs", "nvidia_vws", "nvidia_cloud_gaming",
    "quadro_rtx", "nvidia_rtx", "nvidia", "geforce_rtx", "titan_rtx", NULL };
const char *const mk_compute_mode_names[] = { "default", "exclusive_thread", "prohibited",
    "exclusive_process", NULL };

const char *mk_brand_name(unsigned brand)
{
    return brand < sizeof mk_brand_names / sizeof mk_brand_names[0] - 1 ? mk_brand_names[brand]
                                                                          : "unknown";
}

const char *mk_compute_mode_name(unsigned mode)
{
    return mode < sizeof mk_compute_mode_names / sizeof mk_compute_mode_names[0] - 1
               ? mk_compute_mode_names[mode] : "default";
}

const char *mk_fault_mode_name(mk_fault_mode m)
{
    switch (m) {
    case MK_FAULT_XID: return "xid";
    case MK_FAULT_ECC: return "ecc";
    case MK_FAULT_LOST: return "lost";
    default: return "none";
    }
}

unsigned mk_nvlinks_between(const mk_device *a, const mk_device *b)
{
    if (a == b)
        return 0;
    if (a->nvlink_switched && b->nvlink_switched)
        return a->nvlinks;
    unsigned n = 0;
    for (unsigned l = 0; l < a->nvlinks; l++)
        n += a->nvlink_peer[l] == (int)b->index;
    return n;
}

mk_topo_level mk_topology_level(const mk_device *a, const mk_device *b)
{
    if (a == b)
        return MK_TOPO_INTERNAL;
    if (a->numa_node == b->numa_node && a->index / 2 == b->index / 2)
        return MK_TOPO_SINGLE;
    if (a->numa_node == b->numa_node)
        return MK_TOPO_NODE;
    return MK_TOPO_SYSTEM;
}
