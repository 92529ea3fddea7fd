/* diagprint.c - sorted, de-duplicated, optionally coloured diagnostics (see
 * diagprint.h). */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "config.h"

static int cmp_str(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static int cmp_place(const mk_diag *x, const mk_diag *y)
{
    int c = cmp_str(x->file, y->file);
    if (c)
        return c;
    /* A file's remarks without a line (how many problems were not shown)
     * read last. */
    if (x->line != y->line)
        return !x->line ? 1 : !y->line ? -1 : x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

static int cmp_diag(const void *a, const void *b)
{
    const mk_diag *x = *(const mk_diag *const *)a, *y = *(const mk_diag *const *)b;
    int c = cmp_place(x, y);
    return c ? c : x < y ? -1 : x > y; /* stable: the order they were found in */
}

static int same(const mk_diag *x, const mk_diag *y)
{
    return cmp_place(x, y) == 0 && x->level == y->level && cmp_str(x->msg, y->msg) == 0;
}

void mk_diags_tidy(mk_diags *d)
{
    const mk_diag **order = d->n ? malloc(d->n * sizeof *order) : NULL;
    mk_diag *out = d->n ? malloc(d->n * sizeof *out) : NULL;
    size_t n = 0;
    if (!order || !out) {
        free(order);
        free(out);
        return; /* out of memory: printed unsorted, which is still correct */
    }
    for (size_t i = 0; i < d->n; i++)
        order[i] = &d->v[i];
    if (d->n > 1)
        qsort(order, d->n, sizeof *order, cmp_diag);
    /* The counts include problems not kept (diag.h), so repeats are taken
     * off them rather than the kept ones counted again. */
    for (size_t i = 0; i < d->n; i++) {
        mk_diag *g = (mk_diag *)order[i];
        int repeat = 0;
        for (size_t j = n; j-- > 0 && cmp_place(&out[j], g) == 0 && !repeat;)
            repeat = same(&out[j], g);
        if (!repeat) {
            out[n++] = *g;
            continue;
        }
        if (g->level == MK_DIAG_ERROR && d->errors)
            d->errors--;
        else if (g->level == MK_DIAG_WARNING && d->warnings)
            d->warnings--;
        free(g->file);
        free(g->msg);
    }
    free(order);
    free(d->v);
    d->v = out;
    d->n = n;
    d->cap = d->n ? d->n : 0;
    if (!d->cap) {
        free(d->v);
        d->v = NULL;
    }
}

static void print_one(const mk_diag *g, FILE *f)
{
    static const char *const names[] = { "error", "warning", "note" };
    static const char *const colours[] = { "1;31", "1;35", "1;36" };
    const char *bold = mk_sgr(f, "1"), *reset = mk_sgr(f, "0");
    if (g->file && g->line > 0)
        fprintf(f, "%s%s:%d:%d:%s ", bold, g->file, g->line, g->col, reset);
    else if (g->file)
        fprintf(f, "%s%s:%s ", bold, g->file, reset);
    fprintf(f, "%s%s:%s %s\n", mk_sgr(f, colours[g->level]), names[g->level], mk_sgr(f, "0"),
            g->msg ? g->msg : "(out of memory)");
}

void mk_print_diags(const mk_diags *d, FILE *f)
{
    for (size_t i = 0; i < d->n; i++)
        print_one(&d->v[i], f);
}
