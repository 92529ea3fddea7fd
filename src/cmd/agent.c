/* agent.c - `mokka agent`: a node agent without a plugin. It keeps a live
 * state for the node's universe (or attaches to one) and applies the
 * cluster's GPUFault objects to it (fault/agent.c) until a signal. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bundle/bundle.h"
#include "config/config.h"
#include "fault/fault.h"
#include "smi/smi.h"
#include "stateview/stateview.h"
#include "cmds.h"
#include "commands.h"

const char cmd_agent_summary[] = "apply the cluster's GPUFault objects to this node's mock GPUs";
const char cmd_agent_help[] =
    "Usage: mokka agent [OPTIONS]\n"
    "\n"
    "A node's fault agent without a device plugin. It keeps a live state for the\n"
    "GPU config (or attaches to the one in --state-dir), watches the cluster's\n"
    "GPUFault objects and this node's Node object through the API server,\n"
    "applies every fault that selects the node within a second, clears it when\n"
    "it is deleted or expires, and says what it did in the node's GPUFaultReport\n"
    "(ci/deploy/gpufault-crd.yaml defines both). Programs on the mock that use\n"
    "the same state (MOKKA_STATE_DIR) see the faults. Runs until SIGINT or\n"
    "SIGTERM. `mokka run --cluster --hold` does the same beside the plugin.\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE      GPU config (default: $MOCK_CONFIG_PATH, else the\n"
    "                         built-in 8 x A100-SXM4-40GB)\n"
    "  -s, --state-dir DIR    the live-state directory: the state in it, or a new\n"
    "                         one made there (kept); default: a fresh one, removed\n"
    "                         at exit; one agent per directory\n"
    "  -n, --node NAME        this node (default: $MOKKA_NODE_NAME, else $NODE_NAME,\n"
    "                         else the host name)\n"
    "      --kubeconfig FILE  cluster access (default: $KUBECONFIG, ~/.kube/config,\n"
    "                         else the in-cluster service account)\n"
    "      --context NAME     kubeconfig context (default: the current one)\n"
    "  -v, --verbose          requests, watches and re-lists too\n"
    MK_HELP_COMMON
    "\n"
    "Exit codes: 0 stopped by SIGINT or SIGTERM; 2 usage error or invalid config;\n"
    "3 the cluster cannot be reached, GPUFaults cannot be watched, the live\n"
    "state cannot be made, or another agent uses the state directory.\n";

enum { OPT_KUBECONFIG = 0x1700, OPT_CONTEXT };

typedef struct agent_opts {
    const char *config, *state_dir, *node, *kubeconfig, *context;
    int verbose;
} agent_opts;

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig)
{
    stop_sig = sig;
}

static int parse(int argc, char **argv, agent_opts *o)
{
    static const struct option opts[] = {
        {"config", required_argument, 0, 'c'}, {"state-dir", required_argument, 0, 's'},
        {"node", required_argument, 0, 'n'}, {"kubeconfig", required_argument, 0, OPT_KUBECONFIG},
        {"context", required_argument, 0, OPT_CONTEXT}, {"verbose", no_argument, 0, 'v'},
        MK_COMMON_OPTS, {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("agent");
    int c, rc;
    while ((c = getopt_long(argc, argv, "c:s:n:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': o->config = optarg; break;
        case 's': o->state_dir = optarg; break;
        case 'n': o->node = optarg; break;
        case OPT_KUBECONFIG: o->kubeconfig = optarg; break;
        case OPT_CONTEXT: o->context = optarg; break;
        case 'v': o->verbose = 1; break;
        default:
            if ((rc = mk_common_opt(self, c, optarg)) >= 0)
                return rc == 0 ? -2 : rc;
        }
    }
    if (optind < argc)
        return mk_usage_error("agent", "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* The state to apply faults to: DIR/state when it is there, else one made
 * by loading the library on the universe, as a plugin would; the library
 * stays loaded, so the agent is attached to its state as long as it runs. */
static int make_state(const agent_opts *o, mk_nvml *nv, char *dir, size_t dirlen, char *path,
                      size_t pathlen, int *fresh)
{
    char err[1024] = "", libdir[4096], lib[4200];
    *fresh = !o->state_dir;
    if (o->state_dir) {
        if (mk_mkdir_p(o->state_dir, 0755, err, sizeof err) != 0 || !realpath(o->state_dir, dir)) {
            mk_err("agent", "state directory %s: %s", o->state_dir, err[0] ? err : strerror(errno));
            return MK_EXIT_ENV;
        }
    } else if (mk_statedir_new("agent", dir, dirlen, err, sizeof err) != 0) {
        mk_err("agent", "%s", err);
        return MK_EXIT_ENV;
    }
    snprintf(path, pathlen, "%s/state", dir);
    if (o->state_dir && access(path, F_OK) == 0)
        return 0;
    int rc = mk_config_prepare("agent", o->config);
    if (rc)
        return rc;
    if (setenv("MOKKA_STATE_DIR", dir, 1) || setenv("MOKKA_CLI", "agent", 1) ||
        (o->node && setenv("MOKKA_NODE_NAME", o->node, 1)) ||
        mk_lib_path(libdir, sizeof libdir, lib, sizeof lib, err, sizeof err) ||
        mk_nvml_open(nv, lib, err, sizeof err)) {
        mk_err("agent", "cannot make the live state in %s: %s", dir, err[0] ? err : strerror(errno));
        return MK_EXIT_ENV;
    }
    return 0;
}

static int serve(const agent_opts *o, const char *node, const char *dir, const char *path)
{
    char err[2048];
    mk_fagent_opts fo = { .kubeconfig = o->kubeconfig, .context = o->context, .node = node,
                          .state_path = path, .mode = "agent", .verbose = o->verbose,
                          .log = mk_log_as, .log_ctx = (void *)"agent" };
    mk_fagent *a = mk_fagent_start(&fo, err, sizeof err);
    if (!a) {
        mk_err("agent", "%s", err);
        return MK_EXIT_ENV;
    }
    mk_info("agent", "node %s: applying GPUFaults to the live state in %s; until SIGINT or SIGTERM",
            node, dir);
    int rc = 0;
    while (!stop_sig && rc == 0) {
        if (mk_fagent_failed(a, err, sizeof err)) {
            mk_err("agent", "the watch failed: %s", err);
            rc = MK_EXIT_ENV;
        }
        usleep(200000);
    }
    mk_fagent_stop(a);
    return rc;
}

int cmd_agent(int argc, char **argv)
{
    agent_opts o = { 0 };
    int rc = parse(argc, argv, &o), fresh = 0;
    if (rc)
        return rc == -2 ? MK_EXIT_OK : rc;
    char node[1024], dir[4096], path[4200], err[1024];
    /* The name the library derives `uuid: auto` from, so that a GPUFault
     * naming a UUID `mokka render` shows for the node finds its GPU. */
    const char *from = mk_node_name(node, sizeof node, o.node);
    /* The name goes into the path of the node's report, and selects the Node. */
    if (mk_kname_check(from ? from : "--node", "node", node, err, sizeof err))
        return mk_usage_error("agent", "%s", err);
    struct sigaction sa = { .sa_handler = on_stop };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    mk_nvml nv = { 0 };
    if ((rc = make_state(&o, &nv, dir, sizeof dir, path, sizeof path, &fresh)) == 0)
        rc = serve(&o, node, dir, path);
    if (nv.dl)
        mk_nvml_close(&nv);
    if (fresh && dir[0])
        mk_statedir_remove(dir);
    return rc;
}
