/* faultargs.c - the options of `mokka inject --cluster`: the nodes
 * (--node, --selector, --all-nodes), the GPUs, one fault, --for, --name,
 * --wait, and --clear / --list; every bad combination, and every name the
 * API would not take, is a usage error that says what to give instead. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "fabricargs.h"
#include "faultargs.h"
#include "kube/kube.h"
#include "util/util.h"

enum {
    O_CLUSTER = 0x1400, O_KUBECONFIG, O_CONTEXT, O_ALL_NODES, O_XID, O_ECC, O_LOST, O_HEALTHY,
    O_SET, O_FOR, O_NAME, O_WAIT, O_CLEAR, O_LIST, O_OUTPUT, O_QUIET, O_COLOR, O_HELP,
    O_LOCAL, O_FSTATE, O_FSTATUS, O_FHEALTH, O_FCLEAR
};

static const struct option opts[] = {
    {"cluster", no_argument, 0, O_CLUSTER}, {"kubeconfig", required_argument, 0, O_KUBECONFIG},
    {"context", required_argument, 0, O_CONTEXT}, {"node", required_argument, 0, 'n'},
    {"selector", required_argument, 0, 'l'}, {"all-nodes", no_argument, 0, O_ALL_NODES},
    {"gpu", required_argument, 0, 'g'}, {"xid", required_argument, 0, O_XID},
    {"ecc", required_argument, 0, O_ECC}, {"lost", no_argument, 0, O_LOST},
    {"healthy", no_argument, 0, O_HEALTHY}, {"set", required_argument, 0, O_SET},
    {"for", required_argument, 0, O_FOR}, {"name", required_argument, 0, O_NAME},
    {"wait", required_argument, 0, O_WAIT}, {"clear", required_argument, 0, O_CLEAR},
    {"list", no_argument, 0, O_LIST}, {"output", required_argument, 0, 'o'},
    {"quiet", no_argument, 0, 'q'}, {"color", required_argument, 0, O_COLOR},
    {"colour", required_argument, 0, O_COLOR}, {"help", no_argument, 0, 'h'},
    /* what works on a local universe only */
    {"mig", required_argument, 0, O_LOCAL}, {"unset", required_argument, 0, O_LOCAL},
    {"state-dir", required_argument, 0, O_LOCAL}, {"pid", required_argument, 0, O_LOCAL},
    {"fabric-state", required_argument, 0, O_FSTATE},
    {"fabric-status", required_argument, 0, O_FSTATUS},
    {"fabric-health", required_argument, 0, O_FHEALTH},
    {"fabric-clear", no_argument, 0, O_FCLEAR},
    {0, 0, 0, 0}
};

int mk_gfcli_wanted(int argc, char **argv)
{
    static const char *const cluster[] = {"--cluster", "--kubeconfig", "--context", "--list",
                                          "--clear", NULL};
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        for (size_t j = 0; cluster[j]; j++) {
            size_t n = strlen(cluster[j]);
            if (strncmp(argv[i], cluster[j], n) == 0 && (argv[i][n] == 0 || argv[i][n] == '='))
                return 1;
        }
    return 0;
}

/* What parsing collects besides the request itself. */
typedef struct parsed {
    int nfaults, list, all_nodes, have_sel, fault_opts, output;
    const char *first_fault, *wait;
    mk_ksel sel;
} parsed;

