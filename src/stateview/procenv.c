/* procenv.c - reading /proc/PID/environ (see stateview.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bundle/bundle.h"
#include "stateview.h"

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

void mk_procenv_free(mk_procenv *env)
{
    free(env->buf);
    env->buf = NULL;
    env->len = 0;
}

/* Whether process pid has our root directory (no container between us). */
static int same_root(pid_t pid)
{
    char root[64];
    struct stat a, b;
    snprintf(root, sizeof root, "/proc/%d/root", (int)pid);
    return stat(root, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

void mk_proc_path(pid_t pid, const char *path, char *out, size_t len)
{
    int n = -1;
    if (path[0] != '/')
        n = snprintf(out, len, "/proc/%d/cwd/%s", (int)pid, path);
    else if (!same_root(pid))
        n = snprintf(out, len, "/proc/%d/root%s", (int)pid, path);
    if (n < 0 || (size_t)n >= len || access(out, F_OK) != 0)
        snprintf(out, len, "%s", path);
}

/* The environment's entries, split by any of seps, until one leads to a
 * Mokka library; describes it in how. */
static int mokka_entry(pid_t pid, const char *var, const char *seps, int dirs, const char *list,
                       char *how, size_t len)
{
    char *copy = strdup(list ? list : ""), *save = NULL;
    int hit = 0;
    for (char *e = copy ? strtok_r(copy, seps, &save) : NULL; e && !hit;
         e = strtok_r(NULL, seps, &save)) {
        char file[4200];
        int n = dirs ? snprintf(file, sizeof file, "%s/" MK_LIB_SONAME, e)
                     : snprintf(file, sizeof file, "%s", e);
        if (n < 0 || (size_t)n >= sizeof file)
            continue;
        char seen[4400];
        mk_proc_path(pid, file, seen, sizeof seen);
        hit = mk_lib_marked(seen) == 1;
        if (hit && dirs)
            snprintf(how, len, "%s entry %s", var, e);
        else if (hit)
            snprintf(how, len, "%s=%s", var, e);
    }
    free(copy);
    return hit;
}

int mk_procenv_mokka_lib(pid_t pid, const mk_procenv *env, char *how, size_t len)
{
    return mokka_entry(pid, "LD_PRELOAD", ": \t", 0, mk_procenv_get(env, "LD_PRELOAD"), how,
                       len) ||
           mokka_entry(pid, "LD_LIBRARY_PATH", ":", 1, mk_procenv_get(env, "LD_LIBRARY_PATH"),
                       how, len);
}
