/* diagprint.h - a loader's diagnostics for people: sorted by file, line and
 * column, exact repeats dropped, one "file:line:col: error|warning: message"
 * per line, with colour only on a terminal (cli.h). */
#ifndef MOKKA_DIAGPRINT_H
#define MOKKA_DIAGPRINT_H

#include <stdio.h>
#include "diag.h"

/* Sorts d by file, line and column (stable) and drops exact repeats, which
 * the loader makes when one `defaults:` line is applied to every device;
 * the error and warning counts follow. */
void mk_diags_tidy(mk_diags *d);
/* Prints d in its order (tidy it first). */
void mk_print_diags(const mk_diags *d, FILE *f);

#endif
