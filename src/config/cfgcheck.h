/* cfgcheck.h - checking a GPU config with the core loader before a program
 * on the mock reads it: the same loader as the library's, so the same
 * verdict, but reported up front with every position. */
#ifndef MOKKA_CFGCHECK_H
#define MOKKA_CFGCHECK_H

#include <stddef.h>

/* Loads the config at path (NULL: the built-in default universe). Returns 0
 * with its GPU count, or -1 with every error as "file:line:col: error: msg",
 * one a line, in a malloc'd *errors. */
int mk_config_check(const char *path, size_t *ngpus, char **errors);
/* The config a program on the mock is going to read: `given`, else
 * $MOCK_CONFIG_PATH, else $MOKKA_CONFIG (none: the built-in universe).
 * Checks it, reporting every error as "mokka CMD: file:line:col: ..." on
 * stderr, and exports it as an absolute MOCK_CONFIG_PATH. Returns 0, or the
 * exit code (MK_EXIT_USAGE) after reporting. */
int mk_config_prepare(const char *cmd, const char *given);

#endif
