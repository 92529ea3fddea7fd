/* diagprint.h - printing a loader's diagnostics for people: sorted by file,
 * line and column, one "file:line:col: error|warning: message" per line,
 * with colour only on a terminal (cli.h). */
#ifndef MOKKA_DIAGPRINT_H
#define MOKKA_DIAGPRINT_H

#include <stdio.h>
#include "diag.h"

void mk_print_diags(const mk_diags *d, FILE *f);

#endif
