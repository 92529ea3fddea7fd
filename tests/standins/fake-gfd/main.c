/* main.c - the stand-in gpu-feature-discovery's command line and relabel
 * loop: every --sleep-interval it initialises NVML, makes the labels, shuts
 * NVML down and replaces the output file (a temporary beside it, then a
 * rename, as GFD does), until SIGTERM or SIGINT. For Mokka's tests it can
 * also crash on purpose (--crash-after, --crash-marker). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "gfd.h"

static const char usage[] =
    "usage: fake-gfd [--oneshot[=BOOL]] [--output-file FILE] [--sleep-interval DURATION]\n"
    "                [--mig-strategy none|single|mixed] [--machine-type-file FILE]\n"
    "                [--no-timestamp[=BOOL]] [--fail-on-init-error[=BOOL]]\n"
    "                [--crash-after N [--crash-marker FILE]]\n"
    "A stand-in for NVIDIA's gpu-feature-discovery, for Mokka's tests: it labels\n"
    "the node from what libnvidia-ml.so.1 reports and writes key=value lines.\n"
    "  -o, --output-file FILE     where the labels go (env GFD_OUTPUT_FILE; default\n"
    "                             /etc/kubernetes/node-feature-discovery/features.d/gfd)\n"
    "      --sleep-interval D     time between relabels: 500ms, 1s, 1m (env\n"
    "                             GFD_SLEEP_INTERVAL; default 60s)\n"
    "      --oneshot              label once and exit (env GFD_ONESHOT)\n"
    "      --mig-strategy S       none (default), single or mixed (env MIG_STRATEGY)\n"
    "      --machine-type-file F  the DMI product name (env GFD_MACHINE_TYPE_FILE;\n"
    "                             default /sys/class/dmi/id/product_name)\n"
    "      --no-timestamp         leave out nvidia.com/gfd.timestamp\n"
    "      --crash-after N        exit 2 after writing the labels N times (0: before)\n"
    "      --crash-marker FILE    crash only when FILE does not exist, creating it:\n"
    "                             one crash, then a restarted stand-in keeps going\n";

typedef struct {
    fg_opts o;
    int oneshot, fail_on_init_error;
    long long interval_ms;
    long crash_after;            /* -1: never */
    const char *crash_marker;
} flags;

