/* lib_path.c - `mokka lib-path`: where Mokka's libnvidia-ml.so.1 is on disk
 * (materialising the bundled copy first when needed). */
#include <stdio.h>
#include "cmds.h"
#include "commands.h"
#include "bundle/bundle.h"

const char cmd_lib_path_summary[] = "print the path of Mokka's libnvidia-ml.so.1";
const char cmd_lib_path_help[] =
    "Usage: mokka lib-path [--dir]\n"
    "\n"
    "Prints the path of a file holding Mokka's libnvidia-ml.so.1, for LD_PRELOAD.\n"
    "mokka carries the library inside its own binary: a copy beside the binary\n"
    "(lib/ in a build tree, ../lib/mokka/ when installed) is used when it has\n"
    "the same bytes, else the bundled copy is written once to\n"
    "$XDG_CACHE_HOME/mokka/HASH/ (or ~/.cache/mokka/HASH/, or\n"
    "/tmp/mokka-UID/lib/HASH/ without a writable home) and reused.\n"
    "\n"
    "Options:\n"
    "      --dir            print the directory instead (for LD_LIBRARY_PATH)\n" MK_HELP_COMMON
    "\n"
    "Examples:\n"
    "  LD_PRELOAD=$(mokka lib-path) python3 app.py\n"
    "  LD_LIBRARY_PATH=$(mokka lib-path --dir) nvidia-device-plugin\n"
    "\n"
    "Exit codes: 0 ok, 2 bad option, 3 the library could not be written anywhere.\n";

int cmd_lib_path(int argc, char **argv)
{
    static const struct option opts[] = { { "dir", no_argument, 0, 'd' }, MK_COMMON_OPTS,
                                          { 0, 0, 0, 0 } };
    const mk_cmd *self = mk_find_command("lib-path");
    int c, want_dir = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'd') {
            want_dir = 1;
            continue;
        }
        int rc = mk_common_opt(self, c, optarg);
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return mk_usage_error("lib-path", "unexpected argument '%s'", argv[optind]);
    char dir[4096], file[4200], err[1024];
    if (mk_lib_path(dir, sizeof dir, file, sizeof file, err, sizeof err) != 0) {
        mk_err("lib-path", "%s", err);
        return MK_EXIT_ENV;
    }
    puts(want_dir ? dir : file);
    return MK_EXIT_OK;
}
