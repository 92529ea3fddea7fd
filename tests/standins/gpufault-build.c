/* gpufault-build.c - mk_gfault_build from command-line options, so that the
 * end-to-end tests can check what the builder makes against the CRD's
 * schema (ci/deploy/gpufault-crd.yaml) without a cluster.
 *
 *   gpufault-build [--name N] [--node N]... [--selector S]... --gpu G
 *                  (--xid N | --ecc single|double | --lost | --healthy | --set M=V... |
 *                   [--fabric-state S] [--fabric-status S] [--fabric-health LIST])
 *                  [--duration D]
 *
 * Prints the object (JSON, one line) and exits 0, or prints the builder's
 * error on stderr and exits 2. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fault/fault.h"

#define MAX_ARGS 64

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "name", required_argument, 0, 'n' }, { "node", required_argument, 0, 'N' },
        { "selector", required_argument, 0, 'l' }, { "gpu", required_argument, 0, 'g' },
        { "xid", required_argument, 0, 'x' }, { "ecc", required_argument, 0, 'e' },
        { "lost", no_argument, 0, 'L' }, { "healthy", no_argument, 0, 'H' },
        { "set", required_argument, 0, 's' }, { "duration", required_argument, 0, 'd' },
        { "fabric-state", required_argument, 0, 'F' }, { "fabric-status", required_argument, 0, 'S' },
        { "fabric-health", required_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *nodes[MAX_ARGS], *sets[MAX_ARGS];
    mk_gfault_req r = { .nodes = nodes, .sets = sets, .fstate = -1, .fstatus = -1, .fhealth = -1 };
    mk_ksel sel = { 0 }, more;
    char err[512];
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n': r.name = optarg; break;
        case 'N': if (r.nnodes < MAX_ARGS) nodes[r.nnodes++] = optarg; break;
        case 'g': r.gpus = optarg; break;
        case 'x': r.kind = MK_GF_XID; r.xid = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'e':
            if (strcmp(optarg, "single") && strcmp(optarg, "double")) {
                fprintf(stderr, "--ecc takes single or double\n");
                return 2;
            }
            r.kind = optarg[0] == 's' ? MK_GF_ECC_SINGLE : MK_GF_ECC_DOUBLE;
            break;
        case 'L': r.kind = MK_GF_LOST; break;
        case 'H': r.kind = MK_GF_HEALTHY; break;
        case 's': r.kind = MK_GF_SET; if (r.nsets < MAX_ARGS) sets[r.nsets++] = optarg; break;
        case 'd': r.duration = optarg; break;
        case 'F': r.kind = MK_GF_FABRIC; if (mk_fabric_arg_state(optarg, &r.fstate)) return 2; break;
        case 'S': r.kind = MK_GF_FABRIC; if (mk_fabric_arg_status(optarg, &r.fstatus)) return 2; break;
        case 'h': r.kind = MK_GF_FABRIC; if (mk_fabric_arg_health(optarg, &r.fhealth)) return 2; break;
        case 'l':
            if (mk_ksel_parse(optarg, &more, err, sizeof err)) {
                fprintf(stderr, "--selector: %s\n", err);
                return 2;
            }
            if (mk_ksel_and(&sel, &more)) {
                fprintf(stderr, "--selector: more than %d requirements\n", MK_KSEL_MAX);
                return 2;
            }
            mk_ksel_free(&more);
            r.selector = &sel;
            break;
        default: return 2;
        }
    }
    json_t *obj = mk_gfault_build(&r, err, sizeof err);
    mk_ksel_free(&sel);
    if (!obj) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    char *s = json_dumps(obj, JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(obj);
    return 0;
}
