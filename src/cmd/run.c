/* run.c - `mokka run`: the device plugin on virtual GPUs in a GPU-node
 * sandbox, a built-in kubelet, suites against what the node advertises, and
 * a JUnit report; with --gfd, gpu-feature-discovery beside the plugin, its
 * labels in the node view (in cluster mode on the Node object: run/gfdnode.c); with --plugins or --add-plugin, several plugins
 * side by side (run/plugset.c), each resource attributed to its plugin.
 *
 * Order of events: check the config and the suites (exit 2 on a problem),
 * find the plugin and the library (exit 3), build the run directory and the
 * sandbox, start the kubelet, start the plugin (and GFD) under supervision,
 * wait for GFD's first labels and for the plugin to register, run the
 * suites, stop everything, write the reports. Every path out of here after the run directory exists goes through finish(),
 * which writes the reports even for a harness failure and leaves no process
 * behind. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cmds.h"
#include "commands.h"
#include "util/util.h"
#include "suite/suite.h"
#include "fault/fault.h"
#include "kube/kube.h"
#include "kubelet/kubelet.h"
#include "metrics/metrics.h"
#include "bundle/bundle.h"
#include "report/report.h"
#include "run/run.h"
#include "stateview/stateview.h"
#include "units.h"

const char cmd_run_summary[] = "run the device plugin on virtual GPUs and assert on what the node advertises";
const char cmd_run_help[] =
    "Usage: mokka run [OPTIONS] [-- PLUGIN [ARGS...]]\n"
    "\n"
    "Runs the NVIDIA device plugin (or any plugin with the same contract) on\n"
    "Mokka's virtual GPUs, in a GPU-node sandbox with a built-in kubelet; waits\n"
    "until it registers; runs suites against what the node would advertise;\n"
    "writes a JUnit report. With no --suite, the built-in smoke suite runs,\n"
    "written for the universe and the plugin's MIG strategy (--mig-strategy,\n"
    "or -e MIG_STRATEGY=).\n"
    "Suite cases can run commands in the sandbox (exec:, as-allocated: N for\n"
    "the environment an Allocate returns), e.g. NVIDIA's nvidia-smi.\n"
    "\n"
    "Several plugins (a grey release: the old plugin beside the new one) run with\n"
    "--plugins FILE or --add-plugin, each named, with its own environment and log,\n"
    "on one universe and one live state. The built-in kubelet applies kubelet\n"
    "v1.20's rules: a second registration of a resource replaces the first;\n"
    "a plugin that exits takes down only its own resources; two plugins serving\n"
    "from one socket path fail the run, naming both (in cluster mode the node's\n"
    "kubelet applies its own rules). The `plugins` report suite has a case per\n"
    "plugin (an error when it failed past --restart-limit or never registered)\n"
    "listing the resources it serves; suites name a plugin with\n"
    "restart-plugin: NAME and expect: {plugin: ...} / {served-by: NAME}.\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE          the GPU universe (default: 8 x A100-SXM4-40GB)\n"
    "  -s, --suite FILE           a suite to run; repeatable\n"
    "      --junit FILE           write JUnit XML to FILE\n"
    "      --report json[=FILE]   write the JSON report to stdout or FILE\n"
    "  -t, --timeout DURATION     limit for the whole run (default 5m)\n"
    "      --register-timeout DURATION\n"
    "                             how long the plugin may take to register (default 60s)\n"
    "      --plugin PATH          the plugin binary; arguments after -- go to it\n"
    "                             (default: the command after --, else\n"
    "                             nvidia-device-plugin from PATH)\n"
    "      --add-plugin 'NAME=[VAR=VALUE...] COMMAND [ARG...]'\n"
    "                             supervise a plugin called NAME (a-z, 0-9, -) beside\n"
    "                             the others; repeatable. Words split at blanks;\n"
    "                             leading VAR=VALUE words are its own environment.\n"
    "                             Its log: RUN_DIR/plugin-NAME.log\n"
    "      --plugins FILE         the plugins to supervise, from a run file: a\n"
    "                             `plugins:` list of name, command, args, env, log\n"
    "  -e, --env NAME=VALUE       set in every plugin's environment; repeatable\n"
    "      --gfd[=PATH]           also run NVIDIA gpu-feature-discovery (default:\n"
    "                             gpu-feature-discovery from PATH) in the sandbox;\n"
    "                             its labels join the node view for label: checks\n"
    "                             (it relabels every second; the plugin's MIG\n"
    "                             strategy and -e variables reach it too); in\n"
    "                             cluster mode they go on the Node object (a merge\n"
    "                             patch, only when they change; taken off at the end)\n"
    "      --gfd-arg ARG          an argument for gpu-feature-discovery; repeatable\n"
    "      --node NAME            node name (UUIDs of `uuid: auto` derive from it;\n"
    "                             default: $MOKKA_NODE_NAME, else $NODE_NAME, else\n"
    "                             the host name); the plugin gets the same name\n"
    "      --kubeconfig FILE      cluster mode: run the plugin under this node's real\n"
    "                             kubelet and check through the API server\n"
    "      --cluster              cluster mode with $KUBECONFIG, ~/.kube/config or\n"
    "                             the in-cluster service account\n"
    "      --context NAME         kubeconfig context (cluster mode)\n"
    "      --no-sandbox           use the real /var/lib/kubelet/device-plugins (only\n"
    "                             when no kubelet is running); no sysfs, MIG caps or\n"
    "                             device nodes are provided\n"
    "      --restart-limit N      plugin crashes restarted before giving up (default 5)\n"
    "      --keep                 keep the run directory (live state, plugin log)\n"
    "      --hold                 after the suites, keep the plugin running until\n"
    "                             SIGINT or SIGTERM (a DaemonSet's virtual GPUs); in\n"
    "                             cluster mode it also applies the cluster's GPUFault\n"
    "                             objects that select the node (see mokka agent); a\n"
    "                             GPU healthy again restarts the plugin serving it\n"
    "      --no-agent             with --hold in cluster mode: apply no GPUFaults\n"
    "  -v, --verbose              show the plugin's output as it comes\n"
    "  -q, --quiet                only the summary and errors\n"
    "      --color WHEN           auto, always or never\n"
    "  -h, --help                 show this help\n"
    "\n"
    "Environment: MOKKA_KUBELET_DIR names the kubelet's directory for cluster mode\n"
    "and --no-sandbox (default /var/lib/kubelet/device-plugins). POD_NAME,\n"
    "POD_NAMESPACE and POD_UID (the downward API) name the pod that, in cluster\n"
    "mode, gets a Warning Event (MokkaBadInput) when the config or a suite does\n"
    "not load.\n"
    "\n"
    "Exit status: 0 every check passed, 1 a check failed (or two plugins served\n"
    "from one socket), 2 usage or config error (two plugins with one name), 3 a\n"
    "plugin or the environment failed: a command not found, a plugin that crashed\n"
    "past --restart-limit, SIGINT or SIGTERM (every plugin gets the signal, then\n"
    "SIGKILL after 10 s; the reports are still written).\n"
    "\n"
    "Examples:\n"
    "  mokka run -- nvidia-device-plugin\n"
    "  mokka run --gfd --suite labels.yaml -- nvidia-device-plugin\n"
    "  mokka run --config h100.yaml --suite gpu.yaml --junit report.xml \\\n"
    "      -- nvidia-device-plugin --mig-strategy=mixed\n"
    "  mokka run -c mig.yaml -s grey.yaml --add-plugin 'old=nvidia-device-plugin' \\\n"
    "      --add-plugin 'new=CONFIG_FILE=/etc/new.yaml ndp-0.17 --mig-strategy=mixed'\n";

typedef struct run_opts {
    const char *config, *plugin, *node, *kubeconfig, *context;
    int gfd;                /* --gfd */
    const char *gfd_path;   /* --gfd=PATH */
    char **gfd_args;        /* --gfd-arg */
    size_t ngfd_args;
    int cluster;   /* --kubeconfig or --cluster: the node's real kubelet and the API server */
    mk_outputs out;
    const char **suites;
    size_t nsuites;
    char **env;
    size_t nenv;
    double timeout, register_timeout;
    unsigned restart_limit;
    int no_sandbox, keep, verbose, hold, no_agent;
    char *const *plugin_args;
    size_t nplugin_args;
    const char *plugins_file;   /* --plugins */
    char **add_plugins;         /* --add-plugin */
    size_t nadd_plugins;
} run_opts;

