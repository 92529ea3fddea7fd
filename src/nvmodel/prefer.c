/* prefer.c - NVIDIA's device plugin v0.17.4's answer to
 * GetPreferredAllocation (internal/rm/nvml_manager.go, allocate.go), which
 * the kubelet's device manager takes first when it picks a container's
 * devices.
 *
 * A resource of whole GPUs gets an aligned allocation, go-gpuallocator's
 * best-effort policy over the GPUs' NVLink and PCIe topology
 * (besteffort.c). Any other (MIG devices) gets the distributed one: the
 * must-include devices, then candidates taken one by one, fewest replicas
 * of their device handed out first. Without replicas (the universe has no
 * sharing) that order ties for every candidate, and the candidates come
 * from a Go map: with up to 8 of them in a rotation of the request's order
 * that starts anywhere, with more in any order. The plugin's choice is
 * random there; the model takes them in the request's order, which is one
 * of the plugin's answers.
 *
 * The kubelet sends its own lists as a Go map iterates too, so where the
 * best-effort policy has equals (most boards) the real node's choice among
 * them varies with that order; the model answers for the order given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvmodel.h"
#include "nvmodel_int.h"

/* Every device of the resource a whole GPU: what AlignedAllocationSupported
 * asks of the resource's devices, all of them, not only those available. */
static int aligned(const mk_pdev *devs, size_t ndevs, const char *resource)
{
    for (size_t i = 0; i < ndevs; i++)
        if (strcmp(devs[i].resource, resource) == 0 && devs[i].mig >= 0)
            return 0;
    return 1;
}

static int listed(const size_t *v, size_t n, size_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static int gpus_aligned(const mk_universe *u, const size_t *avail, size_t navail,
                        const size_t *must, size_t nmust, size_t size, size_t *out,
                        const mk_pdev *devs, char *err, size_t errlen)
{
    unsigned *g = malloc((navail + nmust + 1) * sizeof *g);
    size_t *pos = malloc((size ? size : 1) * sizeof *pos);
    int rc = -1;
    if (!g || !pos) {
        snprintf(err, errlen, "out of memory");
    } else {
        for (size_t i = 0; i < navail; i++)
            g[i] = devs[avail[i]].gpu;
        for (size_t i = 0; i < nmust; i++)
            g[navail + i] = devs[must[i]].gpu;
        rc = mk_besteffort(u, g, navail, g + navail, nmust, size, pos, err, errlen);
        for (size_t i = 0; rc == 0 && i < size; i++)
            out[i] = avail[pos[i]];
    }
    free(g);
    free(pos);
    return rc;
}

/* allocate.go's distributedAlloc: the must-include devices as asked, then
 * the candidates (available devices of the resource, not must-include). */
static int distributed(const mk_pdev *devs, const char *resource, const size_t *avail,
                       size_t navail, const size_t *must, size_t nmust, size_t size,
                       size_t *out, char *err, size_t errlen)
{
    if (nmust > size) {
        snprintf(err, errlen, "NVIDIA's plugin answers no devices beyond the %zu must-include "
                 "ones (%zu asked for)", nmust, size);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < nmust; i++)
        out[k++] = must[i];
    for (size_t i = 0; i < navail && k < size; i++)
        if (strcmp(devs[avail[i]].resource, resource) == 0 && !listed(must, nmust, avail[i]))
            out[k++] = avail[i];
    if (k < size) {
        snprintf(err, errlen, "not enough available devices to satisfy allocation");
        return -1;
    }
    return 0;
}

int mk_pdevs_prefer(const mk_universe *u, const mk_pdev *devs, size_t ndevs,
                    const size_t *avail, size_t navail, const size_t *must, size_t nmust,
                    size_t size, size_t *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < navail + nmust; i++) {
        size_t d = i < navail ? avail[i] : must[i - navail];
        if (d >= ndevs) {
            snprintf(err, errlen, "device %zu is not among the %zu listed", d, ndevs);
            return -1;
        }
        if (i < navail && listed(avail, i, d)) {
            snprintf(err, errlen, "device %s is available twice", devs[d].id);
            return -1;
        }
    }
    if (navail + nmust == 0) {
        if (size == 0)
            return 0;
        snprintf(err, errlen, "NVIDIA's plugin answers no devices: none is available");
        return -1;
    }
    const char *resource = devs[navail ? avail[0] : must[0]].resource;
    if (aligned(devs, ndevs, resource))
        return gpus_aligned(u, avail, navail, must, nmust, size, out, devs, err, errlen);
    return distributed(devs, resource, avail, navail, must, nmust, size, out, err, errlen);
}
