/* mokka.c - the entry point: global options and the dispatch table that maps
 * a subcommand name to its file in src/cmd/ (git's builtin/ layout). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cmds.h"

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

/* Edit distance between a and b, for "did you mean". */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[32];
    if (la >= 32 || lb >= 32)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static const mk_cmd *closest_command(const char *name)
{
    const mk_cmd *best = NULL;
    size_t bestd = 3; /* more than two edits away is a different word */
    for (const mk_cmd *c = mk_commands; c->name; c++) {
        size_t d = distance(name, c->name);
        if (d < bestd) {
            best = c;
            bestd = d;
        }
    }
    return best;
}

int mk_unknown_command(const char *cmd, const char *name)
{
    const mk_cmd *near = closest_command(name);
    if (near)
        return mk_usage_error(cmd, "'%s' is not a mokka command; did you mean '%s'?", name,
                              near->name);
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
