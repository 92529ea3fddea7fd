/* doctor_sock.c - doctor's third layer: the kubelet's device-plugin
 * directory. kubelet.sock and every plugin socket there must exist and
 * accept a connection; a socket file nobody listens on is what a crashed
 * kubelet or plugin leaves behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "doctor.h"

#define KUBELET_SOCK "kubelet.sock"

/* 0 when something listens at path, else errno. The connect is
 * non-blocking: a Unix socket answers at once or not at all. */
static int probe(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path)
        return ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
    close(fd);
    /* A full backlog still means a listener. */
    return rc == EAGAIN || rc == EINPROGRESS ? 0 : rc;
}

static void check_socket(mk_doctor *d, const char *dir, const char *name, const char *who,
                         const char *restart)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int e = probe(path);
    if (e == 0)
        mk_dr_pass(d, "%s %s accepts connections", who, path);
    else if (e == EACCES || e == EPERM)
        mk_dr_warn(d, "run doctor as root", "cannot connect to %s %s: %s", who, path,
                   strerror(e));
    else if (e == ECONNREFUSED)
        mk_dr_fail(d, restart, "%s %s refuses connections: nothing listens (a stale socket "
                   "left by a process that exited)", who, path);
    else
        mk_dr_fail(d, restart, "cannot connect to %s %s: %s", who, path, strerror(e));
}

void mk_doctor_sockets(mk_doctor *d, const char *dir, int named)
{
    struct stat sb;
    char path[4400];
    mk_dr_section(d, "sockets in %s", dir);
    int st = stat(dir, &sb) == 0 ? 0 : errno;
    if (st || !S_ISDIR(sb.st_mode)) {
        if (named)
            mk_dr_fail(d, "pass the kubelet's --root-dir followed by /device-plugins",
                       "%s: %s", dir, st ? strerror(st) : "not a directory");
        else
            mk_dr_warn(d, NULL, "no %s: not a Kubernetes node, or the kubelet keeps its "
                       "sockets elsewhere (--kubelet-dir DIR)", dir);
        return;
    }
    snprintf(path, sizeof path, "%s/" KUBELET_SOCK, dir);
    if (lstat(path, &sb) != 0)
        mk_dr_fail(d, "start the kubelet, or pass --kubelet-dir with its device-plugin directory",
                   "no %s: the kubelet is not running here", path);
    else
        check_socket(d, dir, KUBELET_SOCK, "kubelet socket",
                     "restart the kubelet (it recreates kubelet.sock and asks plugins to "
                     "register again)");
    DIR *dd = opendir(dir);
    if (!dd) {
        mk_dr_warn(d, "run doctor as root", "cannot list %s: %s", dir, strerror(errno));
        return;
    }
    int plugins = 0;
    struct dirent *e;
    while ((e = readdir(dd)) != NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, KUBELET_SOCK) == 0 || lstat(path, &sb) != 0 || !S_ISSOCK(sb.st_mode))
            continue;
        plugins++;
        check_socket(d, dir, e->d_name, "plugin socket",
                     "restart the device plugin; remove the stale socket if it stays");
    }
    closedir(dd);
    if (plugins == 0)
        mk_dr_warn(d, NULL, "no device-plugin sockets in %s: no plugin has started", dir);
}
