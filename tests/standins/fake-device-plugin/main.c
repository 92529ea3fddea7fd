/* main.c - the stand-in device plugin's command line and main loop: load
 * NVML and list the GPUs, serve and register, then watch for signals
 * (SIGHUP restarts, SIGTERM/SIGINT/SIGQUIT stop) and for kubelet.sock being
 * created again (a kubelet restart: serve and register anew), as NVIDIA's
 * plugin does. A failed registration is retried after 30 s. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "plugin.h"

#define RETRY_S 30

static const char usage[] =
    "usage: fake-device-plugin [--kubelet-socket PATH] [--resource-name NAME]\n"
    "                          [--endpoint FILE] [--fail-on-init-error[=true|false]]\n"
    "A stand-in for NVIDIA's device plugin, for Mokka's tests: it lists the GPUs\n"
    "that libnvidia-ml.so.1 reports and offers them to the kubelet.\n"
    "  --kubelet-socket PATH   the kubelet's registration socket; the plugin's own\n"
    "                          socket goes in the same directory (env KUBELET_SOCKET;\n"
    "                          default /var/lib/kubelet/device-plugins/kubelet.sock)\n"
    "  --resource-name NAME    the resource to register (default nvidia.com/gpu)\n"
    "  --endpoint FILE         its socket's name in the kubelet's directory (default\n"
    "                          nvidia-<name>.sock, as NVIDIA names it after the resource)\n"
    "  --fail-on-init-error    exit 1 when NVML cannot be initialised (default true;\n"
    "                          env FAIL_ON_INIT_ERROR); false: wait without GPUs\n";

static int parse_bool(const char *s, int *out)
{
    if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
        *out = 1;
    else if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

/* 0 to run, else the exit code. */
static int parse_flags(int argc, char **argv, mk_plugin *p)
{
    static const struct option opts[] = {
        { "kubelet-socket", required_argument, 0, 'k' },
        { "resource-name", required_argument, 0, 'r' },
        { "endpoint", required_argument, 0, 'e' },
        { "fail-on-init-error", optional_argument, 0, 'f' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *env = getenv("KUBELET_SOCKET");
    p->kubelet_socket = env && *env ? env : "/var/lib/kubelet/device-plugins/kubelet.sock";
    p->resource = "nvidia.com/gpu";
    const char *endpoint = NULL;
    p->fail_on_init_error = 1;
    if ((env = getenv("FAIL_ON_INIT_ERROR")) && *env && parse_bool(env, &p->fail_on_init_error)) {
        fprintf(stderr, "fake-device-plugin: FAIL_ON_INIT_ERROR=%s is not true or false\n", env);
        return 2;
    }
    for (int c; (c = getopt_long(argc, argv, "h", opts, NULL)) != -1;) {
        switch (c) {
        case 'k': p->kubelet_socket = optarg; break;
        case 'r': p->resource = optarg; break;
        case 'e': endpoint = optarg; break;
        case 'f':
            if (!optarg)
                p->fail_on_init_error = 1;
            else if (parse_bool(optarg, &p->fail_on_init_error)) {
                fprintf(stderr, "fake-device-plugin: --fail-on-init-error=%s is not true or false\n",
                        optarg);
                return 2;
            }
            break;
        case 'h': fputs(usage, stdout); return -1;
        default:  fputs(usage, stderr); return 2;
        }
    }
    if (optind < argc || p->kubelet_socket[0] != '/' || !strchr(p->resource, '/') ||
        (endpoint && (!*endpoint || strchr(endpoint, '/')))) {
        fprintf(stderr, "fake-device-plugin: %s\n", optind < argc ? "unexpected arguments"
                : p->kubelet_socket[0] != '/' ? "--kubelet-socket must be an absolute path"
                : !strchr(p->resource, '/') ? "--resource-name must be domain/name"
                : "--endpoint is a file name in the kubelet's directory");
        return 2;
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", p->kubelet_socket);
    snprintf(p->dir, sizeof p->dir, "%s", dirname(copy));
    /* NVIDIA names its socket nvidia-<name>.sock after the resource. */
    if (endpoint)
        snprintf(p->endpoint, sizeof p->endpoint, "%s", endpoint);
    else
        snprintf(p->endpoint, sizeof p->endpoint, "nvidia-%s.sock", strchr(p->resource, '/') + 1);
    snprintf(p->socket, sizeof p->socket, "%s/%s", p->dir, p->endpoint);
    return 0;
}

/* NVML and the GPU list. 0 to go on, 1 to wait without GPUs (NVML failed
 * and --fail-on-init-error=false), -1 to exit with an error. */
static int init_gpus(mk_plugin *p)
{
    char err[512];
    if (mk_gpus_init_nvml(p, err, sizeof err) == 0 && mk_gpus_list(p, err, sizeof err) == 0)
        return 0;
    if (!p->fail_on_init_error) {
        mk_log('W', "%s; --fail-on-init-error=false: running without GPUs", err);
        return 1;
    }
    mk_log('E', "%s", err);
    mk_log('E', "If this is not a GPU node, set --fail-on-init-error=false. Otherwise check that "
           "libnvidia-ml.so.1 can be loaded (LD_LIBRARY_PATH, LD_PRELOAD) and works.");
    return -1;
}

/* Serve and register; on failure the caller retries at *retry_at. */
static void start(mk_plugin *p, time_t *retry_at)
{
    char err[512];
    *retry_at = 0;
    if (mk_service_start(p, err, sizeof err) != 0) {
        mk_log('I', "Failed to start one or more plugins. Retrying in %ds...", RETRY_S);
        *retry_at = time(NULL) + RETRY_S;
    }
}

static void restart(mk_plugin *p, time_t *retry_at)
{
    mk_service_stop(p);
    mk_gpus_reset_health(p);
    start(p, retry_at);
}

/* Reads inotify events; 1 when kubelet.sock was (re)created. */
static int kubelet_sock_created(int fd)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n = read(fd, buf, sizeof buf);
    int created = 0;
    for (char *at = buf; n > 0 && at < buf + n;) {
        const struct inotify_event *e = (const struct inotify_event *)at;
        if (e->len && strcmp(e->name, "kubelet.sock") == 0 && (e->mask & (IN_CREATE | IN_MOVED_TO)))
            created = 1;
        at += sizeof *e + e->len;
    }
    return created;
}

/* Waits for signals and kubelet restarts; returns when told to stop. */
static void watch(mk_plugin *p, int serving, int sigfd, int infd)
{
    time_t retry_at = 0;
    if (serving)
        start(p, &retry_at);
    for (;;) {
        struct pollfd fds[2] = { { sigfd, POLLIN, 0 }, { infd, POLLIN, 0 } };
        if (poll(fds, 2, 1000) < 0 && errno != EINTR)
            return;
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(sigfd, &si, sizeof si) != (ssize_t)sizeof si)
                continue;
            if (si.ssi_signo != SIGHUP) {
                mk_log('I', "Received signal \"%s\", shutting down.", strsignal((int)si.ssi_signo));
                return;
            }
            mk_log('I', "Received SIGHUP, restarting.");
            if (serving)
                restart(p, &retry_at);
        }
        if ((fds[1].revents & POLLIN) && kubelet_sock_created(infd) && serving) {
            mk_log('I', "inotify: %s created, restarting.", p->kubelet_socket);
            restart(p, &retry_at);
        }
        if (serving && retry_at && time(NULL) >= retry_at)
            restart(p, &retry_at);
    }
}

