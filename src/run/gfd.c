/* gfd.c - gpu-feature-discovery under `mokka run --gfd`: started under
 * supervision in the same sandbox, universe and live state as the plugin
 * (its own log, restarts with backoff, signals forwarded), relabelling to a
 * file in the run directory every second, whose labels join the node view
 * (gfdlabels.c) or, in cluster mode, go on the Node object (gfdnode.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "util/util.h"

/* How often GFD relabels: a suite's `within:` sees a hot reload or a MIG
 * change in its labels about this long after GFD does. */
#define GFD_INTERVAL "1s"

struct mk_gfd {
    mk_plugin_cmd cmd;
    mk_super *super;
    mk_gfdlabels *labels;
    mk_gfdnode *node;       /* cluster mode */
    mk_nodesrc *inner;
    char output[4400];
};

mk_gfd *mk_gfd_start(const mk_gfd_start_opts *o, char *err, size_t errlen)
{
    mk_gfd *g = calloc(1, sizeof *g);
    char dir[4300], log_path[4300];
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(dir, sizeof dir, "%s/features.d", o->run_dir);
    snprintf(g->output, sizeof g->output, "%s/gfd", dir);
    snprintf(log_path, sizeof log_path, "%s/gfd.log", o->run_dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        goto fail;
    }
    mk_gfd_opts co = o->cmd;
    co.output_file = g->output;
    co.interval = GFD_INTERVAL;
    if (mk_gfd_resolve(&co, &g->cmd, err, errlen) != 0 ||
        mk_plugin_env(&g->cmd, o->env, err, errlen) != 0)
        goto fail;
    if (!(g->labels = mk_gfdlabels_new(o->inner, g->output))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    mk_super_opts so = { g->cmd.argv, g->cmd.envp, o->sandbox, log_path, o->verbose,
                         o->restart_limit, 1, "gfd" };
    g->inner = o->inner;
    if (o->node_api && !(g->node = mk_gfdnode_start(o->node_api, o->node, g->output, err, errlen)))
        goto fail;
    if (!(g->super = mk_super_start(&so, err, errlen)))
        goto fail;
    return g;
fail:
    mk_gfd_free(g);
    return NULL;
}

const char *mk_gfd_path(const mk_gfd *g)
{
    return g->cmd.argv[0];
}

mk_nodesrc *mk_gfd_nodesrc(mk_gfd *g)
{
    return g->node ? g->inner : mk_gfdlabels_nodesrc(g->labels);
}

mk_super *mk_gfd_super(mk_gfd *g)
{
    return g->super;
}

/* GFD's own last line of output (after "stderr: " or "stdout: "), not
 * the supervisor's notes: it says why (a sysfs file it missed, say). */
static void last_words(mk_gfd *g, char *out, size_t len)
{
    char tail[8192];
    *out = 0;
    mk_super_log_tail(g->super, tail, sizeof tail, 20);
    char *save = NULL;
    for (char *line = strtok_r(tail, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *p = strstr(line, " stderr: ");
        if (!p)
            p = strstr(line, " stdout: ");
        if (p)
            snprintf(out, len, "%s", p + 9);
    }
}

int mk_gfd_wait_labels(mk_gfd *g, double deadline, volatile sig_atomic_t *cancel, size_t *nlabels,
                       char *err, size_t errlen)
{
    char why_not[1024] = "";
    while ((*nlabels = mk_gfdlabels_count(g->labels)) == 0 ||
           (g->node && !mk_gfdnode_published(g->node, why_not, sizeof why_not))) {
        unsigned crashes;
        char last[600];
        if (mk_super_status(g->super, &crashes, NULL, last, sizeof last) == MK_SUPER_FAILED) {
            char why[600];
            last_words(g, why, sizeof why);
            snprintf(err, errlen, "gpu-feature-discovery %s and crashed %u time%s; it never wrote "
                     "its labels%s%s", last, crashes, crashes == 1 ? "" : "s",
                     *why ? "; its last line: " : "", why);
            return -1;
        }
        if ((cancel && *cancel) || mk_now_s() >= deadline) {
            if (*nlabels)
                snprintf(err, errlen, "%s before gpu-feature-discovery's labels were on the "
                         "Node%s%s", cancel && *cancel ? "cancelled" : "--register-timeout ran out",
                         *why_not ? ": " : "", why_not);
            else
                snprintf(err, errlen, "%s before gpu-feature-discovery wrote its labels to %s%s",
                         cancel && *cancel ? "cancelled" : "--register-timeout ran out", g->output,
                         crashes ? " (it crashed meanwhile)" : "");
            return -1;
        }
        usleep(20000);
    }
    return 0;
}

void mk_gfd_stop(mk_gfd *g, int sig)
{
    if (g->super)
        mk_super_stop(g->super, sig, 10000);
    mk_gfdnode_stop(g->node);
    g->node = NULL;
}

void mk_gfd_free(mk_gfd *g)
{
    if (!g)
        return;
    mk_gfdnode_stop(g->node);
    mk_super_free(g->super);
    mk_gfdlabels_free(g->labels);
    mk_plugin_cmd_free(&g->cmd);
    free(g);
}
