/* kube-watch.c - a test driver for the API-server client (src/kube.h) until
 * `mokka assert` wires it: waits until every selected node shows the expected
 * allocatable count of a resource.
 *
 *   kube-watch [--kubeconfig F] [--context C] [--node N] [--selector S]
 *              [--resource R] (--expect-allocatable N | --dump)
 *              [--timeout SECONDS] [--watch-timeout SECONDS] [--verbose]
 *
 * stdout: "listed ...", a "waiting: ..." line per change, then "ok: ..." or
 * "timeout: ..." with the last values seen, and "requests: ..." (counts).
 * Exit 0 when satisfied (or after --dump), 1 on timeout, 2 on usage errors,
 * 3 on infrastructure errors (kubeconfig, TLS, credentials, unreachable). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kube/kube.h"

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void on_log(void *ctx, int warning, const char *msg)
{
    fprintf(stderr, "kube-watch: %s%s\n", warning ? "warning: " : "", msg);
}

static long long allocatable(const mk_nv_node *n, const char *res)
{
    const mk_nv_resource *r = mk_nv_find_resource(n, res);
    return r ? r->allocatable : -1;
}

static size_t count_ready(const mk_nv_nodes *ns, const char *res, long long want)
{
    size_t k = 0;
    for (size_t i = 0; i < ns->n; i++)
        k += allocatable(&ns->node[i], res) == want;
    return k;
}

/* The nodes that are not there yet (ten at most), as "name=value". */
static void print_laggards(const char *prefix, const mk_nv_nodes *ns, const char *res, long long want)
{
    size_t shown = 0;
    printf("%s", prefix);
    for (size_t i = 0; i < ns->n && shown < 10; i++) {
        long long v = allocatable(&ns->node[i], res);
        if (v == want)
            continue;
        if (v < 0)
            printf(" %s=none", ns->node[i].name);
        else
            printf(" %s=%lld", ns->node[i].name, v);
        shown++;
    }
    printf("%s\n", ns->n ? "" : " no nodes selected");
}

static void print_counts(const mk_kube *k)
{
    mk_kube_counts c;
    mk_kube_stats(k, &c);
    printf("requests: lists=%lu relists=%lu watches=%lu retries=%lu events=%lu bookmarks=%lu "
           "credential_loads=%lu\n", c.lists, c.relists, c.watches, c.retries, c.events,
           c.bookmarks, c.credential_loads);
}

static void dump(const mk_nv_nodes *ns)
{
    for (size_t i = 0; i < ns->n; i++) {
        const mk_nv_node *n = &ns->node[i];
        printf("node %s\n", n->name);
        for (size_t j = 0; j < n->nres; j++)
            printf("  resource %s capacity=%lld allocatable=%lld\n", n->res[j].name,
                   n->res[j].capacity, n->res[j].allocatable);
        for (size_t j = 0; j < n->nconditions; j++)
            printf("  condition %s=%s\n", n->conditions[j].type, n->conditions[j].status);
        for (size_t j = 0; j < n->ntaints; j++)
            printf("  taint %s=%s:%s\n", n->taints[j].key, n->taints[j].value ? n->taints[j].value : "",
                   n->taints[j].effect);
        for (size_t j = 0; j < n->nlabels; j++)
            printf("  label %s=%s\n", n->labels[j].key, n->labels[j].value);
    }
}

