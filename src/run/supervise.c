/* supervise.c - starting, watching, restarting and stopping the device
 * plugin and gpu-feature-discovery (see run.h).
 *
 * One thread per supervised program polls its stdout and stderr pipes,
 * turns them into timestamped lines, notices the exit, and restarts after
 * a crash. Every state change happens under one lock and is announced
 * on one condition variable. mokka makes itself a child subreaper so that a
 * plugin's daemonised children come back to it and can be reaped at stop
 * (all but the keeper of treeguard.c, which kills them if mokka is killed). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/util.h"
#include "run.h"

#define RING 400
#define LINE_MAX_LEN 4096

typedef struct {
    int fd;
    const char *name;
    char buf[LINE_MAX_LEN];
    size_t len;
} stream;

struct mk_super {
    mk_super_opts o;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int wake[2];                 /* wakes the watcher's poll */
    pid_t pid;                   /* 0 when no plugin process */
    stream out, err;
    mk_super_state state;
    unsigned crashes, restarts;
    double backoff;
    struct timespec restart_at;
    int stopping, quit, watching;
    unsigned sync_asked, sync_done;   /* log tails waiting for the pipes to be read */
    char last_exit[600];
    char *ring[RING];
    size_t ring_head, ring_n;
    FILE *log;
};

/* The processes every supervisor of this mokka runs now: reap_orphans
 * leaves them alone, so that stopping the plugin never takes
 * gpu-feature-discovery with it (both are mokka's children). */
static struct {
    pthread_mutex_t mu;
    pid_t pid[32];   /* MK_PLUGINS_MAX plugins, GFD, exec steps' own supervisors */
} live = { PTHREAD_MUTEX_INITIALIZER, {0} };

static void live_set(pid_t old, pid_t pid)
{
    for (size_t i = 0; i < sizeof live.pid / sizeof live.pid[0]; i++)
        if (live.pid[i] == old) {
            live.pid[i] = pid;
            return;
        }
}

static int live_has(pid_t pid)
{
    for (size_t i = 0; i < sizeof live.pid / sizeof live.pid[0]; i++)
        if (live.pid[i] == pid)
            return 1;
    return 0;
}

static void add_line(mk_super *s, const char *stream_name, const char *text)
{
    char stamp[40], line[LINE_MAX_LEN + 80];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(line, sizeof line, "%s.%03ldZ %s: %s", stamp, ts.tv_nsec / 1000000, stream_name, text);
    pthread_mutex_lock(&s->lock);
    size_t slot = (s->ring_head + s->ring_n) % RING;
    if (s->ring_n == RING) {
        free(s->ring[s->ring_head]);
        s->ring_head = (s->ring_head + 1) % RING;
        slot = (s->ring_head + RING - 1) % RING;
    } else {
        s->ring_n++;
    }
    s->ring[slot] = strdup(line);
    pthread_mutex_unlock(&s->lock);
    if (s->log) {
        fprintf(s->log, "%s\n", line);
        fflush(s->log);
    }
    if (s->o.verbose)
        fprintf(stderr, "%s | %s\n", s->o.name, line);
}

/* Reads what is there: 2 when it read something, 1 when there is nothing
 * now, 0 at the end of the stream (or on an error). */
static int drain(mk_super *s, stream *st)
{
    char chunk[4096];
    ssize_t n = read(st->fd, chunk, sizeof chunk);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR;
    if (n == 0) {
        if (st->len) {
            st->buf[st->len] = 0;
            add_line(s, st->name, st->buf);
            st->len = 0;
        }
        return 0;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] == '\n' || st->len == sizeof st->buf - 1) {
            st->buf[st->len] = 0;
            add_line(s, st->name, st->buf);
            st->len = 0;
            if (chunk[i] == '\n')
                continue;
        }
        st->buf[st->len++] = chunk[i];
    }
    return 2;
}

