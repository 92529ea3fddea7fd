/* extract_lib.c - `mokka extract-lib` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_extract_lib_summary[] = "extract-lib (not implemented yet)";
const char cmd_extract_lib_help[] = "Usage: mokka extract-lib\n";

int cmd_extract_lib(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
