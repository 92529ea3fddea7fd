/* migname.c - the name of a MIG device as NVIDIA's plugin and GFD see it:
 * go-nvlib rebuilds it from NVML's GPU- and compute-instance profile ids and
 * the memory sizes (not from the profile's own name), so the model does the
 * same with what Mokka's NVML answers for the universe. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "nvmodel_int.h"

/* go-nvlib's reading of NVML_GPU_INSTANCE_PROFILE_* (index = profile id):
 * the slices and the attribute suffix ('+' attributes, '-' negated). */
static const struct { unsigned slices; const char *suffix; } gi_ids[] = {
    {1, ""}, {2, ""}, {3, ""}, {4, ""}, {7, ""}, {8, ""}, {6, ""},
    {1, "+me"}, {2, "+me"},            /* 1_SLICE_REV1, 2_SLICE_REV1 */
    {1, ""},                           /* 1_SLICE_REV2 */
    {1, "+gfx"}, {2, "+gfx"}, {4, "+gfx"},
    {1, "-me"}, {2, "-me"},            /* NO_ME */
    {1, "+me.all"}, {2, "+me.all"},    /* ALL_ME */
};
#define N_GI_IDS (sizeof gi_ids / sizeof gi_ids[0])

/* Mokka's NVML gives a MIG device one compute instance spanning its GPU
 * instance, of the compute-instance profile with that many slices (the
 * first, 1, when none has: nvml_mig.c's ci_index_for). */
static unsigned ci_slices(unsigned gi_slices)
{
    static const unsigned ci[] = { 1, 2, 3, 4, 7, 8, 6 };
    for (size_t i = 0; i < sizeof ci / sizeof ci[0]; i++)
        if (ci[i] == gi_slices)
            return gi_slices;
    return 1;
}

/* go-nvlib's getMigMemorySizeGB: the device's share of the GPU's memory,
 * rounded up to eighths, times the GPU's memory in whole GiB (rounded up). */
static unsigned long long memory_gb(uint64_t total, uint64_t mig_mb)
{
    const double mib = 1024.0 * 1024.0, gib = 1024.0 * 1024.0 * 1024.0;
    double frac = (double)mig_mb * mib / (double)total;
    frac = ceil(frac * 8) / 8;
    double total_gb = (double)((total + (uint64_t)gib - 1) / (uint64_t)gib);
    return (unsigned long long)round(frac * total_gb);
}

int mk_nv_mig_name(const mk_device *d, const mk_mig_profile *p, char *out, size_t len,
                   char *err, size_t errlen)
{
    /* go-nvlib walks the profile ids and takes the first whose profile has
     * the GPU instance's profile id. */
    unsigned id = N_GI_IDS;
    for (unsigned i = 0; i < N_GI_IDS && id == N_GI_IDS; i++)
        for (size_t k = 0; k < d->nmigp; k++)
            if (d->migp[k].nvml_profile == i) {
                if (d->migp[k].id == p->id)
                    id = i;
                break;
            }
    if (id == N_GI_IDS) {
        snprintf(err, errlen, "GPU %u: MIG profile %s has NVML profile %u, which go-nvlib "
                 "does not know", d->index, p->name, p->nvml_profile);
        return -1;
    }
    unsigned g = gi_ids[id].slices, c = ci_slices(p->slices);
    unsigned long long gb = d->mem_total ? memory_gb(d->mem_total, p->memory >> 20) : 0;
    if (c == g)
        snprintf(out, len, "%ug.%llugb%s", g, gb, gi_ids[id].suffix);
    else
        snprintf(out, len, "%uc.%ug.%llugb%s", c, g, gb, gi_ids[id].suffix);
    for (char *s = out; *s; s++)
        if (*s == '+')
            *s = '.';
    return 0;
}
