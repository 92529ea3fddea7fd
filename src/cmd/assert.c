/* assert.c - `mokka assert`: the suites of `mokka run` against real nodes,
 * through the Kubernetes API server (kube.h), with the same reports and
 * exit codes.
 *
 * One LIST and one WATCH serve every node selected by --node or
 * --selector; each case is checked on each node. The API server has node
 * objects, not the plugin's device list, so device-level expectations are
 * errors here. Suites with fleet expectations have the pods watched too
 * (one more LIST and WATCH, all of them: not a request per node). Faults
 * go to the nodes' Mokka agents as GPUFaults (an inject
 * with nodes:, src/fault/), or, with --state-dir, into a plugin's live state
 * on this machine (as in the DaemonSet in ci/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmds.h"
#include "commands.h"
#include "fault/fault.h"
#include "kube/kube.h"
#include "report/report.h"
#include "run/run.h"
#include "suite/suite.h"
#include "units.h"

const char cmd_assert_summary[] = "check suites against nodes through the Kubernetes API server";
const char cmd_assert_help[] =
    "Usage: mokka assert --suite FILE [OPTIONS]\n"
    "\n"
    "Checks suites (the format of `mokka run`) against real nodes through the\n"
    "API server: capacity and allocatable of any resource, conditions, labels,\n"
    "annotations and taints, with `within:` for things that become true. With\n"
    "several nodes each case gives one result per node; `fleet:` checks them\n"
    "all at once, with the pods bound to them. An inject with nodes:\n"
    "becomes a GPUFault for those nodes' Mokka agents, waited for until applied\n"
    "and deleted when the check ends.\n"
    "\n"
    "Options:\n"
    "  -s, --suite FILE           a suite to check; repeatable (required)\n"
    "  -n, --node NAME            only this node\n"
    "  -l, --selector SELECTOR    nodes with these labels (k=v,k2!=v2,k3)\n"
    "      --kubeconfig FILE      cluster access (default: $KUBECONFIG,\n"
    "                             ~/.kube/config, else in-cluster)\n"
    "      --context NAME         kubeconfig context (default: the current one)\n"
    "      --junit FILE           write JUnit XML to FILE\n"
    "      --report json[=FILE]   write the JSON report to stdout or FILE\n"
    "  -t, --timeout DURATION     limit for the whole check (default 10m)\n"
    "  -c, --config FILE          a Mokka config whose GPUs the suites mean:\n"
    "                             gives ${gpus}, ${uuid.N}, ...\n"
    "      --var NAME=VALUE       a ${NAME} for the suites; repeatable\n"
    "      --state-dir DIR        a plugin's live state on this machine, so that\n"
    "                             inject: (without nodes:) and set: work\n"
    "  -v, --verbose              show requests, retries and re-lists\n"
    "  -q, --quiet                only the summary and errors\n"
    "      --color WHEN           auto, always or never\n"
    "  -h, --help                 show this help\n"
    "\n"
    "Exit status: 0 every check passed, 1 a check failed, 2 usage or config\n"
    "error, 3 the cluster could not be reached or read (a report is still\n"
    "written).\n"
    "\n"
    "Example:\n"
    "  mokka assert --selector nvidia.com/gpu.present=true \\\n"
    "      --suite gpu-nodes.yaml --junit gpu-nodes.xml\n";

typedef struct assert_opts {
    const char **suites, **vars;
    size_t nsuites, nvars;
    const char *config, *state_dir;
    mk_kube_opts kube;
    mk_outputs out;
    double timeout;
} assert_opts;

/* How long an inject with nodes: waits for the agents to apply it. */
#define INJECT_WAIT_MS 60000
/* A run's GPUFaults outlive --timeout by this much, should mokka be killed. */
#define FAULT_TTL_EXTRA_MS (10 * 60 * 1000LL)

static int inject_nodes(mk_suite_env *env, const mk_inject *inj, char *err, size_t errlen)
{
    return mk_gfsuite_inject(env->user, inj, INJECT_WAIT_MS, err, errlen);
}

