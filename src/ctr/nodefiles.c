/* nodefiles.c - the node's files a GPU container gets (see ctr.h): the
 * live state the node's `mokka run` keeps, the config and node name its
 * UUIDs come from, Mokka's library with its libyaml, and the nvidia-smi
 * twin. Found once per container create, before the runtime runs. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "ctr.h"
#include "state.h"
#include "util/util.h"
#include "bundle/bundle.h"

/* src into dst[len]; -1 (dst "") when it does not fit. */
static int copy(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len) {
        dst[0] = 0;
        return -1;
    }
    memcpy(dst, src, n + 1);
    return 0;
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* DIR/state, else the most recently changed DIR/NAME/state (`mokka run`
 * keeps its state in a directory of its own under MOKKA_RUNTIME_DIR). */
static int find_state(const char *dir, char *out, size_t len, char *err, size_t errlen)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/state", dir);
    if (is_file(p))
        return copy(out, len, p);
    DIR *d = opendir(dir);
    if (!d)
        return mk_errf(err, errlen, "no live state at %s: %s; is Mokka's node agent (mokka run "
                       "--cluster) running on this node with MOKKA_RUNTIME_DIR=%s (a hostPath), "
                       "or does --state-dir name the right directory?", dir, strerror(errno),
                       dir);
    struct dirent *e;
    struct stat sb;
    time_t newest = 0;
    out[0] = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/state", dir, e->d_name);
        if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && (!out[0] || sb.st_mtime > newest)) {
            newest = sb.st_mtime;
            copy(out, len, p);
        }
    }
    closedir(d);
    if (!out[0])
        return mk_errf(err, errlen, "no live state in %s (neither %s/state nor %s/*/state): "
                       "start Mokka's node agent (mokka run --cluster) with "
                       "MOKKA_RUNTIME_DIR=%s first, or name its directory with --state-dir",
                       dir, dir, dir, dir);
    return 0;
}

int mk_ctr_state_header(const char *path, char *config, size_t clen, char *node, size_t nlen,
                        char *err, size_t errlen)
{
    mk_state st;
    char why[600];
    if (mk_state_open_existing(&st, path, why, sizeof why) != 0)
        return mk_errf(err, errlen, "the node's live state: %s", why);
    snprintf(config, clen, "%.*s", (int)sizeof st.hdr->config_path, st.hdr->config_path);
    snprintf(node, nlen, "%.*s", (int)sizeof st.hdr->node, st.hdr->node);
    mk_state_close(&st);
    return 0;
}

/* The config: given, else gpus.yaml beside the state or in the state
 * directory given (where a node agent in a pod copies its ConfigMap for
 * the host to see), else the path the state records, if this host has it. */
static int find_config(const mk_ctr_where *w, const char *recorded, mk_ctr_node *n, char *err,
                       size_t errlen)
{
    if (w->config) {
        if (!is_file(w->config))
            return mk_errf(err, errlen, "--config %s: %s", w->config, strerror(errno ? errno
                                                                                : EISDIR));
        return copy(n->config, sizeof n->config, w->config);
    }
    char beside[4200], tmp[4096], top[4200];
    copy(tmp, sizeof tmp, n->state);
    snprintf(beside, sizeof beside, "%s/gpus.yaml", dirname(tmp));
    snprintf(top, sizeof top, "%s/gpus.yaml", w->state_dir ? w->state_dir : MK_CTR_STATE_BASE);
    if (is_file(beside))
        return copy(n->config, sizeof n->config, beside);
    if (is_file(top))
        return copy(n->config, sizeof n->config, top);
    if (!recorded[0] || is_file(recorded))   /* "": the built-in universe */
        return copy(n->config, sizeof n->config, recorded);
    return mk_errf(err, errlen, "the live state %s was made from the config %s, which this host "
                   "does not have at that path (the node agent runs in a pod?): copy it to %s "
                   "or give --config with its path here", n->state, recorded, top);
}

/* libyaml as this program loaded it: the library links the same one. */
static int yaml_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "/libyaml-0.so.2")) {
        char *real = realpath(info->dlpi_name, NULL);
        copy(data, 4096, real ? real : info->dlpi_name);
        free(real);
        return 1;
    }
    return 0;
}

int mk_ctr_beside_self(const char *name, char *out, size_t len)
{
    char exe[4096], p[8400];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    const char *bindir = dirname(exe);
    const char *const rel[] = { "lib", "../lib/mokka", "." };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", bindir, rel[i], name);
        if (access(p, X_OK) == 0) {
            char *real = realpath(p, NULL);
            int rc = copy(out, len, real ? real : p);
            free(real);
            return rc;
        }
    }
    return -1;
}

/* The twin: given, beside the library, or beside this program. */
static void find_smi(const mk_ctr_where *w, mk_ctr_node *n)
{
    if (w->smi) {
        copy(n->smi, sizeof n->smi, w->smi);
        return;
    }
    char lib[4096], p[4200];
    copy(lib, sizeof lib, n->lib);
    snprintf(p, sizeof p, "%s/nvidia-smi", dirname(lib));
    if (access(p, X_OK) == 0)
        copy(n->smi, sizeof n->smi, p);
    else
        mk_ctr_beside_self("nvidia-smi", n->smi, sizeof n->smi);
}

/* libyaml: the one this program loaded (mokka links the library's), else
 * beside the library (a node's copy of Mokka's files), else the host's. */
static void find_yaml(mk_ctr_node *n)
{
    dl_iterate_phdr(yaml_cb, n->yaml);
    if (n->yaml[0])
        return;
    char lib[4096], p[4200];
    copy(lib, sizeof lib, n->lib);
    snprintf(p, sizeof p, "%s/libyaml-0.so.2", dirname(lib));
    struct utsname un;
    uname(&un);
    const char *const *dirs = mk_ctr_libdirs(un.machine);
    for (size_t i = 0; !is_file(p) && dirs[i]; i++)
        snprintf(p, sizeof p, "%s/libyaml-0.so.2", dirs[i]);
    if (is_file(p)) {
        char *real = realpath(p, NULL);
        copy(n->yaml, sizeof n->yaml, real ? real : p);
        free(real);
    }
}

int mk_ctr_node_find(const mk_ctr_where *w, mk_ctr_node *n, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    char recorded[512], node[256];
    if (find_state(w->state_dir ? w->state_dir : MK_CTR_STATE_BASE, n->state, sizeof n->state,
                   err, errlen) != 0 ||
        mk_ctr_state_header(n->state, recorded, sizeof recorded, node, sizeof node, err,
                            errlen) != 0 ||
        find_config(w, recorded, n, err, errlen) != 0)
        return -1;
    copy(n->node, sizeof n->node, w->node ? w->node : node);
    return mk_ctr_node_files(w, n, err, errlen);
}

int mk_ctr_node_files(const mk_ctr_where *w, mk_ctr_node *n, char *err, size_t errlen)
{
    char dir[4096];
    if (w->lib) {
        if (mk_lib_marked(w->lib) != 1)
            return mk_errf(err, errlen, "--lib %s is not Mokka's %s", w->lib, MK_LIB_SONAME);
        copy(n->lib, sizeof n->lib, w->lib);
    } else if (mk_lib_path(dir, sizeof dir, n->lib, sizeof n->lib, err, errlen) != 0) {
        return -1;
    }
    find_yaml(n);
    find_smi(w, n);
    return 0;
}