static void add(const char ***v, size_t *n, const char *s)
{
    *v = mk_xrealloc((void *)*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = s;
}

/* --fabric-state, --fabric-status, --fabric-health: together one fault. */
static int fabric_part(mk_gfcli *o, int c, const char *arg, const char *name)
{
    int *part = c == O_FSTATE ? &o->req.fstate : c == O_FSTATUS ? &o->req.fstatus : &o->req.fhealth;
    if (*part >= 0)
        return mk_usage_error("inject", "--%s given twice", name);
    return c == O_FSTATE ? mk_fabric_arg_state(arg, part)
         : c == O_FSTATUS ? mk_fabric_arg_status(arg, part) : mk_fabric_arg_health(arg, part);
}

static int fault_opt(mk_gfcli *o, parsed *p, int c, const char *arg, const char *name)
{
    int fabric = c == O_FSTATE || c == O_FSTATUS || c == O_FHEALTH;
    p->fault_opts++;
    if (c == O_SET && o->req.kind == MK_GF_SET && p->nfaults) {
        add((const char ***)&o->req.sets, &o->req.nsets, arg);
        return 0;
    }
    if (fabric && o->req.kind == MK_GF_FABRIC && p->nfaults)
        return fabric_part(o, c, arg, name);
    if (p->nfaults++)
        return mk_usage_error("inject", "give one fault: --%s and --%s do not go together "
                              "(make two GPUFaults)", p->first_fault, name);
    p->first_fault = name;
    char *end;
    long x;
    switch (c) {
    case O_XID:
        x = strtol(arg, &end, 10);
        if (!*arg || *end || x < 1 || x > MK_GF_XID_MAX)
            return mk_usage_error("inject", "--xid takes a number from 1 to %d, not '%s'",
                                  MK_GF_XID_MAX, arg);
        o->req.kind = MK_GF_XID;
        o->req.xid = (unsigned)x;
        break;
    case O_ECC:
        if (strcmp(arg, "single") && strcmp(arg, "double"))
            return mk_usage_error("inject", "--ecc takes single or double, not '%s'", arg);
        o->req.kind = arg[0] == 'd' ? MK_GF_ECC_DOUBLE : MK_GF_ECC_SINGLE;
        break;
    case O_LOST: o->req.kind = MK_GF_LOST; break;
    case O_HEALTHY: o->req.kind = MK_GF_HEALTHY; break;
    case O_FSTATE: case O_FSTATUS: case O_FHEALTH:
        o->req.kind = MK_GF_FABRIC;
        return fabric_part(o, c, arg, name);
    default:
        o->req.kind = MK_GF_SET;
        add((const char ***)&o->req.sets, &o->req.nsets, arg);
    }
    return 0;
}

static int selector_opt(parsed *p, const char *arg)
{
    char err[512];
    mk_ksel one = { 0 };
    int rc = mk_ksel_parse(arg, &one, err, sizeof err);
    if (rc == 0 && mk_ksel_and(&p->sel, &one) != 0) {
        rc = -1;
        snprintf(err, sizeof err, "more than %d requirements in all", MK_KSEL_MAX);
    }
    mk_ksel_free(&one);
    if (rc != 0)
        return mk_usage_error("inject", "--selector '%s': %s", arg, err);
    p->have_sel = 1;
    return 0;
}

/* A name that goes into an object's path or spec: checked before any
 * request, so that none can name another object (kube_name.h). */
static int name_opt(const char ***v, size_t *n, const char *arg, const char *opt, const char *kind)
{
    char err[1024];
    if (mk_kname_check(opt, kind, arg, err, sizeof err))
        return mk_usage_error("inject", "%s", err);
    if (v)
        add(v, n, arg);
    return 0;
}

/* After the options: what they add up to. */
static int check(mk_gfcli *o, parsed *p, int argc, char **argv)
{
    for (int i = optind; i < argc; i++) {
        if (o->action != MK_GFCLI_CLEAR)
            return mk_usage_error("inject", "unexpected argument '%s'", argv[i]);
        if (name_opt((const char ***)&o->clear, &o->nclear, argv[i], "--clear", "GPUFault"))
            return MK_EXIT_USAGE;
    }
    if (p->list && o->action == MK_GFCLI_CLEAR)
        return mk_usage_error("inject", "--list and --clear do not go together");
    if (p->list)
        o->action = MK_GFCLI_LIST;
    int targets = o->req.nnodes || p->have_sel || p->all_nodes || o->req.gpus;
    if (o->action != MK_GFCLI_CREATE && (targets || p->fault_opts || o->req.duration ||
                                         o->req.name))
        return mk_usage_error("inject", "--%s takes no fault, nodes or GPUs%s",
                              o->action == MK_GFCLI_LIST ? "list" : "clear",
                              o->action == MK_GFCLI_LIST ? "" : ": only GPUFault names and "
                              "--wait");
    if (o->action != MK_GFCLI_LIST && p->output)
        return mk_usage_error("inject", "--output goes with --list");
    if (o->action == MK_GFCLI_LIST && p->wait)
        return mk_usage_error("inject", "--list does not wait: --wait goes with a new fault "
                              "or --clear");
    if (o->action != MK_GFCLI_CREATE)
        return 0;
    if (p->all_nodes && (o->req.nnodes || p->have_sel))
        return mk_usage_error("inject", "--all-nodes goes without --node and --selector");
    if (!o->req.nnodes && !p->have_sel && !p->all_nodes)
        return mk_usage_error("inject", "which nodes? give --node NAME or --selector SELECTOR "
                              "(repeatable), or --all-nodes for every node that runs a Mokka "
                              "agent");
    if (!o->req.gpus)
        return mk_usage_error("inject", "--gpu is required: an index, a list (0,2), a range "
                              "(0-3), a GPU UUID, or all");
    if (!p->nfaults)
        return mk_usage_error("inject", "nothing to do: give --xid, --ecc, --lost, --healthy, "
                              "--set or --fabric-state/--fabric-status/--fabric-health");
    return 0;
}

int mk_gfcli_parse(int argc, char **argv, mk_gfcli *o)
{
    parsed p = { 0 };
    const char *name;
    int c, rc = 0, idx = -1;
    long long ms;
    memset(o, 0, sizeof *o);
    o->req.fstate = o->req.fstatus = o->req.fhealth = -1;
    optind = 1;
    while (rc == 0 && (c = getopt_long(argc, argv, "n:l:g:o:qh", opts, &idx)) != -1) {
        name = idx >= 0 ? opts[idx].name : "";
        switch (c) {
        case O_CLUSTER: break;
        case O_KUBECONFIG: o->kubeconfig = optarg; break;
        case O_CONTEXT: o->context = optarg; break;
        case 'n':
            rc = name_opt((const char ***)&o->req.nodes, &o->req.nnodes, optarg, "--node", "node");
            break;
        case 'l': rc = selector_opt(&p, optarg); break;
        case O_ALL_NODES: p.all_nodes = 1; break;
        case 'g': o->req.gpus = optarg; break;
        case O_XID: case O_ECC: case O_LOST: case O_HEALTHY: case O_SET:
        case O_FSTATE: case O_FSTATUS: case O_FHEALTH:
            rc = fault_opt(o, &p, c, optarg, name);
            break;
        case O_FOR: o->req.duration = optarg; break;
        case O_NAME:
            o->req.name = optarg;
            rc = name_opt(NULL, NULL, optarg, "--name", "GPUFault");
            break;
        case O_WAIT:
            p.wait = optarg;
            if (mk_duration_parse(optarg, &ms) != 0 || ms <= 0)
                rc = mk_usage_error("inject", "--wait takes a duration such as 60s or 5m, not "
                                    "'%s'", optarg);
            o->wait_ms = ms;
            break;
        case O_CLEAR:
            o->action = MK_GFCLI_CLEAR;
            rc = name_opt((const char ***)&o->clear, &o->nclear, optarg, "--clear", "GPUFault");
            break;
        case O_LIST: p.list = 1; break;
        case 'o':
            p.output = 1;
            if (strcmp(optarg, "json") && strcmp(optarg, "table"))
                rc = mk_usage_error("inject", "--output takes table or json, not '%s'", optarg);
            o->json = strcmp(optarg, "json") == 0;
            break;
        case 'q': mk_quiet = 1; break;
        case O_COLOR:
            if (mk_color_set(optarg) != 0)
                rc = mk_usage_error("inject", "--color takes auto, always or never, not '%s'",
                                    optarg);
            break;
        case 'h': rc = MK_GFCLI_HELP; break;
        case O_LOCAL:
            rc = mk_usage_error("inject", "--%s works on a local universe only, not with "
                                "--cluster", name);
            break;
        case O_FCLEAR:
            rc = mk_usage_error("inject", "--fabric-clear works on a local universe only; with "
                                "--cluster, delete the fabric GPUFault (--clear NAME)");
            break;
        default:
            fprintf(stderr, "Try 'mokka inject --help' for more information.\n");
            rc = MK_EXIT_USAGE;
        }
        idx = -1;
    }
    if (rc == 0)
        rc = check(o, &p, argc, argv);
    o->sel = p.sel;               /* o owns it from here */
    if (p.have_sel)
        o->req.selector = &o->sel;
    return rc;
}

void mk_gfcli_free(mk_gfcli *o)
{
    free((void *)o->req.nodes);
    free((void *)o->req.sets);
    free((void *)o->clear);
    mk_ksel_free(&o->sel);
    memset(o, 0, sizeof *o);
}