static int add_str(const char ***v, size_t *n, const char *s)
{
    const char **grown = realloc(*v, (*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    *v = grown;
    (*v)[(*n)++] = s;
    return 0;
}

/* --var NAME=VALUE: a name ${NAME} can refer to, of any length. */
static int var_opt(assert_opts *o, const char *arg)
{
    enum { SHOWN = 64 };
    size_t len = strcspn(arg, "=");
    if (!arg[len] || len == 0)
        return mk_usage_error("assert", "--var takes NAME=VALUE, not '%s'", arg);
    if (!mk_suite_var_name_ok(arg, len))
        return mk_usage_error("assert", "--var '%.*s%s': a name has only letters, digits, '.', "
                              "'_' and '-' (what ${name} can refer to)",
                              (int)(len > SHOWN ? SHOWN : len), arg, len > SHOWN ? "..." : "");
    return add_str(&o->vars, &o->nvars, arg) ? MK_EXIT_ENV : 0;
}

static int parse_args(int argc, char **argv, assert_opts *o)
{
    enum { O_KUBECONFIG = 1, O_CONTEXT, O_JUNIT, O_REPORT, O_VAR, O_STATEDIR };
    static const struct option longopts[] = {
        {"suite", required_argument, 0, 's'}, {"node", required_argument, 0, 'n'},
        {"selector", required_argument, 0, 'l'}, {"kubeconfig", required_argument, 0, O_KUBECONFIG},
        {"context", required_argument, 0, O_CONTEXT}, {"junit", required_argument, 0, O_JUNIT},
        {"report", required_argument, 0, O_REPORT}, {"timeout", required_argument, 0, 't'},
        {"config", required_argument, 0, 'c'}, {"var", required_argument, 0, O_VAR},
        {"state-dir", required_argument, 0, O_STATEDIR}, {"verbose", no_argument, 0, 'v'},
        MK_COMMON_OPTS, {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("assert");
    const char *why;
    char err[1024];
    int c;
    o->timeout = 600;
    while ((c = getopt_long(argc, argv, "s:n:l:t:c:vqh", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (add_str(&o->suites, &o->nsuites, optarg))
                return MK_EXIT_ENV;
            break;
        case 'n':
            /* Checked here: a name the API refuses would select nothing. */
            if (mk_kname_check("--node", "node", optarg, err, sizeof err))
                return mk_usage_error("assert", "%s", err);
            o->kube.node = optarg;
            break;
        case 'l': o->kube.selector = optarg; break;
        case O_KUBECONFIG: o->kube.kubeconfig = optarg; break;
        case O_CONTEXT: o->kube.context = optarg; break;
        case O_JUNIT: o->out.junit = optarg; break;
        case O_REPORT:
            if (mk_outputs_report_opt(&o->out, "assert", optarg))
                return MK_EXIT_USAGE;
            break;
        case 't':
            if (mk_parse_duration(optarg, &o->timeout, &why) != 0 || o->timeout <= 0)
                return mk_usage_error("assert", "--timeout '%s': %s", optarg, why);
            break;
        case 'c': o->config = optarg; break;
        case O_VAR: {
            int rc = var_opt(o, optarg);
            if (rc != 0)
                return rc;
            break;
        }
        case O_STATEDIR: o->state_dir = optarg; break;
        case 'v': o->kube.verbose = 1; break;
        case 'q': mk_quiet = 1; break;
        default: {
            int rc = mk_common_opt(self, c == 'h' ? MK_OPT_HELP : c, optarg);
            if (rc >= 0)
                return rc == MK_EXIT_OK ? -2 : rc;
        }
        }
    }
    if (optind < argc)
        return mk_usage_error("assert", "unexpected argument '%s'", argv[optind]);
    if (!o->nsuites)
        return mk_usage_error("assert", "give at least one --suite FILE");
    if (o->state_dir && !o->config)
        return mk_usage_error("assert", "--state-dir needs --config (the universe the plugin runs on)");
    return 0;
}

/* Loads every suite (and the config); all problems are printed. */
static int load(const assert_opts *o, mk_suite **suites, mk_universe **u)
{
    mk_diags d;
    char line[2048];
    mk_diags_init(&d);
    for (size_t i = 0; i < o->nsuites; i++)
        suites[i] = mk_suite_load(o->suites[i], &d);
    if (o->config)
        *u = mk_universe_load(o->config, o->kube.node, &d);
    for (size_t i = 0; i < d.n; i++) {
        mk_diag_format(&d.v[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    int bad = d.errors > 0;
    mk_diags_free(&d);
    return bad ? MK_EXIT_USAGE : 0;
}

/* With a selector that matches nothing yet, wait for nodes (a cluster that
 * is still coming up) until the deadline; none then is an error. */
static int wait_nodes(mk_nodesrc *src, const assert_opts *o, mk_report *rep, time_t deadline)
{
    char err[512];
    for (;;) {
        mk_nv_nodes ns;
        if (src->snapshot(src, &ns, err, sizeof err) != 0) {
            mk_report_error(rep, "mokka-assert", "nodes are readable", "%s", err);
            return MK_EXIT_ENV;
        }
        size_t n = ns.n;
        uint64_t version = ns.version;
        mk_nv_nodes_free(&ns);
        if (n > 0)
            return 0;
        if (mk_cancel || time(NULL) >= deadline) {
            mk_report_error(rep, "mokka-assert", "nodes are selected",
                            "no node matches %s%s%s%s", o->kube.node ? "--node " : "",
                            o->kube.node ? o->kube.node : "",
                            o->kube.node && o->kube.selector ? " and " : "",
                            o->kube.selector ? o->kube.selector : "");
            return MK_EXIT_ENV;
        }
        if (src->wait_change(src, version, 1000, err, sizeof err) < 0) {
            mk_report_error(rep, "mokka-assert", "nodes are readable", "%s", err);
            return MK_EXIT_ENV;
        }
    }
}

/* The pods to watch for the suites' fleet expectations: none, those bound
 * to --node, or all (also when pods not yet bound are asked about). */
static int pods_needed(const assert_opts *o, mk_suite **suites)
{
    unsigned needs = 0;
    for (size_t i = 0; i < o->nsuites; i++)
        needs |= mk_suite_fleet_needs(suites[i]);
    if (!needs)
        return MK_KUBE_PODS_NONE;
    return o->kube.node && !(needs & MK_FLEET_NEEDS_UNSCHEDULED) ? MK_KUBE_PODS_ON_NODE
                                                                  : MK_KUBE_PODS_ALL;
}

/* Where the pods were watched anyway: the fleet's totals once the suites
 * ran, on the line before the requests' counts. */
static void fleet_summary(mk_nodesrc *src)
{
    char line[1024];
    if (mk_suite_fleet_summary(src, "nvidia.com/gpu", line, sizeof line) == 0)
        mk_info("assert", "fleet: %s", line);
}

static int check(const assert_opts *o, mk_suite **suites, const mk_universe *u, mk_report *rep)
{
    char err[1024], who[1024];
    mk_kube_opts ko = o->kube;
    ko.pods = pods_needed(o, suites);
    ko.log = mk_log_as;
    ko.log_ctx = (void *)"assert";
    /* Reaching the cluster must leave time for the report within --timeout
     * (the watchdog only marks the run cancelled; it cannot cut a request). */
    if (o->timeout * 1000 < MK_KUBE_OPEN_TIMEOUT_MS)
        ko.open_timeout_ms = o->timeout * 1000 >= 1 ? (int)(o->timeout * 1000) : 1;
    mk_kube *k = mk_kube_open(&ko, err, sizeof err);
    if (!k) {
        mk_err("assert", "%s", err);
        mk_report_error(rep, "mokka-assert", "cluster is reachable", "%s", err);
        return MK_EXIT_ENV;
    }
    mk_kube_describe(k, who, sizeof who);
    mk_info("assert", "checking nodes through %s", who);
    mk_runenv env;
    int rc = MK_EXIT_ENV;
    unsigned caps = MK_ENV_NODE_OBJECTS | (ko.pods ? MK_ENV_PODS : 0);
    if (mk_runenv_init(&env, mk_kube_nodesrc(k), caps, u, o->state_dir, NULL, 0) == 0) {
        rc = 0;
        for (size_t i = 0; i < o->nvars && rc == 0; i++)
            rc = mk_runenv_var(&env, o->vars[i]) ? MK_EXIT_ENV : 0;
        env.env.cancel = &mk_cancel;
        mk_gfsuite *faults = mk_gfsuite_new(o->kube.kubeconfig, o->kube.context,
                                            (long long)(o->timeout * 1000) + FAULT_TTL_EXTRA_MS,
                                            &mk_cancel);
        env.env.inject_nodes = inject_nodes;
        env.env.user = faults;
        if (rc == 0)
            rc = wait_nodes(env.env.src, o, rep, time(NULL) + (time_t)o->timeout);
        for (size_t i = 0; i < o->nsuites && rc == 0 && !mk_cancel; i++)
            mk_suite_run(suites[i], &env.env, rep);
        if (ko.pods && rc == 0)
            fleet_summary(env.env.src);
        if (mk_gfsuite_cleanup(faults))
            mk_report_error(rep, "mokka-assert", "GPUFaults are cleaned up",
                            "some GPUFaults this run made could not be deleted (see above)");
        mk_gfsuite_free(faults);
        mk_runenv_free(&env);
    }
    mk_kube_counts counts;
    mk_kube_stats(k, &counts);
    mk_info("assert", "%lu list%s, %lu watch%s, %lu retr%s", counts.lists, counts.lists == 1 ? "" : "s",
            counts.watches, counts.watches == 1 ? "" : "es", counts.retries,
            counts.retries == 1 ? "y" : "ies");
    mk_kube_close(k);
    return rc;
}

int cmd_assert(int argc, char **argv)
{
    assert_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    mk_suite **suites = NULL;
    mk_universe *u = NULL;
    if (rc == 0 && !(suites = calloc(o.nsuites, sizeof *suites)))
        rc = MK_EXIT_ENV;
    if (rc == 0)
        rc = load(&o, suites, &u);
    if (rc == 0) {
        mk_report rep;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        mk_report_init(&rep);
        mk_cancel_start(o.timeout);
        rc = check(&o, suites, u, &rep);
        mk_cancel_stop();
        if (mk_cancel == SIGALRM)
            mk_report_error(&rep, "mokka-assert", "check finishes in time",
                            "the check took longer than --timeout %.0fs", o.timeout);
        else if (mk_cancel)
            mk_report_error(&rep, "mokka-assert", "check finishes", "interrupted by %s",
                            strsignal(mk_cancel));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        rep.time_ms = (long long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        if (mk_outputs_write(&o.out, "assert", &rep) != 0)
            rc = MK_EXIT_ENV;
        if (rc == 0)
            rc = mk_report_exit_code(&rep);
        if (mk_cancel)
            rc = MK_EXIT_ENV;
        mk_report_free(&rep);
    }
    for (size_t i = 0; suites && i < o.nsuites; i++)
        mk_suite_free(suites[i]);
    free(suites);
    mk_universe_free(u);
    free(o.suites);
    free(o.vars);
    return rc == -2 ? MK_EXIT_OK : rc;
}
