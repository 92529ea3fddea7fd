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

/* The profile a GPU `name:` names. The profile whose `name:` is exactly it;
 * else, case-insensitively, split into words at spaces, '-' and '_', with
 * the word "NVIDIA" optional: the profiles of which every word of the name
 * is a word of the profile's GPU name or file name (a word ending in a
 * letter also matches it followed by digits: "SXM" matches "SXM5"). One
 * such profile is the answer; several are ambiguous, except that a family
 * named alone ("A100", "NVIDIA H100") means the family's default where the
 * table in profiles.c marks one. */
#define MK_PROFILE_CANDIDATES 16
typedef struct mk_profile_match {
    const mk_profile *p;       /* the answer; NULL: none, or ambiguous (n > 1) */
    int exact;                 /* p's `name:` is the name itself */
    int family_default;        /* p is the default of the family named alone */
    size_t n;                  /* profiles the words match */
    const mk_profile *cand[MK_PROFILE_CANDIDATES];
} mk_profile_match;
void mk_profile_resolve(const char *gpu_name, mk_profile_match *m);

#endif
