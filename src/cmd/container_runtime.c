/* container_runtime.c - `mokka container-runtime`: an OCI runtime shim in
 * front of runc, as nvidia-container-runtime is. For `create` and `run` of
 * a container whose environment names GPUs (NVIDIA_VISIBLE_DEVICES), it
 * writes Mokka into the bundle's config.json (src/ctr/) and then execs
 * runc with the same arguments; every other container and every other
 * verb goes to runc untouched. `install` and `uninstall` put it into
 * containerd's config as a runtime handler. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "cmds.h"
#include "commands.h"
#include "bundle/bundle.h"
#include "ctr/ctr.h"

const char cmd_container_runtime_summary[] =
    "OCI runtime shim: Mokka's NVML in GPU containers";
const char cmd_container_runtime_help[] =
    "Usage: mokka container-runtime [OPTIONS] [--] RUNC-ARGS...\n"
    "       mokka container-runtime install [--containerd-config FILE] [--name NAME]\n"
    "                                       [--wrapper PATH] [--host-root DIR]\n"
    "                                       [--runtime-class] [OPTIONS]\n"
    "       mokka container-runtime uninstall [--containerd-config FILE] [--name NAME]\n"
    "                                         [--wrapper PATH] [--host-root DIR]\n"
    "\n"
    "An OCI runtime in front of runc, as NVIDIA's nvidia-container-runtime is. For\n"
    "`create` and `run` of a container whose environment has NVIDIA_VISIBLE_DEVICES\n"
    "(not empty, void or none) it adds to the bundle's config.json, then execs runc\n"
    "with the same arguments:\n"
    "  - Mokka's libnvidia-ml.so.1 (and libnvidia-ml.so), read-only, in the image's\n"
    "    libc directory, where its loader finds it (over a copy the image ships);\n"
    "    libyaml-0.so.2 beside it when the image has none\n"
    "  - the nvidia-smi twin as " MK_CTR_SMI ", unless the image has its own\n"
    "  - the node's live state as " MK_CTR_STATE " (read-write: the library maps it\n"
    "    shared), the config as " MK_CTR_CONFIG " (read-only), and MOKKA_STATE_DIR,\n"
    "    MOKKA_CONFIG and MOKKA_NODE_NAME, so that the container sees the node's GPUs\n"
    "    with their live values and faults, narrowed to NVIDIA_VISIBLE_DEVICES\n"
    "Every other container, and every other verb (start, state, kill, delete, ...),\n"
    "goes to runc unchanged: config.json is not rewritten.\n"
    "\n"
    "Options (before the runc arguments):\n"
    "      --runtime PATH   the OCI runtime to exec (default: runc on PATH, never\n"
    "                       this program)\n"
    "      --state-dir DIR  the node's live state: DIR/state or the newest\n"
    "                       DIR/*/state (default " MK_CTR_STATE_BASE ": the node agent's\n"
    "                       MOKKA_RUNTIME_DIR)\n"
    "      --config FILE    the universe's config (default: gpus.yaml beside the\n"
    "                       state or in DIR, else the path the state records)\n"
    "      --node NAME      the node name of the UUIDs (default: the state's)\n"
    "      --lib FILE       Mokka's library (default: `mokka lib-path`)\n"
    "      --smi FILE       the nvidia-smi twin (default: nvidia-smi beside the\n"
    "                       library or in mokka's lib directory; none: not added)\n"
    "install / uninstall:\n"
    "      --containerd-config FILE  default /etc/containerd/config.toml\n"
    "      --name NAME      the runtime handler and RuntimeClass (default mokka)\n"
    "      --wrapper PATH   the program containerd runs as the handler's BinaryName\n"
    "                       (default /usr/local/bin/mokka-container-runtime): a\n"
    "                       two-line script that runs this shim with the options\n"
    "                       above, since containerd passes runc's arguments only\n"
    "      --mokka PATH     the program the wrapper runs, as the node sees it: mokka\n"
    "                       or lib/mokka-container-runtime (the shim alone, which\n"
    "                       needs only the C library; default: that one beside\n"
    "                       this mokka, else this mokka)\n"
    "      --host-root DIR  from a pod with the node's / mounted at DIR (a hostPath):\n"
    "                       copy the shim, the library, libyaml and the twin onto\n"
    "                       the node, into the directory the shim has here, and\n"
    "                       write the wrapper and config there; paths in them are\n"
    "                       the node's (ci/deploy/overlays/runtime does this)\n"
    "      --runtime-class  print the RuntimeClass manifest on stdout\n"
    MK_HELP_COMMON
    "\n"
    "Errors (an unreadable config.json, no live state on the node, a read-only\n"
    "root filesystem without a mountpoint) go to stderr and to runc's --log file,\n"
    "where containerd and kubectl describe show them; the container is not made.\n"
    "\n"
    "Examples:\n"
    "  mokka container-runtime install --runtime-class | kubectl apply -f -\n"
    "  systemctl restart containerd\n"
    "  mokka container-runtime --state-dir /run/mokka -- --root /run/runc create -b B ID\n"
    "\n"
    "Exit codes: runc's, or 2 usage error or invalid config.json, 3 environment\n"
    "error (no runc, no live state, files that cannot be written).\n";

#define CMD "container-runtime"
#define LOOP_ENV "MOKKA_CONTAINER_RUNTIME"

typedef struct shim_opts {
    mk_ctr_where w;
    const char *runtime;
    /* install / uninstall */
    const char *containerd, *name, *wrapper, *mokka, *host_root;
    int runtime_class;
} shim_opts;

/* The value of option `name` at argv[*i] ("--name V" or "--name=V"). */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

/* Options up to "--" or the first argument that is not one (runc's own);
 * returns the index of the runc arguments, or -1 with *rc set. */
static int parse(int argc, char **argv, int first, shim_opts *o, int installing, int *rc)
{
    struct { const char *name; const char **to; int install; } tab[] = {
        { "--runtime", &o->runtime, 0 }, { "--state-dir", &o->w.state_dir, 0 },
        { "--config", &o->w.config, 0 }, { "--node", &o->w.node, 0 },
        { "--lib", &o->w.lib, 0 }, { "--smi", &o->w.smi, 0 },
        { "--containerd-config", &o->containerd, 1 }, { "--name", &o->name, 1 },
        { "--wrapper", &o->wrapper, 1 }, { "--mokka", &o->mokka, 1 },
        { "--host-root", &o->host_root, 1 },
    };
    int i = first;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return i + 1;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(cmd_container_runtime_help, stdout);   /* also in the shim program */
            *rc = MK_EXIT_OK;
            return -1;
        }
        if (installing && strcmp(argv[i], "--runtime-class") == 0) {
            o->runtime_class = 1;
            continue;
        }
        if (strcmp(argv[i], "--quiet") == 0) {
            mk_quiet = 1;
            continue;
        }
        const char *when = opt_value(argc, argv, &i, "--color");
        if (!when)
            when = opt_value(argc, argv, &i, "--colour");
        if (when) {
            if (mk_color_set(when) != 0) {
                *rc = mk_usage_error(CMD, "--color takes auto, always or never, not '%s'", when);
                return -1;
            }
            continue;
        }
        size_t k = 0;
        for (; k < sizeof tab / sizeof tab[0]; k++) {
            const char *v = opt_value(argc, argv, &i, tab[k].name);
            if (v && (installing || !tab[k].install)) {
                *tab[k].to = v;
                break;
            }
        }
        if (k == sizeof tab / sizeof tab[0])
            break;   /* runc's arguments start here */
    }
    if (installing && i < argc) {
        *rc = mk_usage_error(CMD, "unexpected argument '%s'", argv[i]);
        return -1;
    }
    return i;
}

