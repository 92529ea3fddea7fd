/* sandbox.c - building and entering the GPU-node sandbox (see run.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run.h"

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* snprintf for paths: -1 (errno ENAMETOOLONG) instead of a truncated path. */
static int pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static int mkdir_p(const char *path, mode_t mode)
{
    char buf[4096];
    pathf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, mode) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int write_file(const char *path, const char *fmt, ...)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    return fclose(f);
}

/* --- host side: the trees ------------------------------------------------------ */

/* The BARs as the kernel lists them in `resource`: one "start end flags"
 * line per resource, 13 of them. go-nvlib (gpu-feature-discovery) reads
 * the file for every GPU and stops without it. BAR0 is the 16 MiB register
 * window, BAR1 the framebuffer aperture (the universe's BAR1 size) and BAR3
 * 32 MiB, both 64-bit prefetchable, at addresses that differ by bus. */
static int pci_resource(const char *path, const mk_device *d)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    uint64_t bar0 = 0x80000000ull + ((uint64_t)d->pci_bus << 24) % 0x7f000000ull;
    uint64_t bar1 = 0x200000000000ull + ((uint64_t)d->pci_bus << 38);
    uint64_t bar1_len = d->bar1_total ? d->bar1_total : 256ull << 20;
    uint64_t bar3 = bar1 + bar1_len;
    const uint64_t bars[13][3] = {
        { bar0, bar0 + (16ull << 20) - 1, 0x40200 },
        { bar1, bar1 + bar1_len - 1, 0x14220c },
        { 0, 0, 0 },
        { bar3, bar3 + (32ull << 20) - 1, 0x14220c },
    };
    for (int i = 0; i < 13; i++)
        fprintf(f, "0x%016llx 0x%016llx 0x%016llx\n", (unsigned long long)bars[i][0],
                (unsigned long long)bars[i][1], (unsigned long long)bars[i][2]);
    return fclose(f);
}

/* The 256-byte standard configuration space: ids, revision, class (3D
 * controller), subsystem, and no capability list, so that gpu-feature-
 * discovery's vGPU check finds none and labels vgpu.present=false. */
static int pci_config(const char *path, const mk_device *d)
{
    unsigned char cfg[256] = { 0 };
    uint32_t id = d->pci_device_id, ss = d->pci_subsys_id;
    for (int i = 0; i < 4; i++) {
        cfg[i] = (unsigned char)(id >> (8 * i));
        cfg[0x2c + i] = (unsigned char)(ss >> (8 * i));
    }
    cfg[0x08] = 0xa1;                 /* revision */
    cfg[0x0a] = 0x02, cfg[0x0b] = 0x03; /* class 0x0302: 3D controller */
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    size_t n = fwrite(cfg, 1, sizeof cfg, f);
    return fclose(f) != 0 || n != sizeof cfg ? -1 : 0;
}

static int sys_pci(const char *root, const mk_device *d)
{
    char dir[4400], path[4500];
    pathf(dir, sizeof dir, "%s/%04x:%02x:%02x.%x", root, d->pci_domain, d->pci_bus, d->pci_dev,
             d->pci_func);
    if (mkdir_p(dir, 0755) != 0)
        return -1;
#define PCI_FILE(name, ...) \
    (pathf(path, sizeof path, "%s/" name, dir), write_file(path, __VA_ARGS__))
    if (PCI_FILE("numa_node", "%d\n", d->numa_node) || PCI_FILE("vendor", "0x%04x\n", d->pci_device_id & 0xffff) ||
        PCI_FILE("device", "0x%04x\n", d->pci_device_id >> 16) ||
        PCI_FILE("subsystem_vendor", "0x%04x\n", d->pci_subsys_id & 0xffff) ||
        PCI_FILE("subsystem_device", "0x%04x\n", d->pci_subsys_id >> 16) ||
        PCI_FILE("class", "0x030200\n") ||
        PCI_FILE("current_link_width", "%u\n", d->pcie_width) ||
        PCI_FILE("max_link_width", "%u\n", d->pcie_max_width))
        return -1;
#undef PCI_FILE
    pathf(path, sizeof path, "%s/resource", dir);
    if (pci_resource(path, d) != 0)
        return -1;
    pathf(path, sizeof path, "%s/config", dir);
    return pci_config(path, d);
}

/* The driver's mig-minors table: "config", "monitor", then for every GPU
 * minor 15 GPU instances with 8 compute instances each (the device plugin
 * keys MIG capability paths on the parent's minor number). */
