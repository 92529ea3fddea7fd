/* exec.c - `mokka exec` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_exec_summary[] = "exec (not implemented yet)";
const char cmd_exec_help[] = "Usage: mokka exec\n";

int cmd_exec(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
