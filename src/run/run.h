/* run.h - what `mokka run` drives: the GPU-node sandbox, the supervised
 * device plugin and its environment, and the suite environment (node
 * source, live state, supervisor, variables) that `run` and `assert` share. */
#ifndef MOKKA_RUN_H
#define MOKKA_RUN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include "universe.h"
#include "state.h"
#include "suite/suite.h"
#include "kubelet/kubelet.h"
#include "kube/kube.h"
#include "report/report.h"

/* sandbox.c: the GPU-node sandbox: a private mount namespace in which the
 * paths a device plugin reads show Mokka's own files.
 *
 *   /var/lib/kubelet/device-plugins  the run's kubelet directory (the built-in
 *                                    kubelet listens there, the plugin
 *                                    creates its sockets there)
 *   /sys/bus/pci/devices/<bus>/      numa_node, vendor, device, class,
 *                                    subsystem ids of the configured GPUs
 *   /proc/driver/nvidia-caps/        mig-minors for the MIG devices
 *   /proc/driver/nvidia/version      the emulated driver's version line
 *   /sys/class/dmi/id/product_name   the universe's `machine:` (the DMI
 *                                    product name gpu-feature-discovery reads)
 *   /dev/nvidia*, /dev/nvidia-caps/  device nodes for the configured minors
 *
 * The files are built on the host under the run directory (which the host
 * sees and cleans up); the namespace is entered in the child process just
 * before it runs the plugin, so the host's mounts never change and two runs
 * can go side by side. As root a plain mount namespace is used, otherwise a
 * user namespace when the kernel allows one. A path that does not exist on
 * the host (no /var/lib/kubelet on a CI runner) is made visible by shadowing
 * its nearest existing parent with a tmpfs that mirrors the parent's entries
 * by bind mounts. */
#define MK_KUBELET_DIR "/var/lib/kubelet/device-plugins"
#define MK_DMI_DIR "/sys/class/dmi/id"

/* mk_sandbox.enabled: the plugin sees the real paths (--no-sandbox, or
 * cluster mode where no namespace can be made); the whole sandbox; or, in
 * cluster mode, the sandbox but for the kubelet's directory, which is the
 * node's: NVIDIA's plugin registers with the node's kubelet, and still
 * needs the GPUs' PCI sysfs, /proc/driver (MIG capabilities) and /dev. */
enum { MK_SANDBOX_OFF, MK_SANDBOX_ON, MK_SANDBOX_NODE_KUBELET };

typedef struct mk_sandbox {
    char run_dir[4096];     /* host directory holding the trees below */
    char kubelet_dir[4200]; /* run_dir/kubelet (the built-in kubelet's), or the real one */
    int enabled;            /* MK_SANDBOX_* */
} mk_sandbox;

/* The kubelet's device-plugin directory on this host, for cluster mode and
 * --no-sandbox: $MOKKA_KUBELET_DIR (a kubelet with another root directory,
 * a test's stand-in), else MK_KUBELET_DIR. The sandbox always shows the
 * plugin MK_KUBELET_DIR. */
const char *mk_kubelet_dir(void);

/* Whether this process can make a mount namespace (as root, or through a
 * user namespace). 1 yes; 0 no, with the reason in why. Forks a short-lived
 * child to try, so the caller's namespaces are untouched. */
int mk_sandbox_available(char *why, size_t len);

/* Writes the trees for universe u under run_dir (host side, before any
 * fork); enabled is MK_SANDBOX_* (OFF: only the kubelet directory, the
 * real one). */
int mk_sandbox_prepare(mk_sandbox *sb, const char *run_dir, const mk_universe *u, int enabled,
                       char *err, size_t errlen);

/* In the child, before exec: enters the namespace and mounts the trees.
 * Returns 0, or -1 with err (the child then reports and exits). */
int mk_sandbox_enter(const mk_sandbox *sb, char *err, size_t errlen);


