/* config_mig.c - a GPU's MIG profile table and the placement of the MIG
 * instances a config asks for.
 *
 * Placement follows NVML's model: a GPU has eight placement slots (A100:
 * seven compute slices over eight memory slices); each GPU-instance profile
 * lists the slots an instance may start at and how many it spans. Instances
 * keep the order written (it is their MIG device order); each goes to the
 * first start it allows that still leaves room for the others, found by a
 * small search (at most eight instances on eight slots), so any layout the
 * GPU can hold is accepted whatever order it is written in. GPU-instance
 * ids follow the slot tree NVML uses (the full GPU is 0, halves 1-2,
 * quarters 3-6, eighths 7-14), so ids are stable for a layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config_int.h"
#include "ids.h"
#include "units.h"

static const char *const profile_keys[] = {
    "name", "nvmlProfile", "id", "slices", "memorySlices", "memory", "instances", "sms",
    "copyEngines", "decoders", "encoders", "jpegs", "ofas", "placements", "placementSize", NULL
};

static void uint_key(const mk_ynode *row, const char *key, unsigned min, unsigned max,
                     unsigned *out, mk_diags *d)
{
    const mk_ynode *n = mk_yget(row, key);
    long long v;
    if (n && mk_yint(n, key, min, max, &v, d) == 0)
        *out = (unsigned)v;
}

static void decode_profile(mk_mig_profile *p, const mk_ynode *row, mk_diags *d)
{
    const mk_ynode *n;
    const char *s, *why;
    memset(p, 0, sizeof *p);
    mk_ycheck_keys(row, "a MIG profile", profile_keys, d);
    if (!(n = mk_yget(row, "name")))
        mk_yerr(d, row, "MIG profile: name is required");
    else if (mk_ystr(n, "name", &s, d) == 0)
        snprintf(p->name, sizeof p->name, "%s", s);
    uint_key(row, "nvmlProfile", 0, 31, &p->nvml_profile, d);
    uint_key(row, "id", 0, 255, &p->id, d);
    uint_key(row, "slices", 1, 8, &p->slices, d);
    uint_key(row, "memorySlices", 0, 8, &p->mem_slices, d);
    uint_key(row, "instances", 0, 8, &p->max_instances, d);
    uint_key(row, "sms", 0, 1024, &p->sms, d);
    uint_key(row, "copyEngines", 0, 64, &p->copy_engines, d);
    uint_key(row, "decoders", 0, 64, &p->decoders, d);
    uint_key(row, "encoders", 0, 64, &p->encoders, d);
    uint_key(row, "jpegs", 0, 64, &p->jpegs, d);
    uint_key(row, "ofas", 0, 64, &p->ofas, d);
    uint_key(row, "placementSize", 0, 8, &p->placement_size, d);
    if ((n = mk_yget(row, "memory")) &&
        (n->kind != MK_Y_SCALAR || mk_parse_memory(n->str, &p->memory, &why)))
        mk_yerr(d, n, "memory: expected a size like 4864MiB");
    if ((n = mk_yget(row, "placements"))) {
        if (n->kind != MK_Y_SEQ || n->n > MK_MAX_PLACEMENTS) {
            mk_yerr(d, n, "placements: expected a list of up to 8 start slots");
        } else {
            for (size_t i = 0; i < n->n; i++) {
                long long v;
                if (mk_yint(n->vals[i], "placement", 0, 7, &v, d) == 0)
                    p->placements[p->nplacements++] = (unsigned)v;
            }
        }
    }
    if (!mk_yget(row, "slices"))
        mk_yerr(d, row, "MIG profile '%s': slices is required", p->name);
    if (!p->nplacements && !mk_yget(row, "placements"))
        mk_yerr(d, row, "MIG profile '%s': placements is required", p->name);
    if (!mk_yget(row, "instances"))
        p->max_instances = p->nplacements;
    if (!p->placement_size)
        p->placement_size = p->mem_slices ? p->mem_slices : p->slices;
    for (unsigned i = 0; i < p->nplacements; i++)
        if (p->placements[i] + p->placement_size > 8)
            mk_yerr(d, row, "MIG profile '%s': placement %u + size %u runs past slot 8",
                    p->name, p->placements[i], p->placement_size);
}

void mk_config_mig_profiles(mk_device *dev, const mk_ynode *v, mk_diags *d)
{
    if (v->kind != MK_Y_SEQ) {
        mk_yerr(d, v, "migProfiles: expected a list of MIG profiles");
        return;
    }
    if (v->n > MK_MAX_MIG_PROFILES) {
        mk_yerr(d, v, "migProfiles: at most %d profiles", MK_MAX_MIG_PROFILES);
        return;
    }
    dev->nmigp = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (v->vals[i]->kind != MK_Y_MAP) {
            mk_yerr(d, v->vals[i], "migProfiles: expected a map per profile");
            continue;
        }
        decode_profile(&dev->migp[dev->nmigp++], v->vals[i], d);
    }
}

void mk_config_set_mig_request(mk_device *dev, const mk_ynode *instances)
{
    dev->mig_request = instances;
}

/* Slot-tree GPU-instance id for an instance spanning `size` slots at `start`. */
static unsigned gi_id_for(unsigned start, unsigned size)
{
    if (size >= 8) return 0;
    if (size >= 4) return 1 + start / 4;
    if (size >= 2) return 3 + start / 2;
    return 7 + start;
}

