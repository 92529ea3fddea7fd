/* statedir.c - TEMPORARY minimal state directories (statedir.h) so that the
 * cli2 branch builds and tests before the real one lands from branch cli1.
 * Dropped at merge. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "state.h"
#include "statedir.h"

int mk_statedir_base(char *out, size_t len, char *err, size_t errlen)
{
    const char *rt = getenv("MOKKA_RUNTIME_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
    if (rt && *rt)
        snprintf(out, len, "%s", rt);
    else if (xdg && *xdg)
        snprintf(out, len, "%s/mokka", xdg);
    else
        snprintf(out, len, "/tmp/mokka-%u", (unsigned)getuid());
    if (mkdir(out, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    return 0;
}

int mk_statedir_new(const char *tag, char *out, size_t len, char *err, size_t errlen)
{
    char base[3072];
    if (mk_statedir_base(base, sizeof base, err, errlen) != 0)
        return -1;
    snprintf(out, len, "%s/%s-%d", base, tag, (int)getpid());
    if (mkdir(out, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    return 0;
}

void mk_statedir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4352];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int live_state(const char *path)
{
    mk_state st;
    char err[256];
    int live = 0;
    if (mk_state_open_existing(&st, path, err, sizeof err) != 0)
        return 0;
    for (int i = 0; i < MK_STATE_PIDS && !live; i++) {
        int32_t p = atomic_load(&st.hdr->pids[i]);
        live = p > 0 && (kill(p, 0) == 0 || errno == EPERM);
    }
    mk_state_close(&st);
    return live;
}

static int from_pid(pid_t pid, char *path, size_t len, char *err, size_t errlen)
{
    char f[64], buf[65536];
    snprintf(f, sizeof f, "/proc/%d/environ", (int)pid);
    int fd = open(f, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read the environment of process %d: %s", (int)pid,
                 strerror(errno));
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        n = 0;
    buf[n] = 0;
    for (char *s = buf; s < buf + n; s += strlen(s) + 1)
        if (strncmp(s, "MOKKA_STATE_DIR=", 16) == 0 && s[16]) {
            snprintf(path, len, "%s/state", s + 16);
            return 0;
        }
    snprintf(err, errlen, "process %d has no MOKKA_STATE_DIR in its environment (start it with "
             "`mokka exec`, or set MOKKA_STATE_DIR)", (int)pid);
    return -1;
}

int mk_statedir_find(const char *dir, pid_t pid, char *path, size_t len, char *err, size_t errlen)
{
    char base[3072], cand[4352];
    if (dir)
        snprintf(path, len, "%s/state", dir);
    else if (pid > 0 && from_pid(pid, path, len, err, errlen) != 0)
        return -1;
    if (dir || pid > 0) {
        if (access(path, F_OK) != 0) {
            snprintf(err, errlen, "no state file %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (mk_statedir_base(base, sizeof base, err, errlen) != 0)
        return -1;
    DIR *d = opendir(base);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(cand, sizeof cand, "%s/%s/state", base, e->d_name);
        if (live_state(cand) && found++ == 0)
            snprintf(path, len, "%s", cand);
    }
    if (d)
        closedir(d);
    if (found == 1)
        return 0;
    if (found)
        snprintf(err, errlen, "%d live states under %s: pass --state-dir DIR or --pid PID", found,
                 base);
    else
        snprintf(err, errlen, "no live state under %s: pass --state-dir DIR or --pid PID", base);
    return -1;
}