/* supervise.c: running the device plugin: start it (in the sandbox) in a
 * process group of its own, capture its stdout and stderr with timestamps,
 * restart it with backoff when it crashes (up to a limit), forward signals,
 * and reap the whole group on stop so that nothing is left behind. */
typedef struct mk_super mk_super;

typedef struct mk_super_opts {
    char *const *argv;            /* plugin command line */
    char *const *envp;            /* its whole environment */
    const mk_sandbox *sandbox;    /* entered in the child before exec */
    const char *log_path;         /* every line also goes here (may be NULL) */
    int verbose;                  /* echo lines live on stderr */
    unsigned restart_limit;       /* crashes restarted before giving up */
    double backoff_s;             /* first restart delay; doubles each time, max 30 s */
    const char *name;             /* in its log lines: "plugin" (NULL), "gfd" */
} mk_super_opts;

typedef enum {
    MK_SUPER_RUNNING,
    MK_SUPER_BACKOFF,   /* crashed, restart pending */
    MK_SUPER_FAILED,    /* crashed more often than the limit allows */
    MK_SUPER_STOPPED
} mk_super_state;

/* Starts the plugin and a thread that watches it. NULL with err on failure
 * (the executable is missing, fork failed...). */
mk_super *mk_super_start(const mk_super_opts *o, char *err, size_t errlen);
/* Stops it (the given signal to the group, then SIGKILL after timeout_ms),
 * reaps it, and starts it again; a requested restart is not a crash. */
int mk_super_restart(mk_super *s, char *err, size_t errlen);
/* Sends sig to the plugin's group, waits up to timeout_ms, then SIGKILLs. */
void mk_super_stop(mk_super *s, int sig, int timeout_ms);
/* The same for n supervisors at once: sig to every group, then one
 * timeout_ms for all of them before the SIGKILLs. */
void mk_super_stop_all(mk_super *const *v, size_t n, int sig, int timeout_ms);
void mk_super_free(mk_super *s);

/* The plugin's process (the leader of its group), 0 while none runs. */
pid_t mk_super_pid(mk_super *s);
mk_super_state mk_super_status(mk_super *s, unsigned *crashes, unsigned *restarts,
                               char *last_exit, size_t len);
/* The last max_lines lines of output, oldest first, in buf; what the
 * plugin wrote until the call is read first. */
size_t mk_super_log_tail(mk_super *s, char *buf, size_t len, size_t max_lines);


/* plugenv.c: the device plugin's command line and environment for
 * `mokka run`: which binary, and an environment that points it at the mock
 * and at nothing else. */
typedef struct mk_plugin_cmd {
    char **argv;    /* argv[0] is an absolute path; NULL-terminated */
    char **envp;    /* NULL-terminated */
} mk_plugin_cmd;

typedef struct mk_plugenv_opts {
    const char *lib_file, *lib_dir;   /* Mokka's libnvidia-ml.so.1 */
    const char *config_path;          /* absolute, or NULL for the built-in universe */
    const char *state_dir;            /* MOKKA_STATE_DIR */
    const char *node_name;
    const char *kubelet_socket;       /* KUBELET_SOCKET, or NULL to leave it out */
    char *const *extra;               /* --env NAME=VALUE, NULL-terminated (may be NULL) */
} mk_plugenv_opts;

/* The plugin: `plugin` (--plugin) with `args`, or args[0] looked up on PATH
 * with args[1..], or nvidia-device-plugin from PATH. 0, or -1 with err
 * saying what was looked for. */
int mk_plugin_resolve(const char *plugin, char *const *args, size_t nargs, mk_plugin_cmd *out,
                      char *err, size_t errlen);
/* The plugin's MIG strategy: its --mig-strategy (=VALUE or the next
 * argument) among args, else MIG_STRATEGY=VALUE among env (--env,
 * NULL-terminated, may be NULL), else NULL (the plugin's default, none). */
