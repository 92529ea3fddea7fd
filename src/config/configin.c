/* configin.c - configs from files, stdin or the built-in default (see
 * configin.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "ytree.h"

/* What the loader would refuse anyway, refused before it is all in memory. */
#define MK_INPUT_MAX MK_YMAX_FILE

char *mk_read_input(const char *path, size_t *len, mk_diags *d)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? MK_STDIN_NAME : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n > MK_INPUT_MAX) {
            mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "larger than %u MiB, the most a YAML file "
                        "may be", MK_INPUT_MAX >> 20);
            free(buf);
            buf = NULL;
            break;
        }
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "out of memory");
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                mk_diag_add(d, MK_DIAG_ERROR, name, 0, 0, "read error: %s", strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (!is_stdin)
        fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
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
