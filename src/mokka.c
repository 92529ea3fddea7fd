/* mokka.c - the entry point: global options, then dispatch through the
 * command table (commands.c) to the subcommand's file in src/cmd/. */
#include <stdio.h>
#include <string.h>
#include "commands.h"

int main(int argc, char **argv)
{
    int i = 1;
    /* Global options before the subcommand. */
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            char *hv[] = { "help", NULL };
            return mk_find_command("help")->run(1, hv);
        } else if (strcmp(a, "--version") == 0) {
            char *vv[] = { "version", NULL };
            return mk_find_command("version")->run(1, vv);
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