const char *mk_plugin_mig_strategy(char *const *args, size_t nargs, char *const *env);

/* smoke.c: the default suite of `mokka run`, written for universe u and
 * the plugin's MIG strategy (see mk_plugin_mig_strategy): every resource
 * NVIDIA's plugin advertises there registered and healthy (GPUs with
 * health rules excepted), one allocation, one XID 79 taking exactly one
 * GPU's devices out. The suite's YAML, to free; NULL when out of memory. */
char *mk_smoke_suite(const mk_universe *u, const char *mig_strategy);

/* gpu-feature-discovery beside the plugin: labels to output_file every
 * interval, the plugin's MIG strategy, then extra arguments of its own. */
typedef struct mk_gfd_opts {
    const char *path;           /* --gfd=PATH; NULL: gpu-feature-discovery on PATH */
    const char *output_file;    /* --output-file */
    const char *interval;       /* --sleep-interval, e.g. "1s" */
    const char *mig_strategy;   /* NULL: GFD's own default */
    char *const *extra;
    size_t nextra;
} mk_gfd_opts;
/* Its command line (the environment is mk_plugin_env's, as for the
 * plugin); 0, or -1 with err. */
int mk_gfd_resolve(const mk_gfd_opts *o, mk_plugin_cmd *out, char *err, size_t errlen);
/* Builds out->envp from the current environment: LD_PRELOAD,
 * LD_LIBRARY_PATH, MOCK_CONFIG_PATH, MOKKA_STATE_DIR, MOKKA_NODE_NAME and
 * MOKKA_CLI=run (the CLI serves `debug: true`, not the library) are set for
 * the mock; the plugin's own flag twins (MIG_STRATEGY,
 * FAIL_ON_INIT_ERROR, ...), gpu-feature-discovery's (GFD_*), other Mokka
 * variables and NVIDIA_VISIBLE_DEVICES are removed unless given with --env,
 * so that the command line alone decides. */
int mk_plugin_env(mk_plugin_cmd *c, const mk_plugenv_opts *o, char *err, size_t errlen);
void mk_plugin_cmd_free(mk_plugin_cmd *c);


/* plugspec.c: the plugins `mokka run` supervises side by side, from a run
 * file (--plugins FILE: `plugins:`, a list of name, command, args, env,
 * log) and from --add-plugin 'NAME=[VAR=VALUE...] COMMAND [ARG...]'. */
#define MK_PLUGIN_NAME_MAX 40
#define MK_PLUGINS_MAX 8
typedef struct mk_plugin_spec {
    char *name;       /* a-z, 0-9, '-': it names the log file and report cases */
    char **args;      /* the command (as given, looked up on PATH) and its arguments */
    size_t nargs;
    char **env;       /* NAME=VALUE over -e's, NULL-terminated (may be NULL) */
    size_t nenv;
    char *log;        /* where its log goes; NULL: RUN_DIR/plugin-NAME.log */
    char *where;      /* "FILE:LINE:COL" or "--add-plugin NAME", for messages */
    char *file;       /* the run file, or NULL (--add-plugin) */
    int line;         /* of its entry there */
} mk_plugin_spec;
typedef struct mk_plugin_specs {
    mk_plugin_spec *v;
    size_t n;
} mk_plugin_specs;
/* 0 when name is a plugin name; else -1 and why. */
int mk_plugin_name_check(const char *name, char *why, size_t len);
/* One --add-plugin; 0, or -1 with err (a bad or taken name, no command). */
int mk_plugin_specs_add_arg(mk_plugin_specs *s, const char *arg, char *err, size_t errlen);
/* A run file's plugins; 0, or -1 with diagnostics at file:line:col. */
int mk_plugin_specs_load(mk_plugin_specs *s, const char *path, mk_diags *d);
void mk_plugin_specs_free(mk_plugin_specs *s);

