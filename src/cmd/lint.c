/* lint.c - `mokka lint`: checks configs with the same loader the library
 * uses, and suites with the suite loader, printing every problem (not just
 * the first) as file:line:col. */
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "commands.h"
#include "config/config.h"
#include "suite/suite.h"

const char cmd_lint_summary[] = "check configs and suites (and suspicious values with --strict)";
const char cmd_lint_help[] =
    "Usage: mokka lint [--strict] [--node NAME] FILE...\n"
    "\n"
    "Checks GPU configs with the loader libnvidia-ml.so.1 uses, so that lint and\n"
    "the library never disagree, and suites (files with a top-level cases: key)\n"
    "with the loader of mokka run and mokka assert. Every problem goes to stderr\n"
    "as\n"
    "  file:line:col: error|warning: message\n"
    "sorted by file, line and column, then a summary line. '-' reads stdin.\n"
    "\n"
    "Options:\n"
    "  -s, --strict      also warn about legal but suspicious config values: sizes\n"
    "                    without a unit, UUIDs that are not hex, temperatures above\n"
    "                    the shutdown threshold, health rules that can never fire,\n"
    "                    power above the enforced limit, MIG enabled without\n"
    "                    instances, ranges without a seed\n"
    "  -n, --node NAME   node name for derived UUIDs (default: $MOKKA_NODE_NAME,\n"
    "                    else $NODE_NAME, else the host name)\n"
    "  -q, --quiet       no summary line\n"
    "      --color WHEN  auto, always or never\n"
    "  -h, --help        this help\n"
    "\n"
    "Exit status: 0 clean; 1 only warnings (--strict); 2 errors, or a usage error;\n"
    "3 environment error.\n";

/* Whether a document is a suite: a map with a top-level `cases:`. */
static int is_suite(const mk_ydoc *doc)
{
    return doc->root && doc->root->kind == MK_Y_MAP && mk_yget(doc->root, "cases");
}

/* One file: a suite (checked by the suite loader) or a config. */
static void lint_file(const char *path, const char *node, mk_diags *d)
{
    const char *name = strcmp(path, "-") == 0 ? MK_STDIN_NAME : path;
    size_t len;
    char *buf = mk_read_input(path, &len, d);
    if (!buf)
        return;
    mk_ydoc *doc = mk_yload_mem(name, buf, len, d);
    if (doc) {
        if (is_suite(doc)) {
            mk_suite_free(mk_suite_load_mem(name, buf, len, d));
        } else {
            mk_universe *u = mk_universe_load_mem(name, buf, len, node, d);
            if (u && d->strict)
                mk_lint_strict(u, doc, d);
            mk_universe_free(u);
        }
        mk_yfree(doc);
    }
    free(buf);
}

static void summary(const mk_diags *d, int files)
{
    if (mk_quiet)
        return;
    fprintf(stderr, "%zu error%s, %zu warning%s in %d file%s\n", d->errors,
            d->errors == 1 ? "" : "s", d->warnings, d->warnings == 1 ? "" : "s", files,
            files == 1 ? "" : "s");
}

int cmd_lint(int argc, char **argv)
{
    static const struct option opts[] = {
        {"strict", no_argument, 0, 's'},
        {"node", required_argument, 0, 'n'},
        MK_COMMON_OPTS,
        {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("lint");
    const char *node = NULL;
    int strict = 0, c, rc;
    while ((c = getopt_long(argc, argv, "sn:qh", opts, NULL)) != -1) {
        switch (c) {
        case 's': strict = 1; break;
        case 'n': node = optarg; break;
        case 'q': mk_quiet = 1; break;
        case 'h': mk_print_help(self, stdout); return MK_EXIT_OK;
        default:
            if ((rc = mk_common_opt(self, c, optarg)) >= 0)
                return rc;
        }
    }
    if (optind >= argc)
        return mk_usage_error("lint", "no files to check (give config files, or - for stdin)");
    mk_diags d;
    mk_diags_init(&d);
    d.strict = strict;
    for (int i = optind; i < argc; i++)
        lint_file(argv[i], node, &d);
    mk_diags_tidy(&d);
    mk_print_diags(&d, stderr);
    summary(&d, argc - optind);
    rc = d.errors ? MK_EXIT_USAGE : d.warnings ? MK_EXIT_FAIL : MK_EXIT_OK;
    mk_diags_free(&d);
    return rc;
}
