/* diag.c - collecting (each once) and formatting diagnostics. */
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
    int strict = d->strict;
    mk_diags_init(d);
    d->strict = strict;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether d already holds this diagnostic: `defaults:` are applied to every
 * GPU, and one mistake there should be reported once, not once per GPU. */
static int already_there(const mk_diags *d, mk_diag_level lvl, const char *file, int line,
                         int col, const char *msg)
{
    for (size_t i = d->n; i-- > 0;) {
        const mk_diag *g = &d->v[i];
        if (g->level == lvl && g->line == line && g->col == col && same_text(g->file, file) &&
            same_text(g->msg, msg))
            return 1;
    }
    return 0;
}

void mk_diag_add(mk_diags *d, mk_diag_level lvl, const char *file, int line,
                 int col, const char *fmt, ...)
{
    if (lvl == MK_DIAG_WARNING && !d->strict)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (msg && already_there(d, lvl, file, line, col, msg)) {
        free(msg);
        return;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        mk_diag *v = realloc(d->v, cap * sizeof *v);
        if (!v) {
            /* Out of memory: the text is lost, but an error still counts, so
             * that the load fails as it should. */
            free(msg);
            if (lvl == MK_DIAG_ERROR)
                d->errors++;
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    mk_diag *g = &d->v[d->n++];
    g->level = lvl;
    g->file = file ? strdup(file) : NULL;
    g->line = line;
    g->col = col;
    g->msg = msg;
    if (lvl == MK_DIAG_ERROR)
        d->errors++;
    else
        d->warnings++;
}

void mk_diag_format(const mk_diag *g, char *buf, size_t len)
{
    const char *lvl = g->level == MK_DIAG_ERROR ? "error" : "warning";
    const char *msg = g->msg ? g->msg : "(out of memory)";
    if (g->file && g->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s: %s", g->file, g->line, g->col, lvl, msg);
    else if (g->file)
        snprintf(buf, len, "%s: %s: %s", g->file, lvl, msg);
    else
        snprintf(buf, len, "%s: %s", lvl, msg);
}

const mk_diag *mk_diags_first_error(const mk_diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i].level == MK_DIAG_ERROR)
            return &d->v[i];
    return NULL;
}
