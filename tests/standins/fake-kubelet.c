/* fake-kubelet.c - the node's kubelet for cluster-mode tests: Mokka's
 * built-in kubelet (src/kubelet/) serving Registration in a directory, as a
 * node's kubelet serves /var/lib/kubelet/device-plugins, that prints what
 * the node would then advertise, for the test to put into the stand-in API
 * server's Node (as the kubelet's node status update does).
 *
 *   fake-kubelet DIR
 *
 * stdout, a line per resource each time the view changes:
 *   "RESOURCE CAPACITY ALLOCATABLE ID..." (allocatable: the healthy
 *   devices; 0 while the plugin that served them is gone, until it
 *   registers again), then the device ids the plugin lists, an unhealthy
 *   one with a leading '!'.
 * Runs until SIGTERM or SIGINT; exit 3 when it cannot serve in DIR. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "kubelet/kubelet.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    stop = sig;
}

/* One line per resource; "" when nothing changed since `last`. */
static void print_view(const mk_nv_nodes *ns, char *last, size_t len)
{
    char now[16384] = "";
    size_t at = 0;
    for (size_t i = 0; i < ns->n; i++)
        for (size_t j = 0; j < ns->node[i].nres && at < sizeof now; j++) {
            const mk_nv_resource *r = &ns->node[i].res[j];
            at += (size_t)snprintf(now + at, sizeof now - at, "%s %lld %lld", r->name,
                                   r->capacity, r->allocatable);
            for (size_t k = 0; k < r->ndev && at < sizeof now; k++)
                at += (size_t)snprintf(now + at, sizeof now - at, " %s%s",
                                       r->dev[k].healthy ? "" : "!", r->dev[k].id);
            at += at < sizeof now ? (size_t)snprintf(now + at, sizeof now - at, "\n") : 0;
        }
    if (strcmp(now, last) == 0)
        return;
    snprintf(last, len, "%s", now);
    fputs(now, stdout);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fake-kubelet DIR\n");
        return 2;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    static char last[16384];
    char err[1024];
    mk_kubelet_opts ko = { .node_name = "fake-kubelet" };
    mk_kubelet *k = mk_kubelet_start(argv[1], &ko, err, sizeof err);
    if (!k) {
        fprintf(stderr, "fake-kubelet: %s\n", err);
        return 3;
    }
    fprintf(stderr, "fake-kubelet: serving %s\n", mk_kubelet_socket(k));
    mk_nodesrc *src = mk_kubelet_nodesrc(k);
    uint64_t seen = 0;
    while (!stop) {
        mk_nv_nodes ns;
        if (src->snapshot(src, &ns, err, sizeof err) == 0) {
            seen = ns.version;
            print_view(&ns, last, sizeof last);
            mk_nv_nodes_free(&ns);
        }
        src->wait_change(src, seen, 200, err, sizeof err);
    }
    mk_kubelet_stop(k);
    return 0;
}
