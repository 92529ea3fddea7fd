/* nvml_debug.c - `debug: true` in a process without the CLI (a DaemonSet
 * that preloads the library): the one thread the library ever starts, and
 * only because the config asked, serving the live state's /metrics on
 * debugListen with the exposition of `mokka metrics` (expose.h). Under
 * `mokka run` and `mokka exec` (MOKKA_CLI in the environment) the CLI
 * serves them instead.
 *
 * At most one per process, started at the first successful nvmlInit and
 * never stopped: a forked child inherits the "started" mark, not the
 * thread, and starts none; the library pins itself in memory first, since a
 * host that dlcloses it (go-nvml does at nvmlShutdown) must not unmap the
 * server's code. A scrape reads the state under the library's lock; between
 * nvmlShutdown and the next nvmlInit it answers 503. A port that cannot be
 * had is one stderr line, and the host goes on as if debug were off. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "expose.h"
#include "httpd.h"
#include "nvml_impl.h"

static int started; /* under mk_L.lock; inherited by fork children */

static void handle(const char *path, mk_http_resp *r, void *ctx)
{
    (void)ctx;
    if (strcmp(path, "/metrics") != 0) {
        mk_http_text(r, 404, NULL, "not found: try /metrics\n");
        return;
    }
    pthread_mutex_lock(&mk_L.lock);
    if (atomic_load(&mk_L.refs) > 0) {
        mk_view v;
        memset(&v, 0, sizeof v);
        v.st = mk_L.st;
        v.u = atomic_load(&mk_L.u);
        r->body = mk_expose_text(&v, &r->len);
    }
    pthread_mutex_unlock(&mk_L.lock);
    r->status = 200;
    r->type = MK_PROM_CONTENT_TYPE;
    if (!r->body)
        mk_http_text(r, 503, NULL, "NVML is not initialised in this process\n");
}

void mk_debug_start_locked(const mk_universe *u)
{
    char bound[300], err[512];
    int loopback;
    if (!u->debug || started || getenv("MOKKA_CLI"))
        return;
    started = 1;
    /* Never unloaded from here on: the thread runs the library's code. */
    if (!dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)) {
        fprintf(stderr, "mokka: debug: true, but no metrics are served: the library cannot pin "
                "itself in memory\n");
        return;
    }
    int fd = mk_http_listen(u->debug_listen, bound, sizeof bound, &loopback, err, sizeof err);
    if (fd < 0 || !mk_http_bg_start(fd, handle, NULL, err, sizeof err)) {
        fprintf(stderr, "mokka: debug: true, but no metrics are served: %s\n", err);
        return;
    }
    fprintf(stderr, "mokka: debug: true: serving http://%s/metrics from process %d (one thread)%s\n",
            bound, (int)getpid(), loopback ? "" : ", which other hosts can reach");
}
