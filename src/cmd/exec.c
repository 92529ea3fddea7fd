/* exec.c - `mokka exec`: runs any program on the mock. It puts Mokka's
 * library in front of the dynamic loader (LD_PRELOAD for programs linked
 * against NVML, LD_LIBRARY_PATH for those that dlopen it by name), hands the
 * program a checked config and a fresh live-state directory, forwards the
 * signals a supervisor sends, and passes the exit status through. With
 * `debug: true` in the config it serves the live state's /metrics meanwhile. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "config/config.h"
#include "cmds.h"
#include "commands.h"
#include "bundle/bundle.h"
#include "metrics/metrics.h"
#include "stateview/stateview.h"

const char cmd_exec_summary[] = "run a program on the mock GPUs";
const char cmd_exec_help[] =
    "Usage: mokka exec [OPTIONS] [--] COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND with Mokka's libnvidia-ml.so.1 in place of NVIDIA's, so that\n"
    "unmodified NVML programs (pynvml, go-nvml, the device plugin, exporters)\n"
    "see the virtual GPUs. COMMAND gets:\n"
    "  LD_PRELOAD         Mokka's library, in front of any existing entries\n"
    "  LD_LIBRARY_PATH    its directory, in front, for dlopen(\"libnvidia-ml.so.1\")\n"
    "  MOCK_CONFIG_PATH   the config as an absolute path (checked first)\n"
    "  MOKKA_STATE_DIR    a fresh live-state directory for mokka stats/metrics/inject\n"
    "  MOKKA_NODE_NAME    with --node\n"
    "  MOKKA_CLI          exec: `debug: true` metrics are mokka's to serve, not the\n"
    "                     library's\n"
    "SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to mokka are passed to COMMAND.\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE    GPU config (default: $MOCK_CONFIG_PATH, else the\n"
    "                       built-in 8 x A100-SXM4-40GB)\n"
    "  -s, --state-dir DIR  use DIR as the live-state directory (kept afterwards)\n"
    "  -k, --keep-state     keep the fresh state directory after COMMAND exits\n"
    "  -n, --node NAME      node name behind `uuid: auto` (default: the hostname)\n"
    MK_HELP_COMMON
    "\n"
    "Examples:\n"
    "  mokka exec --config fixtures/configs/mig-mixed.yaml -- python3 app.py\n"
    "  mokka exec --keep-state nvidia-device-plugin --fail-on-init-error=true\n"
    "\n"
    "Exit codes: COMMAND's own; 128+N when COMMAND dies of signal N; 126 COMMAND\n"
    "cannot be executed; 127 COMMAND not found; 2 usage error or invalid config;\n"
    "3 the library or the state directory cannot be provided.\n";

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFWD (sizeof forwarded / sizeof forwarded[0])
static volatile sig_atomic_t child;

static void forward(int sig, siginfo_t *si, void *uctx)
{
    (void)uctx;
    /* A terminal's ^C or ^\ already went to the whole foreground process
     * group, COMMAND included: passing it on would deliver it twice. */
    if (si->si_code == SI_KERNEL)
        return;
    if (child > 0)
        kill((pid_t)child, sig);
}

static int prepend_env(const char *name, const char *value)
{
    const char *old = getenv(name);
    if (!old || !*old)
        return setenv(name, value, 1);
    char *both;
    if (asprintf(&both, "%s:%s", value, old) < 0)
        return -1;
    int rc = setenv(name, both, 1);
    free(both);
    return rc;
}

typedef struct exec_opts {
    const char *config, *state_dir, *node;
    int keep_state;
} exec_opts;

