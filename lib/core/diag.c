/* diag.c - the diagnostics list: append, format, find the first error.
 *
 * This code also runs inside other people's processes (the NVML library), so
 * it never aborts: when memory runs out a diagnostic is counted but its text
 * is lost, and the formatter says so. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"

void mk_diags_init(mk_diags *d)
{
    memset(d, 0, sizeof *d);
}

void mk_diags_free(mk_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].file);
        free(d->v[i].msg);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}

static int grow(mk_diags *d)
{
    if (d->n < d->cap)
        return 0;
    size_t cap = d->cap ? d->cap * 2 : 8;
    mk_diag *v = realloc(d->v, cap * sizeof *v);
    if (!v)
        return -1;
    d->v = v;
    d->cap = cap;
    return 0;
}

void mk_diag_add(mk_diags *d, mk_diag_level lvl, const char *file, int line,
                 int col, const char *fmt, ...)
{
    if (lvl == MK_DIAG_WARNING && !d->strict)
        return;
    if (lvl == MK_DIAG_ERROR)
        d->errors++;
    else
        d->warnings++;
    if (grow(d) != 0)
        return;

    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);

    mk_diag *g = &d->v[d->n++];
    g->level = lvl;
    g->file = file ? strdup(file) : NULL;
    g->line = line;
    g->col = col;
    g->msg = msg;
}

void mk_diag_format(const mk_diag *g, char *buf, size_t len)
{
    const char *lvl = g->level == MK_DIAG_ERROR ? "error" : "warning";
    const char *msg = g->msg ? g->msg : "(message lost: out of memory)";
    if (!g->file)
        snprintf(buf, len, "%s: %s", lvl, msg);
    else if (g->line <= 0)
        snprintf(buf, len, "%s: %s: %s", g->file, lvl, msg);
    else if (g->col <= 0)
        snprintf(buf, len, "%s:%d: %s: %s", g->file, g->line, lvl, msg);
    else
        snprintf(buf, len, "%s:%d:%d: %s: %s", g->file, g->line, g->col, lvl, msg);
}

const mk_diag *mk_diags_first_error(const mk_diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i].level == MK_DIAG_ERROR)
            return &d->v[i];
    return NULL;
}
