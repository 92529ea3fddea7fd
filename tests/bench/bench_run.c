/* bench_run.c - the numbers of `mokka run`: how long from launching the
 * device plugin until the built-in kubelet holds every GPU, set against the
 * plugin's own start-up; how long from an XID written into the live state
 * (mk_state_raise, what `mokka inject` and a suite's inject do) until the
 * kubelet sees that GPU unhealthy; and how long the plugin takes to stop.
 *
 * It drives the engines of `mokka run` (sandbox, built-in kubelet, plugin
 * environment, supervisor) on the built-in 8 x A100 universe rather than
 * the mokka binary, so that each time is taken where it happens: the launch
 * just before the supervisor forks, the plugin's first log line by the
 * supervisor's stamp on it, the kubelet's view by its event callback.
 *
 *   bench_run [--label NAME] PLUGIN [ARGS...]
 *
 * Rows are prefixed "NAME:" when a label is given (the real plugin's rows).
 * Without a sandbox here (not root, no user namespaces) the rows say so. */
#include <pthread.h>
#include "bench.h"
#include "kubelet/kubelet.h"
#include "run/run.h"
#include "state.h"
#include "stateview/stateview.h"
#include "universe.h"

#define LAUNCHES 5
#define GPUS 8                          /* the built-in universe */
#define XID 79
#define LIMIT_NS (60 * 1000000000ull)   /* any wait longer than this is a failure */
#define SETTLE_NS (20 * 1000000ull)     /* before an injection: the plugin waits again */

/* What the kubelet callback saw last, and when. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t healthy, total;
    uint64_t at_mono_ns;        /* the last device list */
    double at_real_s;
} seen = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

static const char *label;

static double real_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_event(void *ctx, const mk_kubelet_event *ev)
{
    if (ev->kind != MK_KL_DEVICES)
        return;
    pthread_mutex_lock(&seen.mu);
    seen.healthy = ev->healthy;
    seen.total = ev->total;
    seen.at_mono_ns = bench_now_ns();
    seen.at_real_s = real_s();
    pthread_cond_broadcast(&seen.cv);
    pthread_mutex_unlock(&seen.mu);
}

/* Waits until the kubelet lists `total` devices of which `healthy` are;
 * returns the time of that list (monotonic ns, and wall clock in *real). */
static uint64_t wait_for(mk_super *s, size_t healthy, size_t total, double *real)
{
    uint64_t deadline = bench_now_ns() + LIMIT_NS;
    pthread_mutex_lock(&seen.mu);
    while (seen.healthy != healthy || seen.total != total) {
        if (bench_now_ns() > deadline) {
            static char tail[16384];
            pthread_mutex_unlock(&seen.mu);
            mk_super_log_tail(s, tail, sizeof tail, 40);
            bench_die("the kubelet never saw %zu of %zu GPUs healthy; the plugin's log:\n%s",
                      healthy, total, tail);
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&seen.cv, &seen.mu, &ts);
    }
    uint64_t at = seen.at_mono_ns;
    if (real)
        *real = seen.at_real_s;
    pthread_mutex_unlock(&seen.mu);
    return at;
}

/* The wall-clock stamp of the plugin's first line of output (the
 * supervisor's own lines, "mokka: ...", are not the plugin's). */
static double first_line_s(mk_super *s)
{
    static char log[65536];
    mk_super_log_tail(s, log, sizeof log, 400);
    for (char *line = log; *line; line = strchr(line, '\n') + 1) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        char *rest = strptime(line, "%Y-%m-%dT%H:%M:%S", &tm);
        int ms;
        if (rest && sscanf(rest, ".%3dZ", &ms) == 1 && strncmp(rest + 6, "mokka:", 6) != 0)
            return (double)timegm(&tm) + ms / 1000.0;
        if (!strchr(line, '\n'))
            break;
    }
    bench_die("the plugin wrote nothing");
    return 0;
}

typedef struct launch {
    double first_line_ms, registered_ms, stop_ms;
    double inject_ms[GPUS];
    size_t ninject;
} launch;

