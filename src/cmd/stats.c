/* stats.c - `mokka stats`: what a running universe looks like now (live
 * values, health, faults) and which NVML calls the programs on it made,
 * including the ones the mock answered NOT_SUPPORTED. The report is built
 * once as a JSON tree; --json prints it, the text view is drawn from it. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "cmds.h"
#include "commands.h"
#include "stateview/stateview.h"
#include "units.h"

const char cmd_stats_summary[] = "show live values, health and NVML calls of a running mock";
const char cmd_stats_help[] =
    "Usage: mokka stats [--state-dir DIR | --pid PID] [--json] [--watch SECONDS]\n"
    "\n"
    "Reads the live state of a running universe: the config, node and driver,\n"
    "the processes attached (and the GPUs each sees when its NVIDIA_VISIBLE_DEVICES\n"
    "restricts its view), config reloads; per GPU its health (healthy, xid N,\n"
    "ecc or lost) with XID and ECC counts and the current value of every live\n"
    "metric (* marks values pinned by mokka inject); then the NVML calls per\n"
    "function, most called first, with how many answered NOT_SUPPORTED, and the\n"
    "list of unsupported calls your program made - what it depends on that the\n"
    "mock does not implement.\n"
    "\n"
    "Options:\n"
    "      --state-dir DIR     the state directory (MOKKA_STATE_DIR of the program)\n"
    "      --pid PID           the state of process PID\n"
    "                          (default: the only live state under the runtime dir)\n"
    "  -j, --json              print JSON (one document per line with --watch)\n"
    "  -w, --watch SECONDS     refresh every SECONDS: redraw on a terminal, else\n"
    "                          print a new block; stop with Ctrl-C\n"
    "  -q, --quiet             no progress messages\n"
    "      --color WHEN        auto, always or never\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 shown, 2 usage error, 3 no live state found.\n";

/* --- the report ------------------------------------------------------------------- */

static json_t *metric_json(const mk_view *v, unsigned i, mk_metric m)
{
    int64_t x;
    char text[48] = "N/A";
    int have = mk_view_value(v, i, m, &x) == 0;
    if (have)
        mk_format_quantity(mk_metrics[m].unit, x, text, sizeof text);
    return json_pack("{s:o, s:s, s:b}", "value", have ? json_integer(x) : json_null(), "text",
                     text, "pinned", mk_view_pinned(v, i, m));
}

static json_t *gpu_json(const mk_view *v, unsigned i)
{
    const mk_state_dev *sd = &v->st.dev[i];
    char health[32];
    uint64_t sbe, dbe;
    mk_view_health(v, i, health, sizeof health);
    mk_view_ecc(v, i, &sbe, &dbe);
    json_t *metrics = json_object();
    for (int m = 0; m < MK_M_COUNT; m++)
        json_object_set_new(metrics, mk_metrics[m].name, metric_json(v, i, (mk_metric)m));
    return json_pack("{s:i, s:s, s:s, s:s, s:s, s:I, s:i, s:{s:I, s:I}, s:I, s:o}",
                     "index", (int)sd->index, "uuid", sd->uuid, "name", sd->name,
                     "pciBusID", sd->bus_id, "health", health,
                     "xidCount", (json_int_t)atomic_load(&sd->xid_count),
                     "lastXid", (int)atomic_load(&sd->last_xid),
                     "ecc", "singleBit", (json_int_t)sbe, "doubleBit", (json_int_t)dbe,
                     "energyMilliJoules", (json_int_t)mk_view_energy(v, i), "metrics", metrics);
}

static json_t *calls_json(const mk_view *v, json_t **unsupported, json_int_t *total)
{
    size_t n;
    mk_call_row *rows = mk_view_calls(v, &n);
    json_t *a = json_array();
    *unsupported = json_array();
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, json_pack("{s:s, s:I, s:I}", "function", rows[i].name, "calls",
                                           (json_int_t)rows[i].calls, "notSupported",
                                           (json_int_t)rows[i].unsupported));
        if (rows[i].unsupported)
            json_array_append_new(*unsupported, json_string(rows[i].name));
        *total += (json_int_t)rows[i].calls;
    }
    free(rows);
    return a;
}