/* Sets everything COMMAND gets from the environment; fills statedir. */
static int prepare_env(const exec_opts *o, const char *cmdname, char *statedir, size_t len)
{
    char dir[4096], file[4200], err[1024] = "";
    if (o->node && setenv("MOKKA_NODE_NAME", o->node, 1) != 0)
        return MK_EXIT_ENV;
    int rc = mk_config_prepare("exec", o->config);
    if (rc != 0)
        return rc;
    if (mk_lib_path(dir, sizeof dir, file, sizeof file, err, sizeof err) != 0) {
        mk_err("exec", "%s", err);
        return MK_EXIT_ENV;
    }
    if (o->state_dir) {
        if (mk_mkdir_p(o->state_dir, 0755, err, sizeof err) != 0 ||
            !realpath(o->state_dir, statedir)) {
            mk_err("exec", "state directory %s: %s", o->state_dir, err[0] ? err : strerror(errno));
            return MK_EXIT_ENV;
        }
    } else {
        char tag[256];
        snprintf(tag, sizeof tag, "%s", cmdname);
        if (mk_statedir_new(basename(tag), statedir, len, err, sizeof err) != 0) {
            mk_err("exec", "%s", err);
            return MK_EXIT_ENV;
        }
    }
    if (prepend_env("LD_PRELOAD", file) != 0 || prepend_env("LD_LIBRARY_PATH", dir) != 0 ||
        setenv("MOKKA_STATE_DIR", statedir, 1) != 0 ||
        setenv("MOKKA_CLI", "exec", 1) != 0) {
        mk_err("exec", "cannot set the environment: %s", strerror(errno));
        return MK_EXIT_ENV;
    }
    return 0;
}

/* Starts COMMAND and waits for it; returns its status the way a shell does. */
static int run_child(char **cmd)
{
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NFWD; i++)
        sigaddset(&block, forwarded[i]);
    /* Blocked across fork, so that no signal arrives before child is set. */
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFWD; i++)
        sigaction(forwarded[i], &sa, NULL);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        mk_err("exec", "cannot start %s: %s", cmd[0], strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        return MK_EXIT_ENV;
    }
    if (pid == 0) {
        /* SIGTERM, as the forwarded signals: COMMAND may clean up. */
        if (mk_child_die_with(parent, SIGTERM) != 0)
            _exit(125);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(cmd[0], cmd);
        int e = errno;
        fprintf(stderr, "mokka exec: cannot run '%s': %s\n", cmd[0], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    child = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            mk_err("exec", "cannot wait for %s: %s", cmd[0], strerror(errno));
            return MK_EXIT_ENV;
        }
    child = 0;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* `debug: true` in the config: its metrics served while COMMAND runs. */
static mk_debugsrv *start_debug(const char *statedir)
{
    mk_diags d;
    mk_diags_init(&d);
    const char *config = getenv("MOCK_CONFIG_PATH");
    mk_universe *u = mk_universe_load(config && *config ? config : NULL, NULL, &d);
    mk_debugsrv *s = u && u->debug ? mk_debugsrv_start("exec", u->debug_listen, statedir) : NULL;
    mk_universe_free(u);
    mk_diags_free(&d);
    return s;
}

int cmd_exec(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, 0, 'c' },
        { "state-dir", required_argument, 0, 's' },
        { "keep-state", no_argument, 0, 'k' },
        { "node", required_argument, 0, 'n' },
        MK_COMMON_OPTS,
        { 0, 0, 0, 0 }
    };
    const mk_cmd *self = mk_find_command("exec");
    exec_opts o = { 0 };
    int c;
    /* '+': options end at COMMAND, whose own options are its business. */
    while ((c = getopt_long(argc, argv, "+c:s:kn:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': o.config = optarg; break;
        case 's': o.state_dir = optarg; break;
        case 'k': o.keep_state = 1; break;
        case 'n': o.node = optarg; break;
        default: {
            int rc = mk_common_opt(self, c, optarg);
            if (rc >= 0)
                return rc;
        }
        }
    }
    if (optind == argc)
        return mk_usage_error("exec", "missing COMMAND to run on the mock");
    char **cmd = argv + optind;
    char statedir[4096];
    int rc = prepare_env(&o, cmd[0], statedir, sizeof statedir);
    if (rc != 0)
        return rc;
    mk_debugsrv *debug = start_debug(statedir);
    rc = run_child(cmd);
    mk_debugsrv_stop(debug);
    if (o.state_dir)
        return rc;
    if (o.keep_state) {
        mk_statedir_keep(statedir);
        mk_info("exec", "live state kept in %s", statedir);
    } else
        mk_statedir_remove(statedir);
    return rc;
}
