/* fleet.c - `mokka fleet`: a GPU cluster on one machine. Registers many
 * virtual GPU nodes with a real API server and keeps them alive (leases,
 * pods, GPUFaults: src/fleet/) until a signal or --for, saying how it goes. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fleet/fleet.h"
#include "util/util.h"
#include "cmds.h"
#include "commands.h"

const char cmd_fleet_summary[] = "run many virtual GPU nodes against a real API server";
const char cmd_fleet_help[] =
    "Usage: mokka fleet [OPTIONS]\n"
    "\n"
    "A GPU cluster on one machine: registers --nodes virtual GPU nodes with the\n"
    "cluster's API server and keeps them alive until SIGINT or SIGTERM (or --for).\n"
    "Each node is what a node with NVIDIA's device plugin and gpu-feature-discovery\n"
    "is to the cluster: a Node whose capacity and allocatable hold the plugin's\n"
    "resources (MIG ones under --mig-strategy), GFD's labels, a kubelet's conditions\n"
    "and a Lease renewed every 10 s. Pods any scheduler binds to a node are admitted\n"
    "as the kubelet's device manager admits them: devices from the node's healthy\n"
    "free ones, chosen as the plugin's preferred allocation, written to the pod's\n"
    "annotation mokka.io/devices, status Running; a pod that does not fit fails with\n"
    "UnexpectedAdmissionError. A pod annotated mokka.io/run-time=DURATION succeeds\n"
    "after that long. GPUFaults apply to the nodes as to real ones (one watch for\n"
    "the fleet). Nodes carry the label mokka.io/fleet=NAME; a fleet that starts\n"
    "again takes back the nodes and pods of its name.\n"
    "\n"
    "Options:\n"
    "  -N, --nodes N          how many nodes (named PREFIX0000, PREFIX0001, ...)\n"
    "  -c, --config FILE      the nodes' GPU config; `uuid: auto` follows each node's\n"
    "                         name (default: $MOCK_CONFIG_PATH, else the built-in\n"
    "                         8 x A100-SXM4-40GB)\n"
    "      --pool NAME=COUNT[:FILE]\n"
    "                         COUNT nodes PREFIXNAME-0000... on FILE (default: --config),\n"
    "                         labelled mokka.io/pool=NAME; repeat for several pools\n"
    "                         (instead of --nodes)\n"
    "      --node-config DIR  NODE.yaml in DIR is that node's config, before the others\n"
    "      --prefix PREFIX    node names start so (default: gpu-node-)\n"
    "      --name NAME        the fleet's name, label mokka.io/fleet (default: fleet)\n"
    "      --labels K=V,...   more labels on every node\n"
    "      --mig-strategy S   none (default), single or mixed, as the plugin's\n"
    "      --no-gfd           leave out gpu-feature-discovery's labels\n"
    "      --take-over        take nodes of the fleet's names that are not its own\n"
    "                         (default: refuse to start)\n"
    "      --on-stop WHAT     delete (default): remove the nodes; keep: leave them\n"
    "                         NotReady for the next fleet of this name\n"
    "      --for DURATION     stop after this long (30s, 5m, 1h)\n"
    "      --state-dir DIR    the nodes' live states (default: /tmp/mokka-UID/fleet-NAME)\n"
    "      --workers N        connections for writes (default: 4)\n"
    "      --stats FILE       keep the fleet's numbers there as JSON (requests, leases,\n"
    "                         pods, peak memory), rewritten every 2 s and at the end\n"
    "      --kubeconfig FILE  cluster access (default: $KUBECONFIG, ~/.kube/config,\n"
    "                         else the in-cluster service account)\n"
    "      --context NAME     kubeconfig context (default: the current one)\n"
    "  -v, --verbose          requests, watches and re-lists too\n"
    MK_HELP_COMMON
    "\n"
    "Exit codes: 0 stopped by SIGINT, SIGTERM or --for; 2 usage error, a config\n"
    "that does not load or fit a node, or node names taken by other nodes;\n"
    "3 the cluster cannot be reached or a watch failed for good.\n";

enum { OPT_POOL = 0x1900, OPT_NODE_CONFIG, OPT_PREFIX, OPT_NAME, OPT_LABELS, OPT_STRATEGY,
       OPT_NO_GFD, OPT_TAKE_OVER, OPT_ON_STOP, OPT_FOR, OPT_STATE_DIR, OPT_WORKERS, OPT_STATS,
       OPT_KUBECONFIG, OPT_CONTEXT };

#define MAX_POOLS 64
#define STATS_EVERY_S 2

typedef struct fleet_cli {
    mk_fleet_opts o;
    mk_fleet_pool pools[MAX_POOLS];
    mk_fleet_stop_mode on_stop;
    long long for_ms;
    const char *stats;
} fleet_cli;

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig)
{
    stop_sig = sig;
}

static int count_arg(const char *opt, const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max || s[0] == '-')
        return mk_usage_error("fleet", "%s: '%s' is not a number from 1 to %u", opt, s, max);
    *out = (unsigned)v;
    return 0;
}

/* NAME=COUNT[:FILE] */
static int pool_arg(fleet_cli *c, char *s)
{
    if (c->o.npools == MAX_POOLS)
        return mk_usage_error("fleet", "--pool: at most %d pools", MAX_POOLS);
    char *eq = strchr(s, '=');
    if (!eq || eq == s)
        return mk_usage_error("fleet", "--pool: '%s' is not NAME=COUNT[:FILE]", s);
    *eq = '\0';
    char *colon = strchr(eq + 1, ':');
    if (colon)
        *colon = '\0';
    mk_fleet_pool *p = &c->pools[c->o.npools];
    if (count_arg("--pool", eq + 1, 100000, &p->count))
        return MK_EXIT_USAGE;
    p->name = s;
    p->config = colon && colon[1] ? colon + 1 : NULL;
    c->o.npools++;
    return 0;
}

