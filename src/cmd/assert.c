/* assert.c - `mokka assert` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_assert_summary[] = "assert (not implemented yet)";
const char cmd_assert_help[] = "Usage: mokka assert\n";

int cmd_assert(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
