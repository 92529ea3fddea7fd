/* statedir.c - live-state directories: where they live, making, keeping and
 * removing them, finding the one a program on the mock uses, and clearing
 * away those that runs killed before they could clean up (see
 * stateview.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"
#include "stateview.h"

int mk_statedir_base(char *out, size_t len, char *err, size_t errlen)
{
    const char *env = getenv("MOKKA_RUNTIME_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (env && *env)
        snprintf(out, len, "%s", env);
    else if (xdg && xdg[0] == '/')
        snprintf(out, len, "%s/mokka", xdg);
    else
        return mk_user_tmp_dir(out, len, err, errlen);
    return mk_mkdir_p(out, 0700, err, errlen);
}

/* Only characters that need no quoting in a path, at most 40 of them. */
static void clean_tag(const char *tag, char *out, size_t len)
{
    size_t n = 0;
    for (const char *t = tag; *t && n + 1 < len && n < 40; t++) {
        char c = *t;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        out[n++] = ok ? c : '_';
    }
    if (n == 0 || out[0] == '.')
        n = (size_t)snprintf(out, len, "mokka");
    out[n] = 0;
}

int mk_statedir_new(const char *tag, char *out, size_t len, char *err, size_t errlen)
{
    char base[4096], t[48];
    if (mk_statedir_base(base, sizeof base, err, errlen) != 0)
        return -1;
    clean_tag(tag, t, sizeof t);
    /* A directory left by an earlier process with the same pid (kept with
     * --keep-state, or after a crash) is not ours to reuse: add a suffix. */
    for (int i = 1; i <= 100; i++) {
        int n = i == 1 ? snprintf(out, len, "%s/%s-%d", base, t, (int)getpid())
                       : snprintf(out, len, "%s/%s-%d.%d", base, t, (int)getpid(), i);
        if (n < 0 || (size_t)n >= len) {
            snprintf(err, errlen, "state directory path too long under %s", base);
            return -1;
        }
        if (mkdir(out, 0755) == 0)
            return 0;
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create state directory %s: %s", out, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "cannot create a state directory under %s: 100 names taken", base);
    return -1;
}

/* Empties the directory open as fd, depth first, and closes fd. Symbolic
 * links are removed, never followed: subdirectories are only entered
 * through O_NOFOLLOW. */
static void empty_dir(int fd, int depth)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno != EISDIR)
            continue;
        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0 && depth < 32)
            empty_dir(sub, depth + 1);
        else if (sub >= 0)
            close(sub);
        unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

void mk_statedir_remove(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        empty_dir(fd, 0);
    rmdir(dir);
}

