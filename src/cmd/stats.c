/* stats.c - `mokka stats` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_stats_summary[] = "stats (not implemented yet)";
const char cmd_stats_help[] = "Usage: mokka stats\n";

int cmd_stats(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
