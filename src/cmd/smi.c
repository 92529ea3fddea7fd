/* smi.c - `mokka smi`: what NVML reports, in nvidia-smi's views. It uses
 * only NVML's public API through dlopen, so it reads whichever
 * libnvidia-ml.so.1 the loader finds: the real driver's on a GPU machine,
 * Mokka's under `mokka exec`, or Mokka's own copy with --mock. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"
#include "cmds.h"
#include "commands.h"
#include "bundle/bundle.h"
#include "smi/smi.h"
#include "visible.h"

const char cmd_smi_summary[] = "show the GPUs NVML reports, like nvidia-smi";
const char cmd_smi_help[] =
    "Usage: mokka smi [-L | -q | --json] [-i ID[,ID...]] [--mock [--config FILE]]\n"
    "\n"
    "Shows what NVML reports, in nvidia-smi's layouts. It loads libnvidia-ml.so.1\n"
    "with dlopen and calls only NVML's public API, so it reads the real driver on\n"
    "a GPU machine and the mock under `mokka exec`. Values a GPU does not support\n"
    "show as N/A; other NVML errors show NVML's message (ERR! in the table). When\n"
    "NVIDIA_VISIBLE_DEVICES (or the MOKKA_VISIBLE_GPU_* variables of Mokka's CDI\n"
    "devices) restricts the view (Mokka's library shows only the GPUs named, as in\n"
    "a container), a line on stderr says so.\n"
    "\n"
    "Views (default: the nvidia-smi table, then MIG devices and processes):\n"
    "  -L, --list           one line per GPU and MIG device, with UUIDs\n"
    "  -q, --query          the detailed report of every GPU (like nvidia-smi -q)\n"
    "      --json           everything -q shows as one JSON document: null for\n"
    "                       N/A, {\"error\": MESSAGE} for a failed query, units in\n"
    "                       the key names (_mib, _mhz, _c, _w, _pct, _lanes)\n"
    "Options:\n"
    "  -i, --id ID[,ID...]  only these GPUs: index, UUID or PCI bus id\n"
    "      --mock           load Mokka's library directly (no `mokka exec` needed)\n"
    "  -c, --config FILE    with --mock: the GPU config (checked first)\n"
    MK_HELP_COMMON
    "\n"
    "Examples:\n"
    "  mokka smi --mock --config fixtures/configs/mig-mixed.yaml -L\n"
    "  mokka exec --config my.yaml -- mokka smi -q -i 0\n"
    "  mokka smi --json | jq '.gpus[].fb_memory_usage'\n"
    "\n"
    "Exit codes: 0 ok, 2 usage error, invalid config or unknown GPU, 3 NVML could\n"
    "not be loaded or initialised (its own error is printed).\n";

enum { VIEW_TABLE, VIEW_LIST, VIEW_QUERY, VIEW_JSON };
enum { OPT_JSON = 0x2000, OPT_MOCK };

typedef struct smi_opts {
    int view, mock;
    const char *ids, *config;
} smi_opts;

static int parse(int argc, char **argv, smi_opts *o)
{
    static const struct option opts[] = {
        { "list", no_argument, 0, 'L' },
        { "query", no_argument, 0, 'q' },
        { "json", no_argument, 0, OPT_JSON },
        { "id", required_argument, 0, 'i' },
        { "mock", no_argument, 0, OPT_MOCK },
        { "config", required_argument, 0, 'c' },
        MK_COMMON_OPTS,
        { 0, 0, 0, 0 }
    };
    const mk_cmd *self = mk_find_command("smi");
    int c, views = 0;
    while ((c = getopt_long(argc, argv, "Lqi:c:h", opts, NULL)) != -1) {
        switch (c) {
        case 'L': o->view = VIEW_LIST; views++; break;
        case 'q': o->view = VIEW_QUERY; views++; break;
        case OPT_JSON: o->view = VIEW_JSON; views++; break;
        case 'i': o->ids = optarg; break;
        case OPT_MOCK: o->mock = 1; break;
        case 'c': o->config = optarg; break;
        default: {
            int rc = mk_common_opt(self, c, optarg);
            if (rc >= 0)
                return rc;
        }
        }
    }
    if (optind < argc)
        return mk_usage_error("smi", "unexpected argument '%s'", argv[optind]);
    if (views > 1)
        return mk_usage_error("smi", "-L, -q and --json are different views: choose one");
    if (o->config && !o->mock)
        return mk_usage_error("smi", "--config needs --mock (without it, smi reads whatever "
                              "library the loader finds; use `mokka exec --config`)");
    return -1;
}

/* With --mock: Mokka's own library file, and the checked config for it. */
static int mock_library(const smi_opts *o, char *file, size_t len)
{
    char dir[4096], err[1024];
    int rc = mk_config_prepare("smi", o->config);
    if (rc != 0)
        return rc;
    if (mk_lib_path(dir, sizeof dir, file, len, err, sizeof err) != 0) {
        mk_err("smi", "%s", err);
        return MK_EXIT_ENV;
    }
    return 0;
}