static void one_launch(char *const *plugin, size_t nargs, const mk_universe *u, launch *out)
{
    char dir[4096], err[1024], lib_dir[4096], state_path[4200];
    snprintf(dir, sizeof dir, "%s/run.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        bench_die("mkdtemp %s: %s", dir, strerror(errno));
    mk_sandbox sb;
    if (mk_sandbox_prepare(&sb, dir, u, 1, err, sizeof err) != 0)
        bench_die("%s", err);
    pthread_mutex_lock(&seen.mu);
    seen.healthy = seen.total = 0;
    pthread_mutex_unlock(&seen.mu);
    mk_kubelet_opts ko = { .on_event = on_event };
    mk_kubelet *k = mk_kubelet_start(sb.kubelet_dir, &ko, err, sizeof err);
    if (!k)
        bench_die("built-in kubelet: %s", err);

    const char *lib = bench_lib_path();
    snprintf(lib_dir, sizeof lib_dir, "%s", lib);
    *strrchr(lib_dir, '/') = 0;
    mk_plugin_cmd cmd;
    mk_plugenv_opts po = { .lib_file = lib, .lib_dir = lib_dir, .state_dir = dir };
    if (mk_plugin_resolve(plugin[0], plugin + 1, nargs - 1, &cmd, err, sizeof err) != 0 ||
        mk_plugin_env(&cmd, &po, err, sizeof err) != 0)
        bench_die("%s", err);
    mk_super_opts so = { cmd.argv, cmd.envp, &sb, NULL, 0, 0, 1, "plugin" };

    double launched = real_s();
    mk_super *s = mk_super_start(&so, err, sizeof err);
    if (!s)
        bench_die("%s", err);
    double registered;
    wait_for(s, u->ndev, u->ndev, &registered);
    out->registered_ms = (registered - launched) * 1e3;
    out->first_line_ms = (first_line_s(s) - launched) * 1e3;

    mk_state st;
    snprintf(state_path, sizeof state_path, "%s/state", dir);
    if (mk_state_open_existing(&st, state_path, err, sizeof err) != 0)
        bench_die("%s", err);
    out->ninject = u->ndev;
    for (unsigned g = 0; g < u->ndev; g++) {
        bench_sleep_ns(SETTLE_NS);
        uint64_t t0 = bench_now_ns();
        mk_state_raise(&st, g, MK_FAULT_XID, XID, -1);
        out->inject_ms[g] = (double)(wait_for(s, u->ndev - 1 - g, u->ndev, NULL) - t0) / 1e6;
    }
    mk_state_close(&st);

    uint64_t t0 = bench_now_ns();
    mk_super_stop(s, SIGTERM, 10000);
    out->stop_ms = (double)(bench_now_ns() - t0) / 1e6;
    mk_super_free(s);
    mk_kubelet_stop(k);
    mk_plugin_cmd_free(&cmd);
    mk_statedir_remove(dir);
}

static void row(const char *name, double value, int decimals, const char *target,
                const char *note)
{
    char full[256];
    snprintf(full, sizeof full, "%s%s%s", label ? label : "", label ? ":" : "", name);
    bench_row(full, value, decimals, "ms", target, note);
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "--label") == 0) {
        label = argv[a + 1];
        a += 2;
    }
    if (a >= argc)
        bench_die("usage: bench_run [--label NAME] PLUGIN [ARGS...]");
    char why[512];
    if (!mk_sandbox_available(why, sizeof why)) {
        char full[256], note[700];
        snprintf(note, sizeof note, "skipped: no GPU-node sandbox here (%s)", why);
        snprintf(full, sizeof full, "%s%splugin.launch-to-all-registered", label ? label : "",
                 label ? ":" : "");
        bench_row_na(full, "ms", "-", note);
        return 0;
    }
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(NULL, NULL, &d);
    mk_diags_free(&d);
    if (!u || u->ndev != GPUS)
        bench_die("the built-in universe is not %d GPUs", GPUS);

    static launch runs[LAUNCHES];
    double first[LAUNCHES], reg[LAUNCHES], beyond[LAUNCHES], stop[LAUNCHES];
    double inject[LAUNCHES * GPUS];
    size_t ninject = 0;
    for (int i = 0; i < LAUNCHES; i++) {
        one_launch(argv + a, (size_t)(argc - a), u, &runs[i]);
        first[i] = runs[i].first_line_ms;
        reg[i] = runs[i].registered_ms;
        beyond[i] = reg[i] - first[i];
        stop[i] = runs[i].stop_ms;
        for (size_t g = 0; g < runs[i].ninject; g++)
            inject[ninject++] = runs[i].inject_ms[g];
    }
    mk_universe_free(u);

    char note[256];
    snprintf(note, sizeof note, "launch (fork, sandbox, exec) to the plugin's first log line; "
             "median of %d", LAUNCHES);
    row("plugin.launch-to-first-log", bench_median(first, LAUNCHES), 0, "-", note);
    snprintf(note, sizeof note, "launch to the kubelet holding all %d GPUs from ListAndWatch; "
             "median of %d", (int)runs[0].ninject, LAUNCHES);
    row("plugin.launch-to-all-registered", bench_median(reg, LAUNCHES), 0, "-", note);
    snprintf(note, sizeof note, "the two above per launch: registration beyond the plugin's own "
             "start-up; median of %d, max %.0f", LAUNCHES, bench_percentile(beyond, LAUNCHES, 100));
    row("plugin.registered-after-first-log", bench_median(beyond, LAUNCHES), 0, "<1000", note);
    double worst = bench_percentile(inject, ninject, 100);
    snprintf(note, sizeof note, "XID %d by mk_state_raise to the kubelet's list showing it "
             "unhealthy; median of %zu, max %.1f", XID, ninject, worst);
    row("plugin.inject-to-unhealthy", bench_median(inject, ninject), 2, "<1000", note);
    snprintf(note, sizeof note, "SIGTERM to the plugin's exit (the end of every run); median of "
             "%d, max %.0f", LAUNCHES, bench_percentile(stop, LAUNCHES, 100));
    row("plugin.stop", bench_median(stop, LAUNCHES), 0, "-", note);
    return 0;
}