/* fork + exec in a new process group, inside the sandbox. */
static int spawn(mk_super *s, char *err, size_t errlen)
{
    int out[2], er[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return snprintf(err, errlen, "pipe: %s", strerror(errno)), -1;
    if (pipe2(er, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return snprintf(err, errlen, "pipe: %s", strerror(errno)), -1;
    }
    /* Signals stay blocked from before the fork until the child has dropped
     * mokka's handlers: a SIGTERM from mk_super_stop that reached the child
     * in between would run mokka's handler there and be lost, and the
     * plugin would start as if never told to stop. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid();
    pthread_mutex_lock(&live.mu);
    pid_t pid = fork();
    if (pid > 0)
        live_set(0, pid);
    if (pid != 0)
        pthread_mutex_unlock(&live.mu);
    if (pid < 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(out[0]); close(out[1]); close(er[0]); close(er[1]);
        return -1;
    }
    if (pid == 0) {
        char why[1024];
        /* (The child's copy of live.mu stays held: it never takes it.)
         * SIGKILL with mokka: a `kill -9` of `mokka run` must not leave the
         * plugin serving an empty node. Spawns come from the thread that
         * starts the supervisor and from the watcher, which both outlive
         * the plugin (stop waits for it to be reaped). */
        if (mk_child_die_with(parent, SIGKILL) != 0)
            _exit(125);
        setpgid(0, 0);
        dup2(out[1], STDOUT_FILENO);
        dup2(er[1], STDERR_FILENO);
        mk_child_default_signals();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (s->o.sandbox && mk_sandbox_enter(s->o.sandbox, why, sizeof why) != 0) {
            dprintf(STDERR_FILENO, "mokka: cannot enter the GPU-node sandbox: %s\n", why);
            _exit(126);
        }
        execve(s->o.argv[0], s->o.argv, s->o.envp);
        dprintf(STDERR_FILENO, "mokka: cannot run %s: %s\n", s->o.argv[0], strerror(errno));
        _exit(127);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    setpgid(pid, pid);
    close(out[1]);
    close(er[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(er[0], F_SETFL, O_NONBLOCK);
    s->out.fd = out[0];
    s->err.fd = er[0];
    s->pid = pid;
    s->state = MK_SUPER_RUNNING;
    return 0;
}

static void describe_exit(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)%s", WTERMSIG(status),
                 strsignal(WTERMSIG(status)), WCOREDUMP(status) ? ", core dumped" : "");
    else
        snprintf(buf, len, "ended with status 0x%x", status);
}

/* Kills and reaps processes that were the plugin's and came back to us as
 * the subreaper (daemonised children that left the process group). */
static void reap_orphans(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    pid_t me = getpid();
    struct dirent *e;
    pthread_mutex_lock(&live.mu);
    while ((e = readdir(d))) {
        char path[300], buf[512];
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || live_has(pid) || pid == mk_tree_keeper())
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *rp = strrchr(buf, ')');
        int ppid = 0;
        if (rp && sscanf(rp + 2, "%*c %d", &ppid) == 1 && ppid == me) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
    }
    pthread_mutex_unlock(&live.mu);
    closedir(d);
}

static void handle_exit(mk_super *s, int status)
{
    char what[200];
    describe_exit(status, what, sizeof what);
    /* Output still in the pipes belongs to this run. */
    while (s->out.fd >= 0 && drain(s, &s->out) == 2)
        ;
    while (s->err.fd >= 0 && drain(s, &s->err) == 2)
        ;
    pthread_mutex_lock(&s->lock);
    if (s->out.fd >= 0)
        close(s->out.fd);
    if (s->err.fd >= 0)
        close(s->err.fd);
    s->out.fd = s->err.fd = -1;
    snprintf(s->last_exit, sizeof s->last_exit, "%s", what);
    pthread_mutex_lock(&live.mu);
    live_set(s->pid, 0);
    pthread_mutex_unlock(&live.mu);
    s->pid = 0;
    if (s->stopping) {
        s->state = MK_SUPER_STOPPED;
    } else if (++s->crashes > s->o.restart_limit) {
        s->state = MK_SUPER_FAILED;
    } else {
        s->state = MK_SUPER_BACKOFF;
        double at = mk_now_s() + s->backoff;
        s->restart_at.tv_sec = (time_t)at;
        s->restart_at.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
        s->backoff = s->backoff * 2 > 30 ? 30 : s->backoff * 2;
    }
    mk_super_state st = s->state;
    unsigned crashes = s->crashes;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    char line[400];
    if (st == MK_SUPER_BACKOFF)
        snprintf(line, sizeof line, "%s %s; restarting (crash %u of at most %u)", s->o.name, what,
                 crashes, s->o.restart_limit);
    else if (st == MK_SUPER_FAILED)
        snprintf(line, sizeof line, "%s %s; crashed %u time%s, more than --restart-limit %u: "
                 "giving up", s->o.name, what, crashes, crashes == 1 ? "" : "s", s->o.restart_limit);
    else
        snprintf(line, sizeof line, "%s %s", s->o.name, what);
    add_line(s, "mokka", line);
}

static void *watch(void *arg)
{
    mk_super *s = arg;
    for (;;) {
        struct pollfd p[3];
        int n = 0;
        pthread_mutex_lock(&s->lock);
        int fds[2] = { s->out.fd, s->err.fd };
        unsigned asked = s->sync_asked;
        int catch_up = asked != s->sync_done;
        pthread_mutex_unlock(&s->lock);
        p[n++] = (struct pollfd){ s->wake[0], POLLIN, 0 };
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0)
                p[n++] = (struct pollfd){ fds[i], POLLIN, 0 };
        poll(p, (nfds_t)n, 100);
        if (p[0].revents) {
            char junk[64];
            while (read(s->wake[0], junk, sizeof junk) > 0)
                ;
        }
        stream *streams[2] = { &s->out, &s->err };
        for (int i = 0; i < 2; i++) {
            if (fds[i] < 0)
                continue;
            /* A chunk at a time, so that a plugin that never stops writing
             * still has its exit seen; all there is when a tail waits. */
            int r = 2;
            for (int chunk = 0; r == 2 && chunk < (catch_up ? 64 : 1); chunk++)
                r = drain(s, streams[i]);
            if (r == 0) {
                /* closed early (the plugin closed it): stop polling it */
                pthread_mutex_lock(&s->lock);
                close(streams[i]->fd);
                streams[i]->fd = -1;
                pthread_mutex_unlock(&s->lock);
            }
        }
        pthread_mutex_lock(&s->lock);
        if (catch_up) {
            s->sync_done = asked;
            pthread_cond_broadcast(&s->changed);
        }
        pid_t pid = s->pid;
        int quit = s->quit;
        int due = s->state == MK_SUPER_BACKOFF && !s->stopping &&
                  mk_now_s() >= (double)s->restart_at.tv_sec + s->restart_at.tv_nsec / 1e9;
        pthread_mutex_unlock(&s->lock);
        int status;
        if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid)
            handle_exit(s, status);
        if (due) {
            char err[512];
            pthread_mutex_lock(&s->lock);
            int rc = spawn(s, err, sizeof err);
            if (rc != 0) {
                s->state = MK_SUPER_FAILED;
                snprintf(s->last_exit, sizeof s->last_exit, "%s", err);
            }
            pthread_cond_broadcast(&s->changed);
            pthread_mutex_unlock(&s->lock);
            char again[200];
            snprintf(again, sizeof again, "%s started again", s->o.name);
            add_line(s, "mokka", rc == 0 ? again : err);
        }
        if (quit && pid == 0)
            return NULL;
    }
}

