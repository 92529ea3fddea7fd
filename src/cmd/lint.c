/* lint.c - `mokka lint` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_lint_summary[] = "lint (not implemented yet)";
const char cmd_lint_help[] = "Usage: mokka lint\n";

int cmd_lint(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
