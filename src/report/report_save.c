/* report_save.c - where a written report goes (see report.h): stdout, a
 * special file written in place, or a regular file replaced atomically
 * through any symbolic links that lead to it.
 *
 * Why not always "write PATH.tmp, rename over PATH": as root in CI,
 * `--junit /dev/null` would replace the system's /dev/null with a regular
 * file, a FIFO a collector reads from would vanish, and a symlink a job set
 * up (report.xml -> artifacts/report.xml) would be clobbered. Written in
 * place, a FIFO's reader gets a bounded time to come and to read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* A FIFO's reader gets this long to open it, and then to take each part
 * of the report: open() and write() would otherwise wait for a reader
 * that never comes, past --timeout, for ever. */
#define READER_WAIT_MS 5000

/* Opened without blocking; a FIFO that nobody has open for reading yet
 * (ENXIO) is tried again until a reader comes or READER_WAIT_MS pass. */
static int open_in_place(const char *path, int fifo)
{
    long long give_up = mk_now_ms() + READER_WAIT_MS;
    for (;;) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO || !fifo || mk_now_ms() >= give_up)
            return fd;
        nanosleep(&(struct timespec){ 0, 50 * 1000000L }, NULL);
    }
}

/* All of buf to the non-blocking fd, waiting up to READER_WAIT_MS each
 * time it takes nothing (ETIMEDOUT then). A reader that closes early is
 * EPIPE, and its SIGPIPE is taken here instead of ending the command. */
static int write_in_place(int fd, const char *buf, size_t len)
{
    sigset_t pipe_sig, old;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
    int rc = 0;
    for (size_t off = 0; off < len && rc == 0;) {
        ssize_t n = write(fd, buf + off, len - off);
        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && errno == EAGAIN) {
            int ready = poll(&(struct pollfd){ fd, POLLOUT, 0 }, 1, READER_WAIT_MS);
            if (ready == 0)
                errno = ETIMEDOUT;
            if (ready == 0 || (ready < 0 && errno != EINTR))
                rc = -1;
        } else if (n == 0 || errno != EINTR) {
            rc = -1;
        }
    }
    int saved = errno;
    if (rc != 0 && saved == EPIPE)
        sigtimedwait(&pipe_sig, NULL, &(struct timespec){ 0, 0 });
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return rc;
}

static const char *in_place_error(int e, char *buf, size_t len)
{
    if (e == ENXIO)
        snprintf(buf, len, "no process opened it for reading within %d s", READER_WAIT_MS / 1000);
    else if (e == ETIMEDOUT)
        snprintf(buf, len, "its reader took nothing for %d s", READER_WAIT_MS / 1000);
    else if (e == EPIPE)
        snprintf(buf, len, "its reader closed it before the end of the report");
    else
        snprintf(buf, len, "%s", strerror(e));
    return buf;
}

/* A device, FIFO or socket: written as it is, the report made first in
 * memory so that the file only ever sees whole writes. */
static int save_in_place(const mk_report *r, const char *path, const struct stat *st,
                         writer_fn writer, char *err, size_t errlen)
{
    char *buf = NULL, why[128];
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem || writer(r, mem) != 0 || fclose(mem) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(buf);
        return -1;
    }
    int fd = open_in_place(path, S_ISFIFO(st->st_mode));
    int rc = fd < 0 ? -1 : write_in_place(fd, buf, len);
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s", path, in_place_error(saved, why, sizeof why));
    free(buf);
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
        return save_in_place(r, path, &st, writer, err, errlen);
    char *target = follow(path);
    int rc = save_atomic(r, path, target, exists ? &st : NULL, writer, err, errlen);
    free(target);
    return rc;
}
