/* stateview.c - finding, opening and reading a live state for the CLI (see
 * stateview.h). Readings here never write to the state: `mokka stats` must
 * not change what the program on the mock sees next. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "live.h"
#include "stateview.h"

int mk_view_opt(const char *cmd, int c, const char *arg, mk_view_where *w)
{
    char *end;
    long pid;
    switch (c) {
    case MK_OPT_STATE_DIR:
        w->dir = arg;
        return -1;
    case MK_OPT_PID:
        errno = 0;
        pid = strtol(arg, &end, 10);
        if (!*arg || *end || errno || pid <= 0 || pid > 0x7fffffff)
            return mk_usage_error(cmd, "--pid takes a process id, not '%s'", arg);
        w->pid = (pid_t)pid;
        return -1;
    default:
        return MK_VIEW_NOT_MINE;
    }
}

/* The config as the program named it; a relative path is tried from the
 * program's working directory too, since the CLI may run elsewhere. */
static mk_universe *load_universe(mk_view *v, mk_diags *d)
{
    const char *cfg = v->st.hdr->config_path;
    char path[4200];
    int pids[MK_STATE_PIDS];
    if (!cfg[0])
        return mk_universe_load(NULL, v->st.hdr->node, d);
    snprintf(path, sizeof path, "%s", cfg);
    if (cfg[0] != '/' && access(cfg, R_OK) != 0) {
        unsigned n = mk_view_alive(v, pids, MK_STATE_PIDS);
        for (unsigned i = 0; i < n && i < MK_STATE_PIDS; i++) {
            snprintf(path, sizeof path, "/proc/%d/cwd/%s", pids[i], cfg);
            if (access(path, R_OK) == 0)
                break;
            snprintf(path, sizeof path, "%s", cfg);
        }
    }
    return mk_universe_load(path, v->st.hdr->node, d);
}

/* Loads the universe and checks that it is the one the state was made from
 * (the config may have changed since). */
static void attach_universe(mk_view *v)
{
    mk_diags d;
    mk_diags_init(&d);
    v->u = load_universe(v, &d);
    const char *cfg = v->st.hdr->config_path[0] ? v->st.hdr->config_path : "(built-in)";
    if (!v->u) {
        const mk_diag *g = mk_diags_first_error(&d);
        char line[512] = "";
        if (g)
            mk_diag_format(g, line, sizeof line);
        snprintf(v->why_no_u, sizeof v->why_no_u, "the config %s does not load now: %s", cfg, line);
    } else if (v->u->ndev != v->st.hdr->ndev) {
        snprintf(v->why_no_u, sizeof v->why_no_u, "the config %s now has %zu GPUs, the state %u",
                 cfg, v->u->ndev, v->st.hdr->ndev);
    } else {
        for (size_t i = 0; i < v->u->ndev; i++)
            if (strcmp(v->u->dev[i].uuid, v->st.dev[i].uuid) != 0) {
                snprintf(v->why_no_u, sizeof v->why_no_u,
                         "the config %s no longer describes GPU %zu (%s)", cfg, i, v->st.dev[i].uuid);
                break;
            }
    }
    if (v->why_no_u[0]) {
        mk_universe_free(v->u);
        v->u = NULL;
    }
    mk_diags_free(&d);
}

int mk_view_open(const char *cmd, const mk_view_where *w, int want_u, mk_view *v)
{
    char err[1024];
    memset(v, 0, sizeof *v);
    if (w->dir && w->pid)
        return mk_usage_error(cmd, "give --state-dir or --pid, not both");
    if (mk_statedir_find(w->dir, w->pid, v->path, sizeof v->path, err, sizeof err) != 0 ||
        mk_state_open_existing(&v->st, v->path, err, sizeof err) != 0) {
        mk_err(cmd, "%s", err);
        return MK_EXIT_ENV;
    }
    if (want_u)
        attach_universe(v);
    return 0;
}

void mk_view_close(mk_view *v)
{
    mk_universe_free(v->u);
    v->u = NULL;
    mk_state_close(&v->st); /* the CLI never attached: no pid slot changes */
}
