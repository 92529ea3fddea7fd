/* metrics.c - `mokka metrics`: the live state as Prometheus metrics with
 * dcgm-exporter's names and labels (exposition.c), printed once or served
 * over HTTP (httpd.c) like an exporter on a GPU node. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "commands.h"
#include "metrics/metrics.h"
#include "stateview/stateview.h"

const char cmd_metrics_summary[] = "expose a running mock's GPUs as dcgm-exporter metrics";
const char cmd_metrics_help[] =
    "Usage: mokka metrics [--state-dir DIR | --pid PID] [--listen HOST:PORT] [--once]\n"
    "\n"
    "Prometheus metrics of a running universe with dcgm-exporter's metric names,\n"
    "types, HELP texts and labels (gpu, UUID, pci_bus_id, device, modelName,\n"
    "Hostname, DCGM_FI_DRIVER_VERSION), so that dashboards and alerts built for\n"
    "real GPUs show the virtual ones unchanged: DCGM_FI_DEV_GPU_TEMP,\n"
    "_MEMORY_TEMP, _POWER_USAGE, _TOTAL_ENERGY_CONSUMPTION, _GPU_UTIL,\n"
    "_MEM_COPY_UTIL, _ENC_UTIL, _DEC_UTIL, _FB_USED, _FB_FREE, _FB_RESERVED,\n"
    "_SM_CLOCK, _MEM_CLOCK, _XID_ERRORS, _ECC_SBE_VOL_TOTAL, _ECC_DBE_VOL_TOTAL,\n"
    "_PCIE_REPLAY_COUNTER, ... A GPU that fell off the bus loses its telemetry\n"
    "series, as with DCGM. Mokka's own: mokka_gpu_health_state,\n"
    "mokka_gpu_xid_errors_total, mokka_gpu_metric_pinned, mokka_nvml_calls_total,\n"
    "mokka_nvml_not_supported_total, mokka_processes_attached,\n"
    "mokka_config_reloads_total, and for each attached process whose\n"
    "NVIDIA_VISIBLE_DEVICES restricts its view mokka_process_visible_gpus and\n"
    "mokka_process_visible_gpu. Static fields come from the config named in\n"
    "the state.\n"
    "\n"
    "Without --once, serves GET /metrics (and a short page on /) until SIGINT or\n"
    "SIGTERM.\n"
    "\n"
    "Options:\n"
    "      --state-dir DIR       the state directory (MOKKA_STATE_DIR of the program)\n"
    "      --pid PID             the state of process PID\n"
    "                            (default: the only live state under the runtime dir)\n"
    "  -l, --listen HOST:PORT    where to serve (default 127.0.0.1:9400, dcgm-\n"
    "                            exporter's port; a non-loopback address is used\n"
    "                            only when given, with a warning)\n"
    "      --once                print the metrics to stdout and exit\n"
    "  -q, --quiet               no progress messages\n"
    "      --color WHEN          auto, always or never\n"
    "  -h, --help                this help\n"
    "\n"
    "Exit status: 0 done (or stopped by a signal), 2 usage error, 3 no live state\n"
    "found or the address cannot be used.\n";

enum { OPT_ONCE = 0x1400 };

#define DEFAULT_LISTEN "127.0.0.1:9400"

static const char index_page[] =
    "<!DOCTYPE html>\n<html><head><title>mokka metrics</title></head><body>\n"
    "<h1>mokka metrics</h1>\n"
    "<p>dcgm-exporter-compatible metrics of virtual GPUs: <a href=\"/metrics\">/metrics</a></p>\n"
    "</body></html>\n";

typedef struct server_ctx {
    const mk_view_where *where;
} server_ctx;

/* The exposition text of the state now, or NULL with the exit code in *rc
 * (the problem is on stderr). */
static char *scrape(const mk_view_where *w, size_t *len, int *rc)
{
    mk_view v;
    if ((*rc = mk_view_open("metrics", w, 1, &v)) != 0)
        return NULL;
    char *buf = mk_expose_text(&v, len);
    mk_view_close(&v);
    *rc = buf ? MK_EXIT_OK : MK_EXIT_ENV;
    return buf;
}

static void handle(const char *path, mk_http_resp *r, void *ctx)
{
    const server_ctx *s = ctx;
    int rc;
    if (strcmp(path, "/metrics") != 0) {
        if (strcmp(path, "/") == 0)
            mk_http_text(r, 200, "text/html; charset=utf-8", index_page);
        else
            mk_http_text(r, 404, "text/plain; charset=utf-8", "not found: try /metrics\n");
        return;
    }
    r->body = scrape(s->where, &r->len, &rc);
    r->status = 200;
    r->type = MK_PROM_CONTENT_TYPE;
    if (!r->body)
        mk_http_text(r, 503, "text/plain; charset=utf-8", "no live state (see the mokka metrics log)\n");
}

static int serve(const mk_view_where *w, const char *listen_on)
{
    char bound[300], err[512];
    int loopback, rc;
    mk_view v;
    int fd = mk_http_listen(listen_on, bound, sizeof bound, &loopback, err, sizeof err);
    if (fd == -2)
        return mk_usage_error("metrics", "--listen: %s", err);
    if (fd < 0) {
        mk_err("metrics", "%s", err);
        return MK_EXIT_ENV;
    }
    /* Fail now, not at the first scrape, when there is no state at all. */
    if ((rc = mk_view_open("metrics", w, 0, &v)) != 0) {
        close(fd);
        return rc;
    }
    mk_view_close(&v);
    if (!loopback)
        mk_err("metrics", "warning: serving on %s, which other hosts can reach", bound);
    mk_info("metrics", "serving http://%s/metrics", bound);
    server_ctx s = { w };
    if (mk_http_serve(fd, handle, &s, err, sizeof err) != 0) {
        mk_err("metrics", "%s", err);
        return MK_EXIT_ENV;
    }
    mk_info("metrics", "stopped");
    return MK_EXIT_OK;
}

int cmd_metrics(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, 0, 'l'},
        {"once", no_argument, 0, OPT_ONCE},
        MK_VIEW_OPTS,
        MK_COMMON_OPTS,
        {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("metrics");
    mk_view_where w = { 0 };
    const char *listen_on = DEFAULT_LISTEN;
    int once = 0, c, rc;
    while ((c = getopt_long(argc, argv, "l:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'l': listen_on = optarg; break;
        case OPT_ONCE: once = 1; break;
        case 'q': mk_quiet = 1; break;
        case 'h': mk_print_help(self, stdout); return MK_EXIT_OK;
        default:
            if ((rc = mk_view_opt(self->name, c, optarg, &w)) == MK_VIEW_NOT_MINE)
                rc = mk_common_opt(self, c, optarg);
            if (rc >= 0)
                return rc;
        }
    }
    if (optind < argc)
        return mk_usage_error("metrics", "unexpected argument '%s'", argv[optind]);
    if (!once)
        return serve(&w, listen_on);
    size_t len;
    char *out = scrape(&w, &len, &rc);
    if (!out)
        return rc;
    fwrite(out, 1, len, stdout);
    free(out);
    return fflush(stdout) == 0 ? MK_EXIT_OK : MK_EXIT_ENV;
}