/* An error where runc's caller reads it: stderr, and runc's --log file in
 * its format (containerd shows the last line of it as the create error). */
static int fail(const mk_runc_args *ra, int rc, const char *msg)
{
    mk_err(CMD, "%s", msg);
    FILE *f = ra->log ? fopen(ra->log, "a") : NULL;
    if (!f)
        return rc;
    char when[40];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char *full = mk_xasprintf("mokka container-runtime: %s", msg);
    if (ra->log_json) {
        json_t *line = json_pack("{s:s, s:s, s:s}", "level", "error", "msg", full, "time", when);
        json_dumpf(line, f, JSON_COMPACT);
        fputc('\n', f);
        json_decref(line);
    } else {
        json_t *q = json_string(full);   /* a quoted string, as logrus writes msg */
        char *quoted = json_dumps(q, JSON_ENCODE_ANY);
        fprintf(f, "time=\"%s\" level=error msg=%s\n", when, quoted ? quoted : "\"\"");
        free(quoted);
        json_decref(q);
    }
    free(full);
    fclose(f);
    return rc;
}

static int write_spec(const char *bundle, json_t *spec, char *err, size_t errlen)
{
    char *text = json_dumps(spec, JSON_COMPACT);
    if (!text)
        return mk_errf(err, errlen, "cannot encode the edited config.json");
    struct stat sb;
    char path[4200];
    snprintf(path, sizeof path, "%s/config.json", bundle);
    mode_t mode = stat(path, &sb) == 0 ? sb.st_mode & 07777 : 0644;
    int rc = mk_write_atomic(bundle, "config.json", text, strlen(text), mode, err, errlen);
    free(text);
    return rc;
}