/* Wait until every selected node shows `want`. Returns the exit code. */
static int wait_for(mk_kube *k, const char *res, long long want, long long deadline)
{
    mk_nodesrc *src = mk_kube_nodesrc(k);
    mk_nv_nodes ns = { 0 };
    char err[1024];
    int rc;

    for (;;) {
        mk_nv_nodes_free(&ns);
        if (src->snapshot(src, &ns, err, sizeof err)) {
            fprintf(stderr, "kube-watch: %s\n", err);
            return 3;
        }
        size_t ready = count_ready(&ns, res, want);
        if (ns.n && ready == ns.n) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            printf("ok: %zu/%zu nodes show allocatable %s=%lld detected_at=%lld.%06ld\n", ready, ns.n,
                   res, want, (long long)ts.tv_sec, ts.tv_nsec / 1000);
            rc = 0;
            break;
        }
        char prefix[256];
        snprintf(prefix, sizeof prefix, "waiting: %zu/%zu nodes show allocatable %s=%lld;", ready, ns.n, res, want);
        print_laggards(prefix, &ns, res, want);
        long long left = deadline - now_ms();
        int w = left > 0 ? src->wait_change(src, ns.version, (int)left, err, sizeof err) : 0;
        if (w == 0) {
            snprintf(prefix, sizeof prefix, "timeout: %zu/%zu nodes show allocatable %s=%lld; last seen:",
                     ready, ns.n, res, want);
            print_laggards(prefix, &ns, res, want);
            rc = 1;
            break;
        }
        if (w < 0) {
            fprintf(stderr, "kube-watch: %s\n", err);
            print_laggards("last seen:", &ns, res, want);
            rc = 3;
            break;
        }
    }
    mk_nv_nodes_free(&ns);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: kube-watch [--kubeconfig F] [--context C] [--node N] [--selector S]\n"
                    "                  [--resource R] (--expect-allocatable N | --dump)\n"
                    "                  [--timeout S] [--watch-timeout S] [--verbose]\n");
    return 2;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "kubeconfig", required_argument, 0, 'k' },
        { "context", required_argument, 0, 'c' },
        { "node", required_argument, 0, 'n' },
        { "selector", required_argument, 0, 's' },
        { "resource", required_argument, 0, 'r' },
        { "expect-allocatable", required_argument, 0, 'e' },
        { "timeout", required_argument, 0, 't' },
        { "watch-timeout", required_argument, 0, 'w' },
        { "dump", no_argument, 0, 'd' },
        { "verbose", no_argument, 0, 'v' },
        { 0, 0, 0, 0 }
    };
    mk_kube_opts o = { .log = on_log };
    const char *res = "nvidia.com/gpu";
    long long want = -1;
    double timeout_s = 30;
    int c, do_dump = 0;
    char err[2048], who[2048];

    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k': o.kubeconfig = optarg; break;
        case 'c': o.context = optarg; break;
        case 'n': o.node = optarg; break;
        case 's': o.selector = optarg; break;
        case 'r': res = optarg; break;
        case 'e': want = atoll(optarg); break;
        case 't': timeout_s = atof(optarg); break;
        case 'w': o.watch_timeout_s = atoi(optarg); break;
        case 'd': do_dump = 1; break;
        case 'v': o.verbose = 1; break;
        default: return usage();
        }
    }
    if (optind < argc || (want < 0 && !do_dump) || timeout_s <= 0)
        return usage();

    long long deadline = now_ms() + (long long)(timeout_s * 1000);
    o.open_timeout_ms = timeout_s < 10 ? (int)(timeout_s * 1000) : 10000;
    mk_kube *k = mk_kube_open(&o, err, sizeof err);
    if (!k) {
        fprintf(stderr, "kube-watch: %s\n", err);
        return 3;
    }
    mk_kube_describe(k, who, sizeof who);
    printf("listed: %s\n", who);

    int rc = 0;
    if (do_dump) {
        mk_nodesrc *src = mk_kube_nodesrc(k);
        mk_nv_nodes ns;
        if (src->snapshot(src, &ns, err, sizeof err) == 0) {
            dump(&ns);
            mk_nv_nodes_free(&ns);
        } else {
            fprintf(stderr, "kube-watch: %s\n", err);
            rc = 3;
        }
    } else {
        rc = wait_for(k, res, want, deadline);
    }
    print_counts(k);
    mk_kube_close(k);
    return rc;
}
