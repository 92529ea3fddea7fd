/* version.c - `mokka version` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_version_summary[] = "version (not implemented yet)";
const char cmd_version_help[] = "Usage: mokka version\n";

int cmd_version(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