/* The bundle of create/run: config.json read; written again only for a
 * GPU container. MK_EXIT_OK, or an exit code after fail(). */
static int edit_bundle(const shim_opts *o, const mk_runc_args *ra)
{
    const char *bundle = ra->bundle ? ra->bundle : ".";
    char path[4200], err[8400], rootfs[4096];
    snprintf(path, sizeof path, "%s/config.json", bundle);
    json_error_t je;
    json_t *spec = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!spec || !json_is_object(spec)) {
        snprintf(err, sizeof err, "%s:%d:%d: %s", path, spec ? 1 : je.line,
                 spec ? 1 : je.column, spec ? "not a JSON object (an OCI runtime spec)" :
                 je.text);
        json_decref(spec);
        return fail(ra, MK_EXIT_USAGE, err);
    }
    int rc = MK_EXIT_OK, ro;
    if (!mk_ctr_wants_gpus(spec)) {
        json_decref(spec);
        return MK_EXIT_OK;
    }
    mk_ctr_node n;
    mk_ctr_plan p;
    struct utsname un;
    uname(&un);
    if (mk_ctr_node_find(&o->w, &n, err, sizeof err) != 0 ||
        mk_ctr_rootfs(spec, bundle, rootfs, sizeof rootfs, &ro, err, sizeof err) != 0 ||
        mk_ctr_plan_make(&n, rootfs, ro, un.machine, &p, stderr, err, sizeof err) != 0) {
        rc = fail(ra, MK_EXIT_ENV, err);
    } else {
        mk_ctr_apply(spec, &p);
        mk_ctr_plan_free(&p);
        if (write_spec(bundle, spec, err, sizeof err) != 0)
            rc = fail(ra, MK_EXIT_ENV, err);
    }
    json_decref(spec);
    return rc;
}

static int shim(shim_opts *o, int argc, char **argv)
{
    mk_runc_args ra;
    mk_runc_args_read(argc, argv, &ra);
    char err[2048];
    if (getenv(LOOP_ENV))
        return fail(&ra, MK_EXIT_ENV, "runs itself: --runtime (or runc on PATH) leads back to "
                    "mokka container-runtime; name the real runc with --runtime PATH");
    char *runc = mk_runc_find(o->runtime ? o->runtime : "runc", err, sizeof err);
    if (!runc)
        return fail(&ra, MK_EXIT_ENV, err);
    if (ra.verb >= 0 && (strcmp(argv[ra.verb], "create") == 0 ||
                         strcmp(argv[ra.verb], "run") == 0)) {
        int rc = edit_bundle(o, &ra);
        if (rc != MK_EXIT_OK) {
            free(runc);
            return rc;
        }
    }
    char **args = mk_xcalloc((size_t)argc + 2, sizeof *args);
    args[0] = runc;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    setenv(LOOP_ENV, "1", 1);
    fflush(NULL);
    execv(runc, args);
    snprintf(err, sizeof err, "cannot run %s: %s", runc, strerror(errno));
    free(args);
    free(runc);
    return fail(&ra, MK_EXIT_ENV, err);
}

