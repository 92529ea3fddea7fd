/* cli.h - what every mokka subcommand shares: exit codes, the dispatch
 * table's entry type, common options (--quiet, --color), and diagnostics on
 * stderr. stdout is for data, stderr for diagnostics and progress. */
#ifndef MOKKA_CLI_H
#define MOKKA_CLI_H

#include <getopt.h>
#include <stdio.h>

/* Exit codes (documented in README and mokka(1)). */
enum {
    MK_EXIT_OK = 0,      /* passed */
    MK_EXIT_FAIL = 1,    /* assertions failed */
    MK_EXIT_USAGE = 2,   /* usage or config error */
    MK_EXIT_ENV = 3      /* environment or infrastructure error */
};

typedef struct mk_cmd {
    const char *name;
    int (*run)(int argc, char **argv);   /* argv[0] is the command name */
    const char *summary;                  /* one line for `mokka --help` */
    const char *help;                     /* full text for `mokka CMD --help` */
} mk_cmd;

extern const mk_cmd mk_commands[];       /* mokka.c; ends with a NULL name */
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
/* Prints "mokka CMD: message" and a hint to stderr; returns MK_EXIT_USAGE. */
int mk_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_print_help(const mk_cmd *cmd, FILE *f);

extern int mk_quiet;
/* Colour: decided once from --color (auto|always|never), NO_COLOR and
 * whether the stream is a terminal. */
int mk_color_set(const char *when);      /* 0 ok, -1 bad value */
int mk_color_on(FILE *f);
/* "\033[<code>m" or ""; the result stays valid for the next 7 calls, so
 * one printf may take several. */
const char *mk_sgr(FILE *f, const char *code);

/* Diagnostics on stderr: "mokka CMD: ..." (mk_err) and, unless --quiet,
 * progress/info lines (mk_info). */
void mk_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_info(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
