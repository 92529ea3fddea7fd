/* configin.h - reading a config (or suite) given on the command line: a
 * file, '-' for stdin, or nothing for the built-in default universe. */
#ifndef MOKKA_CONFIGIN_H
#define MOKKA_CONFIGIN_H

#include <stddef.h>
#include "diag.h"
#include "universe.h"

/* The name diagnostics use for stdin. */
#define MK_STDIN_NAME "<stdin>"

/* The whole input, NUL-terminated; NULL with an error in d. */
char *mk_read_input(const char *path, size_t *len, mk_diags *d);
/* Loads a config file, stdin ("-") or the built-in default (NULL). */
mk_universe *mk_load_config(const char *path, const char *node, mk_diags *d);

#endif
