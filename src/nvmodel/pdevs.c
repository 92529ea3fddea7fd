/* pdevs.c - the devices NVIDIA's device plugin (v0.17, internal/rm/
 * device_map.go) lists for a universe under its MIG strategy, and the
 * universes it refuses to serve under "single".
 *
 * none: every GPU whole as nvidia.com/gpu, MIG mode or not. single: MIG
 * devices as nvidia.com/gpu, which needs every GPU in MIG mode with at least
 * one MIG device and every MIG device of one type. mixed: GPUs not in MIG
 * mode whole as nvidia.com/gpu, each MIG device as nvidia.com/mig-PROFILE
 * (a GPU in MIG mode without MIG devices lists nothing: the plugin only
 * warns).
 *
 * The plugin keeps its devices in Go maps, so it has no order of its own
 * (ListAndWatch sends them as a map iterates); the list here is NVML's:
 * GPUs by index, each GPU's MIG devices in the order of their handles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvmodel.h"
#include "nvmodel_int.h"

/* Two MIG devices are of one type for the plugin when NVML gives them the
 * same nvmlDeviceAttributes_t (lib/nvml/nvml_mig.c fills it from the
 * profile). */
static int same_type(const mk_mig_profile *a, const mk_mig_profile *b)
{
    return a->sms == b->sms && a->copy_engines == b->copy_engines && a->decoders == b->decoders &&
           a->encoders == b->encoders && a->jpegs == b->jpegs && a->ofas == b->ofas &&
           a->slices == b->slices && (a->memory >> 20) == (b->memory >> 20);
}

/* Why the plugin refuses the single strategy on u (its words, less the
 * "error visiting ..." frames around them), or 0 when it does not. The
 * checks run in the plugin's order: MIG devices on every MIG GPU, one MIG
 * device type, then one MIG mode for all GPUs. */
static int single_refused(const mk_universe *u, char *err, size_t errlen)
{
    const mk_mig_profile *first = NULL;
    int whole = 0, mig = 0;
    for (size_t i = 0; i < u->ndev; i++)
        if (u->dev[i].mig_enabled && u->dev[i].nmig == 0) {
            snprintf(err, errlen, "invalid MIG configuration: at least one device with "
                     "migEnabled=true was not configured correctly: device %zu has no MIG "
                     "devices configured", i);
            return -1;
        }
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        whole |= !d->mig_enabled;
        mig |= d->mig_enabled;
        for (size_t j = 0; d->mig_enabled && j < d->nmig; j++) {
            const mk_mig_profile *p = &d->migp[d->mig[j].profile];
            if (first && !same_type(first, p)) {
                snprintf(err, errlen, "invalid MIG configuration: more than one MIG device "
                         "type present on node");
                return -1;
            }
            first = p;
        }
    }
    if (whole && mig) {
        snprintf(err, errlen, "all devices on the node must be configured with the same "
                 "migEnabled value");
        return -1;
    }
    return 0;
}

int mk_pdevs_list(const mk_universe *u, const char *strategy, mk_pdev **out, size_t *n,
                  char *err, size_t errlen)
{
    const char *s = strategy ? strategy : "none";
    int mixed = strcmp(s, "mixed") == 0, single = strcmp(s, "single") == 0;
    *out = NULL;
    *n = 0;
    if (!mixed && !single && strcmp(s, "none") != 0) {
        snprintf(err, errlen, "unknown MIG strategy: %s", s);
        return -1;
    }
    if (single && single_refused(u, err, errlen) != 0)
        return -1;
    size_t max = 0;
    for (size_t i = 0; i < u->ndev; i++)
        max += 1 + u->dev[i].nmig;
    mk_pdev *e = calloc(max ? max : 1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        if (!d->mig_enabled || !(mixed || single)) {
            e[k++] = (mk_pdev){ MK_GPU_RESOURCE, d->uuid, (unsigned)i, -1 };
            continue;
        }
        for (size_t j = 0; j < d->nmig; j++) {
            mk_pdev *p = &e[k++];
            char name[64];
            *p = (mk_pdev){ MK_GPU_RESOURCE, d->mig[j].uuid, (unsigned)i, (int)j };
            if (!mixed)
                continue;
            /* go-nvlib's name ("1g.10gb.me"), not the profile's ("1g.10gb+me") */
            if (mk_nv_mig_name(d, &d->migp[d->mig[j].profile], name, sizeof name, err, errlen)) {
                free(e);
                return -1;
            }
            snprintf(p->resource, sizeof p->resource, "nvidia.com/mig-%s", name);
        }
    }
    *out = e;
    *n = k;
    return 0;
}
