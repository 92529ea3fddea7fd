/* procenv.c - where another process looks for files and whether its
 * environment points the dynamic loader at Mokka's library (see
 * stateview.h); reading the environment itself is lib/core/procenv.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bundle/bundle.h"
#include "stateview.h"

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
