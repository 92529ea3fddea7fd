/* plugenv.h - the device plugin's command line and environment for
 * `mokka run`: which binary, and an environment that points it at the mock
 * and at nothing else. */
#ifndef MOKKA_PLUGENV_H
#define MOKKA_PLUGENV_H

#include <stddef.h>

typedef struct mk_plugin_cmd {
    char **argv;    /* argv[0] is an absolute path; NULL-terminated */
    char **envp;    /* NULL-terminated */
} mk_plugin_cmd;

typedef struct mk_plugenv_opts {
    const char *lib_file, *lib_dir;   /* Mokka's libnvidia-ml.so.1 */
    const char *config_path;          /* absolute, or NULL for the built-in universe */
    const char *state_dir;            /* MOKKA_STATE_DIR */
    const char *node_name;
    char *const *extra;               /* --env NAME=VALUE, NULL-terminated (may be NULL) */
} mk_plugenv_opts;

/* The plugin: `plugin` (--plugin) with `args`, or args[0] looked up on PATH
 * with args[1..], or nvidia-device-plugin from PATH. 0, or -1 with err
 * saying what was looked for. */
int mk_plugin_resolve(const char *plugin, char *const *args, size_t nargs, mk_plugin_cmd *out,
                      char *err, size_t errlen);
/* Builds out->envp from the current environment: LD_PRELOAD,
 * LD_LIBRARY_PATH, MOCK_CONFIG_PATH, MOKKA_STATE_DIR and MOKKA_NODE_NAME are
 * set for the mock; the plugin's own flag twins (MIG_STRATEGY,
 * FAIL_ON_INIT_ERROR, ...) and other Mokka variables are removed unless
 * given with --env, so that the command line alone decides. */
int mk_plugin_env(mk_plugin_cmd *c, const mk_plugenv_opts *o, char *err, size_t errlen);
void mk_plugin_cmd_free(mk_plugin_cmd *c);

#endif
