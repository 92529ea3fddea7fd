/* plan.c - what one GPU container gets (see ctr.h): the node's files
 * mounted where the image's own loader and PATH find them, and the
 * variables that point Mokka's library at the node's universe and state.
 *
 * The library goes into the directory that holds the image's libc: on
 * every distribution that is a directory the loader searches by default
 * (multiarch on Debian and Ubuntu, /usr/lib64 on Fedora and UBI, /lib on
 * Alpine), so nothing in the container's environment (LD_LIBRARY_PATH)
 * changes, as with NVIDIA's toolkit. The live state file is mounted
 * read-write: the library maps it shared and writes its call counters and
 * attach table there, and on a read-only file it would fall back to a
 * private copy, so the pod would never see a fault injected on the node.
 * Only the file is shared, not its directory: the container cannot
 * create, replace or remove the node's state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctr.h"
#include "util/util.h"
#include "bundle/bundle.h"

#define YAML_SONAME "libyaml-0.so.2"

const char *const *mk_ctr_libdirs(const char *arch)
{
    static const char *const x86[] = { "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
                                       "/usr/lib64", "/lib64", "/usr/lib", "/lib", NULL };
    static const char *const arm[] = { "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
                                       "/usr/lib64", "/lib64", "/usr/lib", "/lib", NULL };
    return arch && strcmp(arch, "aarch64") == 0 ? arm : x86;
}

/* stat of rootfs/dir/name (name NULL: rootfs/dir), following the image's
 * relative links. */
static int image_stat(const char *rootfs, const char *dir, const char *name, struct stat *sb)
{
    char p[8400];
    snprintf(p, sizeof p, "%s%s%s%s", rootfs, dir, name ? "/" : "", name ? name : "");
    return stat(p, sb);
}

static int in_image(const char *rootfs, const char *dir, const char *name)
{
    struct stat sb;
    return image_stat(rootfs, dir, name, &sb) == 0;
}

/* Whether the image ships a file there: not empty, as the mountpoint a
 * runtime left in a reused root filesystem is. */
static int ships(const char *rootfs, const char *dir, const char *name)
{
    struct stat sb;
    return image_stat(rootfs, dir, name, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

/* The image's libc directory: the first searched directory that holds
 * libc.so.6 (glibc) or a musl loader; the first of the list for an image
 * without a libc (static programs, CDI). */
static const char *lib_dir(const char *rootfs, const char *const *dirs)
{
    for (size_t i = 0; rootfs && dirs[i]; i++)
        if (ships(rootfs, dirs[i], "libc.so.6") || ships(rootfs, dirs[i], "libc.musl-x86_64.so.1") ||
            ships(rootfs, dirs[i], "libc.musl-aarch64.so.1"))
            return dirs[i];
    return dirs[0];
}

static void add_mount(mk_ctr_plan *p, const char *src, const char *dir, const char *name, int rw)
{
    if (p->nmount == sizeof p->mount / sizeof p->mount[0])
        return;
    mk_ctr_mount *m = &p->mount[p->nmount++];
    snprintf(m->src, sizeof m->src, "%s", src);
    snprintf(m->dst, sizeof m->dst, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    m->rw = rw;
}

/* Mokka's library in the libc directory, under the soname and the
 * development name; over a copy the image ships in any searched directory
 * too (the loader would find that one first through its cache). */
static void plan_library(const mk_ctr_node *n, const char *rootfs, const char *const *dirs,
                         const char *dir, mk_ctr_plan *p, FILE *notes)
{
    add_mount(p, n->lib, dir, MK_LIB_SONAME, 0);
    add_mount(p, n->lib, dir, "libnvidia-ml.so", 0);
    for (size_t i = 0; rootfs && dirs[i]; i++) {
        if (!ships(rootfs, dirs[i], MK_LIB_SONAME))
            continue;
        if (notes)
            fprintf(notes, "mokka container-runtime: the image ships %s/%s; Mokka's library is "
                    "mounted over it (as NVIDIA's toolkit mounts the driver's)\n", dirs[i],
                    MK_LIB_SONAME);
        if (strcmp(dirs[i], dir) != 0)
            add_mount(p, n->lib, dirs[i], MK_LIB_SONAME, 0);
    }
    int has_yaml = 0;
    for (size_t i = 0; rootfs && dirs[i]; i++)
        has_yaml |= ships(rootfs, dirs[i], YAML_SONAME);
    if (n->yaml[0] && !has_yaml)
        add_mount(p, n->yaml, dir, YAML_SONAME, 0);
}

/* A read-only root filesystem takes bind mounts (the runtime makes it
 * read-only after mounting), but a mountpoint the image lacks can only be
 * made while the directory underneath is writable on the host. */
static int check_mountpoints(const mk_ctr_plan *p, const char *rootfs, int rootfs_ro, char *err,
                             size_t errlen)
{
    if (!rootfs || !rootfs_ro || access(rootfs, W_OK) == 0)
        return 0;
    for (size_t i = 0; i < p->nmount; i++)
        if (!in_image(rootfs, p->mount[i].dst, NULL))
            return mk_errf(err, errlen, "the container's root filesystem %s is read-only on "
                           "this host and has no %s to mount Mokka's file onto: build the image "
                           "with that path (an empty file), or give the container a writable "
                           "root filesystem", rootfs, p->mount[i].dst);
    return 0;
}

int mk_ctr_plan_make(const mk_ctr_node *n, const char *rootfs, int rootfs_ro, const char *arch,
                     mk_ctr_plan *p, FILE *notes, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    const char *const *dirs = mk_ctr_libdirs(arch);
    const char *dir = lib_dir(rootfs, dirs);
    plan_library(n, rootfs, dirs, dir, p, notes);
    /* NVIDIA's nvidia-smi in the image reads Mokka's library as it would
     * the driver's; the twin stands in only where the image has none. */
    if (n->smi[0] && !(rootfs && ships(rootfs, MK_CTR_SMI, NULL)))
        add_mount(p, n->smi, MK_CTR_SMI, NULL, 0);
    add_mount(p, n->state, MK_CTR_STATE, NULL, 1);
    p->env[p->nenv++] = mk_xasprintf("MOKKA_STATE_DIR=%s", MK_CTR_DIR);
    p->env[p->nenv++] = mk_xasprintf("MOKKA_NODE_NAME=%s", n->node);
    if (n->config[0]) {
        add_mount(p, n->config, MK_CTR_CONFIG, NULL, 0);
        p->env[p->nenv++] = mk_xasprintf("MOKKA_CONFIG=%s", MK_CTR_CONFIG);
    }
    if (check_mountpoints(p, rootfs, rootfs_ro, err, errlen) != 0) {
        mk_ctr_plan_free(p);
        return -1;
    }
    return 0;
}

void mk_ctr_plan_free(mk_ctr_plan *p)
{
    for (size_t i = 0; i < p->nenv; i++)
        free(p->env[i]);
    p->nenv = 0;
    p->nmount = 0;
}
