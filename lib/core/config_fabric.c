/* config_fabric.c - a GPU's NVLink fabric identity and health: the
 * `fabric:` key (profiles, `defaults:` and device entries, like any device
 * key) and what each GPU reports once the topology is known.
 *
 * A GPU whose links go to NVSwitches (topology.nvlink: nvswitch, or a
 * profile that defaults to it) of Hopper or newer reports a fabric as an
 * HGX H100 does: registration completed, status success, no cluster UUID,
 * clique 0. Multi-node NVLink (GB200 NVL72) gives the rack's identity:
 *
 *   fabric:
 *     clusterUuid: auto        # or a UUID; auto derives it from the rack
 *     rack: auto               # or a name; auto: from the node name (fabric.h)
 *     cliqueId: 32766
 *     state: completed         # notSupported, notStarted, inProgress, completed
 *     status: success          # an NVML return: success, notReady, ...
 *     health: []               # degradedBandwidth, routeRecovery, routeUnhealthy,
 *                              # accessTimeoutRecovery
 *
 * Other GPUs answer NOT_SUPPORTED, as the driver does. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "config_int.h"
#include "fabric.h"

#define MAX_CLIQUE 32767   /* clique ids are 15-bit numbers */

static void health_key(mk_fabric *f, const mk_ynode *v, mk_diags *d)
{
    unsigned bit, health = 0;
    if (v->kind == MK_Y_SCALAR) {
        if (mk_config_enum(v, "fabric.health", mk_fabric_health_names, NULL, &bit, d) == 0)
            f->health = 1u << bit;
        return;
    }
    if (v->kind != MK_Y_SEQ) {
        mk_yerr(d, v, "fabric.health: expected a list like [degradedBandwidth] ([] for healthy)");
        return;
    }
    for (size_t i = 0; i < v->n; i++)
        if (mk_config_enum(v->vals[i], "fabric.health", mk_fabric_health_names, NULL, &bit, d) == 0)
            health |= 1u << bit;
    f->health = health;
}

static void cluster_key(mk_fabric *f, const mk_ynode *v, mk_diags *d)
{
    const char *s;
    if (mk_ystr(v, "fabric.clusterUuid", &s, d) != 0)
        return;
    if (strcasecmp(s, "auto") == 0) {
        f->cluster_auto = 1;
        return;
    }
    if (mk_cluster_uuid_parse(s, f->cluster) != 0) {
        mk_yerr(d, v, "fabric.clusterUuid: '%s' is not a UUID like "
                "8c4ba2e1-0f9d-4b3a-9e51-7d20c6a1f3b8 (32 hex digits, 8-4-4-4-12) or auto", s);
        return;
    }
    f->cluster_auto = 0;
}

static void rack_key(mk_fabric *f, const mk_ynode *v, mk_diags *d)
{
    const char *s;
    if (mk_ystr(v, "fabric.rack", &s, d) != 0)
        return;
    if (!*s)
        mk_yerr(d, v, "fabric.rack: must not be empty (auto derives it from the node name)");
    else if (strlen(s) >= sizeof f->rack)
        mk_yerr(d, v, "fabric.rack: longer than %zu characters", sizeof f->rack - 1);
    else
        snprintf(f->rack, sizeof f->rack, "%s", strcasecmp(s, "auto") == 0 ? "" : s);
}

