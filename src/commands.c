/* commands.c - the command table (git's builtin/ layout: one file per
 * subcommand in src/cmd/), finding a command by name, and the common
 * options every subcommand parses (see commands.h). */
#include <string.h>
#include "commands.h"
#include "cmd/cmds.h"
#include "ytree.h"

#define CMD(n, f) { n, cmd_##f, cmd_##f##_summary, cmd_##f##_help }
const mk_cmd mk_commands[] = {
    CMD("run", run),
    CMD("assert", assert),
    CMD("exec", exec),
    CMD("smi", smi),
    CMD("lint", lint),
    CMD("render", render),
    CMD("stats", stats),
    CMD("metrics", metrics),
    CMD("inject", inject),
    CMD("agent", agent),
    CMD("fleet", fleet),
    CMD("container-runtime", container_runtime),
    CMD("cdi", cdi),
    CMD("doctor", doctor),
    CMD("lib-path", lib_path),
    CMD("extract-lib", extract_lib),
    CMD("version", version),
    CMD("help", help),
    { 0, 0, 0, 0 }
};

const mk_cmd *mk_find_command(const char *name)
{
    for (const mk_cmd *c = mk_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

int mk_unknown_command(const char *cmd, const char *name)
{
    const char *names[sizeof mk_commands / sizeof mk_commands[0]];
    size_t n = 0;
    for (const mk_cmd *c = mk_commands; c->name; c++)
        names[n++] = c->name;
    names[n] = NULL;
    const char *near = mk_did_you_mean(name, names);
    if (near)
        return mk_usage_error(cmd, "'%s' is not a mokka command; did you mean '%s'?", name, near);
    return mk_usage_error(cmd, "'%s' is not a mokka command", name);
}

void mk_print_help(const mk_cmd *cmd, FILE *f)
{
    fputs(cmd->help, f);
}

int mk_common_opt(const mk_cmd *cmd, int c, const char *arg)
{
    switch (c) {
    case MK_OPT_QUIET:
        mk_quiet = 1;
        return -1;
    case MK_OPT_COLOR:
        if (mk_color_set(arg) != 0)
            return mk_usage_error(cmd->name, "--color takes auto, always or never, not '%s'", arg);
        return -1;
    case 'h':
    case MK_OPT_HELP:
        mk_print_help(cmd, stdout);
        return MK_EXIT_OK;
    default: /* '?' or ':' from getopt, which already printed the problem */
        fprintf(stderr, "Try 'mokka %s --help' for more information.\n", cmd->name);
        return MK_EXIT_USAGE;
    }
}
