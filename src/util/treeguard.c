/* treeguard.c - every process mokka starts, and every process those start
 * in turn, ends when mokka ends, even by SIGKILL (see util.h).
 *
 * Nothing runs in a process killed by SIGKILL, so a second process does
 * it: the keeper, forked once, waits for the end of a pipe whose only
 * writer is mokka; the kernel closes it however mokka ends. PDEATHSIG
 * reaches only mokka's own children: a wrapper script's real plugin, an
 * exec step's `sleep &`, a setsid or double-forked daemon live on with it.
 * So the keeper kills the whole tree, found two ways:
 *  - a cgroup v2 of mokka's own (cgroup.kill, Linux 5.14): mokka moves
 *    into it before it starts anything, every descendant is born in it and
 *    cannot leave it (short of a root process moving itself), and the
 *    kernel kills them all at once, forks racing included;
 *  - MOKKA_TREE=<token> in the environment of every program mokka starts
 *    (mk_tree_mark): the keeper kills every process whose environment at
 *    its exec held the token. Always done, and all there is when no
 *    cgroup v2 is writable here (a container, a user without a delegated
 *    cgroup); a program that drops or replaces its whole environment, or
 *    that mokka's user cannot read (setuid), then escapes.
 * On an ordinary exit mokka leaves its cgroup first and waits for the
 * keeper's sweep, so that nothing it started is left when it returns.
 *
 * The keeper is forked from a process that may have threads: until it
 * ends it calls only async-signal-safe functions (no malloc, no stdio). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

#define MARK_NAME "MOKKA_TREE="
#define MARK_MAX 1024        /* inherited marks kept (nested mokkas) */
#define SWEEP_ROUNDS 400     /* x 25 ms: how long the keeper waits for the tree to go */

static struct {
    pthread_once_t once;
    pid_t owner, keeper;
    int fd;                  /* the pipe's write end: its close wakes the keeper */
    int in_cgroup;
    char cg[4096];           /* mokka's cgroup directory, "" without one */
    char home[4200];         /* cgroup.procs of the cgroup mokka came from */
    char token[17];
    char mark[sizeof MARK_NAME + MARK_MAX + 20];
    char how[4600];
} g = { PTHREAD_ONCE_INIT, 0, 0, -1, 0, "", "", "", "", "" };

/* --- the keeper (async-signal-safe) ---------------------------------------------- */

static int write_str(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, s, strlen(s));
    close(fd);
    return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Whether `entry` (NAME=VALUE) is MOKKA_TREE with our token among its
 * comma-separated values. */
static int has_token(const char *entry, size_t len)
{
    size_t n = sizeof MARK_NAME - 1, t = strlen(g.token);
    if (len < n || memcmp(entry, MARK_NAME, n) != 0)
        return 0;
    for (size_t i = n; i + t <= len; i++)
        if ((i == n || entry[i - 1] == ',') && memcmp(entry + i, g.token, t) == 0 &&
            (i + t == len || entry[i + t] == ','))
            return 1;
    return 0;
}

/* Whether process `pid` was started with our mark. */
static int marked(const char *pid)
{
    static char chunk[65536], entry[sizeof MARK_NAME + MARK_MAX + 64];
    char path[64] = "/proc/";
    strcat(strcat(path, pid), "/environ");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = 0;
    int found = 0, over = 0;
    ssize_t got;
    while (!found && (got = read(fd, chunk, sizeof chunk)) > 0)
        for (ssize_t i = 0; i < got && !found; i++) {
            if (chunk[i]) {
                if (len < sizeof entry)
                    entry[len++] = chunk[i];
                else
                    over = 1;
                continue;
            }
            found = !over && has_token(entry, len);
            len = 0;
            over = 0;
        }
    close(fd);
    return found || (!over && has_token(entry, len));
}

/* The entry at buf + off of a getdents64 answer (struct linux_dirent64,
 * read by hand: opendir allocates); the offset of the next one. */
static long dirent_at(const char *buf, long off, const char **name, unsigned char *type)
{
    unsigned short reclen;
    memcpy(&reclen, buf + off + 16, sizeof reclen);
    *type = (unsigned char)buf[off + 18];
    *name = buf + off + 19;
    return off + reclen;
}