static int parse(int argc, char **argv, fleet_cli *c)
{
    static const struct option opts[] = {
        {"nodes", required_argument, 0, 'N'}, {"config", required_argument, 0, 'c'},
        {"pool", required_argument, 0, OPT_POOL}, {"node-config", required_argument, 0, OPT_NODE_CONFIG},
        {"prefix", required_argument, 0, OPT_PREFIX}, {"name", required_argument, 0, OPT_NAME},
        {"labels", required_argument, 0, OPT_LABELS}, {"mig-strategy", required_argument, 0, OPT_STRATEGY},
        {"no-gfd", no_argument, 0, OPT_NO_GFD}, {"take-over", no_argument, 0, OPT_TAKE_OVER},
        {"on-stop", required_argument, 0, OPT_ON_STOP}, {"for", required_argument, 0, OPT_FOR},
        {"state-dir", required_argument, 0, OPT_STATE_DIR}, {"workers", required_argument, 0, OPT_WORKERS},
        {"stats", required_argument, 0, OPT_STATS}, {"kubeconfig", required_argument, 0, OPT_KUBECONFIG},
        {"context", required_argument, 0, OPT_CONTEXT}, {"verbose", no_argument, 0, 'v'},
        MK_COMMON_OPTS, {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("fleet");
    int ch, rc;
    unsigned w;
    while ((ch = getopt_long(argc, argv, "N:c:vh", opts, NULL)) != -1) {
        switch (ch) {
        case 'N': if (count_arg("--nodes", optarg, 100000, &c->o.nodes)) return MK_EXIT_USAGE; break;
        case 'c': c->o.config = optarg; break;
        case OPT_POOL: if (pool_arg(c, optarg)) return MK_EXIT_USAGE; break;
        case OPT_NODE_CONFIG: c->o.node_config = optarg; break;
        case OPT_PREFIX: c->o.prefix = optarg; break;
        case OPT_NAME: c->o.name = optarg; break;
        case OPT_LABELS: c->o.labels = optarg; break;
        case OPT_STRATEGY:
            if (strcmp(optarg, "none") && strcmp(optarg, "single") && strcmp(optarg, "mixed"))
                return mk_usage_error("fleet", "--mig-strategy: '%s' is not none, single or mixed",
                                      optarg);
            c->o.strategy = optarg;
            break;
        case OPT_NO_GFD: c->o.gfd = 0; break;
        case OPT_TAKE_OVER: c->o.take_over = 1; break;
        case OPT_ON_STOP:
            if (!strcmp(optarg, "delete"))
                c->on_stop = MK_FLEET_DELETE;
            else if (!strcmp(optarg, "keep"))
                c->on_stop = MK_FLEET_KEEP;
            else
                return mk_usage_error("fleet", "--on-stop: '%s' is not delete or keep", optarg);
            break;
        case OPT_FOR:
            if (mk_duration_parse(optarg, &c->for_ms) || c->for_ms <= 0)
                return mk_usage_error("fleet", "--for: '%s' is not a duration (30s, 5m, 1h)", optarg);
            break;
        case OPT_STATE_DIR: c->o.state_dir = optarg; break;
        case OPT_WORKERS:
            if (count_arg("--workers", optarg, 64, &w))
                return MK_EXIT_USAGE;
            c->o.workers = (int)w;
            break;
        case OPT_STATS: c->stats = optarg; break;
        case OPT_KUBECONFIG: c->o.kubeconfig = optarg; break;
        case OPT_CONTEXT: c->o.context = optarg; break;
        case 'v': c->o.verbose = 1; break;
        default:
            if ((rc = mk_common_opt(self, ch, optarg)) >= 0)
                return rc == 0 ? -2 : rc;
        }
    }
    if (optind < argc)
        return mk_usage_error("fleet", "unexpected argument '%s'", argv[optind]);
    if (!c->o.nodes && !c->o.npools)
        return mk_usage_error("fleet", "how many nodes? give --nodes N or --pool NAME=COUNT");
    if (c->o.nodes && c->o.npools)
        return mk_usage_error("fleet", "--nodes and --pool: give one (pools count their own nodes)");
    if (!c->o.config)
        c->o.config = getenv("MOCK_CONFIG_PATH");
    return 0;
}

/* The peak resident set so far, in KiB (VmHWM), or -1. */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* Rewritten (atomically) every few seconds and when the fleet stops, so that
 * a bench reads the numbers of a fleet at rest. */
static void write_stats(const char *path, const mk_fleet_progress *p, double ran_s)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%.4000s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        mk_err("fleet", "--stats %s: %s", tmp, strerror(errno));
        return;
    }
    fprintf(out, "{\"nodes\": %u, \"registered\": %u, \"adopted\": %u, \"ready_ms\": %lld, "
            "\"gpus\": %u, \"gpus_used\": %u, \"gpus_unhealthy\": %u, \"pods_seen\": %lu, "
            "\"pods_running\": %lu, \"pods_done\": %lu, \"pods_rejected\": %lu, \"requests\": %lu, "
            "\"retries\": %lu, \"lease_renewals\": %lu, \"node_writes\": %lu, \"pod_writes\": %lu, "
            "\"peak_rss_kib\": %ld, \"ran_s\": %.3f}\n", p->nodes, p->registered, p->adopted,
            p->first_ready_ms, p->gpus, p->gpus_used, p->gpus_unhealthy, p->pods_seen,
            p->pods_running, p->pods_done, p->pods_rejected, p->requests, p->retries,
            p->lease_renewals, p->node_writes, p->pod_writes, peak_rss_kib(), ran_s);
    if (fclose(out) != 0 || rename(tmp, path) != 0)
        mk_err("fleet", "--stats %s: %s", path, strerror(errno));
}

