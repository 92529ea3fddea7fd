/* procenv.c - another process's environment, read from /proc/PID/environ
 * (see procview.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procview.h"

int mk_procenv_read(pid_t pid, mk_procenv *env)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    env->buf = NULL;
    env->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = 0;
    for (;;) {
        if (env->len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 16384;
            char *nb = realloc(env->buf, cap);
            if (!nb) {
                mk_procenv_free(env);
                close(fd);
                errno = ENOMEM;
                return -1;
            }
            env->buf = nb;
        }
        ssize_t n = read(fd, env->buf + env->len, cap - env->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            mk_procenv_free(env);
            close(fd);
            errno = e;
            return -1;
        }
        if (n == 0)
            break;
        env->len += (size_t)n;
    }
    close(fd);
    env->buf[env->len] = 0; /* the last entry may lack its NUL */
    return 0;
}

const char *mk_procenv_get(const mk_procenv *env, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < env->len; i += strlen(env->buf + i) + 1)
        if (strncmp(env->buf + i, name, nl) == 0 && env->buf[i + nl] == '=')
            return env->buf + i + nl + 1;
    return NULL;
}

char **mk_procenv_list(const mk_procenv *env)
{
    size_t n = 0;
    for (size_t i = 0; i < env->len; i += strlen(env->buf + i) + 1)
        n++;
    char **list = malloc((n + 1) * sizeof *list);
    if (!list)
        return NULL;
    n = 0;
    for (size_t i = 0; i < env->len; i += strlen(env->buf + i) + 1)
        list[n++] = env->buf + i;
    list[n] = NULL;
    return list;
}

void mk_procenv_free(mk_procenv *env)
{
    free(env->buf);
    env->buf = NULL;
    env->len = 0;
}
