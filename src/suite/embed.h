/* embed.h - data files built into the CLI by gen_embed.sh: the default
 * suites (fixtures/suites). */
#ifndef MOKKA_EMBED_H
#define MOKKA_EMBED_H

#include <stddef.h>

typedef struct mk_blob {
    const char *name;   /* file name without .yaml: "h100-sxm5-80gb" */
    const char *data;
    size_t len;
} mk_blob;

extern const mk_blob mk_suite_blobs[];   /* fixtures/suites; ends with a NULL name */

/* The blob called `name` (case-insensitive) in a NULL-name-terminated table. */
const mk_blob *mk_blob_find(const mk_blob *table, const char *name);

#endif
