/* testproc.h - child processes for tests: started with extra environment
 * and output to a log file, killed when the test process dies, stopped
 * with a signal and a bounded wait. */
#ifndef MOKKA_TESTPROC_H
#define MOKKA_TESTPROC_H

#include <sys/types.h>

/* Runs argv[0] with `env` (NAME=value strings, NULL-terminated; may be
 * NULL) added to the environment and stdout+stderr appended to `log`.
 * prepare, if not NULL, runs in the child before exec; a non-zero return
 * makes the child exit 126 with no exec. Aborts the test on failure. */
pid_t mk_test_spawn(char *const argv[], char *const env[], const char *log,
                    int (*prepare)(void *), void *arg);
/* Sends sig (if non-zero), waits up to timeout_ms, then SIGKILLs. Returns
 * the exit status as from waitpid, or -1 when it had to be killed. */
int mk_test_reap(pid_t pid, int sig, int timeout_ms);
/* Is the child still running? */
int mk_test_alive(pid_t pid);
/* The file's contents (static storage, truncated at 64 KiB). */
const char *mk_test_slurp(const char *path);
/* Its last 2000 bytes at most: short enough for a Check failure message. */
const char *mk_test_tail(const char *path);

#endif