/* SIGKILL to every process with our mark; how many were found. */
static int kill_marked(void)
{
    static char buf[16384];
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), found = 0;
    if (dir < 0)
        return 0;
    pid_t me = getpid();
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const char *name;
            unsigned char type;
            off = dirent_at(buf, off, &name, &type);
            pid_t pid = (pid_t)atoi(name);
            /* (one that cannot be killed is not waited for) */
            if (pid > 0 && pid != me && strlen(name) < 20 && marked(name) &&
                kill(pid, SIGKILL) == 0)
                found++;
        }
    close(dir);
    return found;
}

static int populated(const char *dir)
{
    char path[4200], buf[256];
    strcat(strcpy(path, dir), "/cgroup.events");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return strstr(buf, "populated 1") != NULL;
}

/* rmdir of a cgroup and of the ones a nested mokka left below it (its
 * keeper was killed with this tree). `dir` has room for 4096 bytes. */
static void remove_cgroup(char *dir, size_t len, int depth)
{
    char buf[2048];
    for (int pass = 0; pass < 3 && rmdir(dir) != 0 && errno == EBUSY && depth < 8; pass++) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return;
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                const char *name;
                unsigned char type;
                off = dirent_at(buf, off, &name, &type);
                size_t k = strlen(name);
                if (type != DT_DIR || name[0] == '.' || len + k + 2 > 4096)
                    continue;
                dir[len] = '/';
                memcpy(dir + len + 1, name, k + 1);
                remove_cgroup(dir, len + 1 + k, depth + 1);
                dir[len] = 0;
            }
        close(fd);
    }
}

static void sweep(void)
{
    if (g.cg[0]) {
        char path[4200];
        strcat(strcpy(path, g.cg), "/cgroup.kill");
        write_str(path, "1");
    }
    for (int round = 0; round < SWEEP_ROUNDS; round++) {
        int left = kill_marked();
        if (g.cg[0] && populated(g.cg))
            left++;
        if (!left)
            break;
        struct timespec ts = { 0, 25 * 1000000L };
        nanosleep(&ts, NULL);
    }
    if (g.cg[0])
        remove_cgroup(g.cg, strlen(g.cg), 0);
}

static void keeper(int rfd) __attribute__((noreturn));
static void keeper(int rfd)
{
    /* Out of mokka's process group, and deaf to what stops mokka: a ^C
     * or a kill of the group leaves it to do its job. */
    static const int deaf[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN,
                                SIGTTOU, SIGUSR1, SIGUSR2 };
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    for (size_t i = 0; i < sizeof deaf / sizeof deaf[0]; i++)
        sigaction(deaf[i], &ign, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    prctl(PR_SET_NAME, "mokka-keeper");
    /* Holds nothing of mokka's but the pipe's read end, as fd 3 (the pipe's
     * write end too would keep it open; a reader of the caller's stdout
     * must not wait for the keeper). The read end may be 0-2 when mokka
     * runs with those closed: out of the way first. */
    int r = fcntl(rfd, F_DUPFD, 3);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3; fd++)
        if (null >= 0)
            dup2(null, fd);
    if (r < 0 || (r != 3 && dup2(r, 3) != 3))
        _exit(1);
    close_range(4, ~0U, 0);
    for (;;) {
        char c;
        ssize_t n = read(3, &c, 1);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
    }
    sweep();
    _exit(0);
}

/* --- mokka's side ------------------------------------------------------------------ */

/* The cgroup v2 directory mokka is in, from /proc/self/cgroup and the
 * cgroup2 mount; -1 with why. */
static int own_cgroup(char *dir, size_t len, char *why, size_t wlen)
{
    char line[4096], self[4096] = "", root[4096] = "", mnt[4096] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0)
            snprintf(self, sizeof self, "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
    if (f)
        fclose(f);
    f = fopen("/proc/self/mountinfo", "re");
    while (f && fgets(line, sizeof line, f)) {
        char r[4096], m[4096];
        const char *dash = strstr(line, " - cgroup2 ");
        if (dash && !mnt[0] && sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) == 2) {
            snprintf(root, sizeof root, "%s", r);
            snprintf(mnt, sizeof mnt, "%s", m);
        }
    }
    if (f)
        fclose(f);
    if (!self[0])
        return snprintf(why, wlen, "no cgroup v2 in /proc/self/cgroup"), -1;
    if (!mnt[0])
        return snprintf(why, wlen, "no cgroup2 file system mounted"), -1;
    size_t rl = strcmp(root, "/") ? strlen(root) : 0;
    if (strncmp(self, root, rl) != 0 || (self[rl] && self[rl] != '/'))
        return snprintf(why, wlen, "mokka's cgroup %s is outside the cgroup2 mount", self), -1;
    if (snprintf(dir, len, "%s%s", mnt, strcmp(self + rl, "/") ? self + rl : "") >= (int)len)
        return snprintf(why, wlen, "cgroup path too long"), -1;
    return 0;
}

