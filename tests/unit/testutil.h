/* testutil.h - what every unit-test binary shares: one temporary directory
 * per run with a fresh subdirectory per test, writing files, forking
 * helper processes that cannot outlive the test, and main()'s runner.
 *
 * Check runs each test in a forked process that exits at the first failed
 * assertion, so a test cannot clean up after itself; the runner removes the
 * whole run directory once every test has finished, passed or not. */
#ifndef MOKKA_TESTUTIL_H
#define MOKKA_TESTUTIL_H

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char t_root[4096];

/* A new empty directory for this test, inside the run directory. */
static inline const char *t_tmpdir(void)
{
    static char dir[4200];
    snprintf(dir, sizeof dir, "%s/tXXXXXX", t_root);
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
    return dir;
}

/* Writes text to path through a temporary file and rename(), so that a
 * process watching path never sees a half-written file. */
static inline void t_write(const char *path, const char *text)
{
    char tmp[8192];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", tmp, strerror(errno));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_msg(rename(tmp, path) == 0, "rename %s: %s", path, strerror(errno));
}

static inline double t_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void t_sleep(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* fork() for helper processes: the child dies with the test process, so a
 * failed assertion never leaves one behind, and gets back the default
 * signal actions (Check's SIGALRM handler would kill the whole test). */
static inline pid_t t_fork(void)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
    }
    return pid;
}

/* Waits for a child; its exit status, or 128 + the signal that ended it. */
static inline int t_wait(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ck_assert_int_eq(errno, EINTR);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static inline int t_remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    remove(path);
    return 0;
}

/* main(): runs the suite in a fresh run directory, removes it, and exits 1
 * when a test failed. */
static inline int t_run(Suite *s)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(t_root, sizeof t_root, "%s/mokka-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(t_root)) {
        perror(t_root);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    nftw(t_root, t_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
