/* inject.c - `mokka inject`: raises faults in, and pins values of, a running
 * universe through its live state; every process on it sees the change at
 * its next query or event wait. With --cluster (or --kubeconfig, --context,
 * --list, --clear) the fault goes to many nodes as a GPUFault object, which
 * src/fault/ makes, follows and lists. */
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "commands.h"
#include "fabric.h"
#include "fault/fault.h"
#include "stateview/stateview.h"
#include "units.h"
#include "ytree.h"

const char cmd_inject_summary[] = "raise a fault or pin a value on a running mock GPU";
const char cmd_inject_help[] =
    "Usage: mokka inject [--state-dir DIR | --pid PID] --gpu N [--mig J] ACTION\n"
    "       mokka inject --cluster ((--node NAME | --selector SEL)... | --all-nodes)\n"
    "                    --gpu SPEC FAULT [--for DURATION] [--name NAME] [--wait DURATION]\n"
    "       mokka inject --cluster --clear NAME... [--wait DURATION]\n"
    "       mokka inject --cluster --list [--output table|json]\n"
    "\n"
    "Changes the live state of a running universe: every program on the mock\n"
    "that uses the state sees the change at its next NVML call or event wait.\n"
    "\n"
    "Actions (one fault action, or any number of --set/--unset):\n"
    "      --xid CODE             an XID critical error event (queries keep working)\n"
    "      --ecc single|double    an ECC error; double-bit makes the GPU unhealthy\n"
    "                             and is reported as XID 48 too\n"
    "      --lost                 the GPU falls off the bus: XID 79, then every\n"
    "                             telemetry query answers GPU_IS_LOST\n"
    "      --healthy              clear the fault (rules that fired stay fired)\n"
    "      --set METRIC=VALUE     pin a live value, in config units: temperature=90,\n"
    "                             power=300W, utilization.gpu=80, memoryUsed=30GiB\n"
    "      --unset METRIC         let METRIC follow the config again\n"
    "\n"
    "NVLink fabric (GPUs on an NVSwitch fabric; any of these together):\n"
    "      --fabric-state STATE   notStarted, inProgress or completed\n"
    "      --fabric-status STATUS the registration's NVML status: success,\n"
    "                             notReady, timeout, ... (camelCase of NVML_ERROR_*)\n"
    "      --fabric-health LIST   the health conditions that hold, comma-separated:\n"
    "                             degradedBandwidth, routeRecovery, routeUnhealthy,\n"
    "                             accessTimeoutRecovery; none for healthy\n"
    "      --fabric-clear         back to the config's fabric\n"
    "\n"
    "Options:\n"
    "  -g, --gpu N                the GPU (index)\n"
    "  -m, --mig J                the MIG device J of that GPU (--xid and --ecc)\n"
    "      --state-dir DIR        the state directory (MOKKA_STATE_DIR of the program)\n"
    "      --pid PID              the state of process PID\n"
    "                             (default: the only live state under the runtime dir)\n"
    "  -q, --quiet                no progress messages\n"
    "      --color WHEN           auto, always or never\n"
    "  -h, --help                 this help\n"
    "\n"
    "Cluster-wide faults (a GPUFault object that the Mokka agent on each selected\n"
    "node applies to its mock GPUs and reports on in its GPUFaultReport):\n"
    "      --cluster              through the API server (as kubectl finds it)\n"
    "      --kubeconfig FILE      cluster access (implies --cluster; default:\n"
    "                             $KUBECONFIG, ~/.kube/config, else in-cluster)\n"
    "      --context NAME         kubeconfig context (implies --cluster)\n"
    "  -n, --node NAME            this node; repeatable\n"
    "  -l, --selector SELECTOR    nodes with these labels (k=v,k2!=v2,k3 in (a,b));\n"
    "                             repeated selectors AND together, and with --node\n"
    "      --all-nodes            every node that runs an agent (required when\n"
    "                             neither --node nor --selector is given)\n"
    "  -g, --gpu SPEC             3, 0,2, 0-3, a GPU UUID, or all\n"
    "      --for DURATION         the fault expires after DURATION (5m, 1h)\n"
    "      --name NAME            the object's name (default: made from the fault,\n"
    "                             like gpu3-xid79-x7k2p)\n"
    "      --wait DURATION        wait until every selected node that runs an\n"
    "                             agent applied (or, with --clear, cleared) it;\n"
    "                             the requests to the API server end within it\n"
    "      --clear NAME           delete the GPUFault NAME; more names may follow\n"
    "      --list                 the GPUFaults, with how many nodes applied each\n"
    "  -o, --output FORMAT        --list as table (default) or json\n"
    "The fault is one of --xid, --ecc, --lost, --healthy, --set (repeatable), or\n"
    "--fabric-state/--fabric-status/--fabric-health together: a fabric GPUFault\n"
    "states the whole fabric, a part not given being completed, success or no\n"
    "health condition (an agent rejects it on a GPU without a fabric);\n"
    "--mig, --unset, --fabric-clear, --state-dir and --pid are for a local\n"
    "universe only.\n"
    "\n"
    "Metrics: temperature, memoryTemperature, power, utilization.gpu,\n"
    "utilization.memory, utilization.encoder, utilization.decoder, memoryUsed,\n"
    "fanSpeed, clocks.graphics, clocks.sm, clocks.memory, clocks.video.\n"
    "\n"
    "Exit status: 0 done, 2 bad arguments (a GPU out of range names the range),\n"
    "a GPUFault refused by the API server or rejected by an agent, 3 no live\n"
    "state found, the cluster unreachable, the GPUFault resource not installed,\n"
    "or --wait ran out.\n"
    "\n"
    "Example:\n"
    "  mokka inject --cluster --selector mokka.io/pool=a --gpu 3 --xid 79 --for 5m \\\n"
    "      --wait 60s\n";

