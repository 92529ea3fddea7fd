/* profiles.h - the GPU profiles built into the core (from fixtures/profiles,
 * embedded at build time by gen_embed.sh). Profiles are data: a profile is
 * a YAML map of device fields plus the GPU's MIG profile table. */
#ifndef MOKKA_PROFILES_H
#define MOKKA_PROFILES_H

#include "embed.h"

extern const mk_blob mk_profile_blobs[];  /* ends with a NULL name */

#endif
