/* help.c - `mokka help [CMD]`: the list of commands, or one command's help
 * (the very text `mokka CMD --help` prints). */
#include <stdio.h>
#include "cmds.h"
#include "commands.h"

const char cmd_help_summary[] = "list the commands, or show one command's help";
const char cmd_help_help[] =
    "Usage: mokka help [COMMAND]\n"
    "\n"
    "Without COMMAND, lists every command with a one-line summary (as\n"
    "`mokka --help` does). With COMMAND, prints exactly what\n"
    "`mokka COMMAND --help` prints.\n"
    "\n"
    "Options:\n" MK_HELP_COMMON
    "\n"
    "Exit codes: 0 ok, 2 unknown command or option.\n";

static void overview(void)
{
    fputs("Usage: mokka [--quiet] [--color=WHEN] COMMAND [ARGS...]\n"
          "\n"
          "Mokka runs NVIDIA's GPU software on machines without GPUs: a drop-in\n"
          "libnvidia-ml.so.1 serves a virtual GPU universe described in YAML.\n"
          "\n"
          "Commands:\n", stdout);
    for (const mk_cmd *c = mk_commands; c->name; c++)
        printf("  %-17s %s\n", c->name, c->summary);   /* container-runtime: the longest */
    fputs("\n"
          "Global options (before COMMAND):\n"
          "  -h, --help           this list\n"
          "      --version        Mokka's version (as `mokka version`)\n"
          "  -q, --quiet          no progress messages on stderr\n"
          "      --color=WHEN     colour: auto (default), always or never\n"
          "\n"
          "`mokka help COMMAND` or `mokka COMMAND --help` shows a command's options.\n"
          "Exit codes: 0 ok, 1 assertions failed, 2 usage or config error,\n"
          "3 environment or infrastructure error.\n", stdout);
}

int cmd_help(int argc, char **argv)
{
    static const struct option opts[] = { MK_COMMON_OPTS, { 0, 0, 0, 0 } };
    const mk_cmd *self = mk_find_command("help");
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = mk_common_opt(self, c, optarg);
        if (rc >= 0)
            return rc;
    }
    if (optind == argc) {
        overview();
        return MK_EXIT_OK;
    }
    if (argc - optind > 1)
        return mk_usage_error("help", "takes one command name, not %d words", argc - optind);
    const mk_cmd *cmd = mk_find_command(argv[optind]);
    if (!cmd)
        return mk_unknown_command("help", argv[optind]);
    mk_print_help(cmd, stdout);
    return MK_EXIT_OK;
}