enum { OPT_XID = 0x1300, OPT_ECC, OPT_LOST, OPT_HEALTHY, OPT_SET, OPT_UNSET, OPT_FSTATE,
       OPT_FSTATUS, OPT_FHEALTH, OPT_FCLEAR };
enum { A_NONE, A_XID, A_ECC_SINGLE, A_ECC_DOUBLE, A_LOST, A_HEALTHY };

typedef struct pin {
    mk_metric m;
    int set;          /* 0: unset */
    int64_t v;
} pin;

/* Fabric changes: each field -1 when not given. */
typedef struct fabric_req {
    int state, status, health;
    int clear;
} fabric_req;

typedef struct request {
    int action;
    unsigned xid;
    long gpu, mig;
    pin *pins;
    size_t npins;
    fabric_req fab;
} request;

static int fabric_given(const fabric_req *f)
{
    return f->state >= 0 || f->status >= 0 || f->health >= 0 || f->clear;
}

static int bad_metric(const char *name)
{
    const char *names[MK_M_COUNT + 1];
    for (int m = 0; m < MK_M_COUNT; m++)
        names[m] = mk_metrics[m].name;
    names[MK_M_COUNT] = NULL;
    const char *sugg = mk_did_you_mean(name, names);
    if (sugg)
        return mk_usage_error("inject", "unknown metric '%s'; did you mean '%s'?", name, sugg);
    return mk_usage_error("inject", "unknown metric '%s' (see the metric list in --help)", name);
}

