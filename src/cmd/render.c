/* render.c - `mokka render` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_render_summary[] = "render (not implemented yet)";
const char cmd_render_help[] = "Usage: mokka render\n";

int cmd_render(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
