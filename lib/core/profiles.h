/* profiles.h - the GPU profiles built into the core (from fixtures/profiles,
 * embedded at build time by gen_profiles.sh). Profiles are data: a profile is
 * a YAML map of device fields plus the GPU's MIG profile table. */
#ifndef MOKKA_PROFILES_H
#define MOKKA_PROFILES_H

#include <stddef.h>

typedef struct mk_profile_blob {
    const char *name;   /* file name without .yaml: "h100-sxm5-80gb" */
    const char *yaml;
    size_t len;
} mk_profile_blob;

extern const mk_profile_blob mk_profile_blobs[];  /* ends with a NULL name */
extern const unsigned mk_profile_count;

/* The built-in profile called `name` (case-insensitive), or NULL. */
const mk_profile_blob *mk_profile_find(const char *name);

#endif
