/* extract_lib.c - `mokka extract-lib DIR`: writes the bundled library to a
 * directory of the user's choosing (container images, DaemonSets). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmds.h"
#include "commands.h"
#include "bundle/bundle.h"

const char cmd_extract_lib_summary[] = "write Mokka's libnvidia-ml.so.1 into a directory";
const char cmd_extract_lib_help[] =
    "Usage: mokka extract-lib DIR\n"
    "\n"
    "Writes the libnvidia-ml.so.1 bundled in mokka to DIR/libnvidia-ml.so.1\n"
    "(creating DIR; mode 0644; written to a temporary name and renamed, so a\n"
    "program loading it never sees half a file) and prints the file's path.\n"
    "For container images and DaemonSets: point LD_LIBRARY_PATH at DIR, or\n"
    "mount DIR over the driver's library directory.\n"
    "\n"
    "Options:\n" MK_HELP_COMMON
    "\n"
    "Examples:\n"
    "  mokka extract-lib /opt/mokka/lib\n"
    "  LD_LIBRARY_PATH=/opt/mokka/lib python3 -c 'import pynvml; pynvml.nvmlInit()'\n"
    "\n"
    "Exit codes: 0 ok, 2 bad option or missing DIR, 3 DIR cannot be written.\n";

int cmd_extract_lib(int argc, char **argv)
{
    static const struct option opts[] = { MK_COMMON_OPTS, { 0, 0, 0, 0 } };
    const mk_cmd *self = mk_find_command("extract-lib");
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = mk_common_opt(self, c, optarg);
        if (rc >= 0)
            return rc;
    }
    if (optind == argc)
        return mk_usage_error("extract-lib", "missing DIR (where to write %s)", MK_LIB_SONAME);
    if (argc - optind > 1)
        return mk_usage_error("extract-lib", "takes one DIR, got %d arguments", argc - optind);
    const char *dir = argv[optind];
    char err[1024], real[PATH_MAX];
    if (mk_lib_extract(dir, err, sizeof err) != 0) {
        mk_err("extract-lib", "%s", err);
        return MK_EXIT_ENV;
    }
    printf("%s/%s\n", realpath(dir, real) ? real : dir, MK_LIB_SONAME);
    return MK_EXIT_OK;
}
