/* inject.c - `mokka inject` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_inject_summary[] = "inject (not implemented yet)";
const char cmd_inject_help[] = "Usage: mokka inject\n";

int cmd_inject(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