static int mig_minors(const char *path, const mk_universe *u)
{
    unsigned gpus = 32;
    for (size_t i = 0; i < u->ndev; i++)
        if (u->dev[i].minor + 1 > gpus)
            gpus = u->dev[i].minor + 1;
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    fprintf(f, "config 1\nmonitor 2\n");
    for (unsigned g = 0; g < gpus; g++)
        for (unsigned gi = 0; gi < 15; gi++) {
            unsigned m = 3 + 135 * g + 9 * gi;
            fprintf(f, "gpu%u/gi%u/access %u\n", g, gi, m);
            for (unsigned ci = 0; ci < 8; ci++)
                fprintf(f, "gpu%u/gi%u/ci%u/access %u\n", g, gi, ci, m + 1 + ci);
        }
    return fclose(f);
}

static int dev_nodes(const char *root, const mk_universe *u)
{
    char path[4400];
    static const char *const fixed[] = { "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                                         "nvidia-modeset", "nvidia-caps/nvidia-cap1",
                                         "nvidia-caps/nvidia-cap2" };
    pathf(path, sizeof path, "%s/nvidia-caps", root);
    if (mkdir_p(path, 0755) != 0)
        return -1;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        pathf(path, sizeof path, "%s/%s", root, fixed[i]);
        if (write_file(path, "%s", "") != 0)
            return -1;
    }
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        pathf(path, sizeof path, "%s/nvidia%u", root, d->minor);
        if (write_file(path, "%s", "") != 0)
            return -1;
        for (size_t j = 0; j < d->nmig; j++) {
            unsigned minors[2] = { d->mig[j].gi_minor, d->mig[j].ci_minor };
            for (int k = 0; k < 2; k++) {
                pathf(path, sizeof path, "%s/nvidia-caps/nvidia-cap%u", root, minors[k]);
                if (write_file(path, "%s", "") != 0)
                    return -1;
            }
        }
    }
    return 0;
}

int mk_sandbox_prepare(mk_sandbox *sb, const char *run_dir, const mk_universe *u, int enabled,
                       char *err, size_t errlen)
{
    char path[4400];
    memset(sb, 0, sizeof *sb);
    /* Every path below is the run directory plus a short suffix; with this
     * bound none of them can be truncated. */
    if (strlen(run_dir) > 2048)
        return fail(err, errlen, "run directory path too long: %s", run_dir);
    snprintf(sb->run_dir, sizeof sb->run_dir, "%s", run_dir);
    sb->enabled = enabled;
    if (enabled == MK_SANDBOX_ON)
        snprintf(sb->kubelet_dir, sizeof sb->kubelet_dir, "%s/kubelet", run_dir);
    else
        snprintf(sb->kubelet_dir, sizeof sb->kubelet_dir, "%s", mk_kubelet_dir());
    if (mkdir_p(sb->kubelet_dir, 0755) != 0)
        return fail(err, errlen, "cannot create %s: %s", sb->kubelet_dir, strerror(errno));
    if (enabled == MK_SANDBOX_OFF)
        return 0;
    pathf(path, sizeof path, "%s/sys-pci", run_dir);
    for (size_t i = 0; i < u->ndev; i++)
        if (sys_pci(path, &u->dev[i]) != 0)
            return fail(err, errlen, "cannot write the sysfs tree in %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/proc-driver/nvidia-caps", run_dir);
    if (mkdir_p(path, 0755) != 0)
        return fail(err, errlen, "cannot create %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/proc-driver/nvidia-caps/mig-minors", run_dir);
    if (mig_minors(path, u) != 0)
        return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/proc-driver/nvidia", run_dir);
    if (mkdir_p(path, 0755) != 0)
        return fail(err, errlen, "cannot create %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/proc-driver/nvidia/version", run_dir);
    if (write_file(path, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  (Mokka virtual driver)\n"
                   "GCC version:  n/a\n", u->driver_version) != 0)
        return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/dmi-id", run_dir);
    if (mkdir_p(path, 0755) != 0)
        return fail(err, errlen, "cannot create %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/dmi-id/product_name", run_dir);
    if (write_file(path, "%s\n", u->machine) != 0)
        return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/dev-nodes", run_dir);
    if (dev_nodes(path, u) != 0)
        return fail(err, errlen, "cannot write the device nodes in %s: %s", path, strerror(errno));
    pathf(path, sizeof path, "%s/shadow", run_dir);
    if (mkdir_p(path, 0755) != 0)
        return fail(err, errlen, "cannot create %s: %s", path, strerror(errno));
    return 0;
}

