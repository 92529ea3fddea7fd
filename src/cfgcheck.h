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
/* The same for a subcommand: on errors prints them as "mokka CMD: ..." to
 * stderr and returns MK_EXIT_USAGE, else 0. */
int mk_config_check_or_report(const char *cmd, const char *path);

#endif