void mk_config_fabric_key(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    static const char *const keys[] = { "clusterUuid", "rack", "cliqueId", "state", "status",
                                        "health", NULL };
    mk_fabric *f = &dev->fabric;
    const mk_ynode *n;
    unsigned x;
    long long clique;
    if (v->kind != MK_Y_MAP) {
        mk_yerr(d, v, "fabric: expected a map like {clusterUuid: auto, cliqueId: 1}");
        return;
    }
    mk_ycheck_keys(v, "fabric", keys, d);
    f->line = v->line;
    f->col = v->col;
    if ((n = mk_yget(v, "clusterUuid")))
        cluster_key(f, n, d);
    if ((n = mk_yget(v, "rack")))
        rack_key(f, n, d);
    if ((n = mk_yget(v, "cliqueId")) &&
        mk_yint(n, "fabric.cliqueId", 0, MAX_CLIQUE, &clique, d) == 0)
        f->clique = (unsigned)clique;
    if ((n = mk_yget(v, "state")) &&
        mk_config_enum(n, "fabric.state", mk_fabric_state_names, NULL, &x, d) == 0)
        f->given_state = (int)x;
    if ((n = mk_yget(v, "status")) &&
        mk_config_enum(n, "fabric.status", mk_nvml_return_names, mk_nvml_return_values, &x, d) == 0)
        f->given_status = (int)x;
    if ((n = mk_yget(v, "health")))
        health_key(f, n, d);
}

static int direct_peers(const mk_device *dev)
{
    for (unsigned l = 0; l < dev->nvlinks && l < MK_MAX_NVLINKS; l++)
        if (dev->nvlink_peer[l] >= 0)
            return 1;
    return 0;
}

/* Whether fabric: keys fit the GPU; an error (or, for direct links, a
 * warning) at the key that says why not. */
static void check_given(const mk_universe *u, const mk_device *dev, mk_diags *d)
{
    const mk_fabric *f = &dev->fabric;
    if (dev->arch < 9)
        mk_diag_add(d, MK_DIAG_ERROR, u->config_path, f->line, f->col,
                    "GPU %u (%s): fabric: given, but only Hopper and newer GPUs report an NVLink "
                    "fabric (this one is %s; NVML answers NOT_SUPPORTED)", dev->index, dev->name,
                    mk_arch_name(dev->arch));
    else if (!dev->nvlinks)
        mk_diag_add(d, MK_DIAG_ERROR, u->config_path, f->line, f->col,
                    "GPU %u (%s): fabric: given, but the GPU has no NVLink (nvlink.links is 0)",
                    dev->index, dev->name);
    else if (!dev->nvlink_switched && direct_peers(dev))
        mk_diag_add(d, MK_DIAG_WARNING, u->config_path, f->line, f->col,
                    "GPU %u: fabric: given, but its NVLinks go straight to other GPUs "
                    "(topology.nvlink), not to NVSwitches: a real driver reports no fabric "
                    "there (give topology: {nvlink: nvswitch}, or nvlink: none)", dev->index);
}

void mk_config_fabric(mk_universe *u, mk_diags *d)
{
    const mk_device *checked = NULL;
    for (size_t i = 0; i < u->ndev; i++) {
        mk_device *dev = &u->dev[i];
        mk_fabric *f = &dev->fabric;
        int fabric = f->line || (dev->nvlink_switched && dev->arch >= 9);
        /* A key in defaults: is looked at for its first GPU only: one
         * problem, one message. */
        int seen = checked && checked->fabric.line == f->line && checked->fabric.col == f->col &&
                   strcmp(checked->profile, dev->profile) == 0;
        if (f->line && f->given_state != MK_FABRIC_NOT_SUPPORTED && !seen) {
            check_given(u, dev, d);
            checked = dev;
        }
        f->state = f->given_state >= 0 ? f->given_state
                                       : fabric ? MK_FABRIC_COMPLETED : MK_FABRIC_NOT_SUPPORTED;
        f->status = f->given_status >= 0 ? f->given_status : 0;
        if (f->rack[0] && !f->cluster_auto && !seen)
            mk_diag_add(d, MK_DIAG_WARNING, u->config_path, f->line, f->col,
                        "GPU %u: fabric.rack has no effect without clusterUuid: auto",
                        dev->index);
        if (f->cluster_auto) {
            char rack[MK_NAME_LEN];
            if (!f->rack[0])
                mk_fabric_rack_of_node(u->node, rack, sizeof rack);
            else
                snprintf(rack, sizeof rack, "%s", f->rack);
            mk_fabric_derive_cluster(rack, f->cluster);
            snprintf(f->rack, sizeof f->rack, "%s", rack);
        }
    }
}