/* One line when something changed, at most every 5 s. */
static void progress(const mk_fleet_progress *p, mk_fleet_progress *last, double *last_s, double now)
{
    if (now - *last_s < 5 || (p->registered == last->registered && p->pods_running == last->pods_running &&
                              p->pods_done == last->pods_done && p->pods_rejected == last->pods_rejected &&
                              p->gpus_unhealthy == last->gpus_unhealthy))
        return;
    if (p->registered < p->nodes)
        mk_info("fleet", "registering: %u of %u nodes", p->registered, p->nodes);
    else
        mk_info("fleet", "%u nodes; pods: %lu running, %lu done, %lu rejected; GPUs: %u of %u in "
                "use, %u unhealthy; %lu requests", p->nodes, p->pods_running, p->pods_done,
                p->pods_rejected, p->gpus_used, p->gpus, p->gpus_unhealthy, p->requests);
    *last = *p;
    *last_s = now;
}

static int serve(mk_fleet *f, const fleet_cli *c)
{
    char err[2048];
    mk_fleet_progress p, last = { 0 };
    double t0 = mk_now_s(), last_s = t0, stats_s = t0;
    int said_ready = 0, rc = MK_EXIT_OK;
    while (!stop_sig) {
        if (mk_fleet_failed(f, err, sizeof err)) {
            mk_err("fleet", "%s", err);
            rc = MK_EXIT_ENV;
            break;
        }
        mk_fleet_progress_get(f, &p);
        double now = mk_now_s();
        if (!said_ready && p.registered == p.nodes) {
            said_ready = 1;
            mk_info("fleet", "%u nodes registered in %.1f s (%u taken back), %u GPUs; until %s",
                    p.nodes, p.first_ready_ms / 1000.0, p.adopted, p.gpus,
                    c->for_ms ? "--for ends" : "SIGINT or SIGTERM");
            last = p;
            last_s = now;
        }
        progress(&p, &last, &last_s, now);
        if (c->stats && now - stats_s >= STATS_EVERY_S) {
            write_stats(c->stats, &p, now - t0);
            stats_s = now;
        }
        if (c->for_ms && (now - t0) * 1000 >= c->for_ms)
            break;
        usleep(100000);
    }
    return rc;
}