typedef struct run {
    run_opts o;
    char config_abs[4096];
    mk_universe *u;
    mk_suite **suites;
    size_t nsuites;
    char run_dir[4096];
    mk_sandbox sb;
    mk_kubelet *kubelet;    /* the built-in kubelet (sandbox mode) */
    mk_kube *kube;          /* the API server (cluster mode) */
    mk_nodesrc *src;        /* whichever of the two the suites read */
    mk_plugin_specs specs;  /* --plugins, --add-plugin */
    mk_plugset *ps;         /* the plugins, under supervision */
    mk_gfd *gfd;            /* --gfd */
    mk_debugsrv *debug;     /* `debug: true`: /metrics on debugListen */
    mk_healwatch *heal;     /* --hold: GPUs healthy again restart the plugins */
    mk_report rep;
    mk_sb bad_input;        /* why the inputs do not load, for the pod's Event */
    double start, last_wait_line;
    _Atomic int stopping;   /* kubelet events from here on are the run ending, not news */
    int (*restart)(mk_suite_env *env, const char *name, char *err, size_t errlen);   /* the runenv's */
} run;

/* --- options -------------------------------------------------------------------- */

static int parse_duration_opt(const char *what, const char *s, double *out)
{
    const char *why;
    if (mk_parse_duration(s, out, &why) != 0)
        return mk_usage_error("run", "%s '%s': %s", what, s, why);
    if (*out <= 0)
        return mk_usage_error("run", "%s '%s': must be longer than 0", what, s);
    return 0;
}

