/* cdi.c - `mokka cdi generate`: a CDI spec (kind nvidia.com/gpu) for
 * runtimes with CDI, with the edits `mokka container-runtime` makes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "cmds.h"
#include "commands.h"
#include "config/config.h"
#include "ctr/ctr.h"

const char cmd_cdi_summary[] = "write a CDI spec (nvidia.com/gpu) for podman, cri-o, containerd";
const char cmd_cdi_help[] =
    "Usage: mokka cdi generate [--output FILE] [--state-dir DIR] [--config FILE]\n"
    "                          [--node NAME] [--lib FILE] [--smi FILE] [--arch ARCH]\n"
    "\n"
    "Writes a Container Device Interface spec, kind nvidia.com/gpu, for runtimes\n"
    "that read CDI (podman, cri-o, containerd 1.7 and later), as `nvidia-ctk cdi\n"
    "generate` does for a real node: one device per GPU by index (nvidia.com/gpu=0)\n"
    "and by UUID, and nvidia.com/gpu=all. Each GPU's devices set a variable of its\n"
    "own, MOKKA_VISIBLE_GPU_<index>=<uuid> (all: MOKKA_VISIBLE_GPU_ALL=all), and\n"
    "Mokka's library shows the union: --device nvidia.com/gpu=1 --device\n"
    "nvidia.com/gpu=3 sees exactly GPUs 1 and 3, numbered by index as a real node\n"
    "numbers the device nodes. Every device brings the edits of `mokka\n"
    "container-runtime`: Mokka's libnvidia-ml.so.1 in the multiarch library\n"
    "directory, the nvidia-smi twin as /usr/bin/nvidia-smi (a CDI spec cannot look\n"
    "into the image: it hides the image's own), the node's live state, config and\n"
    "node name, and NVIDIA_VISIBLE_DEVICES=void as in NVIDIA's specs (an image's\n"
    "`all` does not widen the view). The GPUs are those of the node's live state\n"
    "(its config and node, as for `mokka render`).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE    write here (e.g. /etc/cdi/mokka.json) instead of stdout\n"
    "      --state-dir DIR  the node's live state (default " MK_CTR_STATE_BASE ")\n"
    "  -c, --config FILE    the universe's config (default: the state's)\n"
    "  -n, --node NAME      node name for derived UUIDs (default: the state's)\n"
    "      --lib FILE       Mokka's library (default: `mokka lib-path`)\n"
    "      --smi FILE       the nvidia-smi twin (default: beside the library)\n"
    "      --arch ARCH      x86_64 or aarch64: the library directory (default: this\n"
    "                       machine's)\n"
    MK_HELP_COMMON
    "\n"
    "Examples:\n"
    "  mokka cdi generate --output /etc/cdi/mokka.json\n"
    "  podman run --rm --device nvidia.com/gpu=1 --device nvidia.com/gpu=3 \\\n"
    "      debian nvidia-smi -L\n"
    "\n"
    "Exit codes: 0 written, 2 usage or config error, 3 no live state or the file\n"
    "cannot be written.\n";

enum { OPT_STATE = 0x2000, OPT_LIB, OPT_SMI, OPT_ARCH };

typedef struct cdi_opts {
    mk_ctr_where w;
    const char *output, *arch;
} cdi_opts;

static int parse(int argc, char **argv, cdi_opts *o)
{
    static const struct option opts[] = {
        { "output", required_argument, 0, 'o' }, { "state-dir", required_argument, 0, OPT_STATE },
        { "config", required_argument, 0, 'c' }, { "node", required_argument, 0, 'n' },
        { "lib", required_argument, 0, OPT_LIB }, { "smi", required_argument, 0, OPT_SMI },
        { "arch", required_argument, 0, OPT_ARCH }, MK_COMMON_OPTS, { 0, 0, 0, 0 }
    };
    const mk_cmd *self = mk_find_command("cdi");
    int c;
    while ((c = getopt_long(argc, argv, "o:c:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case OPT_STATE: o->w.state_dir = optarg; break;
        case 'c': o->w.config = optarg; break;
        case 'n': o->w.node = optarg; break;
        case OPT_LIB: o->w.lib = optarg; break;
        case OPT_SMI: o->w.smi = optarg; break;
        case OPT_ARCH:
            if (strcmp(optarg, "x86_64") && strcmp(optarg, "aarch64"))
                return mk_usage_error("cdi", "--arch takes x86_64 or aarch64, not '%s'", optarg);
            o->arch = optarg;
            break;
        default: {
            int rc = mk_common_opt(self, c, optarg);
            if (rc >= 0)
                return rc;
        }
        }
    }
    if (optind >= argc)
        return mk_usage_error("cdi", "missing the action: generate");
    if (strcmp(argv[optind], "generate") != 0)
        return mk_usage_error("cdi", "'%s' is not an action of cdi (generate)", argv[optind]);
    if (optind + 1 < argc)
        return mk_usage_error("cdi", "unexpected argument '%s'", argv[optind + 1]);
    return -1;
}

/* The spec for the node's universe; NULL after a message. */
static json_t *generate(const cdi_opts *o, int *rc)
{
    char err[2048];
    mk_ctr_node n;
    if (mk_ctr_node_find(&o->w, &n, err, sizeof err) != 0) {
        mk_err("cdi", "%s", err);
        *rc = MK_EXIT_ENV;
        return NULL;
    }
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_load_config(n.config[0] ? n.config : NULL, n.node, &d);
    mk_diags_tidy(&d);
    mk_print_diags(&d, stderr);
    mk_diags_free(&d);
    *rc = MK_EXIT_USAGE;
    if (!u)
        return NULL;
    struct utsname un;
    uname(&un);
    mk_ctr_plan p;
    if (mk_ctr_plan_make(&n, NULL, 0, o->arch ? o->arch : un.machine, &p, NULL, err,
                         sizeof err) != 0) {
        mk_err("cdi", "%s", err);
        mk_universe_free(u);
        return NULL;
    }
    const char **uuids = mk_xcalloc(u->ndev + 1, sizeof *uuids);
    for (size_t i = 0; i < u->ndev; i++)
        uuids[i] = u->dev[i].uuid;
    json_t *spec = mk_cdi_spec(uuids, u->ndev, &p);
    free(uuids);
    mk_ctr_plan_free(&p);
    mk_universe_free(u);
    *rc = MK_EXIT_OK;
    return spec;
}

int cmd_cdi(int argc, char **argv)
{
    cdi_opts o = { { 0 }, NULL, NULL };
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    json_t *spec = generate(&o, &rc);
    if (!spec)
        return rc;
    if (o.output) {
        if (json_dump_file(spec, o.output, JSON_INDENT(2)) != 0) {
            mk_err("cdi", "cannot write %s", o.output);
            rc = MK_EXIT_ENV;
        }
    } else {
        json_dumpf(spec, stdout, JSON_INDENT(2));
        putchar('\n');
    }
    json_decref(spec);
    return rc;
}