int cmd_fleet(int argc, char **argv)
{
    fleet_cli c = { .o = { .gfd = 1, .log = mk_log_as, .log_ctx = (void *)"fleet" } };
    int rc = parse(argc, argv, &c), code = 0;
    if (rc)
        return rc == -2 ? MK_EXIT_OK : rc;
    c.o.pools = c.pools;
    struct sigaction sa = { .sa_handler = on_stop };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char err[4096];
    double t0 = mk_now_s();
    mk_fleet *f = mk_fleet_open(&c.o, &code, err, sizeof err);
    if (!f) {
        mk_err("fleet", "%s", err);
        return code == MK_FLEET_USAGE ? MK_EXIT_USAGE : MK_EXIT_ENV;
    }
    mk_fleet_progress p;
    mk_fleet_progress_get(f, &p);
    mk_info("fleet", "fleet '%s': %u nodes, %u GPUs planned in %.1f s; registering",
            c.o.name ? c.o.name : "fleet", p.nodes, p.gpus, mk_now_s() - t0);
    if ((code = mk_fleet_start(f, err, sizeof err))) {
        mk_err("fleet", "%s", err);
        rc = code == MK_FLEET_USAGE ? MK_EXIT_USAGE : MK_EXIT_ENV;
    } else {
        rc = serve(f, &c);
    }
    double s0 = mk_now_s();
    if (!code)
        mk_info("fleet", "stopping: %s the nodes", c.on_stop == MK_FLEET_DELETE ? "deleting" : "leaving NotReady");
    mk_fleet_stop(f, code ? MK_FLEET_KEEP : c.on_stop);
    mk_fleet_progress_get(f, &p);
    if (!code)
        mk_info("fleet", "stopped in %.1f s", mk_now_s() - s0);
    if (c.stats)
        write_stats(c.stats, &p, mk_now_s() - t0);
    mk_fleet_free(f);
    return rc;
}
