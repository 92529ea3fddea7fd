/* render.c - `mokka render`: the concrete universe a node would see, every
 * resolved field in a stable order, for review in merge requests; the
 * labels gpu-feature-discovery would put on that node (src/nvmodel/); or
 * the built-in GPU profiles. */
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "commands.h"
#include "config/config.h"
#include "nvmodel/nvmodel.h"

const char cmd_render_summary[] = "print the concrete universe a node would see";
const char cmd_render_help[] =
    "Usage: mokka render [--config FILE] [--node NAME] [--format yaml|json]\n"
    "       mokka render --labels [--mig-strategy none|single|mixed] [--config FILE]\n"
    "                    [--node NAME]\n"
    "       mokka render --profiles [--format yaml|json]\n"
    "\n"
    "Prints every GPU of the universe a config describes with every resolved\n"
    "field: profile, name, the UUID derived for the node, serial, PCI bus id,\n"
    "minor, NUMA node, memory, power limits, clocks, live values in config syntax\n"
    "(temperature: 35-45), health rules, MIG instances with their GPU/compute\n"
    "instance ids, placements, UUIDs and caps minors, and NVLink peers per link.\n"
    "Keys and formatting are stable, so that a diff of two renders shows what a\n"
    "config change does. Without --config: the built-in default universe.\n"
    "\n"
    "With --labels it prints instead the labels NVIDIA gpu-feature-discovery\n"
    "v0.17.4 would put on that node, as its output file has them (key=value\n"
    "lines, here sorted), without its timestamp label: the labels `mokka run\n"
    "--gfd` gets from the real GFD on the same universe.\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE     the config to render ('-' reads stdin)\n"
    "  -n, --node NAME       node name for derived UUIDs and serials\n"
    "                        (default: $MOKKA_NODE_NAME, else $NODE_NAME, else\n"
    "                        the host name)\n"
    "  -f, --format FORMAT   yaml (default) or json (with --labels: a JSON object)\n"
    "      --labels          print gpu-feature-discovery's labels for the node\n"
    "      --mig-strategy STRATEGY\n"
    "                        with --labels: GFD's MIG strategy, none (default),\n"
    "                        single or mixed\n"
    "      --profiles        list the built-in GPU profiles instead\n"
    "  -q, --quiet           no progress messages\n"
    "      --color WHEN      auto, always or never\n"
    "  -h, --help            this help\n"
    "\n"
    "Exit status: 0 printed, 2 usage or config error (problems on stderr as\n"
    "file:line:col; with --labels also a universe GFD cannot label, such as a\n"
    "driver version it cannot split), 3 environment error.\n";

enum { OPT_PROFILES = 0x1200, OPT_LABELS, OPT_MIG_STRATEGY };

static int print_tree(json_t *t, int json)
{
    int rc = 0;
    if (!t)
        return MK_EXIT_ENV;
    if (json) {
        rc = json_dumpf(t, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
    } else {
        rc = mk_yaml_write(stdout, t);
    }
    json_decref(t);
    if (fflush(stdout) != 0)
        rc = -1;
    return rc ? MK_EXIT_ENV : MK_EXIT_OK;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* GFD's output file's form: key=value lines, sorted by key. */
static int print_labels(json_t *labels, int json)
{
    if (json)
        return print_tree(labels, 1);
    size_t n = json_object_size(labels), i = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    const char *key;
    json_t *v;
    if (!keys) {
        json_decref(labels);
        return MK_EXIT_ENV;
    }
    json_object_foreach(labels, key, v)
        keys[i++] = key;
    qsort(keys, n, sizeof *keys, by_key);
    for (i = 0; i < n; i++)
        printf("%s=%s\n", keys[i], json_string_value(json_object_get(labels, keys[i])));
    free(keys);
    json_decref(labels);
    return fflush(stdout) == 0 ? MK_EXIT_OK : MK_EXIT_ENV;
}

int cmd_render(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, 0, 'c'},
        {"node", required_argument, 0, 'n'},
        {"format", required_argument, 0, 'f'},
        {"profiles", no_argument, 0, OPT_PROFILES},
        {"labels", no_argument, 0, OPT_LABELS},
        {"mig-strategy", required_argument, 0, OPT_MIG_STRATEGY},
        MK_COMMON_OPTS,
        {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("render");
    const char *config = NULL, *node = NULL, *strategy = NULL;
    int json = 0, profiles = 0, labels = 0, c, rc;
    while ((c = getopt_long(argc, argv, "c:n:f:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'n': node = optarg; break;
        case 'f':
            if (strcmp(optarg, "yaml") && strcmp(optarg, "json"))
                return mk_usage_error("render", "--format takes yaml or json, not '%s'", optarg);
            json = strcmp(optarg, "json") == 0;
            break;
        case OPT_PROFILES: profiles = 1; break;
        case OPT_LABELS: labels = 1; break;
        case OPT_MIG_STRATEGY:
            if (strcmp(optarg, "none") && strcmp(optarg, "single") && strcmp(optarg, "mixed"))
                return mk_usage_error("render", "--mig-strategy takes none, single or mixed, "
                                      "not '%s'", optarg);
            strategy = optarg;
            break;
        case 'q': mk_quiet = 1; break;
        case 'h': mk_print_help(self, stdout); return MK_EXIT_OK;
        default:
            if ((rc = mk_common_opt(self, c, optarg)) >= 0)
                return rc;
        }
    }
    if (optind < argc)
        return mk_usage_error("render", "unexpected argument '%s' (the config goes after --config)",
                              argv[optind]);
    if (profiles && (config || node))
        return mk_usage_error("render", "--profiles lists the built-in profiles; it takes no "
                              "--config or --node");
    if (profiles && labels)
        return mk_usage_error("render", "--profiles and --labels: choose one");
    if (strategy && !labels)
        return mk_usage_error("render", "--mig-strategy goes with --labels");
    if (profiles)
        return print_tree(mk_profiles_json(), json);

    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_load_config(config, node, &d);
    mk_diags_tidy(&d);
    mk_print_diags(&d, stderr);
    mk_diags_free(&d);
    if (!u)
        return MK_EXIT_USAGE;
    if (labels) {
        char err[512];
        json_t *l = mk_gfd_labels(u, strategy, err, sizeof err);
        if (l)
            rc = print_labels(l, json);
        else {
            mk_err("render", "%s: %s", u->config_path ? u->config_path : "the default universe",
                     err);
            rc = MK_EXIT_USAGE;
        }
    } else {
        rc = print_tree(mk_universe_json(u), json);
    }
    mk_universe_free(u);
    return rc;
}
