/* embed.c - looking up embedded data files by name. */
#include <strings.h>
#include "suite.h"

const mk_blob *mk_blob_find(const mk_blob *table, const char *name)
{
    for (const mk_blob *b = table; b->name; b++)
        if (strcasecmp(b->name, name) == 0)
            return b;
    return NULL;
}
