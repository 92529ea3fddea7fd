/* plugenv.c - resolving the programs `mokka run` supervises (the device
 * plugin, gpu-feature-discovery), their command lines and their
 * environment. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run.h"
#include "util/util.h"

extern char **environ;

/* The NVIDIA device plugin's environment twins of its flags (v0.17): left in
 * the environment they would silently override what the command line says. */
static const char *const plugin_twins[] = {
    "MIG_STRATEGY", "FAIL_ON_INIT_ERROR", "NVIDIA_DRIVER_ROOT", "NVIDIA_DEV_ROOT",
    "PASS_DEVICE_SPECS", "DEVICE_LIST_STRATEGY", "DEVICE_ID_STRATEGY", "GDS_ENABLED",
    "MOFED_ENABLED", "KUBELET_SOCKET", "CONFIG_FILE", "CDI_ANNOTATION_PREFIX",
    "NVIDIA_CDI_HOOK_PATH", "NVIDIA_CTK_PATH", "DRIVER_ROOT_CTR_PATH", "CONTAINER_DRIVER_ROOT",
    "MPS_ROOT", "DEVICE_DISCOVERY_STRATEGY", "IMEX_CHANNEL_IDS", "IMEX_REQUIRED",
    "DP_DISABLE_HEALTHCHECKS", NULL
};

/* Variables Mokka sets itself, and NVIDIA_VISIBLE_DEVICES: a CI runner's
 * own container view would hide GPUs from the plugin (it sees the node). */
static const char *const ours[] = {
    "LD_PRELOAD", "LD_LIBRARY_PATH", "MOCK_CONFIG_PATH", "MOKKA_CONFIG", "MOKKA_STATE_DIR",
    "MOKKA_NODE_NAME", "MOKKA_CLI", "MOKKA_TREE", "NVIDIA_VISIBLE_DEVICES", NULL
};

/* gpu-feature-discovery's twins of its flags all start so (GFD_ONESHOT,
 * GFD_OUTPUT_FILE, GFD_SLEEP_INTERVAL, ...). */
#define GFD_TWINS "GFD_"

static int in_list(const char *entry, const char *const *names)
{
    size_t n = strcspn(entry, "=");
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == n && strncmp(entry, names[i], n) == 0)
            return 1;
    return 0;
}

static char *find_on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char buf[4096];
        if (n && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, name) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return realpath(buf, NULL);
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* The executable `name` (a path, or looked up on PATH) as an absolute
 * path; NULL with err, which says what was looked for and `hint`. */
static char *resolve_exe(const char *name, const char *what, const char *hint, char *err,
                         size_t errlen)
{
    char *exe = strchr(name, '/') ? realpath(name, NULL) : find_on_path(name);
    if (exe && access(exe, X_OK) == 0)
        return exe;
    if (strchr(name, '/'))
        snprintf(err, errlen, "cannot run the %s %s: %s", what, name,
                 exe ? strerror(errno) : strerror(errno ? errno : ENOENT));
    else
        snprintf(err, errlen, "no %s: '%s' is not on PATH; %s", what, name, hint);
    free(exe);
    return NULL;
}

/* argv of n entries after argv[0] = exe; NULL when out of memory. */
static char **new_argv(char *exe, size_t n)
{
    char **argv = calloc(n + 2, sizeof *argv);
    if (argv)
        argv[0] = exe;
    else
        free(exe);
    return argv;
}

int mk_plugin_resolve(const char *plugin, char *const *args, size_t nargs, mk_plugin_cmd *out,
                      char *err, size_t errlen)
{
    const char *name = plugin;
    size_t skip = 0;
    memset(out, 0, sizeof *out);
    if (!name && nargs) {
        name = args[0];
        skip = 1;
    }
    if (!name)
        name = "nvidia-device-plugin";
    char *exe = resolve_exe(name, "device plugin", "give --plugin PATH or -- COMMAND (this "
                            "build's stand-in plugin is build/tests/fake-device-plugin)", err, errlen);
    if (!exe)
        return -1;
    if (!(out->argv = new_argv(exe, nargs - skip))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = skip; i < nargs; i++)
        out->argv[i - skip + 1] = strdup(args[i]);
    return 0;
}

const char *mk_plugin_mig_strategy(char *const *args, size_t nargs, char *const *env)
{
    for (size_t i = 0; i < nargs; i++) {
        const char *a = args[i];
        if (strncmp(a, "--mig-strategy=", 15) == 0)
            return a + 15;
        if (strcmp(a, "--mig-strategy") == 0 && i + 1 < nargs)
            return args[i + 1];
    }
    /* the flag's environment twin, which -e passes through */
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], "MIG_STRATEGY=", 13) == 0)
            return env[i] + 13;
    return NULL;
}

