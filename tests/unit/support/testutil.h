/* testutil.h - what every unit-test binary shares: main()'s runner with one
 * temporary directory per run and a fresh subdirectory per call, writing
 * files, forking helper processes that cannot outlive the test, counts of
 * the process's threads and descriptors, clocks and bounded waits.
 *
 * Check runs each test in a forked process that exits at the first failed
 * assertion, so a test cannot clean up after itself; the runner removes the
 * whole run directory once every test has finished, passed or not. */
#ifndef MOKKA_TESTUTIL_H
#define MOKKA_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

/* 1 in a build with a sanitizer (whose libraries other programs cannot load). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MK_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MK_TEST_SANITIZED 1
#endif
#endif
#ifndef MK_TEST_SANITIZED
#define MK_TEST_SANITIZED 0
#endif

/* How long a test waits for what should happen at once: only a failing or
 * a heavily loaded run (sanitizers, parallel jobs) waits that long. */
#define MK_TEST_PATIENCE_MS 10000

/* A test case of `s` with setup/teardown (checked: they run in each test's
 * forked child) and a timeout. */
TCase *mk_test_case(Suite *s, const char *name, void (*setup)(void), void (*teardown)(void),
                    double timeout_s);
/* main(): runs the suite in a fresh run directory under $TMPDIR (or /tmp),
 * made and removed by this parent process, so that what a test that failed
 * in its forked child left behind goes too; returns main's exit status. */
int mk_test_run(Suite *s);

/* A new empty directory "tag-XXXXXX" in the run directory; aborts the test
 * on failure. The result is static storage in a small ring, so a few may
 * be alive at once. */
const char *mk_test_tmpdir(const char *tag);
/* rm -r of a test directory; ignores what is already gone. */
void mk_test_rmtree(const char *dir);
/* Writes text to path through a temporary file and rename(), so that a
 * process watching path never sees a half-written file. */
void mk_test_write(const char *path, const char *text);
/* fork() for helper processes: the child dies with the test process, so a
 * failed assertion never leaves one behind, and gets back the default
 * signal actions (Check's SIGALRM handler would kill the whole test). The
 * child must not call Check (ck_assert*): in a test with threads, Check's
 * own lock may be held for good in it. */
pid_t mk_test_fork(void);
/* Waits for a child; its exit status, or 128 + the signal that ended it. */
int mk_test_wait(pid_t pid);
/* Entries in /proc/self/task, descriptors in /proc/self/fd, and those of
 * them that are sockets. */
int mk_test_nthreads(void);
/* The thread count to come back to: ThreadSanitizer starts a thread of its
 * own at the first pthread_create, so this starts (and joins) one first,
 * and counts once that one has left /proc/self/task. */
int mk_test_thread_baseline(void);
int mk_test_nfds(void);
/* A thread's state letter from /proc/self/task/<tid>/stat ('R', 'S', ...),
 * or 0 when it cannot be read. */
char mk_test_thread_state(int tid);
int mk_test_nsockets(void);
/* Wait until a count drops to at most `want` (threads and descriptors that
 * other threads release may lag a little); return the last count. */
int mk_test_wait_nthreads(int want, int timeout_ms);
int mk_test_wait_nfds(int want, int timeout_ms);
int mk_test_wait_nsockets(int want, int timeout_ms);
/* CLOCK_MONOTONIC in milliseconds; a sleep that signals do not cut short. */
double mk_test_now_ms(void);
void mk_test_sleep_ms(int ms);
/* Calls pred(arg) every few ms until it returns non-zero or timeout_ms
 * passes; returns the last result. */
int mk_test_wait_for(int (*pred)(void *), void *arg, int timeout_ms);
/* Builds a path in static storage (ring of buffers): dir + "/" + name. */
const char *mk_test_path(const char *dir, const char *name);

#endif
