/* gfd_resources.c - GFD v0.17.4's labels of the node's resources:
 * nvidia.com/gpu.{product,count,replicas,sharing-strategy,memory,family,
 * compute.major,compute.minor} for the whole GPUs, and under the MIG
 * strategies nvidia.com/mig.strategy with the MIG devices' labels (on
 * nvidia.com/gpu.* for single, nvidia.com/mig-PROFILE.* for mixed).
 *
 * GFD keeps the GPUs in maps keyed by name and merges one labeler per name,
 * those of MIG-enabled GPUs first (no sharing: replicas 0), then those of
 * the others (replicas 1), each over what came before. With one GPU model
 * that order is fixed; with several, Go's map order picks which model's
 * product, memory and architecture win, differently from run to run. Here
 * the models go in universe order, the last one winning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvmodel_int.h"

#define GPU_RES "nvidia.com/gpu"

static void set(json_t *labels, const char *res, const char *suffix, const char *value)
{
    char key[160];
    snprintf(key, sizeof key, "%s.%s", res, suffix);
    mk_gfd_set(labels, key, value);
}

static void setu(json_t *labels, const char *res, const char *suffix, unsigned long long v)
{
    char value[24];
    snprintf(value, sizeof value, "%llu", v);
    set(labels, res, suffix, value);
}

/* GFD's product name: the parts sanitised, empty ones left out, joined by
 * '-' (a resource shared by time-slicing would add "SHARED": Mokka's runs
 * configure no sharing). */
static void product(char *out, size_t len, const char *model, const char *mig)
{
    char a[MK_NAME_LEN], b[MK_NAME_LEN];
    mk_gfd_sanitise(model, a, sizeof a);
    mk_gfd_sanitise(mig ? mig : "", b, sizeof b);
    snprintf(out, len, "%s%s%s%s%s", a, *a && mig ? "-" : "", mig ? "MIG" : "",
             mig && *b ? "-" : "", b);
}

static const char *arch_family(int major, int minor)
{
    switch (major) {
    case 1: return "tesla";
    case 2: return "fermi";
    case 3: return "kepler";
    case 5: return "maxwell";
    case 6: return "pascal";
    case 7: return minor < 5 ? "volta" : "turing";
    case 8: return minor < 9 ? "ampere" : "ada-lovelace";
    case 9: return "hopper";
    case 10: case 12: return "blackwell";
    }
    return "undefined";
}

/* The labeler of `count` whole GPUs named like d; `shared`: with the
 * sharing config (GPUs not in MIG mode), which makes replicas 1, not 0. */
static void gpu_labels(const mk_device *d, unsigned count, int shared, json_t *labels)
{
    char name[2 * MK_NAME_LEN];
    product(name, sizeof name, d->name, NULL);
    set(labels, GPU_RES, "product", name);
    setu(labels, GPU_RES, "count", count);
    setu(labels, GPU_RES, "replicas", shared ? 1 : 0);
    set(labels, GPU_RES, "sharing-strategy", "none");
    if (d->mem_total >> 20)
        setu(labels, GPU_RES, "memory", d->mem_total >> 20);
    if (d->cc_major != 0) {
        set(labels, GPU_RES, "family", arch_family(d->cc_major, d->cc_minor));
        setu(labels, GPU_RES, "compute.major", (unsigned long long)d->cc_major);
        setu(labels, GPU_RES, "compute.minor", (unsigned long long)d->cc_minor);
    }
}

static int mig_enabled(const mk_device *d)
{
    return d->mig_slices && d->mig_enabled;
}

/* Whether GPU i is the first of its model among the GPUs with (or
 * without) MIG mode like it. */
static int first_of_model(const mk_universe *u, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (mig_enabled(&u->dev[j]) == mig_enabled(&u->dev[i]) &&
            !strcmp(u->dev[j].name, u->dev[i].name))
            return 0;
    return 1;
}

/* newGPULabelers: a labeler per model among the MIG-enabled GPUs, then one
 * per model among the others, each counting every GPU of its model and
 * built from the last one of its group (a map keyed by name keeps it). */
static void whole_gpu_labels(const mk_universe *u, json_t *labels)
{
    for (int group = 1; group >= 0; group--)
        for (size_t i = 0; i < u->ndev; i++) {
            if (mig_enabled(&u->dev[i]) != group || !first_of_model(u, i))
                continue;
            const mk_device *last = NULL;
            unsigned count = 0;
            for (size_t j = 0; j < u->ndev; j++)
                if (!strcmp(u->dev[j].name, u->dev[i].name)) {
                    count++;
                    if (mig_enabled(&u->dev[j]) == group)
                        last = &u->dev[j];
                }
            gpu_labels(last, count, !group, labels);
        }
}

