/* metrics.c - `mokka metrics` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_metrics_summary[] = "metrics (not implemented yet)";
const char cmd_metrics_help[] = "Usage: mokka metrics\n";

int cmd_metrics(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
