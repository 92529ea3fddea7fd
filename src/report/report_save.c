/* report_save.c - where a written report goes (see report.h): stdout, a
 * special file written in place, or a regular file replaced atomically
 * through any symbolic links that lead to it.
 *
 * Why not always "write PATH.tmp, rename over PATH": as root in CI,
 * `--junit /dev/null` would replace the system's /dev/null with a regular
 * file, a FIFO a collector reads from would vanish, and a symlink a job set
 * up (report.xml -> artifacts/report.xml) would be clobbered. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"
#include "report.h"

typedef int (*writer_fn)(const mk_report *, FILE *);

static int write_stream(const mk_report *r, writer_fn writer, FILE *f)
{
    return writer(r, f) == 0 && fflush(f) == 0 ? 0 : -1;
}

static int save_stdout(const mk_report *r, writer_fn writer, char *err, size_t errlen)
{
    if (write_stream(r, writer, stdout) == 0)
        return 0;
    snprintf(err, errlen, "cannot write the report to stdout: %s", strerror(errno));
    return -1;
}

/* A device, FIFO or socket: opened and written as it is. */
static int save_in_place(const mk_report *r, const char *path, writer_fn writer,
                         char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = write_stream(r, writer, f);
    int saved = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
    return rc;
}

/* A regular file (or none yet) at `target`, which is no symlink: written
 * beside it and renamed over it, keeping an existing file's mode. */
static int save_atomic(const mk_report *r, const char *path, const char *target,
                       const struct stat *old, writer_fn writer, char *err, size_t errlen)
{
    char *tmp = mk_xasprintf("%s.tmp.%ld", target, (long)getpid());
    int rc = -1, saved = 0;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        saved = errno;
    } else {
        int wrote = write_stream(r, writer, f) == 0 &&
                    (!old || fchmod(fileno(f), old->st_mode & 07777) == 0);
        saved = errno;
        if (fclose(f) != 0 && wrote)
            saved = errno;
        else if (wrote && rename(tmp, target) == 0)
            rc = 0;
        else if (wrote)
            saved = errno;
    }
    if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* The file a path names once its symlinks are followed: realpath when it
 * exists; for a link to a file not made yet, the link's target, relative
 * to the link's folder (one level, which is what jobs set up). */
static char *follow(const char *path)
{
    char *real = realpath(path, NULL);
    if (real)
        return real;
    char link[PATH_MAX];
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0)
        return mk_xstrdup(path);
    link[n] = 0;
    const char *slash = strrchr(path, '/');
    if (link[0] == '/' || !slash)
        return mk_xstrdup(link);
    return mk_xasprintf("%.*s/%s", (int)(slash - path), path, link);
}

int mk_report_save(const mk_report *r, const char *path, writer_fn writer,
                   char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return save_stdout(r, writer, err, errlen);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a directory", path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode))
        return save_in_place(r, path, writer, err, errlen);
    char *target = follow(path);
    int rc = save_atomic(r, path, target, exists ? &st : NULL, writer, err, errlen);
    free(target);
    return rc;
}
