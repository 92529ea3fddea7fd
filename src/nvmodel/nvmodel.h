/* nvmodel.h - what NVIDIA's programs make of a universe, without running
 * them: the devices its device plugin (v0.17) lists under a MIG strategy,
 * the devices it prefers for an allocation (GetPreferredAllocation), and
 * the labels gpu-feature-discovery (v0.17) puts on the node. `mokka fleet`
 * builds virtual nodes from these; each is tested against the real
 * program's answers on the same universes. */
#ifndef MOKKA_NVMODEL_H
#define MOKKA_NVMODEL_H

#include <stddef.h>
#include <jansson.h>
#include "universe.h"

#define MK_GPU_RESOURCE "nvidia.com/gpu"

/* One device the plugin lists. */
typedef struct mk_pdev {
    char resource[80];   /* "nvidia.com/gpu", "nvidia.com/mig-1g.5gb" */
    const char *id;      /* the plugin's device id (the GPU's or MIG device's UUID),
                            borrowed from the universe */
    unsigned gpu;        /* universe index of the GPU it is, or is on */
    int mig;             /* index into the GPU's mig[], or -1 for a whole GPU */
} mk_pdev;

/* The devices NVIDIA's plugin lists for universe u under strategy ("none",
 * "single", "mixed"; NULL: "none"), in the plugin's order. 0 with *out
 * (malloc'd, free() it) and *n; -1 with err (a strategy the plugin would
 * refuse on this universe, such as "single" with mixed MIG profiles, says
 * so as the plugin does). */
int mk_pdevs_list(const mk_universe *u, const char *strategy, mk_pdev **out, size_t *n,
                  char *err, size_t errlen);

/* NVIDIA's plugin's answer to GetPreferredAllocation: `size` devices out of
 * avail[navail] (indexes into devs, all of one resource), including every
 * one of must[nmust], written to out[size] as indexes into devs. 0, or -1
 * with err when it cannot be done (fewer available than asked). An err
 * that begins "NVIDIA's plugin answers no devices" is an empty answer (the
 * kubelet then takes any available devices); any other is a failed call
 * (the kubelet fails the admission), e.g. where the plugin crashes. The
 * universe is taken as it starts: while a GPU of the node is lost (live
 * state, mode lost) the real plugin fails every call for whole GPUs, since
 * its allocator reads every GPU ("error getting device handle for index
 * 'N': GPU is lost"); calls for MIG devices read none. */
int mk_pdevs_prefer(const mk_universe *u, const mk_pdev *devs, size_t ndevs,
                    const size_t *avail, size_t navail, const size_t *must, size_t nmust,
                    size_t size, size_t *out, char *err, size_t errlen);

/* The labels gpu-feature-discovery v0.17 puts on the node of universe u
 * under MIG strategy `strategy` (as above), as a JSON object of strings;
 * its timestamp label (nvidia.com/gfd.timestamp) is left out. NULL with err.
 * (gfd_labels.c: the universe as loaded, without what `mokka inject` changes
 * at run time; with GPUs of several models GFD's own answer varies from run
 * to run, see gfd_resources.c. NFD's nvidia.com/gpu.present is not GFD's.) */
json_t *mk_gfd_labels(const mk_universe *u, const char *strategy, char *err, size_t errlen);

#endif
