/* diagprint.c - sorted, optionally coloured diagnostics (see diagprint.h). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "diagprint.h"

static int cmp_diag(const void *a, const void *b)
{
    const mk_diag *x = *(const mk_diag *const *)a, *y = *(const mk_diag *const *)b;
    int c = x->file && y->file ? strcmp(x->file, y->file) : (x->file != NULL) - (y->file != NULL);
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: the order they were found in */
}

static void print_one(const mk_diag *g, FILE *f)
{
    int err = g->level == MK_DIAG_ERROR;
    const char *bold = mk_sgr(f, "1"), *reset = mk_sgr(f, "0");
    if (g->file && g->line > 0)
        fprintf(f, "%s%s:%d:%d:%s ", bold, g->file, g->line, g->col, reset);
    else if (g->file)
        fprintf(f, "%s%s:%s ", bold, g->file, reset);
    fprintf(f, "%s%s:%s %s\n", mk_sgr(f, err ? "1;31" : "1;35"), err ? "error" : "warning",
            mk_sgr(f, "0"), g->msg ? g->msg : "(out of memory)");
}

void mk_print_diags(const mk_diags *d, FILE *f)
{
    const mk_diag **v = d->n ? malloc(d->n * sizeof *v) : NULL;
    if (!v) {
        for (size_t i = 0; i < d->n; i++)
            print_one(&d->v[i], f);
        return;
    }
    for (size_t i = 0; i < d->n; i++)
        v[i] = &d->v[i];
    qsort(v, d->n, sizeof *v, cmp_diag);
    for (size_t i = 0; i < d->n; i++)
        print_one(v[i], f);
    free(v);
}