/* A value from outside as a JSON string: JSON escapes its control
 * characters, and a byte that is not UTF-8 (which json_string refuses, and
 * the entry went missing) becomes U+FFFD. */
static json_t *json_text(const char *s)
{
    char *utf8 = mk_text_utf8(s);
    json_t *j = json_string(utf8);
    free(utf8);
    return j;
}

/* The attached processes whose NVIDIA_VISIBLE_DEVICES narrows their view:
 * [{pid, visibleDevices, gpus: [universe indexes] or null}]. */
static json_t *views_json(const mk_view *v)
{
    mk_procview *pv;
    size_t n = mk_view_procviews(v, &pv);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *gpus = pv[i].gpus ? json_array() : json_null();
        for (size_t j = 0; pv[i].gpus && j < pv[i].n; j++)
            json_array_append_new(gpus, json_integer(pv[i].gpus[j]));
        json_array_append_new(a, json_pack("{s:i, s:o, s:o}", "pid", (int)pv[i].pid,
                                           "visibleDevices", json_text(pv[i].spec),
                                           "gpus", gpus));
    }
    mk_procviews_free(pv, n);
    return a;
}

static json_t *report_json(const mk_view *v)
{
    const mk_state_hdr *h = v->st.hdr;
    int pids[MK_STATE_PIDS];
    unsigned alive = mk_view_alive(v, pids, MK_STATE_PIDS);
    json_t *alive_pids = json_array(), *gpus = json_array(), *uns;
    json_int_t total;
    for (unsigned i = 0; i < alive && i < MK_STATE_PIDS; i++)
        json_array_append_new(alive_pids, json_integer(pids[i]));
    for (unsigned i = 0; i < h->ndev; i++)
        json_array_append_new(gpus, gpu_json(v, i));
    json_t *calls = calls_json(v, &uns, &total);
    uint64_t now = mk_now_real_ns();
    return json_pack("{s:s, s:o, s:s, s:s, s:I, s:{s:i, s:i, s:o, s:o}, s:i, s:o, s:I, s:o, s:o}",
                     "state", v->path,
                     "config", h->config_path[0] ? json_string(h->config_path) : json_null(),
                     "node", h->node, "driverVersion", h->driver_version,
                     "uptimeSeconds", (json_int_t)(now > h->epoch_real_ns ?
                                                   (now - h->epoch_real_ns) / 1000000000ull : 0),
                     "processes", "attached", (int)mk_view_attached(v), "alive", (int)alive,
                     "pids", alive_pids, "restrictedViews", views_json(v),
                     "reloads", (int)atomic_load(&h->reloads), "gpus", gpus,
                     "totalCalls", total, "calls", calls, "unsupportedCalls", uns);
}

/* --- the text view ------------------------------------------------------------------- */

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_int_t jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* "32 C" or "30 GiB*" (pinned). */
static void metric_text(const json_t *metrics, const char *name, char *buf, size_t len)
{
    const json_t *m = json_object_get(metrics, name);
    snprintf(buf, len, "%s%s", jstr(m, "text"), json_is_true(json_object_get(m, "pinned")) ? "*" : "");
}

