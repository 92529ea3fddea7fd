/* fsutil.c - directory trees, the per-user /tmp directory and atomic file
 * publication (see util.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

int mk_mkdir_p(const char *path, mode_t mode, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        snprintf(err, errlen, "path too long: %s", path);
        return -1;
    }
    /* Create each prefix in turn; existing ones are fine. */
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(buf, mode) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory %s: %s", buf, strerror(errno));
            return -1;
        }
        *p = c;
        if (c == 0)
            break;
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", path);
        return -1;
    }
    return 0;
}

int mk_user_tmp_dir(char *out, size_t len, char *err, size_t errlen)
{
    uid_t uid = getuid();
    snprintf(out, len, "/tmp/mokka-%u", (unsigned)uid);
    if (mkdir(out, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -1;
    }
    /* Someone else may have made it first to catch our files: check. */
    struct stat sb;
    if (lstat(out, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != uid ||
        (sb.st_mode & 0022)) {
        snprintf(err, errlen, "%s is not a directory that only you own and can write; "
                 "remove it", out);
        return -1;
    }
    return 0;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int mk_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                    mode_t mode, char *err, size_t errlen)
{
    char tmp[4200], dst[4200];
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.%d.%lx", dir, name, (int)getpid(), (long)ts.tv_nsec);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    /* fchmod, not the open mode, so that the umask does not decide. */
    if (write_all(fd, data, len) != 0 || fchmod(fd, mode) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, dst) != 0) {
        snprintf(err, errlen, "cannot publish %s: %s", dst, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

char *mk_read_all(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *data = NULL;
    size_t cap = 0, n;
    *len = 0;
    do {
        if (*len == cap) {
            char *more = realloc(data, cap = cap ? cap * 2 : 8192);
            if (!more) {
                snprintf(err, errlen, "out of memory reading %s", path);
                goto fail;
            }
            data = more;
        }
        *len += n = fread(data + *len, 1, cap - *len, f);
    } while (n > 0);
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    fclose(f);
    data[*len] = 0;   /* the last fread found room and read nothing */
    return data;
fail:
    fclose(f);
    free(data);
    return NULL;
}

int mk_file_equals(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat sb;
    int same = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size == len) {
        void *p = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        if (len == 0) {
            same = 1;
        } else if (p != MAP_FAILED) {
            same = memcmp(p, data, len) == 0;
            munmap(p, len);
        }
    }
    close(fd);
    return same;
}
