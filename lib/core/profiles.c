/* profiles.c - looking up the built-in GPU profiles by name. */
#include <strings.h>
#include "profiles.h"

const mk_profile *mk_profile_find(const char *name)
{
    for (const mk_profile *p = mk_profiles; p->name; p++)
        if (strcasecmp(p->name, name) == 0)
            return p;
    return NULL;
}