/* The labeler of `count` MIG devices like device m of GPU d, on resource
 * res (NewMIGResourceLabeler: its attributes as NVML gives them). */
static void mig_labels(const mk_device *d, const mk_mig_dev *m, const char *mig_name,
                       unsigned count, const char *res, json_t *labels)
{
    const mk_mig_profile *p = &d->migp[m->profile];
    char name[3 * MK_NAME_LEN];
    product(name, sizeof name, d->name, mig_name);
    set(labels, res, "product", name);
    setu(labels, res, "count", count);
    setu(labels, res, "replicas", 1);
    set(labels, res, "sharing-strategy", "none");
    setu(labels, res, "memory", p->memory >> 20);
    setu(labels, res, "multiprocessors", p->sms);
    setu(labels, res, "slices.gi", p->slices);
    setu(labels, res, "slices.ci", p->slices);
    setu(labels, res, "engines.copy", p->copy_engines);
    setu(labels, res, "engines.decoder", p->decoders);
    setu(labels, res, "engines.encoder", p->encoders);
    setu(labels, res, "engines.jpeg", p->jpegs);
    setu(labels, res, "engines.ofa", p->ofas);
}

/* The MIG devices by name, in GPU order: the first of each name stands for
 * it, with how many there are. */
typedef struct {
    char name[MK_SHORT_LEN];
    const mk_device *d;
    const mk_mig_dev *m;
    unsigned count;
} mig_kind;

static int mig_kinds(const mk_universe *u, mig_kind **out, size_t *n, char *err, size_t errlen)
{
    size_t total = 0;
    *n = 0;
    for (size_t i = 0; i < u->ndev; i++)
        if (mig_enabled(&u->dev[i]))
            total += u->dev[i].nmig;
    if (!(*out = calloc(total ? total : 1, sizeof **out))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        for (size_t k = 0; mig_enabled(d) && k < d->nmig; k++) {
            char name[MK_SHORT_LEN];
            if (mk_nv_mig_name(d, &d->migp[d->mig[k].profile], name, sizeof name, err,
                               errlen) != 0)
                return -1;
            size_t j = 0;
            while (j < *n && strcmp((*out)[j].name, name))
                j++;
            if (j == *n) {
                snprintf((*out)[j].name, sizeof (*out)[j].name, "%s", name);
                (*out)[j].d = d;
                (*out)[j].m = &d->mig[k];
                ++*n;
            }
            (*out)[j].count++;
        }
    }
    return 0;
}

/* What GFD labels when the single strategy cannot apply: an invalid
 * product, no GPUs. */
static void invalid_single(const mk_device *d, json_t *labels)
{
    char name[2 * MK_NAME_LEN];
    product(name, sizeof name, d->name, "INVALID");
    set(labels, GPU_RES, "product", name);
    set(labels, GPU_RES, "count", "0");
    set(labels, GPU_RES, "replicas", "0");
    set(labels, GPU_RES, "sharing-strategy", "");
    set(labels, GPU_RES, "memory", "0");
}

static int single_labels(const mk_universe *u, json_t *labels, char *err, size_t errlen)
{
    const mk_device *first = NULL;
    int empty = 0, whole = 0;
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        if (!mig_enabled(d)) {
            whole = 1;
            continue;
        }
        if (!first)
            first = d;
        empty |= d->nmig == 0;
    }
    if (!first)
        return 0;
    if (empty || whole) {
        invalid_single(first, labels);
        return 0;
    }
    mig_kind *k;
    size_t n;
    int rc = mig_kinds(u, &k, &n, err, errlen);
    if (rc == 0 && n != 1)
        invalid_single(first, labels);
    else if (rc == 0)
        mig_labels(k[0].d, k[0].m, k[0].name, k[0].count, GPU_RES, labels);
    free(k);
    return rc;
}

static int mixed_labels(const mk_universe *u, json_t *labels, char *err, size_t errlen)
{
    mig_kind *k;
    size_t n;
    int rc = mig_kinds(u, &k, &n, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char res[80];
        snprintf(res, sizeof res, "nvidia.com/mig-%s", k[i].name);
        mig_labels(k[i].d, k[i].m, k[i].name, k[i].count, res, labels);
    }
    free(k);
    return rc;
}

int mk_gfd_resource_labels(const mk_universe *u, const char *strategy, json_t *labels,
                           char *err, size_t errlen)
{
    whole_gpu_labels(u, labels);
    if (!strcmp(strategy, "none"))
        return 0;
    mk_gfd_set(labels, "nvidia.com/mig.strategy", strategy);
    if (!strcmp(strategy, "single"))
        return single_labels(u, labels, err, errlen);
    return mixed_labels(u, labels, err, errlen);
}