/* "temperature=90" -> pin; returns 0 or an exit code. */
static int parse_pin(const char *arg, int set, pin *p)
{
    char name[64];
    const char *eq = set ? strchr(arg, '=') : NULL, *why;
    if (set && !eq)
        return mk_usage_error("inject", "--set takes METRIC=VALUE, like temperature=90, not '%s'",
                              arg);
    snprintf(name, sizeof name, "%.*s", (int)(set ? eq - arg : (long)strlen(arg)), arg);
    int m = mk_metric_by_name(name);
    if (m < 0)
        return bad_metric(name);
    p->m = (mk_metric)m;
    p->set = set;
    if (set && mk_parse_quantity(mk_metrics[m].unit, eq + 1, &p->v, &why) != 0)
        return mk_usage_error("inject", "--set %s: '%s': %s", name, eq + 1, why);
    return 0;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return mk_usage_error("inject", "%s takes a number from %ld to %ld, not '%s'", opt, lo, hi, s);
    *out = v;
    return 0;
}

static int set_action(request *r, int a)
{
    if (r->action != A_NONE)
        return mk_usage_error("inject", "give one of --xid, --ecc, --lost and --healthy");
    r->action = a;
    return 0;
}

/* Checks the request against the universe in the state; 0 or exit code. */
static int check_target(const mk_view *v, const request *r)
{
    unsigned ndev = v->st.hdr->ndev;
    if (r->gpu >= (long)ndev && ndev == 1)
        return mk_usage_error("inject", "GPU %ld is out of range: this universe has GPU 0 only",
                              r->gpu);
    if (r->gpu >= (long)ndev)
        return mk_usage_error("inject", "GPU %ld is out of range: this universe has GPUs 0-%u",
                              r->gpu, ndev - 1);
    if (fabric_given(&r->fab) && v->u && v->u->dev[r->gpu].fabric.state == MK_FABRIC_NOT_SUPPORTED)
        return mk_usage_error("inject", "GPU %ld (%s) has no NVLink fabric: its NVML answers "
                              "NOT_SUPPORTED whatever the live state says (the config gives "
                              "one with fabric: or topology: {nvlink: nvswitch})", r->gpu,
                              v->u->dev[r->gpu].name);
    unsigned nmig = v->st.dev[r->gpu].nmig;
    if (r->mig >= 0 && nmig == 0)
        return mk_usage_error("inject", "GPU %ld has no MIG devices", r->gpu);
    if (r->mig >= (long)nmig)
        return mk_usage_error("inject", "GPU %ld has no MIG device %ld (it has 0-%u)", r->gpu,
                              r->mig, nmig - 1);
    return 0;
}

static void apply_fault(mk_view *v, const request *r, char *what, size_t len)
{
    unsigned g = (unsigned)r->gpu;
    int mig = (int)r->mig;
    switch (r->action) {
    case A_XID:
        mk_state_raise(&v->st, g, MK_FAULT_XID, r->xid, mig);
        snprintf(what, len, "XID %u injected", r->xid);
        break;
    case A_ECC_SINGLE:
        mk_state_raise_ecc(&v->st, g, 0, mig);
        snprintf(what, len, "single-bit ECC error injected");
        break;
    case A_ECC_DOUBLE:
        mk_state_raise_ecc(&v->st, g, 1, mig);
        snprintf(what, len, "double-bit ECC error injected (reported as XID 48 too); the GPU is "
                 "unhealthy");
        break;
    case A_LOST:
        mk_state_raise(&v->st, g, MK_FAULT_LOST, 79, -1);
        snprintf(what, len, "fell off the bus (XID 79); its telemetry now answers GPU_IS_LOST");
        break;
    default:
        mk_state_mark_healthy(&v->st, g);
        snprintf(what, len, "marked healthy");
        break;
    }
}

static void apply_pin(mk_view *v, const request *r, const pin *p, char *what, size_t len)
{
    char val[48];
    if (!p->set) {
        mk_state_unpin(&v->st, (unsigned)r->gpu, p->m);
        snprintf(what, len, "%s follows the config again", mk_metrics[p->m].name);
        return;
    }
    mk_state_pin(&v->st, (unsigned)r->gpu, p->m, p->v);
    mk_format_quantity(mk_metrics[p->m].unit, p->v, val, sizeof val);
    snprintf(what, len, "%s pinned to %s", mk_metrics[p->m].name, val);
}