/* --- child side: the namespace ---------------------------------------------------- */

static int write_proc(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int new_namespace(char *err, size_t errlen)
{
    if (geteuid() == 0) {
        if (unshare(CLONE_NEWNS) != 0)
            return fail(err, errlen, "unshare(CLONE_NEWNS): %s", strerror(errno));
    } else {
        uid_t uid = geteuid();
        gid_t gid = getegid();
        char map[64];
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
            return fail(err, errlen, "unshare(CLONE_NEWUSER|CLONE_NEWNS): %s", strerror(errno));
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        if (write_proc("/proc/self/uid_map", map) != 0)
            return fail(err, errlen, "writing /proc/self/uid_map: %s", strerror(errno));
        write_proc("/proc/self/setgroups", "deny\n");
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
        if (write_proc("/proc/self/gid_map", map) != 0)
            return fail(err, errlen, "writing /proc/self/gid_map: %s", strerror(errno));
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail(err, errlen, "making mounts private: %s", strerror(errno));
    return 0;
}

static int bind(const char *src, const char *dst, char *err, size_t errlen)
{
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
        return fail(err, errlen, "bind-mounting %s on %s: %s", src, dst, strerror(errno));
    return 0;
}

/* Mirrors every entry of `dir` into a tmpfs at `shadow` (directories and
 * files by bind mounts, symlinks as symlinks), so that more can be added
 * to it before it is mounted over `dir`. */
static int mirror(const char *dir, const char *shadow, char *err, size_t errlen)
{
    if (mkdir_p(shadow, 0755) != 0 || mount("mokka", shadow, "tmpfs", 0, "mode=0755") != 0)
        return fail(err, errlen, "mounting a tmpfs on %s: %s", shadow, strerror(errno));
    DIR *d = opendir(dir);
    if (!d)
        return fail(err, errlen, "reading %s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char src[4400], dst[4400], target[4096];
        struct stat st;
        pathf(src, sizeof src, "%s/%s", dir, e->d_name);
        pathf(dst, sizeof dst, "%s/%s", shadow, e->d_name);
        if (lstat(src, &st) != 0)
            continue; /* vanished meanwhile */
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(src, target, sizeof target - 1);
            if (n >= 0) {
                target[n] = 0;
                if (symlink(target, dst) != 0)
                    rc = fail(err, errlen, "symlink %s: %s", dst, strerror(errno));
            }
            continue;
        }
        if (S_ISDIR(st.st_mode))
            rc = mkdir(dst, st.st_mode & 07777) == 0 ? 0 : -1;
        else
            rc = mknod(dst, S_IFREG | 0644, 0) == 0 ? 0 : -1;
        if (rc != 0)
            rc = fail(err, errlen, "creating %s: %s", dst, strerror(errno));
        else
            rc = bind(src, dst, err, errlen);
    }
    closedir(d);
    return rc;
}

/* Makes `target` show `source`. When `target` does not exist, its nearest
 * existing parent is shadowed (see mirror) and the missing directories are
 * made inside the shadow. */
static int overlay(const mk_sandbox *sb, const char *target, const char *source, int *nshadow,
                   char *err, size_t errlen)
{
    struct stat st;
    if (stat(target, &st) == 0)
        return bind(source, target, err, errlen);
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", target);
    do {
        char *slash = strrchr(parent, '/');
        if (slash == parent) {
            parent[1] = 0;
            break;
        }
        *slash = 0;
    } while (stat(parent, &st) != 0);
    if (strcmp(parent, "/") == 0)
        return fail(err, errlen, "cannot make %s visible: no parent directory exists", target);
    char shadow[4400], inside[8600];
    pathf(shadow, sizeof shadow, "%s/shadow/%d", sb->run_dir, (*nshadow)++);
    if (mirror(parent, shadow, err, errlen) != 0)
        return -1;
    pathf(inside, sizeof inside, "%s%s", shadow, target + strlen(parent));
    if (mkdir_p(inside, 0755) != 0)
        return fail(err, errlen, "creating %s: %s", inside, strerror(errno));
    if (bind(source, inside, err, errlen) != 0)
        return -1;
    return bind(shadow, parent, err, errlen);
}

/* /dev keeps every host entry and gains the NVIDIA nodes. */
static int shadow_dev(const mk_sandbox *sb, int *nshadow, char *err, size_t errlen)
{
    char shadow[4400], nodes[4400], caps[4500];
    pathf(shadow, sizeof shadow, "%s/shadow/%d", sb->run_dir, (*nshadow)++);
    if (mirror("/dev", shadow, err, errlen) != 0)
        return -1;
    pathf(nodes, sizeof nodes, "%s/dev-nodes", sb->run_dir);
    pathf(caps, sizeof caps, "%s/nvidia-caps", shadow);
    struct stat st;
    if (stat(caps, &st) != 0 && mkdir(caps, 0755) != 0)
        return fail(err, errlen, "creating %s: %s", caps, strerror(errno));
    const char *subdirs[] = { "", "/nvidia-caps" };
    for (int k = 0; k < 2; k++) {
        char dir[4600];
        pathf(dir, sizeof dir, "%s%s", nodes, subdirs[k]);
        DIR *d = opendir(dir);
        if (!d)
            return fail(err, errlen, "reading %s: %s", dir, strerror(errno));
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || strcmp(e->d_name, "nvidia-caps") == 0)
                continue;
            char dst[4800];
            pathf(dst, sizeof dst, "%s%s/%s", shadow, subdirs[k], e->d_name);
            if (stat(dst, &st) != 0 && mknod(dst, S_IFREG | 0666, 0) != 0) {
                closedir(d);
                return fail(err, errlen, "creating %s: %s", dst, strerror(errno));
            }
        }
        closedir(d);
    }
    return bind(shadow, "/dev", err, errlen);
}

