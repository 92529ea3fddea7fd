/* run.c - `mokka run` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_run_summary[] = "run (not implemented yet)";
const char cmd_run_help[] = "Usage: mokka run\n";

int cmd_run(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