static const mk_mig_profile *find_profile(const mk_device *dev, const char *name, unsigned *idx)
{
    const char *n = strncasecmp(name, "MIG ", 4) == 0 ? name + 4 : name;
    for (unsigned i = 0; i < dev->nmigp; i++)
        if (strcasecmp(dev->migp[i].name, n) == 0) {
            *idx = i;
            return &dev->migp[i];
        }
    return NULL;
}

/* Places instances [i, n) on the slots `used` leaves free, each at the
 * first of its starts that lets the rest fit too; fills start[]. */
static int place_from(const mk_device *dev, const unsigned *prof, size_t i, size_t n,
                      unsigned used, unsigned *start)
{
    if (i == n)
        return 0;
    const mk_mig_profile *p = &dev->migp[prof[i]];
    unsigned mask = (1u << p->placement_size) - 1;
    for (unsigned j = 0; j < p->nplacements; j++) {
        unsigned m = mask << p->placements[j];
        if (!(used & m) && place_from(dev, prof, i + 1, n, used | m, start) == 0) {
            start[i] = p->placements[j];
            return 0;
        }
    }
    return -1;
}

/* The profile of each requested instance; errors list the GPU's profiles. */
static int resolve_profiles(const mk_device *dev, const mk_ynode *req, unsigned *prof,
                            mk_diags *d)
{
    int bad = 0;
    for (size_t i = 0; i < req->n; i++) {
        const char *name;
        if (mk_ystr(req->vals[i], "MIG instance", &name, d)) {
            bad = 1;
            continue;
        }
        if (!find_profile(dev, name, &prof[i])) {
            char list[512] = "";
            for (size_t j = 0; j < dev->nmigp; j++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                         dev->migp[j].name);
            mk_yerr(d, req->vals[i], "GPU %u (%s) has no MIG profile '%s' (it has: %s)",
                    dev->index, dev->name, name, list);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/* Names the first instance that is one too many of its profile, or that
 * takes more compute slices than the GPU has. */
static int check_counts(const mk_device *dev, const mk_ynode *req, const unsigned *prof,
                        mk_diags *d)
{
    unsigned count[MK_MAX_MIG_PROFILES] = { 0 };
    unsigned slices = 0;
    for (size_t i = 0; i < req->n; i++) {
        const mk_mig_profile *p = &dev->migp[prof[i]];
        if (++count[prof[i]] > p->max_instances) {
            mk_yerr(d, req->vals[i], "MIG instance %s does not fit GPU %u (%s): it takes at "
                    "most %u of %s", p->name, dev->index, dev->name, p->max_instances, p->name);
            return -1;
        }
        slices += p->slices;
        if (slices > dev->mig_slices) {
            mk_yerr(d, req->vals[i], "MIG instance %s does not fit GPU %u (%s): with it the "
                    "instances need %u of its %u compute slices", p->name, dev->index,
                    dev->name, slices, dev->mig_slices);
            return -1;
        }
    }
    return 0;
}

/* Names the first instance that cannot be placed beside those before it. */
static void report_overlap(const mk_device *dev, const mk_ynode *req, const unsigned *prof,
                           unsigned *start, mk_diags *d)
{
    size_t k = 1;
    while (k < req->n && place_from(dev, prof, 0, k, 0, start) == 0)
        k++;
    const mk_mig_profile *p = &dev->migp[prof[k - 1]];
    mk_yerr(d, req->vals[k - 1], "MIG instance %s does not fit GPU %u (%s): every start it "
            "allows overlaps the instances before it, however they are placed", p->name,
            dev->index, dev->name);
}

void mk_config_mig_layout(mk_device *dev, mk_diags *d)
{
    const mk_ynode *req = dev->mig_request;
    dev->mig_request = NULL;
    if (!req)
        return;
    if (!dev->mig_slices || !dev->nmigp) {
        mk_yerr(d, req, "GPU %u (%s) does not support MIG", dev->index, dev->name);
        return;
    }
    size_t n = req->n;
    unsigned *prof = calloc(n ? n : 1, sizeof *prof);
    unsigned *start = calloc(n ? n : 1, sizeof *start);
    dev->mig = calloc(n ? n : 1, sizeof *dev->mig);
    if (!prof || !start || !dev->mig || resolve_profiles(dev, req, prof, d) != 0 ||
        check_counts(dev, req, prof, d) != 0)
        goto out;
    if (place_from(dev, prof, 0, n, 0, start) != 0) {
        report_overlap(dev, req, prof, start, d);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const mk_mig_profile *p = &dev->migp[prof[i]];
        mk_mig_dev *m = &dev->mig[i];
        m->profile = prof[i];
        m->start = start[i];
        m->gi_id = gi_id_for(start[i], p->placement_size);
        m->ci_id = 0;
        m->memory = p->memory;
    }
    dev->nmig = n;
out:
    free(prof);
    free(start);
}
