/* profiles.h - the YAML built into the core, parsed at build time by
 * gen_profiles.c: the GPU profiles (fixtures/profiles) and the config of the
 * universe served without one. Profiles are data: a profile is a YAML map
 * of device fields plus the GPU's MIG profile table. */
#ifndef MOKKA_PROFILES_H
#define MOKKA_PROFILES_H

#include "ypack.h"

typedef struct mk_profile {
    const char *name;      /* file name without .yaml: "h100-sxm5-80gb" */
    const char *gpu;       /* its `name:`, the GPU's NVML name; NULL if it has none */
    mk_ypacked tree;
} mk_profile;

extern const mk_profile mk_profiles[];  /* ends with a NULL name */

/* fixtures/configs/dgx-a100.yaml: the universe when no config is given. */
extern const mk_ypacked mk_default_config;

/* The profile called `name` (case-insensitive), or NULL. */
const mk_profile *mk_profile_find(const char *name);

#endif
