/* configin.c - configs from files, stdin or the built-in default (see
 * configin.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "config.h"
#include "ytree.h"

/* Read by the loader's own reader, so that lint, run and the library say
 * the same of an unreadable or oversized file. */
char *mk_read_input(const char *path, size_t *len, mk_diags *d)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? MK_STDIN_NAME : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = mk_yread_fp(name, f, len, d);
    if (!is_stdin)
        fclose(f);
    return buf;
}

mk_universe *mk_load_config(const char *path, const char *node, mk_diags *d)
{
    if (!path)
        return mk_universe_load(NULL, node, d);
    if (strcmp(path, "-") != 0)
        return mk_universe_load(path, node, d);
    size_t len;
    char *buf = mk_read_input(path, &len, d);
    if (!buf)
        return NULL;
    mk_universe *u = mk_universe_load_mem(MK_STDIN_NAME, buf, len, node, d);
    free(buf);
    return u;
}
