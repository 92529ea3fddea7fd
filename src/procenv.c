/* procenv.c - reading /proc/PID/environ (see procenv.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libblob.h"
#include "procenv.h"

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

static int is_mokka(const char *file)
{
    mk_lib_kind k = mk_lib_identify(file);
    return k == MK_LIB_THIS || k == MK_LIB_MOKKA;
}

/* Calls found for each entry of a list separated by any of seps; stops at
 * the first entry it accepts. */
static int any_entry(const char *list, const char *seps, int (*found)(const char *, char *, size_t),
                     char *how, size_t len)
{
    char *copy = strdup(list ? list : "");
    int hit = 0;
    char *save = NULL;
    for (char *e = copy ? strtok_r(copy, seps, &save) : NULL; e && !hit;
         e = strtok_r(NULL, seps, &save))
        hit = found(e, how, len);
    free(copy);
    return hit;
}

static int preload_entry(const char *e, char *how, size_t len)
{
    if (!is_mokka(e))
        return 0;
    snprintf(how, len, "LD_PRELOAD=%s", e);
    return 1;
}

static int libpath_entry(const char *e, char *how, size_t len)
{
    char file[4200];
    snprintf(file, sizeof file, "%s/" MK_LIB_SONAME, e);
    if (!is_mokka(file))
        return 0;
    snprintf(how, len, "LD_LIBRARY_PATH entry %s", e);
    return 1;
}

int mk_procenv_mokka_lib(const mk_procenv *env, char *how, size_t len)
{
    return any_entry(mk_procenv_get(env, "LD_PRELOAD"), ": \t", preload_entry, how, len) ||
           any_entry(mk_procenv_get(env, "LD_LIBRARY_PATH"), ":", libpath_entry, how, len);
}
