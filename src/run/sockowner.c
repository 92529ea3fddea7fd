/* sockowner.c - which supervised plugin listens on a Unix socket path, for
 * the built-in kubelet to name the plugin behind each registration, and
 * which other plugin it took the path from.
 *
 * The kubelet sees only a socket path; two plugins may have bound the same
 * one (the second unlinks the first's file, and both still listen). What
 * is bound at the path now is the socket whose file is the path's inode:
 * the kernel's sock_diag tells each listening socket's file (device and
 * inode, UNIX_DIAG_VFS) and the name it was bound to (UNIX_DIAG_NAME, as
 * the plugin saw it in the sandbox: the same file name); /proc/PID/fd tells
 * which process holds a socket. Only processes of the plugins' own process
 * groups are looked at, so other sandboxes on the machine do not count. */
#include <dirent.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "run.h"

#define MAX_SAME 32   /* listening sockets bound to one file name, ours or not */

typedef struct listeners {
    unsigned long long owner;            /* the socket whose file the path is; 0: none */
    unsigned long long same[MAX_SAME];   /* others bound to the same file name */
    size_t nsame;
} listeners;

static const char *base(const char *p, size_t len, size_t *blen)
{
    const char *b = p;
    for (size_t i = 0; i < len; i++)
        if (p[i] == '/')
            b = p + i + 1;
    *blen = len - (size_t)(b - p);
    return b;
}

/* One socket's attributes: whether its file is (dev, ino), and whether its
 * name ends in the file name `want`. */
static void look(const struct unix_diag_msg *m, size_t left, dev_t dev, ino_t ino,
                 const char *want, listeners *l)
{
    const char *at = (const char *)(m + 1);
    int is_owner = 0, same_name = 0;
    while (left >= sizeof(struct nlattr)) {
        const struct nlattr *a = (const struct nlattr *)at;
        if (a->nla_len < sizeof *a || a->nla_len > left)
            break;
        const void *val = a + 1;
        size_t vlen = a->nla_len - sizeof *a;
        int type = a->nla_type & NLA_TYPE_MASK;
        if (type == UNIX_DIAG_VFS && vlen >= sizeof(struct unix_diag_vfs)) {
            const struct unix_diag_vfs *v = val;
            is_owner = v->udiag_vfs_ino == ino &&
                       makedev(v->udiag_vfs_dev >> 20, v->udiag_vfs_dev & 0xfffff) == dev;
        } else if (type == UNIX_DIAG_NAME) {
            size_t blen;
            while (vlen && !((const char *)val)[vlen - 1])   /* a binder may count the NUL */
                vlen--;
            const char *b = base(val, vlen, &blen);
            same_name = blen == strlen(want) && memcmp(b, want, blen) == 0;
        }
        size_t step = NLA_ALIGN(a->nla_len);
        if (step >= left)
            break;
        at += step;
        left -= step;
    }
    if (is_owner)
        l->owner = m->udiag_ino;
    else if (same_name && l->nsame < MAX_SAME)
        l->same[l->nsame++] = m->udiag_ino;
}

/* The listening Unix sockets that matter for the file (dev, ino) named
 * `want`; -1 when sock_diag cannot be asked. */
static int listeners_of(dev_t dev, ino_t ino, const char *want, listeners *l)
{
    memset(l, 0, sizeof *l);
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -1;
    struct {
        struct nlmsghdr nlh;
        struct unix_diag_req req;
    } msg = {
        .nlh = { .nlmsg_len = sizeof msg, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
        .req = { .sdiag_family = AF_UNIX, .udiag_states = 1u << 10 /* TCP_LISTEN */,
                 .udiag_show = UDIAG_SHOW_VFS | UDIAG_SHOW_NAME },
    };
    char *buf = malloc(32768);
    if (!buf || send(fd, &msg, sizeof msg, 0) < 0) {
        free(buf);
        close(fd);
        return -1;
    }
    for (int done = 0; !done;) {
        ssize_t got = recv(fd, buf, 32768, 0);
        if (got <= 0)
            break;
        unsigned int len = (unsigned int)got;   /* NLMSG_OK compares it with nlmsg_len */
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
                done = 1;
                break;
            }
            const struct unix_diag_msg *m = NLMSG_DATA(h);
            look(m, h->nlmsg_len - NLMSG_LENGTH(sizeof *m), dev, ino, want, l);
        }
    }
    free(buf);
    close(fd);
    return 0;
}

static pid_t pgrp_of(const char *pid)
{
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* pid (comm) state ppid pgrp: comm may hold anything, so after its ')' */
    const char *p = strrchr(buf, ')');
    int ppid, pgrp;
    char st;
    return p && sscanf(p + 1, " %c %d %d", &st, &ppid, &pgrp) == 3 ? pgrp : 0;
}

/* For the process pid, which of l's sockets it holds: 1 the owner, 2 one
 * of the same name, 0 none. */
static int holds(const char *pid, const listeners *l)
{
    char dir[300], path[600], link[64];
    unsigned long long ino;
    snprintf(dir, sizeof dir, "/proc/%s/fd", pid);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int what = 0;
    for (struct dirent *e; what != 1 && (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = 0;
        if (sscanf(link, "socket:[%llu]", &ino) != 1)
            continue;
        if (ino == l->owner)
            what = 1;
        for (size_t i = 0; !what && i < l->nsame; i++)
            what = ino == l->same[i] ? 2 : 0;
    }
    closedir(d);
    return what;
}

int mk_sock_owner(const char *path, const pid_t *pgids, size_t n, int *shadowed)
{
    struct stat st;
    listeners l;
    *shadowed = -1;
    const char *want = strrchr(path, '/');
    want = want ? want + 1 : path;
    if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
        listeners_of(st.st_dev, st.st_ino, want, &l) != 0 || !l.owner)
        return -1;
    DIR *proc = opendir("/proc");
    if (!proc)
        return -1;
    int owner = -1;
    for (struct dirent *e; (e = readdir(proc));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        pid_t g = pgrp_of(e->d_name);
        for (size_t i = 0; g && i < n; i++) {
            if (pgids[i] != g)
                continue;
            int what = holds(e->d_name, &l);
            if (what == 1)
                owner = (int)i;
            else if (what == 2)
                *shadowed = (int)i;
        }
    }
    closedir(proc);
    if (*shadowed == owner)
        *shadowed = -1;
    return owner;
}