/* sockowner.c: which of the process groups pgids[0..n) holds the Unix
 * socket listening at `path` now (the one whose file it is: of two
 * plugins that bound the same path, the later); its index, or -1. Another
 * group that still listens on a socket bound to the same file name (whose
 * file the owner unlinked) into *shadowed, else -1. */
int mk_sock_owner(const char *path, const pid_t *pgids, size_t n, int *shadowed);

/* A supervised plugin as the suites see it. */
typedef struct mk_runplugin {
    const char *name;
    mk_super *super;
} mk_runplugin;

/* plugset.c: the plugins of one run, each under a supervisor of its own,
 * in one sandbox, with what the built-in kubelet said about each. */
typedef struct mk_plugset mk_plugset;
typedef struct mk_plugset_opts {
    const mk_plugin_specs *specs;   /* several plugins; NULL or none: the one below */
    const char *plugin;             /* --plugin */
    char *const *args;              /* after -- */
    size_t nargs;
    char *const *env;               /* -e, for every plugin (NULL-terminated, may be NULL) */
    const mk_plugenv_opts *penv;    /* the rest of the environment (extra is set here) */
    const mk_sandbox *sandbox;
    const char *run_dir;
    int verbose;
    unsigned restart_limit;
} mk_plugset_opts;
mk_plugset *mk_plugset_new(void);
/* Resolves and starts every plugin; 0, or -1 with err naming the plugin
 * (a command not found, a fork that failed). What started is stopped by
 * mk_plugset_stop. */
int mk_plugset_start(mk_plugset *ps, const mk_plugset_opts *o, char *err, size_t errlen);
size_t mk_plugset_count(const mk_plugset *ps);
int mk_plugset_several(const mk_plugset *ps);
const mk_runplugin *mk_plugset_runplugins(const mk_plugset *ps);
const char *mk_plugset_name(const mk_plugset *ps, size_t i);
mk_super *mk_plugset_super(const mk_plugset *ps, size_t i);
const char *mk_plugset_path(const mk_plugset *ps, size_t i);   /* its executable */
char *const *mk_plugset_envp(const mk_plugset *ps, size_t i);
const char *mk_plugset_log(const mk_plugset *ps, size_t i);
/* The kubelet's identify hook (ctx: the plugset). */
void mk_plugset_identify(void *ctx, const char *path, char *name, size_t len, char *shadowed,
                         size_t slen);
/* Records a kubelet event, t seconds into the run (any thread). */
void mk_plugset_event(mk_plugset *ps, const mk_kubelet_event *ev, double t);
/* Registrations and device lists so far of the plugin called name, or of
 * all of them (name NULL). */
void mk_plugset_counts(mk_plugset *ps, const char *name, unsigned *regs, unsigned *lists);
/* Cluster mode: the node's own kubelet takes the registrations, which this
 * process does not see; the report says so instead of "never registered". */
void mk_plugset_blind(mk_plugset *ps);
/* Whether plugin i has registered, lost its socket path to another
 * plugin (a clash, reported), or failed for good: nothing more to wait for. */
int mk_plugset_settled(mk_plugset *ps, size_t i);
/* Plugin i's last lines, malloc'd (NULL when out of memory). */
char *mk_plugset_log_tail(mk_plugset *ps, size_t i, size_t lines);
/* sig to every plugin at once, SIGKILL to those left after timeout_ms. */
void mk_plugset_stop(mk_plugset *ps, int sig, int timeout_ms);
/* With several plugins: the `plugins` suite of rep, one case per plugin
 * (ERROR: failed past --restart-limit, or never registered) listing what
 * it serves on node (may be NULL) and what the kubelet saw, and a FAIL for
 * plugins that served from one socket. */
void mk_plugset_report(mk_plugset *ps, mk_report *rep, const mk_nv_node *node);
void mk_plugset_free(mk_plugset *ps);

