/* cdi.c - the plan as a Container Device Interface spec, for runtimes
 * that read CDI (containerd >= 1.7, cri-o, podman): kind nvidia.com/gpu,
 * so that `--device nvidia.com/gpu=0` and the device plugin's CDI names
 * work as on an NVIDIA node. A virtual GPU has no device node: a device's
 * edit is the variable that shows it to Mokka's library. A runtime merges
 * the edits of all the devices asked for, and of one variable set twice
 * keeps the last, so each GPU has a variable of its own,
 * MOKKA_VISIBLE_GPU_<index>=<uuid>, and the library shows the union
 * (visible.h); the device by UUID sets the same one as the device by
 * index. The common edits are the plan's mounts and variables, and
 * NVIDIA_VISIBLE_DEVICES=void as in NVIDIA's own specs: an image's `all`
 * (CUDA images set it) must not widen the view beyond the devices. */
#include <stdio.h>
#include <stdlib.h>
#include "ctr.h"
#include "util/util.h"
#include "visible.h"

#define CDI_VERSION "0.5.0"

static json_t *device(const char *name, const char *var, const char *visible)
{
    char *env = mk_xasprintf("%s%s=%s", MK_VISIBLE_GPU_ENV, var, visible);
    json_t *d = json_pack("{s:s, s:{s:[s]}}", "name", name, "containerEdits", "env", env);
    free(env);
    return d;
}

static json_t *common_edits(const mk_ctr_plan *p)
{
    json_t *env = json_array(), *mounts = json_array();
    json_array_append_new(env, json_string(MK_VISIBLE_ENV "=void"));
    for (size_t i = 0; i < p->nenv; i++)
        json_array_append_new(env, json_string(p->env[i]));
    for (size_t i = 0; i < p->nmount; i++) {
        const mk_ctr_mount *m = &p->mount[i];
        json_array_append_new(mounts, json_pack("{s:s, s:s, s:o}", "hostPath", m->src,
                                                "containerPath", m->dst, "options",
                                                mk_ctr_mount_options(m)));
    }
    return json_pack("{s:o, s:o}", "env", env, "mounts", mounts);
}

json_t *mk_cdi_spec(const char *const *uuids, size_t n, const mk_ctr_plan *p)
{
    json_t *devs = json_array();
    for (size_t i = 0; i < n; i++) {
        char index[24];
        snprintf(index, sizeof index, "%zu", i);
        json_array_append_new(devs, device(index, index, uuids[i]));
        json_array_append_new(devs, device(uuids[i], index, uuids[i]));
    }
    json_array_append_new(devs, device("all", "ALL", "all"));
    return json_pack("{s:s, s:s, s:o, s:o}", "cdiVersion", CDI_VERSION, "kind", "nvidia.com/gpu",
                     "devices", devs, "containerEdits", common_edits(p));
}