void fg_log(char level, const char *fmt, ...)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    char line[2048];
    int n = snprintf(line, sizeof line, "%c%02d%02d %02d:%02d:%02d.%06ld %7d fake-gfd] ", level,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (long)tv.tv_usec, (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}

static int parse_bool(const char *s, int *out)
{
    if (!s || strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
        *out = 1;
    else if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

/* 500ms, 1s, 2m, 1h, or bare seconds; -1 when malformed. */
static long long parse_ms(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    if (strcmp(end, "ms") == 0) return (long long)v;
    if (strcmp(end, "s") == 0 || !*end) return (long long)(v * 1000);
    if (strcmp(end, "m") == 0) return (long long)(v * 60000);
    if (strcmp(end, "h") == 0) return (long long)(v * 3600000);
    return -1;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* 0 to run, else the exit code. */
static int parse_flags(int argc, char **argv, flags *f)
{
    static const struct option opts[] = {
        { "oneshot", optional_argument, 0, '1' },
        { "output-file", required_argument, 0, 'o' },
        { "sleep-interval", required_argument, 0, 's' },
        { "mig-strategy", required_argument, 0, 'm' },
        { "machine-type-file", required_argument, 0, 'M' },
        { "no-timestamp", optional_argument, 0, 'T' },
        { "fail-on-init-error", optional_argument, 0, 'f' },
        { "crash-after", required_argument, 0, 'c' },
        { "crash-marker", required_argument, 0, 'C' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    f->o.output_file = env_or("GFD_OUTPUT_FILE", "/etc/kubernetes/node-feature-discovery/features.d/gfd");
    f->o.machine_file = env_or("GFD_MACHINE_TYPE_FILE", "/sys/class/dmi/id/product_name");
    f->o.mig_strategy = env_or("MIG_STRATEGY", "none");
    f->interval_ms = parse_ms(env_or("GFD_SLEEP_INTERVAL", "60s"));
    f->fail_on_init_error = 1;
    f->crash_after = -1;
    int bad = parse_bool(env_or("GFD_ONESHOT", "false"), &f->oneshot) ||
              parse_bool(env_or("GFD_NO_TIMESTAMP", "false"), &f->o.no_timestamp);
    int c;
    while (!bad && (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case '1': bad = parse_bool(optarg, &f->oneshot); break;
        case 'o': f->o.output_file = optarg; break;
        case 's': f->interval_ms = parse_ms(optarg); break;
        case 'm': f->o.mig_strategy = optarg; break;
        case 'M': f->o.machine_file = optarg; break;
        case 'T': bad = parse_bool(optarg, &f->o.no_timestamp); break;
        case 'f': bad = parse_bool(optarg, &f->fail_on_init_error); break;
        case 'c': f->crash_after = strtol(optarg, NULL, 10); break;
        case 'C': f->crash_marker = optarg; break;
        case 'h': fputs(usage, stdout); return -1;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (bad || f->interval_ms <= 0 || optind < argc ||
        (strcmp(f->o.mig_strategy, "none") && strcmp(f->o.mig_strategy, "single") &&
         strcmp(f->o.mig_strategy, "mixed"))) {
        fputs(usage, stderr);
        return 2;
    }
    return 0;
}

/* Replaces the output file with the labels, as one rename. */
static int write_labels(const char *path, const fg_labels *l)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    fwrite(l->text, 1, l->len, f);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

/* Whether to crash now, having written the labels `written` times. */
static int crash_now(const flags *f, long written)
{
    if (f->crash_after < 0 || written < f->crash_after)
        return 0;
    if (!f->crash_marker)
        return 1;
    int fd = open(f->crash_marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0; /* crashed once already */
    close(fd);
    return 1;
}

/* One relabel; -1 with err. */
static int relabel(const fg_nvml *n, const flags *f, char *err, size_t errlen)
{
    nvmlReturn_t r = n->Init_v2();
    if (r != NVML_SUCCESS) {
        snprintf(err, errlen, "failed to initialize NVML: %s", n->ErrorString(r));
        return -1;
    }
    fg_labels l = { 0 };
    int rc = fg_labels_make(n, &f->o, &l, err, errlen);
    n->Shutdown();
    if (rc == 0 && write_labels(f->o.output_file, &l) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", f->o.output_file, strerror(errno));
        rc = -1;
    }
    fg_labels_free(&l);
    return rc;
}

int main(int argc, char **argv)
{
    flags f;
    memset(&f, 0, sizeof f);
    int rc = parse_flags(argc, argv, &f);
    if (rc)
        return rc < 0 ? 0 : rc;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    fg_log('I', "Starting fake-gfd: output %s, interval %lldms, MIG strategy %s",
           f.o.output_file, f.interval_ms, f.o.mig_strategy);
    fg_nvml n;
    char err[1024];
    if (fg_nvml_load(&n, err, sizeof err) != 0) {
        fg_log('E', "%s", err);
        return 1;
    }
    for (long written = 0;; written++) {
        if (crash_now(&f, written)) {
            fg_log('E', "crashing on purpose (--crash-after %ld)", f.crash_after);
            return 2;
        }
        if (relabel(&n, &f, err, sizeof err) != 0) {
            fg_log('E', "%s", err);
            if (f.fail_on_init_error)
                return 1;
        } else {
            fg_log('I', "Writing labels to output file %s", f.o.output_file);
        }
        if (f.oneshot)
            return 0;
        struct timespec ts = { (time_t)(f.interval_ms / 1000), (long)(f.interval_ms % 1000) * 1000000 };
        int sig = sigtimedwait(&stop, NULL, &ts);
        if (sig == SIGTERM || sig == SIGINT) {
            fg_log('I', "Received signal %d, exiting", sig);
            return 0;
        }
    }
}
