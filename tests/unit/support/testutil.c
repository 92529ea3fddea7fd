/* testutil.c - the runner and its run directory, temporary directories,
 * file writes, helper processes, thread/descriptor counts, clocks and
 * bounded waits for the unit tests. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"

#define RING 8
#define SLOT 8192

static char *ring_slot(void)
{
    static char bufs[RING][SLOT];
    static unsigned next;
    return bufs[__atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) % RING];
}

TCase *mk_test_case(Suite *s, const char *name, void (*setup)(void), void (*teardown)(void),
                    double timeout_s)
{
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, timeout_s);
    suite_add_tcase(s, tc);
    return tc;
}

/* The run directory; forked tests inherit it. */
static char root[4096];

int mk_test_run(Suite *s)
{
    const char *base = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/mokka-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(root)) {
        perror(root);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    mk_test_rmtree(root);
    root[0] = 0;
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char *mk_test_tmpdir(const char *tag)
{
    ck_assert_msg(root[0], "mk_test_tmpdir(\"%s\") outside mk_test_run", tag);
    char *p = ring_slot();
    snprintf(p, SLOT, "%s/%s-XXXXXX", root, tag);
    ck_assert_msg(mkdtemp(p) != NULL, "mkdtemp %s: %s", p, strerror(errno));
    return p;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    remove(path);
    return 0;
}

void mk_test_rmtree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void mk_test_write(const char *path, const char *text)
{
    char tmp[SLOT];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", tmp, strerror(errno));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_msg(rename(tmp, path) == 0, "rename %s: %s", path, strerror(errno));
}

/* The child never calls Check: every ck_assert, even one that holds, takes
 * a mutex of Check's, and another thread of the test may have held it at
 * the fork, leaving it locked for good in the child. That once hung
 * test_nvml_fork's child before it could arm its alarm, and the parent
 * waited for it until Check's timeout. */
pid_t mk_test_fork(void)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)   /* the parent died before prctl took hold */
            _exit(127);
        return 0;
    }
    ck_assert_msg(pid > 0, "fork: %s", strerror(errno));
    return pid;
}

int mk_test_wait(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ck_assert_int_eq(errno, EINTR);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Entries of a /proc directory; with `prefix`, only links pointing to a
 * target starting with it. */
static int count_dir(const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (prefix) {
            char p[512], target[256];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            ssize_t len = readlink(p, target, sizeof target - 1);
            if (len < 0)
                continue;
            target[len] = 0;
            if (strncmp(target, prefix, strlen(prefix)) != 0)
                continue;
        }
        n++;
    }
    closedir(d);
    return n;
}

int mk_test_nthreads(void)
{
    return count_dir("/proc/self/task", NULL);
}

static void *note_tid(void *arg)
{
    *(pid_t *)arg = gettid();
    return NULL;
}

int mk_test_thread_baseline(void)
{
    pthread_t t;
    pid_t tid = 0;
    if (pthread_create(&t, NULL, note_tid, &tid) == 0)
        pthread_join(t, NULL);
    /* pthread_join returns once the thread has cleared its tid, which is
     * before the kernel takes it out of /proc/self/task: counted then, the
     * baseline would hold one thread that is already gone. */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
    double end = mk_test_now_ms() + 2000;
    while (tid && access(path, F_OK) == 0 && mk_test_now_ms() < end)
        mk_test_sleep_ms(1);
    return mk_test_nthreads();
}

char mk_test_thread_state(int tid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    /* "tid (comm) S ...": the comm may hold spaces and parentheses. */
    char *end = got ? strrchr(line, ')') : NULL;
    return end && end[1] == ' ' ? end[2] : 0;
}

int mk_test_nfds(void)
{
    return count_dir("/proc/self/fd", NULL) - 1;   /* the one opendir holds */
}

int mk_test_nsockets(void)
{
    return count_dir("/proc/self/fd", "socket:");
}

static int wait_count(int (*count)(void), int want, int timeout_ms)
{
    double end = mk_test_now_ms() + timeout_ms;
    int n;
    while ((n = count()) > want && mk_test_now_ms() < end)
        mk_test_sleep_ms(5);
    return n;
}

int mk_test_wait_nthreads(int want, int timeout_ms)
{
    return wait_count(mk_test_nthreads, want, timeout_ms);
}

int mk_test_wait_nfds(int want, int timeout_ms)
{
    return wait_count(mk_test_nfds, want, timeout_ms);
}

int mk_test_wait_nsockets(int want, int timeout_ms)
{
    return wait_count(mk_test_nsockets, want, timeout_ms);
}

double mk_test_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void mk_test_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int mk_test_wait_for(int (*pred)(void *), void *arg, int timeout_ms)
{
    double end = mk_test_now_ms() + timeout_ms;
    int r;
    while (!(r = pred(arg)) && mk_test_now_ms() < end)
        mk_test_sleep_ms(2);
    return r;
}

const char *mk_test_path(const char *dir, const char *name)
{
    char *p = ring_slot();
    snprintf(p, SLOT, "%s/%s", dir, name);
    return p;
}
