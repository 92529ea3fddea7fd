/* profiles.c - finding a built-in GPU profile by name, or by the GPU name a
 * config gives (so the seed's `name: NVIDIA RTX 6000 Ada Generation` gets the
 * matching profile without saying `profile:`). */
#include <string.h>
#include <strings.h>
#include "profiles.h"

const mk_profile_blob *mk_profile_find(const char *name)
{
    for (const mk_profile_blob *p = mk_profile_blobs; p->name; p++)
        if (strcasecmp(p->name, name) == 0)
            return p;
    return NULL;
}
