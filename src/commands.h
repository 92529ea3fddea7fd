/* commands.h - the command table and what every subcommand's option parsing
 * shares: the entry type, looking a command up, the common options (--quiet,
 * --color, --help) and their help lines. mokka.c dispatches through the
 * table; `help` and `version` read it; each src/cmd/ file parses its options
 * with the rest. */
#ifndef MOKKA_COMMANDS_H
#define MOKKA_COMMANDS_H

#include <getopt.h>
#include <stdio.h>
#include "util/util.h"

typedef struct mk_cmd {
    const char *name;
    int (*run)(int argc, char **argv);   /* argv[0] is the command name */
    const char *summary;                  /* one line for `mokka --help` */
    const char *help;                     /* full text for `mokka CMD --help` */
} mk_cmd;

extern const mk_cmd mk_commands[];       /* ends with a NULL name */
const mk_cmd *mk_find_command(const char *name);
/* Reports that `name` is not a command, suggesting the one it most likely
 * meant, as a usage error of `cmd` (NULL: mokka itself); returns
 * MK_EXIT_USAGE. */
int mk_unknown_command(const char *cmd, const char *name);

/* Common options. Subcommands append MK_COMMON_OPTS to their long options
 * and pass unknown option codes to mk_common_opt(). */
enum { MK_OPT_QUIET = 0x1000, MK_OPT_COLOR, MK_OPT_HELP };
#define MK_COMMON_OPTS \
    {"quiet", no_argument, 0, MK_OPT_QUIET}, \
    {"color", required_argument, 0, MK_OPT_COLOR}, \
    {"colour", required_argument, 0, MK_OPT_COLOR}, \
    {"help", no_argument, 0, MK_OPT_HELP}

/* The common options' lines for a subcommand's --help text. */
#define MK_HELP_COMMON \
    "  -h, --help           show this help\n" \
    "      --quiet          no progress messages on stderr\n" \
    "      --color=WHEN     colour: auto (default), always or never\n"

/* Handles a common option ('h' counts as --help) or a getopt error for
 * command `cmd`. Returns -1 when the option was consumed and parsing goes
 * on, else the exit code to return (0 after --help, 2 after a usage error). */
int mk_common_opt(const mk_cmd *cmd, int c, const char *arg);
void mk_print_help(const mk_cmd *cmd, FILE *f);

#endif
