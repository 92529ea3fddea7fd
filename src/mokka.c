/* mokka.c - the entry point: global options and the dispatch table that maps
 * a subcommand name to its file in src/cmd/ (git's builtin/ layout). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cmds.h"
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

int main(int argc, char **argv)
{
    int i = 1;
    /* Global options before the subcommand. */
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            char *hv[] = { "help", NULL };
            return cmd_help(1, hv);
        } else if (strcmp(a, "--version") == 0) {
            char *vv[] = { "version", NULL };
            return cmd_version(1, vv);
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            mk_quiet = 1;
        } else if (strncmp(a, "--color=", 8) == 0 || strncmp(a, "--colour=", 9) == 0) {
            if (mk_color_set(strchr(a, '=') + 1) != 0)
                return mk_usage_error(NULL, "--color takes auto, always or never, not '%s'",
                                      strchr(a, '=') + 1);
        } else {
            return mk_usage_error(NULL, "unknown option '%s'", a);
        }
    }
    if (i >= argc)
        return mk_usage_error(NULL, "no command given");
    const mk_cmd *c = mk_find_command(argv[i]);
    if (!c)
        return mk_unknown_command(NULL, argv[i]);
    optind = 0; /* full getopt reset for the subcommand */
    return c->run(argc - i, argv + i);
}