/* The machine's product name: over the host's file where there is one (the
 * rest of its DMI stays), else the whole directory. */
static int dmi(const mk_sandbox *sb, int *nshadow, char *err, size_t errlen)
{
    char src[4400];
    struct stat st;
    if (stat(MK_DMI_DIR "/product_name", &st) == 0) {
        pathf(src, sizeof src, "%s/dmi-id/product_name", sb->run_dir);
        return bind(src, MK_DMI_DIR "/product_name", err, errlen);
    }
    pathf(src, sizeof src, "%s/dmi-id", sb->run_dir);
    return overlay(sb, MK_DMI_DIR, src, nshadow, err, errlen);
}

int mk_sandbox_enter(const mk_sandbox *sb, char *err, size_t errlen)
{
    char src[4400];
    int nshadow = 0;
    if (!sb->enabled)
        return 0;
    if (new_namespace(err, errlen) != 0)
        return -1;
    /* the node's kubelet directory stays, unless it lives elsewhere
     * (MOKKA_KUBELET_DIR): then the plugin finds it where it looks */
    if (strcmp(sb->kubelet_dir, MK_KUBELET_DIR) != 0 &&
        overlay(sb, MK_KUBELET_DIR, sb->kubelet_dir, &nshadow, err, errlen) != 0)
        return -1;
    pathf(src, sizeof src, "%s/sys-pci", sb->run_dir);
    if (overlay(sb, "/sys/bus/pci/devices", src, &nshadow, err, errlen) != 0)
        return -1;
    pathf(src, sizeof src, "%s/proc-driver", sb->run_dir);
    if (overlay(sb, "/proc/driver", src, &nshadow, err, errlen) != 0)
        return -1;
    if (dmi(sb, &nshadow, err, errlen) != 0)
        return -1;
    return shadow_dev(sb, &nshadow, err, errlen);
}

const char *mk_kubelet_dir(void)
{
    const char *dir = getenv("MOKKA_KUBELET_DIR");
    return dir && *dir ? dir : MK_KUBELET_DIR;
}

int mk_sandbox_available(char *why, size_t len)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return snprintf(why, len, "pipe: %s", strerror(errno)), 0;
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        snprintf(why, len, "fork: %s", strerror(errno));
        return 0;
    }
    if (pid == 0) {
        char err[512] = "";
        close(pipefd[0]);
        int rc = new_namespace(err, sizeof err);
        if (rc == 0 && mount("mokka", "/tmp", "tmpfs", 0, NULL) != 0)
            rc = fail(err, sizeof err, "mounting a tmpfs: %s", strerror(errno));
        if (rc != 0 && write(pipefd[1], err, strlen(err)) < 0)
            _exit(2);
        _exit(rc == 0 ? 0 : 1);
    }
    close(pipefd[1]);
    ssize_t n = read(pipefd[0], why, len - 1);
    close(pipefd[0]);
    why[n > 0 ? n : 0] = 0;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
