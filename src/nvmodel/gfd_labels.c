/* gfd_labels.c - the labels gpu-feature-discovery v0.17.4 writes for a
 * node, computed from its universe without running GFD: the machine, driver
 * and CUDA versions, MIG capability, MPS, the GPUs' PCI mode, the NVLink
 * clique and vGPU here; the resources' labels in gfd_resources.c. GFD gets
 * these from Mokka's NVML and the run sandbox's files, so each is what
 * those answer for the universe (the sandbox's DMI product name is the
 * universe's machine; its PCI class 0x0302, a 3D controller, on every GPU). */
#include <stdio.h>
#include <string.h>
#include "fabric.h"
#include "nvmodel.h"
#include "nvmodel_int.h"

/* The driver version as GFD splits it: X.Y or X.Y.Z, the parts as they
 * are (no number parsing: "03" stays "03"). */
static int version_labels(const mk_universe *u, json_t *labels, char *err, size_t errlen)
{
    char parts[3][MK_DRIVER_VERSION_LEN] = { "", "", "" };
    size_t n = 0;
    const char *s = u->driver_version;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t l = dot ? (size_t)(dot - s) : strlen(s);
        if (n < 3)
            snprintf(parts[n], sizeof parts[n], "%.*s", (int)l, s);
        n++;
        if (!dot)
            break;
        s = dot + 1;
    }
    if (n < 2 || n > 3) {
        snprintf(err, errlen, "error getting driver version: Version \"%s\" does not match "
                 "format \"X.Y[.Z]\" (gpu-feature-discovery stops here)", u->driver_version);
        return -1;
    }
    /* nvmlSystemGetCudaDriverVersion: 12020 is 12.2 */
    char major[16], minor[16], full[40];
    snprintf(major, sizeof major, "%d", u->cuda_version / 1000);
    snprintf(minor, sizeof minor, "%d", u->cuda_version % 1000 / 10);
    snprintf(full, sizeof full, "%s.%s", major, minor);
    mk_gfd_set(labels, "nvidia.com/cuda.driver.major", parts[0]);
    mk_gfd_set(labels, "nvidia.com/cuda.driver.minor", parts[1]);
    mk_gfd_set(labels, "nvidia.com/cuda.driver.rev", parts[2]);
    mk_gfd_set(labels, "nvidia.com/cuda.runtime.major", major);
    mk_gfd_set(labels, "nvidia.com/cuda.runtime.minor", minor);
    mk_gfd_set(labels, "nvidia.com/cuda.driver-version.major", parts[0]);
    mk_gfd_set(labels, "nvidia.com/cuda.driver-version.minor", parts[1]);
    mk_gfd_set(labels, "nvidia.com/cuda.driver-version.revision", parts[2]);
    mk_gfd_set(labels, "nvidia.com/cuda.driver-version.full", u->driver_version);
    mk_gfd_set(labels, "nvidia.com/cuda.runtime-version.major", major);
    mk_gfd_set(labels, "nvidia.com/cuda.runtime-version.minor", minor);
    mk_gfd_set(labels, "nvidia.com/cuda.runtime-version.full", full);
    return 0;
}

/* go-nvlib's IsFabricAttached: registration completed, successfully, with
 * a cluster UUID. */
static int fabric_attached(const mk_fabric *f)
{
    return f->state == MK_FABRIC_COMPLETED && f->status == 0 && !mk_cluster_uuid_zero(f->cluster);
}

/* nvidia.com/gpu.clique: CLUSTERUUID.CLIQUEID when every attached GPU
 * agrees on both; no label when none is attached or they disagree. */
static void clique_label(const mk_universe *u, json_t *labels)
{
    const mk_fabric *first = NULL;
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_fabric *f = &u->dev[i].fabric;
        if (!fabric_attached(f))
            continue;
        if (!first)
            first = f;
        else if (memcmp(f->cluster, first->cluster, sizeof f->cluster) ||
                 f->clique != first->clique)
            return;
    }
    if (!first)
        return;
    char uuid[40], value[64];
    mk_cluster_uuid_format(first->cluster, uuid, sizeof uuid);
    snprintf(value, sizeof value, "%s.%u", uuid, first->clique);
    mk_gfd_set(labels, "nvidia.com/gpu.clique", value);
}

static int is_strategy(const char *s)
{
    return !strcmp(s, "none") || !strcmp(s, "single") || !strcmp(s, "mixed");
}

json_t *mk_gfd_labels(const mk_universe *u, const char *strategy, char *err, size_t errlen)
{
    if (!strategy)
        strategy = "none";
    if (!is_strategy(strategy)) {
        snprintf(err, errlen, "unknown MIG strategy '%s' (none, single or mixed)", strategy);
        return NULL;
    }
    json_t *labels = json_object();
    if (!labels) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* Without GPUs GFD's device labelers are empty: only vGPU's remains. */
    if (u->ndev) {
        char machine[sizeof u->machine];
        mk_gfd_sanitise(u->machine, machine, sizeof machine);
        mk_gfd_set(labels, "nvidia.com/gpu.machine", machine);
        if (version_labels(u, labels, err, errlen) != 0)
            goto fail;
        int capable = 0;
        for (size_t i = 0; i < u->ndev; i++)
            capable |= u->dev[i].mig_slices > 0;
        mk_gfd_set(labels, "nvidia.com/mig.capable", capable ? "true" : "false");
        /* Only a config sharing GPUs through MPS asks; Mokka passes none. */
        mk_gfd_set(labels, "nvidia.com/mps.capable", "false");
        if (mk_gfd_resource_labels(u, strategy, labels, err, errlen) != 0)
            goto fail;
        mk_gfd_set(labels, "nvidia.com/gpu.mode", "compute");
        clique_label(u, labels);
    }
    /* The sandbox's PCI config spaces have no vGPU capability. */
    mk_gfd_set(labels, "nvidia.com/vgpu.present", "false");
    return labels;
fail:
    json_decref(labels);
    return NULL;
}
