/* lib_path.c - `mokka lib-path` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_lib_path_summary[] = "lib-path (not implemented yet)";
const char cmd_lib_path_help[] = "Usage: mokka lib-path\n";

int cmd_lib_path(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