static void poke(mk_super *s)
{
    if (write(s->wake[1], "x", 1) < 0) {
        /* the pipe is full: the watcher is awake anyway */
    }
}

mk_super *mk_super_start(const mk_super_opts *o, char *err, size_t errlen)
{
    mk_super *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->o = *o;
    if (!s->o.name)
        s->o.name = "plugin";
    s->backoff = o->backoff_s > 0 ? o->backoff_s : 1;
    s->out = (stream){ .fd = -1, .name = "stdout" };
    s->err = (stream){ .fd = -1, .name = "stderr" };
    s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    err[0] = 0;
    if (access(o->argv[0], X_OK) != 0)
        snprintf(err, errlen, "cannot run %s: %s", o->argv[0], strerror(errno));
    else if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        snprintf(err, errlen, "pipe: %s", strerror(errno));
    else if (o->log_path && !(s->log = fopen(o->log_path, "ae")))
        snprintf(err, errlen, "cannot write the %s log %s: %s", s->o.name, o->log_path,
                 strerror(errno));
    if (err[0]) {
        mk_super_free(s);
        return NULL;
    }
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (spawn(s, err, errlen) != 0) {
        mk_super_free(s);
        return NULL;
    }
    if (pthread_create(&s->thread, NULL, watch, s) != 0) {
        kill(-s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        pthread_mutex_lock(&live.mu);
        live_set(s->pid, 0);
        pthread_mutex_unlock(&live.mu);
        s->pid = 0;
        snprintf(err, errlen, "cannot start the watcher thread");
        mk_super_free(s);
        return NULL;
    }
    s->watching = 1;
    return s;
}

/* Waits, with the lock held, until the plugin process is gone or the
 * deadline passes; returns 1 when it is gone. */
static int wait_gone(mk_super *s, double deadline)
{
    while (s->pid > 0) {
        double left = deadline - mk_now_s();
        if (left <= 0)
            return 0;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double t = (double)ts.tv_sec + ts.tv_nsec / 1e9 + (left < 0.1 ? left : 0.1);
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&s->changed, &s->lock, &ts);
    }
    return 1;
}

/* No more restarts; sig to the group of a plugin that runs. */
static void tell_stop_locked(mk_super *s, int sig)
{
    s->stopping = 1;
    if (s->state == MK_SUPER_BACKOFF)
        s->state = MK_SUPER_STOPPED;
    if (s->pid > 0) {
        kill(-s->pid, sig);
        poke(s);
    }
}