static void print_gpu(const json_t *g, FILE *f)
{
    const json_t *m = json_object_get(g, "metrics"), *ecc = json_object_get(g, "ecc");
    const char *health = jstr(g, "health");
    char a[48], b[48], c[48], d[48];
    int ok = strcmp(health, "healthy") == 0;
    fprintf(f, "%sGPU %lld%s  %s  %s  %s\n", mk_sgr(f, "1"), (long long)jint(g, "index"),
            mk_sgr(f, "0"), jstr(g, "name"), jstr(g, "uuid"), jstr(g, "pciBusID"));
    fprintf(f, "  health       %s%s%s  (XIDs %lld, last %lld; ECC single-bit %lld, double-bit %lld)\n",
            mk_sgr(f, ok ? "32" : "1;31"), health, mk_sgr(f, "0"), (long long)jint(g, "xidCount"),
            (long long)jint(g, "lastXid"), (long long)jint(ecc, "singleBit"),
            (long long)jint(ecc, "doubleBit"));
    metric_text(m, "temperature", a, sizeof a);
    metric_text(m, "memoryTemperature", b, sizeof b);
    fprintf(f, "  temperature  gpu %s, memory %s\n", a, b);
    metric_text(m, "power", a, sizeof a);
    fprintf(f, "  power        %s  (energy %lld J)\n", a, (long long)jint(g, "energyMilliJoules") / 1000);
    metric_text(m, "utilization.gpu", a, sizeof a);
    metric_text(m, "utilization.memory", b, sizeof b);
    metric_text(m, "utilization.encoder", c, sizeof c);
    metric_text(m, "utilization.decoder", d, sizeof d);
    fprintf(f, "  utilization  gpu %s, memory %s, encoder %s, decoder %s\n", a, b, c, d);
    metric_text(m, "memoryUsed", a, sizeof a);
    metric_text(m, "fanSpeed", b, sizeof b);
    fprintf(f, "  memory used  %s\n  fan speed    %s\n", a, b);
    metric_text(m, "clocks.graphics", a, sizeof a);
    metric_text(m, "clocks.sm", b, sizeof b);
    metric_text(m, "clocks.memory", c, sizeof c);
    metric_text(m, "clocks.video", d, sizeof d);
    fprintf(f, "  clocks       graphics %s, sm %s, memory %s, video %s\n", a, b, c, d);
}

static void print_calls(const json_t *r, FILE *f)
{
    const json_t *calls = json_object_get(r, "calls"), *row;
    const json_t *uns = json_object_get(r, "unsupportedCalls");
    size_t i;
    fprintf(f, "\n%sNVML calls%s: %lld in %zu functions\n", mk_sgr(f, "1"), mk_sgr(f, "0"),
            (long long)jint(r, "totalCalls"), json_array_size(calls));
    if (json_array_size(calls))
        fprintf(f, "  %12s  %13s  %s\n", "CALLS", "NOT_SUPPORTED", "FUNCTION");
    json_array_foreach(calls, i, row)
        fprintf(f, "  %12lld  %13lld  %s\n", (long long)jint(row, "calls"),
                (long long)jint(row, "notSupported"), jstr(row, "function"));
    if (!json_array_size(uns))
        return;
    fprintf(f, "\n%sUnsupported calls your program made%s (answered NVML_ERROR_NOT_SUPPORTED):\n",
            mk_sgr(f, "1;33"), mk_sgr(f, "0"));
    json_array_foreach(uns, i, row)
        fprintf(f, "  %s\n", json_string_value(row));
}

/* "view       pid 42 sees GPU 3, GPU 1 (NVIDIA_VISIBLE_DEVICES=...)" per
 * process whose view is restricted. */
static void print_views(const json_t *views, FILE *f)
{
    const json_t *pv, *g;
    size_t i, j;
    json_array_foreach(views, i, pv) {
        const json_t *gpus = json_object_get(pv, "gpus");
        fprintf(f, "view       pid %lld sees ", (long long)jint(pv, "pid"));
        if (json_is_null(gpus))
            fprintf(f, "a restricted view");
        else if (!json_array_size(gpus))
            fprintf(f, "no GPU");
        json_array_foreach(gpus, j, g)
            fprintf(f, "%sGPU %lld", j ? ", " : "", (long long)json_integer_value(g));
        char *spec = mk_text_escaped(jstr(pv, "visibleDevices"));   /* a line on a terminal */
        fprintf(f, " (NVIDIA_VISIBLE_DEVICES=%s; it numbers them from 0)\n", spec);
        free(spec);
    }
}

