/* smi.c - `mokka smi` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_smi_summary[] = "smi (not implemented yet)";
const char cmd_smi_help[] = "Usage: mokka smi\n";

int cmd_smi(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