int main(int argc, char **argv)
{
    static mk_plugin p;
    int rc = parse_flags(argc, argv, &p);
    if (rc)
        return rc < 0 ? 0 : rc;
    pthread_mutex_init(&p.mu, NULL);
    mk_log('I', "Starting fake-device-plugin (Mokka stand-in for NVIDIA's device plugin)");

    /* Signals arrive on a descriptor; blocked first so every thread,
     * gRPC's included, inherits the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGQUIT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    int sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
    mk_log('I', "Starting FS watcher for %s", p.dir);
    int infd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (sigfd < 0 || infd < 0 || inotify_add_watch(infd, p.dir, IN_CREATE | IN_MOVED_TO) < 0) {
        mk_log('E', "failed to create FS watcher for %s: %s", p.dir, strerror(errno));
        return 1;
    }
    mk_log('I', "Starting OS watcher.");

    rc = init_gpus(&p);
    if (rc < 0)
        return 1;
    int serving = rc == 0 && p.ngpu > 0;
    if (rc == 0 && p.ngpu == 0)
        mk_log('I', "No devices found. Waiting indefinitely.");
    if (serving)
        mk_health_start(&p);

    watch(&p, serving, sigfd, infd);

    mk_service_stop(&p);
    mk_health_stop(&p);
    mk_gpus_shutdown(&p);
    close(infd);
    close(sigfd);
    pthread_mutex_destroy(&p.mu);
    return 0;
}