/* The fabric now, with the request's changes over it, into the state. */
static void apply_fabric(mk_view *v, const request *r, char *what, size_t len)
{
    unsigned g = (unsigned)r->gpu;
    char health[160] = "";
    if (r->fab.clear) {
        mk_state_fabric(&v->st, g, 0);
        snprintf(what, len, "fabric back to the config's");
        return;
    }
    uint64_t live = atomic_load(&v->st.dev[g].fabric);
    mk_device none = { .fabric = { .state = MK_FABRIC_COMPLETED } };
    mk_fabric f = mk_fabric_now(v->u ? &v->u->dev[g] : &none, live);
    if (r->fab.state >= 0) f.state = r->fab.state;
    if (r->fab.status >= 0) f.status = r->fab.status;
    if (r->fab.health >= 0) f.health = (unsigned)r->fab.health;
    mk_state_fabric(&v->st, g, mk_fabric_pack(&f));
    for (int b = 0; b < MK_FABRIC_HEALTH_BITS; b++)
        if (f.health & (1u << b))
            snprintf(health + strlen(health), sizeof health - strlen(health), "%s%s",
                     health[0] ? "," : "", mk_fabric_health_names[b]);
    snprintf(what, len, "fabric state %s, status %s, health %s", mk_fabric_state_names[f.state],
             mk_nvml_return_name((unsigned)f.status), health[0] ? health : "none");
}

static void report(const mk_view *v, const request *r, const char *what)
{
    int pids[1];
    unsigned n = mk_view_alive(v, pids, 1);
    char who[64] = "";
    if (r->mig >= 0)
        snprintf(who, sizeof who, ", MIG device %ld", r->mig);
    printf("GPU %ld (%s)%s: %s; ", r->gpu, v->st.dev[r->gpu].uuid, who, what);
    if (n)
        printf("%u process%s attached will see it\n", n, n == 1 ? "" : "es");
    else
        printf("no process is attached now; the next one on this state will see it\n");
}

static int run(const mk_view_where *w, request *r)
{
    mk_view v;
    char what[256];
    int rc = mk_view_open("inject", w, fabric_given(&r->fab), &v);
    if (rc)
        return rc;
    if ((rc = check_target(&v, r)) == 0) {
        if (r->action != A_NONE) {
            apply_fault(&v, r, what, sizeof what);
            report(&v, r, what);
        }
        if (fabric_given(&r->fab)) {
            apply_fabric(&v, r, what, sizeof what);
            report(&v, r, what);
        }
        for (size_t i = 0; i < r->npins; i++) {
            apply_pin(&v, r, &r->pins[i], what, sizeof what);
            report(&v, r, what);
        }
    }
    mk_view_close(&v);
    return rc;
}

/* `mokka inject --cluster ...`: GPUFault objects. */
static int cluster(int argc, char **argv, const mk_cmd *self)
{
    mk_gfcli o;
    int rc = mk_gfcli_parse(argc, argv, &o);
    if (rc == MK_GFCLI_HELP) {
        mk_print_help(self, stdout);
        rc = MK_EXIT_OK;
    } else if (rc == 0) {
        rc = mk_gfcli_run(&o);
    }
    mk_gfcli_free(&o);
    return rc;
}