/* healwatch.c: under `mokka run --hold`, a GPU healthy again in the live
 * state (a GPUFault cleared, `mokka inject --healthy`) restarts the plugins
 * that serve it, since NVIDIA's plugin never turns a device healthy again
 * by itself: debounced (a burst of clears is one restart), said in one
 * line through log. Started with the plugins, it only notes what they saw
 * until armed; then every GPU healed since a plugin last started is due. */
typedef struct mk_healwatch mk_healwatch;
typedef struct mk_healwatch_opts {
    const char *state_dir;          /* the plugins' MOKKA_STATE_DIR */
    const mk_universe *u;           /* for the UUIDs in the log line */
    const mk_runplugin *plugins;    /* stays the caller's */
    size_t nplugins;
    mk_nodesrc *src;                /* the built-in kubelet's view: which plugin serves
                                     * which GPU; NULL (cluster mode): each serves all */
    void (*log)(void *ctx, int warning, const char *msg);   /* NULL: stderr */
    void *log_ctx;
} mk_healwatch_opts;
/* NULL with err when no thread can be started. */
mk_healwatch *mk_healwatch_start(const mk_healwatch_opts *o, char *err, size_t errlen);
/* From now on heals restart plugins. */
void mk_healwatch_arm(mk_healwatch *h);
/* Stops watching (after a restart under way); NULL is a no-op. */
void mk_healwatch_stop(mk_healwatch *h);

/* runenv.c: the suite environment of `mokka run`: a node source (the
 * built-in kubelet, or the API server in cluster mode), faults and values
 * that reach the running library through its live-state file, plugin
 * restarts through the supervisor, and the ${...} variables that describe
 * the configured universe. */
typedef struct mk_runenv {
    mk_suite_env env;          /* first, so callbacks can cast back */
    const mk_universe *u;
    const mk_runplugin *plugins;   /* none when nothing is supervised */
    size_t nplugins;
    char state_path[4300];     /* <state dir>/state */
    mk_state st;
    int st_open;
    mk_suite_var *vars;
    char **var_text;
    size_t nvars;
    const mk_sandbox *sandbox;  /* exec steps: entered before the command (may be NULL) */
    char *const *plugin_env;    /* exec steps: the environment they start from */
} mk_runenv;

/* Fills the environment. With a universe u the variables are gpus, node,
 * driver, and per GPU uuid.<i>, bus.<i>, name.<i>, mig.<i> (MIG devices on
 * GPU i), and migs (all MIG devices). Without a state_dir the suite cannot
 * inject or set; without plugins it cannot restart one or tell their
 * state (the array stays the caller's). */
int mk_runenv_init(mk_runenv *r, mk_nodesrc *src, unsigned caps, const mk_universe *u,
                   const char *state_dir, const mk_runplugin *plugins, size_t nplugins);
/* The plugin called name (NULL: the only one); NULL with err naming the
 * plugins there are. */
const mk_runplugin *mk_runenv_plugin(const mk_runenv *r, const char *name, char *err,
                                     size_t errlen);
/* The last `lines` lines of each plugin, under "--- plugin NAME ---" when
 * there are several; malloc'd, NULL when out of memory. */
char *mk_runplugins_log_tail(const mk_runplugin *v, size_t n, size_t lines);
/* Adds or replaces a variable ("NAME=VALUE", as --var gives it). */
int mk_runenv_var(mk_runenv *r, const char *assignment);
void mk_runenv_free(mk_runenv *r);

/* execstep.c: lets the suites of `mokka run` run exec steps: each command
 * runs in sandbox sb (entered as the plugin enters it) with plugin_env and
 * the step's variables over it, in a process group of its own that dies
 * with mokka (SIGKILL); its stdout and stderr are captured; at its
 * timeout or a cancel the whole group is killed, and when it exits what it
 * left in its group is killed too. Both stay owned by the caller. */
void mk_runenv_exec_in(mk_runenv *r, const mk_sandbox *sb, char *const *plugin_env);