/* Under Mokka's library NVIDIA_VISIBLE_DEVICES (with the variables of
 * Mokka's CDI devices) narrows what NVML shows, as in a container (the real
 * driver's library ignores it): say so on stderr, and in the JSON document. */
static void note_view(json_t *doc)
{
    char *spec;
    int cdi = mk_visible_env_spec(environ, &spec);
    if (cdi < 0 || !mk_visible_restricted(spec)) {
        free(spec);
        return;
    }
    size_t n = json_array_size(json_object_get(doc, "gpus"));
    char *shown = mk_text_escaped(spec), *utf8 = mk_text_utf8(spec);   /* see stats.c */
    mk_info("smi", "the view is restricted: %s%s=%s shows %zu GPU%s, numbered from 0 as in a "
            "container (Mokka's library; NVIDIA's ignores the variable)", MK_VISIBLE_ENV,
            cdi ? " with " MK_VISIBLE_GPU_ENV "*" : "", shown, n, n == 1 ? "" : "s");
    json_object_set_new(doc, "visible_devices", json_string(utf8));
    free(shown);
    free(utf8);
    free(spec);
}

static void print_view(const smi_opts *o, json_t *doc)
{
    switch (o->view) {
    case VIEW_LIST: mk_smi_print_list(doc, stdout); break;
    case VIEW_QUERY: mk_smi_print_query(doc, stdout); break;
    case VIEW_JSON:
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        putchar('\n');
        break;
    default: mk_smi_print_table(doc, stdout); break;
    }
}

int cmd_smi(int argc, char **argv)
{
    smi_opts o = { VIEW_TABLE, 0, NULL, NULL };
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    char lib[4200] = MK_LIB_SONAME, err[1024];
    if (o.mock && (rc = mock_library(&o, lib, sizeof lib)) != 0)
        return rc;
    mk_nvml n;
    if (mk_nvml_open(&n, lib, err, sizeof err) != 0) {
        mk_err("smi", "%s", err);
        if (!o.mock)
            mk_err("smi", "no NVIDIA driver here? `mokka smi --mock` shows Mokka's GPUs, "
                   "`mokka exec CMD` runs CMD on them");
        return MK_EXIT_ENV;
    }
    unsigned *sel = NULL;
    int nsel = 0;
    if (o.ids) {
        sel = calloc(MK_SMI_MAX_GPUS, sizeof *sel);
        nsel = sel ? mk_smi_select(&n, o.ids, sel, err, sizeof err) : -1;
        if (nsel < 0) {
            mk_err("smi", "%s", sel ? err : "out of memory");
            free(sel);
            mk_nvml_close(&n);
            return sel ? MK_EXIT_USAGE : MK_EXIT_ENV;
        }
    }
    json_t *doc = mk_smi_gather(&n, sel, nsel);
    free(sel);
    mk_nvml_close(&n);
    note_view(doc);
    print_view(&o, doc);
    json_decref(doc);
    return MK_EXIT_OK;
}