int cmd_inject(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpu", required_argument, 0, 'g'},
        {"mig", required_argument, 0, 'm'},
        {"xid", required_argument, 0, OPT_XID},
        {"ecc", required_argument, 0, OPT_ECC},
        {"lost", no_argument, 0, OPT_LOST},
        {"healthy", no_argument, 0, OPT_HEALTHY},
        {"set", required_argument, 0, OPT_SET},
        {"unset", required_argument, 0, OPT_UNSET},
        {"fabric-state", required_argument, 0, OPT_FSTATE},
        {"fabric-status", required_argument, 0, OPT_FSTATUS},
        {"fabric-health", required_argument, 0, OPT_FHEALTH},
        {"fabric-clear", no_argument, 0, OPT_FCLEAR},
        MK_VIEW_OPTS,
        MK_COMMON_OPTS,
        {0, 0, 0, 0}
    };
    const mk_cmd *self = mk_find_command("inject");
    if (mk_gfcli_wanted(argc, argv))
        return cluster(argc, argv, self);
    mk_view_where w = { 0 };
    request r = { .action = A_NONE, .gpu = -1, .mig = -1, .fab = { -1, -1, -1, 0 } };
    long x;
    int c, rc = 0;
    r.pins = calloc((size_t)argc, sizeof *r.pins);
    if (!r.pins)
        return MK_EXIT_ENV;
    while (rc == 0 && (c = getopt_long(argc, argv, "g:m:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'g': rc = parse_long("--gpu", optarg, 0, 4095, &r.gpu); break;
        case 'm': rc = parse_long("--mig", optarg, 0, 63, &r.mig); break;
        case OPT_XID:
            if (!(rc = parse_long("--xid", optarg, 1, 999, &x)) && !(rc = set_action(&r, A_XID)))
                r.xid = (unsigned)x;
            break;
        case OPT_ECC:
            if (strcmp(optarg, "single") && strcmp(optarg, "double"))
                rc = mk_usage_error("inject", "--ecc takes single or double, not '%s'", optarg);
            else
                rc = set_action(&r, strcmp(optarg, "double") == 0 ? A_ECC_DOUBLE : A_ECC_SINGLE);
            break;
        case OPT_LOST: rc = set_action(&r, A_LOST); break;
        case OPT_HEALTHY: rc = set_action(&r, A_HEALTHY); break;
        case OPT_SET:
        case OPT_UNSET:
            rc = parse_pin(optarg, c == OPT_SET, &r.pins[r.npins]);
            r.npins += rc == 0;
            break;
        case OPT_FSTATE:
            rc = mk_fabric_arg_state(optarg, &r.fab.state);
            break;
        case OPT_FSTATUS: rc = mk_fabric_arg_status(optarg, &r.fab.status); break;
        case OPT_FHEALTH: rc = mk_fabric_arg_health(optarg, &r.fab.health); break;
        case OPT_FCLEAR: r.fab.clear = 1; break;
        case 'q': mk_quiet = 1; break;
        case 'h': mk_print_help(self, stdout); free(r.pins); return MK_EXIT_OK;
        default:
            if ((x = mk_view_opt(self->name, c, optarg, &w)) == MK_VIEW_NOT_MINE)
                x = mk_common_opt(self, c, optarg);
            if (x >= 0) {
                free(r.pins);
                return (int)x;
            }
        }
    }
    if (rc == 0 && optind < argc)
        rc = mk_usage_error("inject", "unexpected argument '%s'", argv[optind]);
    else if (rc == 0 && r.gpu < 0)
        rc = mk_usage_error("inject", "--gpu N is required");
    else if (rc == 0 && r.action == A_NONE && r.npins == 0 && !fabric_given(&r.fab))
        rc = mk_usage_error("inject", "nothing to do: give --xid, --ecc, --lost, --healthy, "
                            "--set, --unset or a --fabric-* option");
    else if (rc == 0 && r.fab.clear && (r.fab.state >= 0 || r.fab.status >= 0 || r.fab.health >= 0))
        rc = mk_usage_error("inject", "--fabric-clear goes alone, not with other --fabric-* options");
    else if (rc == 0 && r.action != A_NONE && r.npins)
        rc = mk_usage_error("inject", "give a fault action or --set/--unset, not both");
    else if (rc == 0 && r.mig >= 0 && r.action != A_XID && r.action != A_ECC_SINGLE &&
             r.action != A_ECC_DOUBLE)
        rc = mk_usage_error("inject", "--mig goes with --xid or --ecc only");
    if (rc == 0)
        rc = run(&w, &r);
    free(r.pins);
    return rc;
}