int mk_gfd_resolve(const mk_gfd_opts *o, mk_plugin_cmd *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *exe = resolve_exe(o->path ? o->path : "gpu-feature-discovery", "gpu-feature-discovery",
                            "give --gfd=PATH (this build's stand-in is build/tests/fake-gfd)",
                            err, errlen);
    if (!exe)
        return -1;
    if (!(out->argv = new_argv(exe, 4 + o->nextra)))
        goto oom;
    size_t n = 1;
    if (asprintf(&out->argv[n++], "--oneshot=false") < 0 ||
        asprintf(&out->argv[n++], "--output-file=%s", o->output_file) < 0 ||
        asprintf(&out->argv[n++], "--sleep-interval=%s", o->interval) < 0 ||
        (o->mig_strategy && asprintf(&out->argv[n++], "--mig-strategy=%s", o->mig_strategy) < 0))
        goto oom;
    for (size_t i = 0; i < o->nextra; i++)
        if (!(out->argv[n++] = strdup(o->extra[i])))
            goto oom;
    return 0;
oom:
    mk_plugin_cmd_free(out);
    snprintf(err, errlen, "out of memory");
    return -1;
}

static int add(char ***env, size_t *n, const char *fmt, const char *a, const char *b)
{
    char *s = NULL;
    if (asprintf(&s, fmt, a, b) < 0)
        return -1;
    char **grown = realloc(*env, (*n + 2) * sizeof **env);
    if (!grown) {
        free(s);
        return -1;
    }
    *env = grown;
    (*env)[(*n)++] = s;
    (*env)[*n] = NULL;
    return 0;
}

int mk_plugin_env(mk_plugin_cmd *c, const mk_plugenv_opts *o, char *err, size_t errlen)
{
    char **env = NULL;
    size_t n = 0;
    int rc = 0;
    for (char **e = environ; *e && rc == 0; e++)
        if (!in_list(*e, plugin_twins) && !in_list(*e, ours) &&
            strncmp(*e, GFD_TWINS, strlen(GFD_TWINS)) != 0)
            rc = add(&env, &n, "%s%s", *e, "");
    rc = rc ? rc : add(&env, &n, "LD_PRELOAD=%s%s", o->lib_file, "");
    rc = rc ? rc : add(&env, &n, "LD_LIBRARY_PATH=%s%s", o->lib_dir, "");
    if (o->config_path)
        rc = rc ? rc : add(&env, &n, "MOCK_CONFIG_PATH=%s%s", o->config_path, "");
    rc = rc ? rc : add(&env, &n, "MOKKA_STATE_DIR=%s%s", o->state_dir, "");
    /* The library leaves `debug: true` to mokka run (nvml_debug.c). */
    rc = rc ? rc : add(&env, &n, "MOKKA_CLI=%s%s", "run", "");
    if (o->node_name)
        rc = rc ? rc : add(&env, &n, "MOKKA_NODE_NAME=%s%s", o->node_name, "");
    /* What ends with mokka, and all it starts, even by SIGKILL (treeguard.c). */
    if (mk_tree_mark())
        rc = rc ? rc : add(&env, &n, "%s%s", mk_tree_mark(), "");
    if (o->kubelet_socket)
        rc = rc ? rc : add(&env, &n, "KUBELET_SOCKET=%s%s", o->kubelet_socket, "");
    for (char *const *x = o->extra; x && *x && rc == 0; x++) {
        /* --env replaces whatever was set above or inherited. */
        size_t k = strcspn(*x, "=");
        for (size_t i = 0; i < n; i++)
            if (strncmp(env[i], *x, k) == 0 && env[i][k] == '=') {
                free(env[i]);
                memmove(&env[i], &env[i + 1], (n - i) * sizeof *env);
                n--;
                break;
            }
        rc = add(&env, &n, "%s%s", *x, "");
    }
    if (rc != 0 || !env) {
        for (size_t i = 0; i < n; i++)
            free(env[i]);
        free(env);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->envp = env;
    return 0;
}

void mk_plugin_cmd_free(mk_plugin_cmd *c)
{
    for (size_t i = 0; c->argv && c->argv[i]; i++)
        free(c->argv[i]);
    for (size_t i = 0; c->envp && c->envp[i]; i++)
        free(c->envp[i]);
    free(c->argv);
    free(c->envp);
    memset(c, 0, sizeof *c);
}