static int parse_args(int argc, char **argv, run_opts *o)
{
    enum { O_JUNIT = 1, O_REPORT, O_REGISTER, O_PLUGIN, O_NODE, O_NOSANDBOX, O_RESTART, O_KEEP,
           O_KUBECONFIG, O_CONTEXT, O_CLUSTER, O_HOLD, O_GFD, O_GFD_ARG, O_PLUGINS, O_ADD_PLUGIN,
           O_NO_AGENT };
    static const struct option longopts[] = {
        {"config", required_argument, 0, 'c'}, {"suite", required_argument, 0, 's'},
        {"junit", required_argument, 0, O_JUNIT}, {"report", required_argument, 0, O_REPORT},
        {"timeout", required_argument, 0, 't'}, {"register-timeout", required_argument, 0, O_REGISTER},
        {"plugin", required_argument, 0, O_PLUGIN}, {"env", required_argument, 0, 'e'},
        {"node", required_argument, 0, O_NODE}, {"no-sandbox", no_argument, 0, O_NOSANDBOX},
        {"restart-limit", required_argument, 0, O_RESTART}, {"keep", no_argument, 0, O_KEEP},
        {"kubeconfig", required_argument, 0, O_KUBECONFIG}, {"context", required_argument, 0, O_CONTEXT},
        {"cluster", no_argument, 0, O_CLUSTER}, {"hold", no_argument, 0, O_HOLD},
        {"no-agent", no_argument, 0, O_NO_AGENT},
        {"gfd", optional_argument, 0, O_GFD}, {"gfd-arg", required_argument, 0, O_GFD_ARG},
        {"plugins", required_argument, 0, O_PLUGINS}, {"add-plugin", required_argument, 0, O_ADD_PLUGIN},
        {"verbose", no_argument, 0, 'v'}, MK_COMMON_OPTS,
        {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("run");
    o->timeout = 300;
    o->register_timeout = 60;
    o->restart_limit = 5;
    int c;
    while ((c = getopt_long(argc, argv, "+c:s:t:e:vqh", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->config = optarg; break;
        case 's': {
            const char **v = realloc(o->suites, (o->nsuites + 1) * sizeof *v);
            if (!v)
                return MK_EXIT_ENV;
            o->suites = v;
            o->suites[o->nsuites++] = optarg;
            break;
        }
        case O_JUNIT: o->out.junit = optarg; break;
        case O_REPORT:
            if (mk_outputs_report_opt(&o->out, "run", optarg))
                return MK_EXIT_USAGE;
            break;
        case 't': if (parse_duration_opt("--timeout", optarg, &o->timeout)) return MK_EXIT_USAGE; break;
        case O_REGISTER:
            if (parse_duration_opt("--register-timeout", optarg, &o->register_timeout))
                return MK_EXIT_USAGE;
            break;
        case O_PLUGIN: o->plugin = optarg; break;
        case O_PLUGINS: o->plugins_file = optarg; break;
        case O_ADD_PLUGIN: {
            char **v = realloc(o->add_plugins, (o->nadd_plugins + 1) * sizeof *v);
            if (!v)
                return MK_EXIT_ENV;
            o->add_plugins = v;
            o->add_plugins[o->nadd_plugins++] = optarg;
            break;
        }
        case 'e': {
            if (!strchr(optarg, '=') || optarg[0] == '=')
                return mk_usage_error("run", "--env takes NAME=VALUE, not '%s'", optarg);
            char **v = realloc(o->env, (o->nenv + 2) * sizeof *v);
            if (!v)
                return MK_EXIT_ENV;
            o->env = v;
            o->env[o->nenv++] = optarg;
            o->env[o->nenv] = NULL;
            break;
        }
        case O_GFD:
            o->gfd = 1;
            if (optarg && !*optarg)
                return mk_usage_error("run", "--gfd=PATH: the path is empty");
            o->gfd_path = optarg;
            break;
        case O_GFD_ARG: {
            char **v = realloc(o->gfd_args, (o->ngfd_args + 1) * sizeof *v);
            if (!v)
                return MK_EXIT_ENV;
            o->gfd_args = v;
            o->gfd_args[o->ngfd_args++] = optarg;
            break;
        }
        case O_NODE: o->node = optarg; break;
        case O_NOSANDBOX: o->no_sandbox = 1; break;
        case O_RESTART: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 0 || n > 1000)
                return mk_usage_error("run", "--restart-limit takes 0 to 1000, not '%s'", optarg);
            o->restart_limit = (unsigned)n;
            break;
        }
        case O_KEEP: o->keep = 1; break;
        case O_KUBECONFIG: o->kubeconfig = optarg; o->cluster = 1; break;
        case O_CONTEXT: o->context = optarg; break;
        case O_CLUSTER: o->cluster = 1; break;
        case O_HOLD: o->hold = 1; break;
        case O_NO_AGENT: o->no_agent = 1; break;
        case 'v': o->verbose = 1; break;
        case 'q': mk_quiet = 1; break;
        default: {
            int rc = mk_common_opt(self, c == 'h' ? MK_OPT_HELP : c, optarg);
            if (rc >= 0)
                return rc == MK_EXIT_OK ? -2 : rc;
        }
        }
    }
    o->plugin_args = argv + optind;
    o->nplugin_args = (size_t)(argc - optind);
    if (o->cluster && o->no_sandbox)
        return mk_usage_error("run", "--no-sandbox: cluster mode (--kubeconfig, --cluster) "
                              "already uses the node's kubelet directory");
    if (o->context && !o->cluster)
        return mk_usage_error("run", "--context needs --kubeconfig or --cluster");
    if (o->no_agent && !(o->cluster && o->hold))
        return mk_usage_error("run", "--no-agent needs --hold in cluster mode (only a held plugin "
                              "in a cluster applies GPUFaults)");
    if (o->ngfd_args && !o->gfd)
        return mk_usage_error("run", "--gfd-arg needs --gfd");
    if ((o->plugins_file || o->nadd_plugins) && (o->plugin || o->nplugin_args))
        return mk_usage_error("run", "name the plugins either with --plugins/--add-plugin or "
                              "with --plugin/-- COMMAND, not both (the one plugin of -- is a "
                              "--add-plugin 'NAME=COMMAND ...' among several)");
    return 0;
}

/* --- inputs ----------------------------------------------------------------------- */

/* On stderr, and kept for the pod's Event should they end the run. */
static void print_diags(run *r, const mk_diags *d)
{
    char line[2048];
    for (size_t i = 0; i < d->n; i++) {
        mk_diag_format(&d->v[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
        mk_sb_printf(&r->bad_input, "%s\n", line);
    }
}

/* --plugins and --add-plugin, in that order; 0, or MK_EXIT_USAGE. */
static int load_plugins(run *r, mk_diags *d)
{
    char err[1024];
    if (r->o.plugins_file && mk_plugin_specs_load(&r->specs, r->o.plugins_file, d) != 0)
        return MK_EXIT_USAGE;
    for (size_t i = 0; i < r->o.nadd_plugins; i++)
        if (mk_plugin_specs_add_arg(&r->specs, r->o.add_plugins[i], err, sizeof err) != 0)
            return mk_usage_error("run", "%s", err);
    return 0;
}

static int load_inputs(run *r)
{
    mk_diags d;
    mk_diags_init(&d);
    if (load_plugins(r, &d) != 0) {
        print_diags(r, &d);
        mk_diags_free(&d);
        return MK_EXIT_USAGE;
    }
    if (r->o.config && !realpath(r->o.config, r->config_abs)) {
        mk_err("run", "%s: %s", r->o.config, strerror(errno));
        mk_sb_printf(&r->bad_input, "%s: %s\n", r->o.config, strerror(errno));
        return MK_EXIT_USAGE;
    }
    r->u = mk_universe_load(r->o.config ? r->config_abs : NULL, r->o.node, &d);
    r->suites = calloc(r->o.nsuites ? r->o.nsuites : 1, sizeof *r->suites);
    if (r->u && r->suites) {
        if (!r->o.nsuites) {
            /* The built-in smoke suite; in cluster mode the one that checks
             * the node object, since the API server has no device list. */
            if (r->o.cluster) {
                const mk_blob *b = mk_blob_find(mk_suite_blobs, "cluster-smoke");
                if (b && (r->suites[0] = mk_suite_load_mem("cluster-smoke.yaml", b->data, b->len, &d)))
                    r->nsuites = 1;
            } else if (!r->specs.n) {
                /* written for this universe and the plugin's MIG strategy;
                 * several plugins have the `plugins` suite instead */
                char *smoke = mk_smoke_suite(r->u, mk_plugin_mig_strategy(r->o.plugin_args,
                                                                          r->o.nplugin_args, r->o.env));
                if (smoke && (r->suites[0] = mk_suite_load_mem("smoke.yaml", smoke, strlen(smoke), &d)))
                    r->nsuites = 1;
                free(smoke);
            }
        }
        for (size_t i = 0; i < r->o.nsuites; i++)
            if ((r->suites[r->nsuites] = mk_suite_load(r->o.suites[i], &d)))
                r->nsuites++;
    }
    print_diags(r, &d);
    int bad = d.errors > 0 || !r->u || !r->suites;
    mk_diags_free(&d);
    return bad ? MK_EXIT_USAGE : 0;
}

/* In cluster mode the node's name selects its Node and names its
 * GPUFaultReport: a name the API refuses is a usage error before any
 * request. It comes from where the universe takes it (mk_node_name:
 * --node, MOKKA_NODE_NAME, NODE_NAME, the host name), checked whole. */
static int cluster_node_ok(const run *r)
{
    char err[1024], name[1024];
    const char *from = mk_node_name(name, sizeof name, r->o.node);
    if (!r->o.cluster || mk_kname_check(from ? from : "--node", "node", name, err, sizeof err) == 0)
        return 0;
    return mk_usage_error("run", "%s", err);
}

/* --- progress ---------------------------------------------------------------------- */

static void progress(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(run *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (mk_quiet)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r\033[K%s", msg);
    } else {
        time_t t = time(NULL);
        struct tm tm;
        char stamp[32];
        gmtime_r(&t, &tm);
        strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
        fprintf(stderr, "%s mokka run: %s (%.1fs)\n", stamp, msg, mk_now_s() - r->start);
    }
}

static void progress_done(void)
{
    if (!mk_quiet && isatty(STDERR_FILENO))
        fputc('\n', stderr);
}

static void on_kubelet(void *ctx, const mk_kubelet_event *ev)
{
    run *r = ctx;
    mk_plugset_event(r->ps, ev, mk_now_s() - r->start);
    if (r->stopping)
        return;
    int several = mk_plugset_several(r->ps);
    const char *who = ev->plugin ? ev->plugin : "?";
    switch (ev->kind) {
    case MK_KL_REGISTERED:
        if (several)
            progress(r, "%s registered by plugin '%s' (socket %s)", ev->resource, who,
                     ev->endpoint ? ev->endpoint : "?");
        else
            progress(r, "%s registered (socket %s)", ev->resource,
                     ev->endpoint ? ev->endpoint : "?");
        break;
    case MK_KL_REPLACED:
        progress(r, "%s: plugin '%s' replaced plugin '%s' (the last registration wins; the "
                 "devices of '%s' left the node)", ev->resource, who, ev->other, ev->other);
        break;
    /* Findings about the plugins themselves: said even under --quiet. */
    case MK_KL_CLASH:
        mk_err("run", "error: %s", ev->msg);
        break;
    case MK_KL_STALE_LIST:
        mk_err("run", "warning: plugin '%s' sent %s's device list on the endpoint a later "
               "registration replaced; kubelet v1.20 takes it (%zu of %zu healthy now)", who,
               ev->resource, ev->healthy, ev->total);
        break;
    case MK_KL_DEVICES:
        progress(r, "%s: %zu of %zu devices healthy", ev->resource, ev->healthy, ev->total);
        break;
    case MK_KL_REJECTED:
    case MK_KL_STREAM_ENDED:
    case MK_KL_ERROR:
        progress(r, "kubelet: %s%s%s", ev->resource ? ev->resource : "",
                 ev->resource ? ": " : "", ev->msg ? ev->msg : "");
        break;
    }
}

/* --- waiting for registration ------------------------------------------------------ */

/* GPUs the plugin should advertise as nvidia.com/gpu: those not in MIG mode. */
static long long whole_gpus(const mk_universe *u)
{
    long long n = 0;
    for (size_t i = 0; i < u->ndev; i++)
        n += !u->dev[i].mig_enabled;
    return n;
}

/* Whether the view shows the plugin registered: with the built-in kubelet,
 * a resource with devices; through the API server, the node advertising
 * nvidia.com/gpu for every whole GPU (or a MIG resource when all are MIG). */
static int registered(const run *r, mk_nodesrc *src, uint64_t *version, size_t *nres)
{
    mk_nv_nodes ns;
    char err[256];
    if (src->snapshot(src, &ns, err, sizeof err) != 0)
        return 0;
    *version = ns.version;
    *nres = 0;
    int seen = 0;
    long long gpus = whole_gpus(r->u);
    for (size_t i = 0; i < ns.n; i++)
        for (size_t j = 0; j < ns.node[i].nres; j++) {
            const mk_nv_resource *res = &ns.node[i].res[j];
            if (!r->o.cluster) {
                (*nres)++;
                seen |= res->ndev > 0;
            } else if (strncmp(res->name, "nvidia.com/", 11) == 0) {
                (*nres)++;
                seen |= gpus ? strcmp(res->name, "nvidia.com/gpu") == 0 && res->capacity >= gpus
                             : strncmp(res->name, "nvidia.com/mig-", 15) == 0 && res->capacity > 0;
            }
        }
    mk_nv_nodes_free(&ns);
    return seen;
}

/* The plugins' last `lines` log lines, for a report to own; NULL when
 * out of memory. */
static char *log_tail(run *r, size_t lines)
{
    return mk_runplugins_log_tail(mk_plugset_runplugins(r->ps), mk_plugset_count(r->ps), lines);
}

/* Several plugins: whether every one has registered, lost its socket to
 * another or failed for good (the `plugins` suite reports it; the others
 * go on). The names of those
 * still awaited into `missing`; *failed: how many failed. */
static int each_registered(run *r, char *missing, size_t len, size_t *failed)
{
    size_t n = mk_plugset_count(r->ps), at = 0;
    *failed = 0;
    missing[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (mk_super_status(mk_plugset_super(r->ps, i), NULL, NULL, NULL, 0) == MK_SUPER_FAILED)
            (*failed)++;
        else if (!mk_plugset_settled(r->ps, i) && at < len)
            at += (size_t)snprintf(missing + at, len - at, "%s'%s'", at ? ", " : "",
                                   mk_plugset_name(r->ps, i));
    }
    return !missing[0];
}

/* Whether every plugin failed for good. The one plugin's crashes and last
 * exit, failed or not, into *crashes and last; with several, those of the
 * ones that failed. */
static int plugins_failed(run *r, unsigned *crashes, char *last, size_t len)
{
    size_t n = mk_plugset_count(r->ps), failed = 0, at = 0;
    *crashes = 0;
    last[0] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c;
        char one[600];
        int gone = mk_super_status(mk_plugset_super(r->ps, i), &c, NULL, one, sizeof one) ==
                   MK_SUPER_FAILED;
        failed += gone;
        if (n == 1) {
            *crashes = c;
            snprintf(last, len, "%s", one);
        } else if (gone && at < len) {
            *crashes += c;
            at += (size_t)snprintf(last + at, len - at, "%splugin '%s' %s", at ? "; " : "",
                                   mk_plugset_name(r->ps, i), one);
        }
    }
    return failed == n;
}

/* Waits until a resource with devices is registered, then until nothing
 * new arrives for half a second (a MIG plugin registers several resources
 * one after the other). 0 when registered, else an exit code with the
 * report's error case filled. */
static int wait_registered(run *r)
{
    mk_nodesrc *src = r->src;
    /* A --timeout that comes first ends the wait through mk_cancel, so that
     * the report names --timeout (the deadline here is only a backstop). */
    double deadline = r->start + (r->o.register_timeout < r->o.timeout ? r->o.register_timeout
                                                                       : r->o.timeout + 60);
    uint64_t seen = 0;
    size_t nres = 0;
    char err[512];
    char missing[512] = "";
    size_t failed = 0;
    while (!registered(r, src, &seen, &nres) ||
           !each_registered(r, missing, sizeof missing, &failed)) {
        unsigned crashes;
        char last[2400];
        if (plugins_failed(r, &crashes, last, sizeof last)) {
            progress_done();
            char *tail = log_tail(r, 60);
            mk_rcase *c = mk_report_error(&r->rep, "mokka-run", "plugin starts and registers",
                                          "%s%s and crashed %u time%s; %s registered",
                                          mk_plugset_several(r->ps) ? "" : "the plugin ", last,
                                          crashes, crashes == 1 ? "" : "s",
                                          mk_plugset_several(r->ps) ? "none" : "it never");
            if (c && tail)
                c->output = tail;
            else
                free(tail);
            return MK_EXIT_ENV;
        }
        if (mk_cancel || mk_now_s() >= deadline) {
            progress_done();
            char *tail = log_tail(r, 60);
            /* A plugin that crashed and is waiting to be started again
             * says so, not only that it did not register. */
            char crashed[3000] = "";
            if (*missing && mk_plugset_several(r->ps))
                snprintf(crashed, sizeof crashed, " (not registered: %s)", missing);
            else if (crashes)
                snprintf(crashed, sizeof crashed, " (it crashed %u time%s; last it %s)", crashes,
                         crashes == 1 ? "" : "s", last);
            mk_rcase *c =
                mk_cancel == SIGALRM
                ? mk_report_error(&r->rep, "mokka-run", "plugin starts and registers",
                                  "--timeout %gs ran out before the plugin registered%s",
                                  r->o.timeout, crashed)
                : mk_cancel
                ? mk_report_error(&r->rep, "mokka-run", "plugin starts and registers",
                                  "interrupted by %s before the plugin registered%s",
                                  strsignal(mk_cancel), crashed)
                : mk_report_error(&r->rep, "mokka-run", "plugin starts and registers",
                                  "the plugin did not register within %gs%s",
                                  r->o.register_timeout, crashed);
            if (c && tail) {
                mk_rcase_detail(c, *tail ? "last log lines of the plugin:\n%s"
                                         : "the plugin wrote nothing%s", tail);
                c->output = tail;
            } else {
                free(tail);
            }
            if (!mk_cancel)
                mk_err("run", "the plugin did not register within %gs%s", r->o.register_timeout,
                       crashed);
            return MK_EXIT_ENV;
        }
        /* On a terminal the status line updates in place; in a CI log one
         * line every 5 s says it is still waiting. */
        double waited = mk_now_s() - r->start;
        if (isatty(STDERR_FILENO) || waited - r->last_wait_line >= 5) {
            progress(r, "waiting for the plugin to register: %.1fs", waited);
            r->last_wait_line = waited;
        }
        src->wait_change(src, seen, 250, err, sizeof err);
    }
    for (double quiet_until = mk_now_s() + 0.5; mk_now_s() < quiet_until && !mk_cancel;) {
        uint64_t before = seen;
        src->wait_change(src, seen, 100, err, sizeof err);
        registered(r, src, &seen, &nres);
        if (seen != before)
            quiet_until = mk_now_s() + 0.5;
    }
    progress(r, "plugin registered %zu resource%s in %.2fs", nres, nres == 1 ? "" : "s",
             mk_now_s() - r->start);
    progress_done();
    return 0;
}

/* --- the run ----------------------------------------------------------------------- */

static void identify(void *ctx, const char *path, char *name, size_t len, char *shadowed,
                     size_t slen)
{
    run *r = ctx;
    mk_plugset_identify(r->ps, path, name, len, shadowed, slen);
}

static int open_kubelet(run *r, char *err, size_t errlen)
{
    mk_kubelet_opts ko = { .node_name = r->u->node, .on_event = on_kubelet, .event_ctx = r,
                           .identify = identify };
    if (!(r->kubelet = mk_kubelet_start(r->sb.kubelet_dir, &ko, err, errlen))) {
        mk_err("run", "built-in kubelet: %s", err);
        mk_report_error(&r->rep, "mokka-run", "built-in kubelet", "%s", err);
        return -1;
    }
    r->src = mk_kubelet_nodesrc(r->kubelet);
    return 0;
}

/* Cluster mode: the plugin registers with the node's own kubelet, and the
 * API server tells what the node advertises. */
static int open_cluster(run *r, char *err, size_t errlen)
{
    struct stat st;
    if (stat(mk_kubelet_dir(), &st) != 0) {
        snprintf(err, errlen, "%s does not exist: cluster mode runs the plugin under the "
                 "node's kubelet (run mokka on the node, e.g. in the DaemonSet of ci/; "
                 "MOKKA_KUBELET_DIR names another directory)", mk_kubelet_dir());
        mk_err("run", "%s", err);
        mk_report_error(&r->rep, "mokka-run", "node's kubelet", "%s", err);
        return -1;
    }
    mk_kube_opts ko = { .kubeconfig = r->o.kubeconfig, .context = r->o.context,
                        .node = r->u->node };
    /* Reaching the cluster must leave time for the report within --timeout. */
    double left_ms = (r->o.timeout - (mk_now_s() - r->start)) * 1000;
    if (left_ms < MK_KUBE_OPEN_TIMEOUT_MS)
        ko.open_timeout_ms = left_ms >= 1 ? (int)left_ms : 1;
    if (!(r->kube = mk_kube_open(&ko, err, errlen))) {
        mk_err("run", "%s", err);
        mk_report_error(&r->rep, "mokka-run", "cluster is reachable", "%s", err);
        return -1;
    }
    r->src = mk_kube_nodesrc(r->kube);
    char who[1024];
    mk_kube_describe(r->kube, who, sizeof who);
    mk_info("run", "node %s through %s", r->u->node, who);
    return 0;
}

/* --gfd: GFD beside the plugin, in the same sandbox and environment; the
 * suites then read the kubelet's view with GFD's labels. */
static int start_gfd(run *r, const mk_plugenv_opts *po)
{
    char err[1024];
    /* Several plugins: GFD labels as the first one serves. */
    const mk_plugin_spec *first = r->specs.n ? &r->specs.v[0] : NULL;
    const char *mig = first ? mk_plugin_mig_strategy(first->args, first->nargs, first->env)
                            : mk_plugin_mig_strategy(r->o.plugin_args, r->o.nplugin_args, r->o.env);
    if (first && !mig)
        mig = mk_plugin_mig_strategy(NULL, 0, r->o.env);
    /* In cluster mode the labels go on the Node, as NFD would put them. */
    mk_kube_opts ko = { .kubeconfig = r->o.kubeconfig, .context = r->o.context,
                        .verbose = r->o.verbose, .log = mk_log_as, .log_ctx = (void *)"run" };
    mk_gfd_start_opts go = { { r->o.gfd_path, NULL, NULL, mig,
                               r->o.gfd_args, r->o.ngfd_args },
                             po, &r->sb, r->run_dir, r->o.verbose, r->o.restart_limit, r->src,
                             r->o.cluster ? &ko : NULL, r->u->node };
    if (!(r->gfd = mk_gfd_start(&go, err, sizeof err))) {
        mk_err("run", "%s", err);
        mk_report_error(&r->rep, "mokka-run", "gpu-feature-discovery starts and labels", "%s", err);
        return -1;
    }
    r->src = mk_gfd_nodesrc(r->gfd);
    progress(r, "started %s %s", mk_gfd_path(r->gfd),
             r->o.cluster ? "labelling the Node" : r->sb.enabled ? "in the sandbox"
                                                   : "on the host's paths");
    progress_done();
    return 0;
}

/* GFD's last `lines` log lines, for a report to own; NULL when out of
 * memory. */
static char *gfd_log_tail(run *r, size_t lines)
{
    char *tail = malloc(65536);
    if (tail)
        mk_super_log_tail(mk_gfd_super(r->gfd), tail, 65536, lines);
    return tail;
}

/* Until GFD's first labels are in the view, so that a label: case without
 * within: sees them as it would on a labelled node. GFD does not wait for
 * the plugin, so neither does this: the plugin registers meanwhile. */
static int wait_labels(run *r)
{
    char err[1024];
    size_t n;
    double deadline = r->start + r->o.register_timeout;
    if (mk_gfd_wait_labels(r->gfd, deadline, &mk_cancel, &n, err, sizeof err) != 0) {
        mk_err("run", "%s", err);
        mk_rcase *c = mk_report_error(&r->rep, "mokka-run", "gpu-feature-discovery starts and labels",
                                      "%s", err);
        if (c)
            c->output = gfd_log_tail(r, 60);
        return MK_EXIT_ENV;
    }
    progress(r, "gpu-feature-discovery labelled the node: %zu labels in %.2fs", n,
             mk_now_s() - r->start);
    progress_done();
    return 0;
}

static int start(run *r)
{
    char err[1024], lib_dir[4096], lib_file[4200], why[512];
    /* Before anything starts: all of it goes when mokka goes, SIGKILL too. */
    const char *how = mk_tree_guard();
    if (r->o.verbose) {
        progress(r, "what mokka starts ends with it: %s", how);
        progress_done();
    }
    if (mk_lib_path(lib_dir, sizeof lib_dir, lib_file, sizeof lib_file, err, sizeof err)) {
        mk_err("run", "%s", err);
        mk_report_error(&r->rep, "mokka-run", "plugin starts and registers", "%s", err);
        return MK_EXIT_ENV;
    }
    int sandbox = r->o.no_sandbox ? MK_SANDBOX_OFF
                : r->o.cluster ? MK_SANDBOX_NODE_KUBELET : MK_SANDBOX_ON;
    if (sandbox && !mk_sandbox_available(why, sizeof why)) {
        if (r->o.cluster) {
            mk_err("run", "warning: the plugin and GFD run on the node's real paths (no mount "
                   "namespace: %s): they find no PCI sysfs, MIG capabilities or device nodes of "
                   "the virtual GPUs (a privileged pod has them)", why);
            sandbox = MK_SANDBOX_OFF;
        } else {
            mk_err("run", "no GPU-node sandbox here: %s. Run as root, allow unprivileged user "
                   "namespaces, or use --no-sandbox (real paths; only without a running "
                   "kubelet)", why);
            mk_report_error(&r->rep, "mokka-run", "sandbox", "no mount namespace: %s", why);
            return MK_EXIT_ENV;
        }
    }
    /* Cluster mode needs the node's kubelet directory to exist already:
     * look before preparing, which would make it. */
    if (r->o.cluster && open_cluster(r, err, sizeof err))
        return MK_EXIT_ENV;
    if (mk_sandbox_prepare(&r->sb, r->run_dir, r->u, sandbox, err, sizeof err) != 0) {
        mk_err("run", "%s", err);
        mk_report_error(&r->rep, "mokka-run", "sandbox", "%s", err);
        return MK_EXIT_ENV;
    }
    if (!r->o.cluster && open_kubelet(r, err, sizeof err))
        return MK_EXIT_ENV;
    /* Outside the sandbox a kubelet elsewhere (MOKKA_KUBELET_DIR) is the
     * plugin's to register with too; inside, it is mounted where the plugin
     * looks. */
    char kubelet_sock[4300];
    snprintf(kubelet_sock, sizeof kubelet_sock, "%s/kubelet.sock", r->sb.kubelet_dir);
    mk_plugenv_opts po = { .lib_file = lib_file, .lib_dir = lib_dir,
                           .config_path = r->o.config ? r->config_abs : NULL,
                           .state_dir = r->run_dir, .node_name = r->u->node, .extra = r->o.env,
                           .kubelet_socket = !sandbox && strcmp(r->sb.kubelet_dir, MK_KUBELET_DIR)
                                             ? kubelet_sock : NULL };
    if (r->o.cluster)
        mk_plugset_blind(r->ps);
    mk_plugset_opts so = { &r->specs, r->o.plugin, r->o.plugin_args, r->o.nplugin_args, r->o.env,
                           &po, &r->sb, r->run_dir, r->o.verbose, r->o.restart_limit };
    if (mk_plugset_start(r->ps, &so, err, sizeof err) != 0) {
        mk_err("run", "%s", err);
        mk_report_error(&r->rep, "mokka-run", "plugin starts and registers", "%s", err);
        return MK_EXIT_ENV;
    }
    const char *where = r->o.cluster ? "under the node's kubelet"
                      : sandbox ? "in the sandbox" : "on the host's paths";
    for (size_t i = 0; i < mk_plugset_count(r->ps); i++)
        if (mk_plugset_several(r->ps))
            progress(r, "started plugin '%s': %s %s", mk_plugset_name(r->ps, i),
                     mk_plugset_path(r->ps, i), where);
        else
            progress(r, "started %s %s", mk_plugset_path(r->ps, i), where);
    progress_done();
    if (r->o.gfd && (start_gfd(r, &po) != 0 || wait_labels(r) != 0))
        return MK_EXIT_ENV;
    return wait_registered(r);
}

/* restart-plugin under the built-in kubelet: the supervisor restarts the
 * plugin, then this waits until the new one has registered every resource
 * again and sent its first device list, so that the case checks the new
 * plugin and not the devices the old one left unhealthy. */
/* How many resources the plugin called name serves now (name NULL: all). */
static size_t served_by(mk_nodesrc *src, const char *name)
{
    mk_nv_nodes ns;
    char err[256];
    size_t n = 0;
    if (src->snapshot(src, &ns, err, sizeof err) != 0)
        return 0;
    for (size_t i = 0; i < ns.n; i++)
        for (size_t j = 0; j < ns.node[i].nres; j++)
            n += !name || (ns.node[i].res[j].plugin && strcmp(ns.node[i].res[j].plugin, name) == 0);
    mk_nv_nodes_free(&ns);
    return n;
}

static int restart_and_register(mk_suite_env *env, const char *name, char *err, size_t errlen)
{
    run *r = env->user;
    mk_nodesrc *src = mk_kubelet_nodesrc(r->kubelet);
    uint64_t seen = 0;
    size_t now_registered;
    char why[256];
    registered(r, src, &seen, &now_registered);
    /* A plugin another one replaced serves nothing now, yet registers again. */
    size_t want = served_by(src, name);
    if (!want)
        want = 1;
    unsigned regs0, lists0, regs, lists;
    mk_plugset_counts(r->ps, name, &regs0, &lists0);
    if (r->restart(env, name, err, errlen) != 0)
        return -1;
    double deadline = mk_now_s() + r->o.register_timeout;
    const char *who = name ? name : "the plugin";
    for (;;) {
        mk_plugset_counts(r->ps, name, &regs, &lists);
        if (regs - regs0 >= want && lists - lists0 >= want)
            return 0;
        unsigned crashes;
        char last[2400];
        size_t n = mk_plugset_count(r->ps);
        for (size_t i = 0; i < n; i++) {
            if (name && strcmp(mk_plugset_name(r->ps, i), name) != 0)
                continue;
            if (mk_super_status(mk_plugset_super(r->ps, i), &crashes, NULL, last, sizeof last) ==
                MK_SUPER_FAILED) {
                snprintf(err, errlen, "after the restart %s%s%s %s; it crashed %u time%s in all, "
                         "more than --restart-limit allows", n > 1 ? "plugin '" : "the plugin",
                         n > 1 ? mk_plugset_name(r->ps, i) : "", n > 1 ? "'" : "", last, crashes,
                         crashes == 1 ? "" : "s");
                return -1;
            }
        }
        if (mk_cancel || mk_now_s() >= deadline) {
            snprintf(err, errlen, "%s%s%s: %u of %zu resources registered again",
                     mk_cancel ? "cancelled while " : "", who,
                     mk_cancel ? " registered again" : " did not register again within "
                                                      "--register-timeout",
                     regs - regs0, want);
            return -1;
        }
        /* Events follow the view's changes closely: look again soon. */
        src->wait_change(src, seen, 50, why, sizeof why);
        registered(r, src, &seen, &now_registered);
    }
}

static int run_suites(run *r)
{
    mk_runenv env;
    unsigned caps = r->o.cluster ? MK_ENV_NODE_OBJECTS
                  : MK_ENV_DEVICE_LIST | (r->gfd ? MK_ENV_LABELS : 0);
    if (mk_runenv_init(&env, r->src, caps, r->u, r->run_dir, mk_plugset_runplugins(r->ps),
                       mk_plugset_count(r->ps)) != 0)
        return MK_EXIT_ENV;
    env.env.cancel = &mk_cancel;
    /* exec steps start from the (first) plugin's environment */
    mk_runenv_exec_in(&env, &r->sb, mk_plugset_envp(r->ps, 0));
    if (r->kubelet) {
        r->restart = env.env.restart_plugin;
        env.env.restart_plugin = restart_and_register;
        env.env.user = r;
    }
    for (size_t i = 0; i < r->nsuites && !mk_cancel; i++)
        mk_suite_run(r->suites[i], &env.env, &r->rep);
    mk_runenv_free(&env);
    return 0;
}

/* How GFD fared, once stopped: its crashes on stderr, an error case when it
 * crashed past --restart-limit while the suites ran (its labels stopped
 * following the universe), and its log after the plugin's in the first
 * suite's output. */
static void report_gfd(run *r)
{
    unsigned crashes;
    char last[600];
    mk_super_state st = mk_super_status(mk_gfd_super(r->gfd), &crashes, NULL, last, sizeof last);
    if (crashes && st != MK_SUPER_FAILED)
        mk_info("run", "gpu-feature-discovery crashed %u time%s during the run and was restarted "
                "(its log is in the report)", crashes, crashes == 1 ? "" : "s");
    mk_rsuite *s = r->rep.n ? r->rep.suites[0] : NULL;
    if (st == MK_SUPER_FAILED && s && strcmp(s->name, "mokka-run") != 0) {
        mk_rcase *c = mk_report_error(&r->rep, "mokka-run", "gpu-feature-discovery keeps running",
                                      "gpu-feature-discovery %s and crashed %u times, more than "
                                      "--restart-limit allows", last, crashes);
        if (c)
            c->output = gfd_log_tail(r, 60);
    }
    char *tail = gfd_log_tail(r, 200), *joined = NULL;
    if (s && tail && asprintf(&joined, "%s%s--- gpu-feature-discovery ---\n%s",
                              s->output ? s->output : "", s->output && *s->output ? "\n" : "",
                              tail) >= 0) {
        free(s->output);
        s->output = joined;
    }
    free(tail);
    mk_gfd_free(r->gfd);
    r->gfd = NULL;
}

/* Stops everything, writes the reports, cleans up; returns the exit code. */
static int finish(run *r, int rc)
{
    r->stopping = 1;
    mk_healwatch_stop(r->heal);
    int sig = mk_cancel && mk_cancel != SIGALRM ? mk_cancel : SIGTERM;
    size_t nplugins = mk_plugset_count(r->ps);
    /* What each plugin served, as the suites left it, before they stop. */
    mk_nv_nodes last_view = { 0 };
    char why[256];
    int have_view = r->kubelet && nplugins &&
                    r->src->snapshot(r->src, &last_view, why, sizeof why) == 0;
    if (r->gfd)
        mk_gfd_stop(r->gfd, sig);
    mk_plugset_stop(r->ps, sig, 10000);
    mk_rcase *ended = NULL;
    if (mk_cancel == SIGALRM)
        ended = mk_report_error(&r->rep, "mokka-run", "run finishes in time",
                                "the run took longer than --timeout %gs", r->o.timeout);
    else if (mk_cancel)
        ended = mk_report_error(&r->rep, "mokka-run", "run finishes",
                                "interrupted by %s", strsignal(mk_cancel));
    if (nplugins) {
        /* How the plugins took being stopped early. */
        if (ended)
            ended->output = log_tail(r, 60);
        for (size_t i = 0; i < nplugins; i++) {
            unsigned crashes;
            char last[600];
            mk_super_status(mk_plugset_super(r->ps, i), &crashes, NULL, last, sizeof last);
            if (crashes)
                mk_info("run", "%s%s%s crashed %u time%s during the run (last: %s)",
                        nplugins > 1 ? "plugin '" : "the plugin",
                        nplugins > 1 ? mk_plugset_name(r->ps, i) : "", nplugins > 1 ? "'" : "",
                        crashes, crashes == 1 ? "" : "s", last);
        }
        mk_rsuite *s = r->rep.n ? r->rep.suites[0] : NULL;
        if (s && !s->output)
            s->output = log_tail(r, nplugins > 1 ? 100 : 200);
        mk_plugset_report(r->ps, &r->rep, have_view && last_view.n ? &last_view.node[0] : NULL);
    }
    if (have_view)
        mk_nv_nodes_free(&last_view);
    if (r->gfd)
        report_gfd(r);
    mk_debugsrv_stop(r->debug);
    if (r->kubelet)
        mk_kubelet_stop(r->kubelet);
    if (r->kube)
        mk_kube_close(r->kube);
    r->rep.time_ms = (long long)((mk_now_s() - r->start) * 1000);
    if ((rc == 0 || r->rep.n) && mk_outputs_write(&r->o.out, "run", &r->rep) != 0)
        rc = MK_EXIT_ENV;
    if (rc == 0)
        rc = mk_report_exit_code(&r->rep);
    if (mk_cancel)
        rc = MK_EXIT_ENV;
    if (r->run_dir[0]) {
        if (r->o.keep) {
            mk_statedir_keep(r->run_dir);
            mk_info("run", "run directory kept: %s (live state, %s)", r->run_dir,
                    nplugins > 1 ? "plugin-NAME.log" : "plugin.log");
        } else
            mk_statedir_remove(r->run_dir);
    }
    return rc;
}

/* In cluster mode the held node also applies the cluster's GPUFaults to
 * the plugin's live state. Without them (no CRD, no access) the plugin
 * still serves: said once, as a warning. */
static mk_fagent *start_agent(run *r)
{
    char path[4200], err[2048];
    snprintf(path, sizeof path, "%s/state", r->run_dir);
    mk_fagent_opts fo = { .kubeconfig = r->o.kubeconfig, .context = r->o.context,
                          .node = r->u->node, .state_path = path, .mode = "run",
                          .verbose = r->o.verbose, .log = mk_log_as,
                          .log_ctx = (void *)"run" };
    mk_fagent *a = mk_fagent_start(&fo, err, sizeof err);
    if (!a)
        mk_err("run", "warning: GPUFaults will not be applied to this node: %s", err);
    else
        mk_info("run", "applying the cluster's GPUFaults that select node %s", r->u->node);
    return a;
}

/* --hold: from the plugins' start, what they saw of the GPUs' health, so
 * that one healthy again restarts them while held (run/healwatch.c). */
static mk_healwatch *watch_heals(run *r)
{
    char err[256];
    mk_healwatch_opts ho = { r->run_dir, r->u, mk_plugset_runplugins(r->ps),
                             mk_plugset_count(r->ps),
                             r->kubelet ? mk_kubelet_nodesrc(r->kubelet) : NULL, mk_log_as,
                             (void *)"run" };
    mk_healwatch *h = mk_healwatch_start(&ho, err, sizeof err);
    if (!h)
        mk_err("run", "warning: GPUs healthy again will not restart the plugin: %s", err);
    return h;
}

/* --hold: the suites are done; the plugin serves the node until a signal. */
static void hold(run *r)
{
    char err[2048];
    mk_info("run", "suites done; holding the plugin until SIGINT or SIGTERM");
    mk_fagent *agent = r->o.cluster && !r->o.no_agent ? start_agent(r) : NULL;
    mk_healwatch_arm(r->heal);
    while (!mk_cancel) {
        unsigned crashes;
        char last[2400];
        plugins_failed(r, &crashes, last, sizeof last);
        if (*last && (mk_plugset_several(r->ps) ||
                      mk_super_status(mk_plugset_super(r->ps, 0), NULL, NULL, NULL, 0) ==
                      MK_SUPER_FAILED)) {
            mk_err("run", "%s failed while held: %s", mk_plugset_several(r->ps) ? "a plugin"
                   : "the plugin", last);
            mk_report_error(&r->rep, "mokka-run", "plugin keeps running", "%s failed while held: "
                            "%s", mk_plugset_several(r->ps) ? "a plugin" : "the plugin", last);
            break;
        }
        if (agent && mk_fagent_failed(agent, err, sizeof err)) {
            mk_err("run", "warning: GPUFaults are no longer applied to this node: %s", err);
            mk_fagent_stop(agent);
            agent = NULL;
        }
        usleep(200000);
    }
    mk_fagent_stop(agent);
    mk_healwatch_stop(r->heal);
    r->heal = NULL;
    mk_cancel = 0; /* a requested end, not an interruption of the suites */
}

/* Inputs that do not load end a DaemonSet's pod before it serves: said in
 * a Warning Event on the pod as well as in its log. */
static void tell_pod(run *r)
{
    char err[1024];
    mk_kube_opts ko = { .kubeconfig = r->o.kubeconfig, .context = r->o.context,
                        .log = mk_log_as, .log_ctx = (void *)"run" };
    char *msg = NULL;
    if (!r->bad_input.len || asprintf(&msg, "mokka run: the inputs do not load:\n%s",
                                      mk_sb_str(&r->bad_input)) < 0)
        return;
    int rc = mk_podevent_warn(&ko, "MokkaBadInput", msg, err, sizeof err);
    if (rc == 0)
        mk_info("run", "said so in a Warning Event (MokkaBadInput) on pod %s/%s",
                getenv("POD_NAMESPACE"), getenv("POD_NAME"));
    else if (rc < 0)
        mk_err("run", "warning: cannot write the pod's Event: %s", err);
    free(msg);
}

static void release(run *r)
{
    for (size_t i = 0; i < r->nsuites; i++)
        mk_suite_free(r->suites[i]);
    free(r->suites);
    mk_universe_free(r->u);
    mk_plugset_free(r->ps);
    mk_plugin_specs_free(&r->specs);
    mk_report_free(&r->rep);
    mk_sb_free(&r->bad_input);
    free(r->o.suites);
    free(r->o.env);
    free(r->o.gfd_args);
    free(r->o.add_plugins);
}

int cmd_run(int argc, char **argv)
{
    run r;
    memset(&r, 0, sizeof r);
    r.start = mk_now_s();
    r.ps = mk_plugset_new();
    mk_report_init(&r.rep);
    int rc = parse_args(argc, argv, &r.o);
    if (rc == 0)
        rc = load_inputs(&r);
    if (rc == 0)
        rc = cluster_node_ok(&r);
    if (rc == MK_EXIT_USAGE && r.o.cluster)
        tell_pod(&r);
    if (rc != 0) {
        release(&r);
        return rc == -2 ? MK_EXIT_OK : rc;
    }
    char err[1024];
    if (mk_statedir_new("run", r.run_dir, sizeof r.run_dir, err, sizeof err) != 0 ||
        (r.o.config && mk_statedir_copy_config(r.run_dir, r.config_abs, err, sizeof err) != 0)) {
        mk_err("run", "%s", err);
        release(&r);
        return MK_EXIT_ENV;
    }
    mk_cancel_start(r.o.timeout);
    if (r.u->debug)
        r.debug = mk_debugsrv_start("run", r.u->debug_listen, r.run_dir);
    rc = start(&r);
    if (rc == 0 && r.o.hold)
        r.heal = watch_heals(&r);
    if (rc == 0)
        rc = run_suites(&r);
    mk_cancel_stop();
    if (rc == 0 && r.o.hold && !mk_cancel)
        hold(&r);
    rc = finish(&r, rc);
    release(&r);
    return rc;
}