/* The shim as a program of its own (src/cmd/shim/): what the wrapper runs
 * when it is beside mokka, as it needs nothing on the node but the C
 * library; else mokka itself. */
#define SHIM_NAME "mokka-container-runtime"

/* A node path as this process writes it: under --host-root, where a pod
 * has the node's root filesystem (a hostPath). The files written name
 * node paths, never these. */
static const char *on_host(const shim_opts *o, const char *path, char *buf, size_t len)
{
    if (!o->host_root)
        return path;
    snprintf(buf, len, "%s%s", o->host_root, path);
    return buf;
}

/* --host-root: the shim program and what it mounts into containers (the
 * library, its libyaml, the twin) copied onto the node into the directory
 * the shim has here (/opt/mokka in Mokka's image), so that the wrapper runs
 * it there and it finds the rest beside itself. */
static int copy_to_node(const shim_opts *o, const char *shim_path, char *err, size_t errlen)
{
    mk_ctr_node n = { 0 };
    if (mk_ctr_node_files(&o->w, &n, err, errlen) != 0)
        return -1;
    char dir[4096], to[8400], host[8600];
    snprintf(dir, sizeof dir, "%s", shim_path);
    *strrchr(dir, '/') = 0;
    /* libyaml by its soname, which the shim looks for beside the library */
    const char *const files[][2] = { { shim_path, SHIM_NAME }, { n.lib, MK_LIB_SONAME },
                                     { n.yaml, "libyaml-0.so.2" }, { n.smi, "nvidia-smi" } };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (!files[i][0][0])
            continue;
        snprintf(to, sizeof to, "%s/%s", dir, files[i][1]);
        if (mk_ctr_copy_file(files[i][0], on_host(o, to, host, sizeof host), err, errlen) != 0)
            return -1;
        mk_info(CMD, "copied %s to the node's %s", files[i][0], to);
    }
    return 0;
}

/* The program containerd runs: this shim with the options baked in. */
static int write_wrapper(const shim_opts *o, char *err, size_t errlen)
{
    char light[4096], host[8400];
    int beside = mk_ctr_beside_self(SHIM_NAME, light, sizeof light) == 0;
    const char *prog = o->mokka ? o->mokka : beside ? light : "/proc/self/exe";
    if (o->host_root && !beside)
        return mk_errf(err, errlen, "--host-root: no %s beside this mokka to copy onto the node "
                       "(mokka itself needs libraries a node may lack)", SHIM_NAME);
    char *self = realpath(prog, NULL);
    if (!self)
        return mk_errf(err, errlen, "cannot find mokka (%s): %s", prog, strerror(errno));
    if (o->host_root && copy_to_node(o, self, err, errlen) != 0) {
        free(self);
        return -1;
    }
    const char *base = strrchr(self, '/');
    const char *const opts[] = { "--runtime", o->runtime, "--state-dir", o->w.state_dir,
                                 "--config", o->w.config, "--node", o->w.node,
                                 "--lib", o->w.lib, "--smi", o->w.smi, NULL };
    char *text = mk_ctr_wrapper_text(self, strcmp(base ? base + 1 : self, SHIM_NAME) != 0,
                                     o->name, opts);
    int rc = mk_ctr_write_text(on_host(o, o->wrapper, host, sizeof host), text, 0755, err, errlen);
    free(text);
    free(self);
    return rc;
}

/* The containerd config with the handler set (or removed), written back
 * only when it changes. */