/* gfdlabels.c: gpu-feature-discovery's labels in the node view: a node
 * source showing `inner`'s nodes with the labels of GFD's output file at
 * `path` added (the file may appear later and change at any time; a change
 * wakes wait_change within 100 ms). */
typedef struct mk_gfdlabels mk_gfdlabels;
mk_gfdlabels *mk_gfdlabels_new(mk_nodesrc *inner, const char *path);
mk_nodesrc *mk_gfdlabels_nodesrc(mk_gfdlabels *l);
/* How many labels the file holds now; 0 while there is no file. */
size_t mk_gfdlabels_count(mk_gfdlabels *l);
void mk_gfdlabels_free(mk_gfdlabels *l);
/* Adds the `key=value` lines of text to n's labels (a later line wins);
 * -1 when out of memory. */
int mk_gfd_parse_labels(const char *text, mk_nv_node *n);

/* gfd.c: gpu-feature-discovery under supervision beside the plugin, its
 * labels (written to RUN_DIR/features.d/gfd, relabelled every second) in
 * the node view, its log in RUN_DIR/gfd.log. */
/* gfdnode.c: GFD's labels on the Node object (cluster mode): a thread
 * that patches the Node named `node` to the labels of the features file
 * whenever they change (GFD's timestamp alone is no change), owning them
 * through the annotation mokka.io/gfd-labels: labels GFD stops writing go,
 * others' labels are never touched, and all of them go at the stop. */
typedef struct mk_gfdnode mk_gfdnode;
mk_gfdnode *mk_gfdnode_start(const mk_kube_opts *ko, const char *node, const char *file,
                             char *err, size_t errlen);
/* 1 once the file's labels were patched onto the Node; err: the last
 * patch's failure, or "". */
int mk_gfdnode_published(mk_gfdnode *g, char *err, size_t errlen);
/* Takes the labels off the Node, stops, frees. */
void mk_gfdnode_stop(mk_gfdnode *g);

typedef struct mk_gfd mk_gfd;
typedef struct mk_gfd_start_opts {
    mk_gfd_opts cmd;                /* path, mig_strategy, extra (the rest is set here) */
    const mk_plugenv_opts *env;     /* the same environment as the plugin */
    const mk_sandbox *sandbox;
    const char *run_dir;
    int verbose;
    unsigned restart_limit;
    mk_nodesrc *inner;              /* the view the labels join */
    /* Cluster mode: the labels go on this Node through the API server
     * instead, and the view is inner's (which shows them once there). */
    const mk_kube_opts *node_api;
    const char *node;
} mk_gfd_start_opts;
mk_gfd *mk_gfd_start(const mk_gfd_start_opts *o, char *err, size_t errlen);
const char *mk_gfd_path(const mk_gfd *g);
/* The inner view with GFD's labels (in cluster mode the inner view). */
mk_nodesrc *mk_gfd_nodesrc(mk_gfd *g);
mk_super *mk_gfd_super(mk_gfd *g);
/* Waits until the labels file has labels (*nlabels of them; in cluster
 * mode, until they are on the Node) or the
 * monotonic deadline passes, GFD fails for good or *cancel is set; 0, or
 * -1 with err. */
int mk_gfd_wait_labels(mk_gfd *g, double deadline, volatile sig_atomic_t *cancel, size_t *nlabels,
                       char *err, size_t errlen);
/* Stops GFD (and takes its labels off the Node). */
void mk_gfd_stop(mk_gfd *g, int sig);
void mk_gfd_free(mk_gfd *g);

/* podevent.c: a Warning Event on the pod mokka runs in (POD_NAME,
 * POD_NAMESPACE and POD_UID from the downward API), one per pod and
 * reason, counted on each time: 0 written, 1 not in a pod (no POD_NAME or
 * POD_NAMESPACE), -1 with err. message is cut to 1 KiB. */
int mk_podevent_warn(const mk_kube_opts *ko, const char *reason, const char *message, char *err,
                     size_t errlen);

#endif