static int state_in(const char *dir, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/state", dir);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

static int find_in_dir(const char *dir, char *path, size_t len, char *err, size_t errlen)
{
    pid_t pids[1];
    char why[512];
    if (state_in(dir, path, len) != 0) {
        snprintf(err, errlen, "state directory path too long: %s", dir);
        return -1;
    }
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "no state file in %s: no program on the mock has called nvmlInit "
                 "with MOKKA_STATE_DIR=%s", dir, dir);
        return -1;
    }
    if (mk_state_live_pids(path, pids, 1, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

static int find_by_pid(pid_t pid, char *path, size_t len, char *err, size_t errlen)
{
    mk_procenv env;
    char how[600];
    if (mk_procenv_read(pid, &env) != 0) {
        if (errno == ENOENT || errno == ESRCH)
            snprintf(err, errlen, "no process with pid %d", (int)pid);
        else
            snprintf(err, errlen, "cannot read /proc/%d/environ: %s (run as the process's user "
                     "or root)", (int)pid, strerror(errno));
        return -1;
    }
    const char *dir = mk_procenv_get(&env, "MOKKA_STATE_DIR");
    int rc = -1;
    if (dir && *dir) {
        char seen[4400];
        mk_proc_path(pid, dir, seen, sizeof seen);
        rc = find_in_dir(seen, path, len, err, errlen);
    } else if (mk_procenv_mokka_lib(pid, &env, how, sizeof how)) {
        snprintf(err, errlen, "process %d is on the mock (%s) but has no state directory "
                 "(MOKKA_STATE_DIR is not in its environment); start it with `mokka exec` or "
                 "set MOKKA_STATE_DIR", (int)pid, how);
    } else {
        snprintf(err, errlen, "process %d is not on the mock (neither MOKKA_STATE_DIR nor an "
                 "LD_PRELOAD or LD_LIBRARY_PATH naming Mokka's library in its environment); "
                 "start it with `mokka exec`", (int)pid);
    }
    mk_procenv_free(&env);
    return rc;
}

/* A directory kept on purpose (run --keep, exec --keep-state) holds this
 * file; one without it whose owner died was left by a crash or a kill. */
#define KEPT_MARK "kept"

void mk_statedir_keep(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/" KEPT_MARK, dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0)
        close(fd);
}

int mk_statedir_copy_config(const char *dir, const char *config, char *err, size_t errlen)
{
    size_t len;
    char *data = mk_read_all(config, &len, err, errlen);
    if (!data)
        return -1;
    int rc = mk_write_atomic(dir, "gpus.yaml", data, len, 0644, err, errlen);
    free(data);
    return rc;
}

/* The owner's pid in a name that mk_statedir_new made ("<tag>-<pid>" or
 * "<tag>-<pid>.<n>"), or 0 for any other name. */
static pid_t owner_of(const char *name)
{
    const char *dash = strrchr(name, '-');
    if (!dash || !dash[1])
        return 0;
    char *end;
    long pid = strtol(dash + 1, &end, 10);
    if (*end == '.') {
        char *n_end;
        strtol(end + 1, &n_end, 10);
        if (n_end == end + 1 || *n_end)
            return 0;
    } else if (*end) {
        return 0;
    }
    return pid > 0 && pid <= 0x7fffffff ? (pid_t)pid : 0;
}

/* Left behind: made by a mokka that is gone, not kept, and (checked by the
 * caller) no live process attached to its state. */
static int stale(const char *base, const char *name)
{
    char mark[4400];
    pid_t owner = owner_of(name);
    if (owner <= 0 || kill(owner, 0) == 0 || errno != ESRCH)
        return 0;
    snprintf(mark, sizeof mark, "%s/%s/" KEPT_MARK, base, name);
    struct stat st;
    return lstat(mark, &st) != 0;
}

/* The one directory under the base whose state file has a live process. */
static int find_live(char *path, size_t len, char *err, size_t errlen)
{
    char base[4096], cand[4400];
    if (mk_statedir_base(base, sizeof base, err, errlen) != 0)
        return -1;
    DIR *d = opendir(base);
    if (!d) {
        snprintf(err, errlen, "cannot read %s: %s", base, strerror(errno));
        return -1;
    }
    char *list = NULL;
    size_t listlen = 0;
    FILE *lf = open_memstream(&list, &listlen);
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid;
        char why[512];
        if (e->d_name[0] == '.')
            continue;
        snprintf(cand, sizeof cand, "%s/%s/state", base, e->d_name);
        if (mk_state_live_pids(cand, &pid, 1, why, sizeof why) <= 0) {
            if (stale(base, e->d_name)) {
                snprintf(cand, sizeof cand, "%s/%s", base, e->d_name);
                mk_statedir_remove(cand);
            }
            continue;
        }
        if (found++ == 0)
            snprintf(path, len, "%s", cand);
        if (lf)
            fprintf(lf, "%s%s (pid %d)", found > 1 ? ", " : "", e->d_name, (int)pid);
    }
    closedir(d);
    if (lf)
        fclose(lf);
    if (found == 0)
        snprintf(err, errlen, "no live program on the mock has a state directory under %s; "
                 "pass --state-dir DIR or --pid PID, or start the program with `mokka exec`",
                 base);
    else if (found > 1)
        snprintf(err, errlen, "%d programs on the mock have state directories under %s: %s; "
                 "pass --state-dir DIR or --pid PID", found, base, list ? list : "");
    free(list);
    return found == 1 ? 0 : -1;
}

int mk_statedir_find(const char *dir, pid_t pid, char *path, size_t len, char *err, size_t errlen)
{
    if (dir)
        return find_in_dir(dir, path, len, err, errlen);
    if (pid > 0)
        return find_by_pid(pid, path, len, err, errlen);
    return find_live(path, len, err, errlen);
}
