/* version.c - `mokka version`: Mokka's version and commit, what the library
 * emulates by default (from the core's built-in universe) and the compiler
 * that built it. */
#include <jansson.h>
#include <stdio.h>
#include "cmds.h"
#include "commands.h"
#include "bundle/bundle.h"
#include "universe.h"

const char cmd_version_summary[] = "show Mokka's version and the NVML and driver it emulates";
const char cmd_version_help[] =
    "Usage: mokka version [--json]\n"
    "       mokka --version\n"
    "\n"
    "Prints Mokka's version and git commit, the NVML, driver and CUDA versions\n"
    "the library reports when no config says otherwise, the default GPUs, the\n"
    "hash of the bundled library and the compiler mokka was built with.\n"
    "\n"
    "Options:\n"
    "      --json           one JSON object instead of text\n" MK_HELP_COMMON
    "\n"
    "Exit codes: 0 ok, 2 bad option, 3 the built-in universe failed to load.\n";

#if defined(__clang__)
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER "unknown"
#endif

static int print_json(const mk_universe *u, const char *libhash)
{
    char cuda[16];
    snprintf(cuda, sizeof cuda, "%d.%d", u->cuda_version / 1000, u->cuda_version % 1000 / 10);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:s, s:s}",
                          "version", MOKKA_VERSION, "commit", MOKKA_COMMIT,
                          "nvml_version", u->nvml_version, "driver_version", u->driver_version,
                          "cuda_version", cuda, "default_gpu_count", (json_int_t)u->ndev,
                          "default_gpu_name", u->ndev ? u->dev[0].name : "",
                          "library_hash", libhash, "compiler", COMPILER);
    if (!o)
        return -1;
    json_dumpf(o, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(o);
    return 0;
}

int cmd_version(int argc, char **argv)
{
    static const struct option opts[] = { { "json", no_argument, 0, 'j' }, MK_COMMON_OPTS,
                                          { 0, 0, 0, 0 } };
    const mk_cmd *self = mk_find_command("version");
    int c, json = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'j') {
            json = 1;
            continue;
        }
        int rc = mk_common_opt(self, c, optarg);
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return mk_usage_error("version", "unexpected argument '%s'", argv[optind]);

    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(NULL, NULL, &d);
    mk_diags_free(&d);
    if (!u) {
        mk_err("version", "the built-in default universe failed to load");
        return MK_EXIT_ENV;
    }
    char libhash[20];
    snprintf(libhash, sizeof libhash, "%016llx", (unsigned long long)mk_lib_hash());
    int rc = MK_EXIT_OK;
    if (json) {
        if (print_json(u, libhash) != 0)
            rc = MK_EXIT_ENV;
    } else {
        printf("mokka %s (commit %s)\n", MOKKA_VERSION, MOKKA_COMMIT);
        printf("emulates NVML %s, driver %s, CUDA %d.%d by default (%zu x %s)\n",
               u->nvml_version, u->driver_version, u->cuda_version / 1000,
               u->cuda_version % 1000 / 10, u->ndev, u->ndev ? u->dev[0].name : "no GPU");
        printf("bundled library %s, hash %s\n", MK_LIB_SONAME, libhash);
        printf("built with %s\n", COMPILER);
    }
    mk_universe_free(u);
    return rc;
}
