/* help.c - `mokka help` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_help_summary[] = "help (not implemented yet)";
const char cmd_help_help[] = "Usage: mokka help\n";

int cmd_help(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