void mk_super_stop(mk_super *s, int sig, int timeout_ms)
{
    pthread_mutex_lock(&s->lock);
    tell_stop_locked(s, sig);
    if (s->pid > 0) {
        if (!wait_gone(s, mk_now_s() + timeout_ms / 1000.0)) {
            kill(-s->pid, SIGKILL);
            poke(s);
            wait_gone(s, mk_now_s() + 5);
        }
    }
    pthread_mutex_unlock(&s->lock);
    reap_orphans();
}

void mk_super_stop_all(mk_super *const *v, size_t n, int sig, int timeout_ms)
{
    /* Every group told first, so that they wind down together and n
     * plugins take one grace period, not n of them. */
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&v[i]->lock);
        tell_stop_locked(v[i], sig);
        pthread_mutex_unlock(&v[i]->lock);
    }
    double deadline = mk_now_s() + timeout_ms / 1000.0;
    for (size_t i = 0; i < n; i++) {
        double left = deadline - mk_now_s();
        mk_super_stop(v[i], sig, left > 0 ? (int)(left * 1000) : 0);
    }
}

/* The watcher thread does every spawn after the first, so the pipes are
 * only ever touched by it: a restart asks it to spawn now and waits. */
int mk_super_restart(mk_super *s, char *err, size_t errlen)
{
    mk_super_stop(s, SIGTERM, 10000);
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    if (s->pid > 0) {
        rc = -1;
        snprintf(err, errlen, "the plugin did not stop");
    } else {
        s->stopping = 0;
        s->restarts++;
        s->state = MK_SUPER_BACKOFF;
        clock_gettime(CLOCK_MONOTONIC, &s->restart_at);
        poke(s);
        while (s->state == MK_SUPER_BACKOFF)
            pthread_cond_wait(&s->changed, &s->lock);
        if (s->state != MK_SUPER_RUNNING) {
            rc = -1;
            snprintf(err, errlen, "the plugin could not be started again: %s", s->last_exit);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

pid_t mk_super_pid(mk_super *s)
{
    pthread_mutex_lock(&s->lock);
    pid_t pid = s->pid;
    pthread_mutex_unlock(&s->lock);
    return pid;
}

mk_super_state mk_super_status(mk_super *s, unsigned *crashes, unsigned *restarts,
                               char *last_exit, size_t len)
{
    pthread_mutex_lock(&s->lock);
    mk_super_state st = s->state;
    if (crashes)
        *crashes = s->crashes;
    if (restarts)
        *restarts = s->restarts;
    if (last_exit)
        snprintf(last_exit, len, "%s", s->last_exit);
    pthread_mutex_unlock(&s->lock);
    return st;
}

/* Asks the watcher to read what the plugin has written so far, and waits
 * for it (half a second at most): the plugin may have logged a line and
 * acted on it, and a case that saw the action takes the tail at once. Lock
 * held. */
static void catch_up_locked(mk_super *s)
{
    if (!s->watching)
        return;
    unsigned want = ++s->sync_asked;
    poke(s);
    struct timespec until = mk_abstime_in(CLOCK_REALTIME, 500);
    while ((int)(s->sync_done - want) < 0)
        if (pthread_cond_timedwait(&s->changed, &s->lock, &until) != 0)
            break;
}

size_t mk_super_log_tail(mk_super *s, char *buf, size_t len, size_t max_lines)
{
    size_t used = 0;
    if (!len)
        return 0;
    buf[0] = 0;
    pthread_mutex_lock(&s->lock);
    catch_up_locked(s);
    size_t n = s->ring_n < max_lines ? s->ring_n : max_lines;
    for (size_t i = s->ring_n - n; i < s->ring_n; i++) {
        const char *line = s->ring[(s->ring_head + i) % RING];
        int w = snprintf(buf + used, len - used, "%s\n", line ? line : "");
        if (w < 0 || (size_t)w >= len - used) {
            used = len - 1;
            break;
        }
        used += (size_t)w;
    }
    pthread_mutex_unlock(&s->lock);
    return used;
}

void mk_super_free(mk_super *s)
{
    if (!s)
        return;
    if (s->watching) {
        mk_super_stop(s, SIGTERM, 10000);
        pthread_mutex_lock(&s->lock);
        s->quit = 1;
        pthread_mutex_unlock(&s->lock);
        poke(s);
        pthread_join(s->thread, NULL);
    }
    for (size_t i = 0; i < s->ring_n; i++)
        free(s->ring[(s->ring_head + i) % RING]);
    if (s->out.fd >= 0) close(s->out.fd);
    if (s->err.fd >= 0) close(s->err.fd);
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    if (s->log)
        fclose(s->log);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
}