static int edit_containerd(const shim_opts *o, int uninstall, char *err, size_t errlen)
{
    int missing;
    char buf[8400];
    const char *path = on_host(o, o->containerd, buf, sizeof buf);
    char *old = mk_ctr_read_text(path, &missing, err, errlen);
    if (!old)
        return -1;
    if (!uninstall && old[0] && !strstr(old, "version = 2") && !strstr(old, "version=2"))
        mk_info(CMD, "%s does not say `version = 2`: the handler is written in config version "
                "2's syntax (containerd 1.6, 1.7), which a version 1 file does not read",
                o->containerd);
    char *now = mk_containerd_edit(old, o->name, uninstall ? NULL : o->wrapper);
    int rc = 0;
    if (strcmp(old, now) != 0 && !(uninstall && missing)) {
        struct stat sb;
        mode_t mode = stat(path, &sb) == 0 ? sb.st_mode & 07777 : 0644;
        rc = mk_ctr_write_text(path, now, mode, err, errlen);
    }
    mk_info(CMD, "%s: runtime handler '%s' %s", path, o->name,
            strcmp(old, now) == 0 ? (uninstall ? "was not there" : "already set") :
            (uninstall ? "removed" : "set"));
    free(old);
    free(now);
    return rc;
}

/* Removes the wrapper if it is one this command wrote. */
static void remove_wrapper(const char *path)
{
    int missing;
    char err[512], *text = mk_ctr_read_text(path, &missing, err, sizeof err);
    if (text && mk_ctr_is_wrapper(text) && unlink(path) == 0)
        mk_info(CMD, "removed %s", path);
    free(text);
}

static int valid_name(const char *s)
{
    if (!*s || strlen(s) > 63)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return 0;
    return 1;
}

static int run_install(int uninstall, const shim_opts *o)
{
    char err[2048];
    if (!valid_name(o->name))
        return mk_usage_error(CMD, "--name '%s': a runtime handler is lower-case letters, digits "
                              "and '-' (a Kubernetes RuntimeClass handler)", o->name);
    if (o->host_root && o->host_root[0] != '/')
        return mk_usage_error(CMD, "--host-root '%s': an absolute path (where the node's / is "
                              "mounted)", o->host_root);
    if (o->host_root && o->mokka)
        return mk_usage_error(CMD, "--host-root copies the shim onto the node and runs it there: "
                              "give no --mokka");
    if (o->wrapper[0] != '/' || strpbrk(o->wrapper, "\"\\\n"))
        return mk_usage_error(CMD, "--wrapper '%s': an absolute path without quotes, "
                              "backslashes or newlines (it goes into config.toml)", o->wrapper);
    if (!uninstall && write_wrapper(o, err, sizeof err) != 0) {
        mk_err(CMD, "%s", err);
        return MK_EXIT_ENV;
    }
    if (edit_containerd(o, uninstall, err, sizeof err) != 0) {
        mk_err(CMD, "%s", err);
        return MK_EXIT_ENV;
    }
    char host[8400];
    if (uninstall) {
        remove_wrapper(on_host(o, o->wrapper, host, sizeof host));
    } else {
        mk_info(CMD, "wrote %s; restart containerd (systemctl restart containerd) to load the "
                "handler, and create the RuntimeClass (--runtime-class)",
                on_host(o, o->wrapper, host, sizeof host));
    }
    if (o->runtime_class && !uninstall) {
        char *rc = mk_runtimeclass_yaml(o->name);
        fputs(rc, stdout);
        free(rc);
    }
    return MK_EXIT_OK;
}

int cmd_container_runtime(int argc, char **argv)
{
    shim_opts o = { { 0 }, 0, "/etc/containerd/config.toml", "mokka",
                    "/usr/local/bin/mokka-container-runtime", NULL, NULL, 0 };
    int rc = MK_EXIT_USAGE;
    int install = argc > 1 && (strcmp(argv[1], "install") == 0 ||
                               strcmp(argv[1], "uninstall") == 0);
    int at = parse(argc, argv, install ? 2 : 1, &o, install, &rc);
    if (at < 0)
        return rc;
    if (install)
        return run_install(strcmp(argv[1], "uninstall") == 0, &o);
    if (at >= argc)
        return mk_usage_error(CMD, "no runc arguments (containerd, cri-o or docker give them; "
                              "see `mokka container-runtime install`)");
    return shim(&o, argc - at, argv + at);
}
