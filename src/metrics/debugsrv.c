/* debugsrv.c - `debug: true` beside `mokka run` and `mokka exec` (see
 * metrics.h): the live state's exposition on debugListen while the command
 * runs. The state file appears when the first program on the mock calls
 * nvmlInit; until then a scrape answers 503. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/util.h"
#include "metrics.h"

struct mk_debugsrv {
    mk_http_bg *bg;
    char cmd[32];
    char state_dir[4096];
};

static void handle(const char *path, mk_http_resp *r, void *ctx)
{
    const mk_debugsrv *s = ctx;
    char state[4200];
    struct stat st;
    mk_view v;
    if (strcmp(path, "/metrics") != 0) {
        mk_http_text(r, 404, NULL, "not found: try /metrics\n");
        return;
    }
    snprintf(state, sizeof state, "%s/state", s->state_dir);
    mk_view_where w = { s->state_dir, 0 };
    if (stat(state, &st) != 0 || mk_view_open(s->cmd, &w, 1, &v) != 0) {
        mk_http_text(r, 503, NULL, "no live state yet: no program on the mock has called nvmlInit\n");
        return;
    }
    r->body = mk_expose_text(&v, &r->len);
    mk_view_close(&v);
    r->status = 200;
    r->type = MK_PROM_CONTENT_TYPE;
    if (!r->body)
        mk_http_text(r, 503, NULL, "out of memory\n");
}

mk_debugsrv *mk_debugsrv_start(const char *cmd, const char *listen, const char *state_dir)
{
    char bound[300], err[512];
    int loopback;
    mk_debugsrv *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s->cmd, sizeof s->cmd, "%s", cmd);
    snprintf(s->state_dir, sizeof s->state_dir, "%s", state_dir);
    int fd = mk_http_listen(listen, bound, sizeof bound, &loopback, err, sizeof err);
    if (fd < 0 || !(s->bg = mk_http_bg_start(fd, handle, s, err, sizeof err))) {
        mk_err(cmd, "warning: debug: true, but no metrics are served: %s", err);
        free(s);
        return NULL;
    }
    if (!loopback)
        mk_err(cmd, "warning: debug: serving on %s, which other hosts can reach", bound);
    mk_info(cmd, "debug: serving http://%s/metrics", bound);
    return s;
}

void mk_debugsrv_stop(mk_debugsrv *s)
{
    if (!s)
        return;
    mk_http_bg_stop(s->bg);
    free(s);
}