static void print_text(const json_t *r, FILE *f)
{
    const json_t *p = json_object_get(r, "processes"), *pids = json_object_get(p, "pids"), *x;
    const json_t *gpus = json_object_get(r, "gpus");
    json_int_t up = jint(r, "uptimeSeconds");
    int pinned = 0;
    size_t i;
    fprintf(f, "state      %s\n", jstr(r, "state"));
    fprintf(f, "config     %s\n", json_is_null(json_object_get(r, "config")) ? "(built-in default)"
                                                                              : jstr(r, "config"));
    fprintf(f, "node       %s   driver %s   reloads %lld   up %lldh%02lldm%02llds\n", jstr(r, "node"),
            jstr(r, "driverVersion"), (long long)jint(r, "reloads"), (long long)up / 3600,
            (long long)up / 60 % 60, (long long)up % 60);
    fprintf(f, "processes  %lld attached, %lld alive", (long long)jint(p, "attached"),
            (long long)jint(p, "alive"));
    json_array_foreach(pids, i, x)
        fprintf(f, "%s%lld", i ? ", " : " (pid ", (long long)json_integer_value(x));
    fprintf(f, "%s\n", json_array_size(pids) ? ")" : "");
    print_views(json_object_get(p, "restrictedViews"), f);
    json_array_foreach(gpus, i, x) {
        const char *k;
        json_t *m;
        fputc('\n', f);
        print_gpu(x, f);
        json_object_foreach(json_object_get(x, "metrics"), k, m)
            pinned |= json_is_true(json_object_get(m, "pinned"));
    }
    if (pinned)
        fprintf(f, "\n* pinned by mokka inject --set (undo with --unset)\n");
    print_calls(r, f);
}

/* --- watching ------------------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int show(const mk_view_where *w, int json, int watching)
{
    mk_view v;
    int rc = mk_view_open("stats", w, 1, &v);
    if (rc)
        return rc;
    json_t *r = report_json(&v);
    if (json) {
        json_dumpf(r, stdout, JSON_PRESERVE_ORDER | (watching ? JSON_COMPACT : JSON_INDENT(2)));
        fputc('\n', stdout);
    } else {
        if (watching && isatty(STDOUT_FILENO))
            fputs("\033[H\033[2J", stdout);
        else if (watching) {
            char when[64];
            time_t t = time(NULL);
            strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
            printf("--- %s\n", when);
        }
        if (!v.u && !mk_quiet)
            mk_err("stats", "sensors not known (%s): values shown as stored", v.why_no_u);
        print_text(r, stdout);
        if (watching && !isatty(STDOUT_FILENO))
            fputc('\n', stdout);
    }
    json_decref(r);
    mk_view_close(&v);
    fflush(stdout);
    return MK_EXIT_OK;
}

static int watch(const mk_view_where *w, int json, double secs)
{
    /* SA_RESTART: a signal during a write must not cost output; the sleep
     * is cut short anyway (nanosleep is never restarted). */
    struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    while (!stop) {
        int rc = show(w, json, 1);
        if (rc)
            return rc;
        struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
        while (!stop && nanosleep(&ts, &ts) != 0)
            ;
    }
    return MK_EXIT_OK;
}

int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'},
        {"watch", required_argument, 0, 'w'},
        MK_VIEW_OPTS,
        MK_COMMON_OPTS,
        {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("stats");
    mk_view_where w = { 0 };
    int json = 0, c, rc;
    double secs = 0;
    char *end;
    while ((c = getopt_long(argc, argv, "jw:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'w':
            secs = strtod(optarg, &end);
            if (!*optarg || *end || !(secs >= 0.1 && secs <= 86400))
                return mk_usage_error("stats", "--watch takes seconds from 0.1 to 86400, not '%s'",
                                      optarg);
            break;
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
        return mk_usage_error("stats", "unexpected argument '%s'", argv[optind]);
    return secs > 0 ? watch(&w, json, secs) : show(&w, json, 0);
}