/* Makes mokka's cgroup, below the one it is in; "" in g.cg with g.how
 * saying why not. */
static void make_cgroup(void)
{
    char here[4096], why[4400], path[4200];
    if (own_cgroup(here, sizeof here, why, sizeof why) == 0) {
        snprintf(g.home, sizeof g.home, "%s/cgroup.procs", here);
        snprintf(g.cg, sizeof g.cg, "%.4000s/mokka-%d", here, (int)getpid());
        snprintf(path, sizeof path, "%s/cgroup.kill", g.cg);
        if (mkdir(g.cg, 0755) != 0) {
            snprintf(why, sizeof why, "cannot make %s: %s", g.cg, strerror(errno));
            g.cg[0] = 0;
        } else if (access(path, W_OK) != 0) {
            snprintf(why, sizeof why, "%s has no cgroup.kill (Linux before 5.14)", g.cg);
            rmdir(g.cg);
            g.cg[0] = 0;
        }
    }
    if (!g.cg[0])
        snprintf(g.how, sizeof g.how, "by the MOKKA_TREE mark in their environment (%s)", why);
}

static void token(void)
{
    unsigned char r[8];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long v = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20) ^
                               ((unsigned long long)getpid() << 40);
        memcpy(r, &v, sizeof r);
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(g.token + 2 * i, 3, "%02x", r[i]);
    const char *outer = getenv("MOKKA_TREE");
    if (outer && *outer && strlen(outer) <= MARK_MAX)
        snprintf(g.mark, sizeof g.mark, MARK_NAME "%s,%s", outer, g.token);
    else
        snprintf(g.mark, sizeof g.mark, MARK_NAME "%s", g.token);
}

/* At an ordinary exit: out of the cgroup (the keeper kills it), then the
 * keeper's sweep, waited for. */
static void finish(void)
{
    if (getpid() != g.owner || g.fd < 0)
        return;
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (g.in_cgroup && write_str(g.home, pid) != 0)
        return;   /* still inside: the keeper acts once mokka is gone */
    close(g.fd);
    g.fd = -1;
    while (waitpid(g.keeper, NULL, 0) < 0 && errno == EINTR)
        ;
}

static void start(void)
{
    int p[2];
    token();
    g.owner = getpid();
    make_cgroup();
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(g.how, sizeof g.how, "not arranged (pipe: %s)", strerror(errno));
        if (g.cg[0])
            rmdir(g.cg);
        return;
    }
    /* Blocked across the fork: no handler of mokka's may run in the keeper. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        keeper(p[0]);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(p[0]);
    if (pid < 0) {
        snprintf(g.how, sizeof g.how, "not arranged (fork: %s)", strerror(errno));
        close(p[1]);
        if (g.cg[0])
            rmdir(g.cg);
        return;
    }
    g.keeper = pid;
    g.fd = p[1];
    if (g.cg[0]) {
        char me[24];
        snprintf(me, sizeof me, "%d", (int)getpid());
        char procs[4200];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", g.cg);
        if (write_str(procs, me) == 0) {
            g.in_cgroup = 1;
            snprintf(g.how, sizeof g.how, "in cgroup %s (cgroup.kill) and by the MOKKA_TREE mark",
                     g.cg);
        } else {
            snprintf(g.how, sizeof g.how, "by the MOKKA_TREE mark in their environment "
                     "(cannot enter %s: %s)", g.cg, strerror(errno));
        }
    }
    atexit(finish);
}

const char *mk_tree_guard(void)
{
    pthread_once(&g.once, start);
    return g.how;
}

const char *mk_tree_mark(void)
{
    return g.keeper > 0 ? g.mark : NULL;
}

pid_t mk_tree_keeper(void)
{
    return g.keeper;
}
