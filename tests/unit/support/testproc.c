/* testproc.c - spawning, stopping and reading the logs of the child
 * processes tests run (plugins). */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testproc.h"
#include "testutil.h"

/* environ with `extra` (NAME=value) added, later ones replacing earlier. */
static char **merged_env(char *const extra[])
{
    extern char **environ;
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **env = calloc(n + m + 1, sizeof *env);
    ck_assert_ptr_nonnull(env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(environ[i], "=");
        int replaced = 0;
        for (size_t j = 0; j < m; j++)
            replaced |= strncmp(environ[i], extra[j], len + 1) == 0;
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        env[k++] = extra[j];
    return env;
}

pid_t mk_test_spawn(char *const argv[], char *const env[], const char *log,
                    int (*prepare)(void *), void *arg)
{
    /* Everything that allocates happens before fork: the test process has
     * threads, so the child may only make system calls. */
    char **envp = merged_env(env);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* The child must not outlive a test that fails or times out. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (prepare && prepare(arg))
            _exit(126);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    close(fd);
    free(envp);
    return pid;
}

int mk_test_alive(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* WNOWAIT: look without reaping, so mk_test_reap still can. */
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

int mk_test_reap(pid_t pid, int sig, int timeout_ms)
{
    if (sig)
        kill(pid, sig);
    double end = mk_test_now_ms() + timeout_ms;
    int status;
    while (mk_test_now_ms() < end) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0)
            return -1;
        mk_test_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

const char *mk_test_slurp(const char *path)
{
    static char buf[65536];
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}

const char *mk_test_tail(const char *path)
{
    const char *all = mk_test_slurp(path);
    size_t n = strlen(all);
    return n > 2000 ? all + n - 2000 : all;
}
