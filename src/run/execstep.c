/* execstep.c - the commands of suite exec steps under `mokka run`: each runs
 * in the GPU-node sandbox with the plugin's environment (the library, the
 * config, the live state) and the step's own variables over it, in a
 * process group of its own, with stdin from /dev/null and its stdout and
 * stderr captured. At its timeout, or when the run is cancelled, the whole
 * group is killed; when it exits, whatever it left running in its group is
 * killed too. The command dies with mokka (PDEATHSIG), and what it started,
 * in its group or not, by mokka's tree guard (the plugin's environment
 * carries the mark; util/treeguard.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "run.h"
#include "util/util.h"

extern char **environ;

#define GRACE_MS 500   /* reading on after the command ended, for what its group wrote */

typedef struct capture {
    int fd;
    char *buf;
    size_t len;
    int cut;
} capture;

/* The plugin's environment with the step's NAME=VALUE entries over it. */
static char **merge_env(char *const *base, char *const *over)
{
    size_t n = 0, k = 0;
    while (base && base[n])
        n++;
    for (size_t i = 0; over && over[i]; i++)
        n++;
    char **env = mk_xcalloc(n + 1, sizeof *env);
    for (size_t i = 0; base && base[i]; i++)
        env[k++] = base[i];
    for (size_t i = 0; over && over[i]; i++) {
        size_t name = strcspn(over[i], "=");
        size_t j = 0;
        while (j < k && !(strncmp(env[j], over[i], name) == 0 && env[j][name] == '='))
            j++;
        env[j] = over[i];
        k += j == k;
    }
    return env;
}

/* In the child: never returns. */
static void child(const mk_runenv *r, char *const *argv, char **envp, pid_t parent, int out,
                  int err)
{
    char why[1024];
    if (mk_child_die_with(parent, SIGKILL) != 0)
        _exit(125);
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    mk_child_default_signals();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (r->sandbox && mk_sandbox_enter(r->sandbox, why, sizeof why) != 0) {
        dprintf(STDERR_FILENO, "mokka: cannot enter the GPU-node sandbox: %s\n", why);
        _exit(126);
    }
    environ = envp;   /* execvp looks the command up on the step's PATH */
    execvp(argv[0], argv);
    dprintf(STDERR_FILENO, "mokka: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
}

/* Reads what is there; 0 at the end of the stream. */
static int take(capture *c)
{
    char chunk[8192];
    ssize_t n = read(c->fd, chunk, sizeof chunk);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR;
    if (n == 0)
        return 0;
    for (ssize_t i = 0; i < n; i++) {
        if (!chunk[i])
            continue;   /* the report holds text */
        if (c->len == MK_EXEC_CAPTURE) {
            c->cut = 1;
            break;
        }
        c->buf[c->len++] = chunk[i];
    }
    return 1;
}

/* Reads both streams until they end or `until` (monotonic ms) passes. */
static void read_until(capture *c, long long until, int *done)
{
    struct pollfd p[2];
    nfds_t n = 0;
    for (int i = 0; i < 2; i++)
        if (c[i].fd >= 0)
            p[n++] = (struct pollfd){c[i].fd, POLLIN, 0};
    long long left = until - mk_now_ms();
    if (!n || left <= 0) {
        *done = !n;
        return;
    }
    poll(p, n, left < 50 ? (int)left : 50);
    for (int i = 0; i < 2; i++)
        if (c[i].fd >= 0 && !take(&c[i])) {
            close(c[i].fd);
            c[i].fd = -1;
        }
    *done = c[0].fd < 0 && c[1].fd < 0;
}

static void kill_group(pid_t pid)
{
    kill(-pid, SIGKILL);
}

/* Waits for the command: it ends, or its time runs out, or the run is
 * cancelled. Returns 0, or -1 when cancelled. */
static int wait_command(const mk_suite_env *env, pid_t pid, capture *c, long long deadline,
                        mk_exec_res *res)
{
    int status = 0, reaped = 0, streams_done = 0, cancelled = 0;
    while (!reaped) {
        if (env->cancel && *env->cancel) {
            cancelled = 1;
            kill_group(pid);
        } else if (!res->timed_out && mk_now_ms() >= deadline) {
            res->timed_out = 1;
            kill_group(pid);
        }
        if (streams_done) {
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
        } else {
            read_until(c, mk_now_ms() + 50, &streams_done);
        }
        /* ended, not yet reaped: its group id cannot be reused yet */
        siginfo_t info;
        info.si_pid = 0;
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid) {
            kill_group(pid);   /* what it left running in its group */
            reaped = waitpid(pid, &status, 0) == pid;
        }
    }
    long long until = mk_now_ms() + GRACE_MS;
    while (!streams_done && mk_now_ms() < until)
        read_until(c, until, &streams_done);
    res->exited = WIFEXITED(status);
    res->code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
    return cancelled ? -1 : 0;
}

static int do_exec(mk_suite_env *env, const mk_exec_req *req, mk_exec_res *res, char *err,
                   size_t errlen)
{
    const mk_runenv *r = (const mk_runenv *)env;
    int out[2], er[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(er, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(out[0]);
        close(out[1]);
        return -1;
    }
    char **envp = merge_env(r->plugin_env, req->env);
    long long start = mk_now_ms();
    /* Signals stay blocked until the child has dropped mokka's handlers
     * (as for the plugin, supervise.c). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0)
        child(r, req->argv, envp, parent, out[1], er[1]);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(envp);
    close(out[1]);
    close(er[1]);
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(out[0]);
        close(er[0]);
        return -1;
    }
    setpgid(pid, pid);
    capture c[2] = {{out[0], mk_xmalloc(MK_EXEC_CAPTURE + 1), 0, 0},
                    {er[0], mk_xmalloc(MK_EXEC_CAPTURE + 1), 0, 0}};
    for (int i = 0; i < 2; i++)
        fcntl(c[i].fd, F_SETFL, O_NONBLOCK);
    int rc = wait_command(env, pid, c, start + req->timeout_ms, res);
    for (int i = 0; i < 2; i++) {
        if (c[i].fd >= 0)
            close(c[i].fd);
        c[i].buf[c[i].len] = 0;
    }
    res->out = mk_xrealloc(c[0].buf, c[0].len + 1);
    res->err = mk_xrealloc(c[1].buf, c[1].len + 1);
    res->out_cut = c[0].cut;
    res->err_cut = c[1].cut;
    res->ms = mk_now_ms() - start;
    if (rc != 0)
        snprintf(err, errlen, "cancelled while the command ran");
    return rc;
}

void mk_runenv_exec_in(mk_runenv *r, const mk_sandbox *sb, char *const *plugin_env)
{
    r->sandbox = sb;
    r->plugin_env = plugin_env;
    r->env.exec = do_exec;
}
