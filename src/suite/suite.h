/* suite.h - assertion suites: loading a suite file and running it against a
 * node view, with actions (inject, set, restart-plugin, wait, exec) and `within:`
 * waits, into the report model.
 *
 * The engine never knows whether the built-in kubelet or the API server is
 * behind the view: an environment (mk_suite_env) hands it a node source,
 * callbacks for the actions it can do, and variables such as ${gpus}.
 * The file format is described in fixtures/suites/README.md.
 * Also: embed.c.
 */
#ifndef MOKKA_SUITE_H
#define MOKKA_SUITE_H

#include <signal.h>
#include <stddef.h>
#include "diag.h"
#include "nodeview/nodeview.h"
#include "report/report.h"

typedef struct mk_suite mk_suite;

/* Loads and checks a suite. Every problem is added to d with file:line:col
 * (this is what `mokka lint` prints); returns NULL when there was an error. */
mk_suite *mk_suite_load(const char *path, mk_diags *d);
/* The same from memory; `name` stands for the file in diagnostics and gives
 * the default suite name. */
mk_suite *mk_suite_load_mem(const char *name, const char *yaml, size_t len, mk_diags *d);
void mk_suite_free(mk_suite *s);
const char *mk_suite_name(const mk_suite *s);
size_t mk_suite_ncases(const mk_suite *s);

/* A fault for the environment to inject into the mock GPUs. */
typedef enum {
    MK_INJECT_XID,          /* XID critical error `xid` */
    MK_INJECT_ECC_DOUBLE,   /* double-bit (uncorrectable) ECC error */
    MK_INJECT_ECC_SINGLE,   /* single-bit (corrected) ECC error */
    MK_INJECT_LOST,         /* the GPU falls off the bus */
    MK_INJECT_HEALTHY       /* clear faults: the GPU is healthy again */
} mk_inject_kind;

typedef struct mk_inject {
    mk_inject_kind kind;
    unsigned gpu;           /* GPU index in the config */
    unsigned xid;           /* MK_INJECT_XID only */
    /* nodes: the fault goes to these nodes of a cluster (a GPUFault that
     * their agents apply) rather than to a local universe. */
    int cluster;            /* nodes: was given */
    char **names;           /* nodes.names, or NULL */
    size_t nnames;
    char *selector;         /* nodes.selector in kubectl's string form, or NULL;
                               neither names nor selector: every node */
} mk_inject;

/* A command of an exec step (a case's `exec:`), for the environment to
 * run where the plugin runs (mokka run: in the sandbox, on the library). */
typedef struct mk_exec_req {
    char *const *argv;        /* NULL-terminated; variables expanded */
    char *const *env;         /* NAME=VALUE set over the plugin's environment, in
                               * order (the later wins); NULL-terminated */
    long long timeout_ms;     /* then it is killed with its process group */
} mk_exec_req;

/* What it did. Each stream keeps its first MK_EXEC_CAPTURE bytes (NUL
 * bytes dropped). */
#define MK_EXEC_CAPTURE (1 << 20)
typedef struct mk_exec_res {
    int exited;               /* 1: exited with status `code`; 0: killed by signal `code` */
    int code;
    int timed_out;            /* ran past its timeout and was killed */
    char *out, *err;          /* malloc'd, NUL-terminated */
    int out_cut, err_cut;     /* it wrote more than was kept */
    long long ms;
} mk_exec_res;
void mk_exec_res_free(mk_exec_res *res);

/* What the runner is doing, for a progress display. */
typedef enum {
    MK_PROGRESS_CASE,       /* a case starts */
    MK_PROGRESS_WAIT,       /* still waiting (wait: or within:); about 4 times a second */
    MK_PROGRESS_DONE        /* a case ended; `status` is its worst result */
} mk_progress_phase;

typedef struct mk_progress {
    mk_progress_phase phase;
    const char *suite;
    const char *name;       /* the case */
    size_t index, total;    /* 1-based case number, number of cases */
    long long waited_ms, limit_ms;   /* WAIT: how long so far, out of how long */
    mk_status status;       /* DONE */
} mk_progress;

/* A variable for ${name} in suite values. */
typedef struct mk_suite_var {
    const char *name, *value;
} mk_suite_var;

/* Whether the first len bytes of s are a name ${name} can refer to:
 * letters, digits, '.', '_' and '-', any length (suite_vars.c). */
int mk_suite_var_name_ok(const char *s, size_t len);

/* What the view can show, beyond capacity and allocatable. */
enum {
    MK_ENV_DEVICE_LIST = 1,   /* the plugin's device list: ids, health, NUMA (built-in kubelet) */
    MK_ENV_NODE_OBJECTS = 2,  /* labels, annotations, conditions, taints (API server) */
    MK_ENV_LABELS = 4,        /* labels alone (gpu-feature-discovery under mokka run --gfd) */
    MK_ENV_PODS = 8           /* the pods too (snapshots' has_pods): fleet expectations */
};

/* What a suite's fleet expectations need the API server watched for. */
enum {
    MK_FLEET_NEEDS_PODS = 1,         /* the pods bound to the nodes */
    MK_FLEET_NEEDS_UNSCHEDULED = 2   /* pods not bound to any node (unscheduled:) */
};
unsigned mk_suite_fleet_needs(const mk_suite *s);
/* One line of the fleet's totals for `resource` in the source's latest view
 * (every node it shows; the pods must be watched): "50 nodes (49 Ready),
 * nvidia.com/gpu 392 allocatable, 78 used, ...; 2 pods not scheduled".
 * 0, or -1 when the view has no pods or cannot be read. */
int mk_suite_fleet_summary(mk_nodesrc *src, const char *resource, char *buf, size_t len);

/* A supervised plugin's state, for `expect: plugin:` (mokka run). */
typedef struct mk_plugin_info {
    char name[64];
    int running;              /* its process is up (not backing off, failed or stopped) */
    const char *state;        /* "running", "restarting", "failed", "stopped" */
    unsigned restarts;        /* restarts asked for (restart-plugin) */
    unsigned crashes;         /* exits nobody asked for */
    char last_exit[600];      /* "exited with status 1", "" when it never exited */
} mk_plugin_info;

typedef struct mk_suite_env mk_suite_env;
struct mk_suite_env {
    mk_nodesrc *src;
    unsigned caps;                /* MK_ENV_* */
    const char *const *nodes;     /* NULL-terminated names to check; NULL: all in the view */
    const mk_suite_var *vars;     /* ${name} values (fixtures/suites/README.md) */
    size_t nvars;

    /* Actions. NULL when this environment cannot do them: a case that asks
     * becomes an ERROR saying so. Each returns 0, or -1 with err set. */
    int (*inject)(mk_suite_env *env, const mk_inject *inj, char *err, size_t errlen);
    /* An inject with nodes: (inj->cluster): made and waited for until the
     * agents of those nodes applied it; err names the nodes that did not. */
    int (*inject_nodes)(mk_suite_env *env, const mk_inject *inj, char *err, size_t errlen);
    int (*set)(mk_suite_env *env, unsigned gpu, const char *metric, const char *value,
               char *err, size_t errlen);
    /* name NULL: every supervised plugin (`restart-plugin: true`), else the
     * one named (`restart-plugin: NAME`); err names the plugins there are
     * when none is called so. */
    int (*restart_plugin)(mk_suite_env *env, const char *name, char *err, size_t errlen);
    /* Optional: the state of the plugin called name (NULL: the only one);
     * 0, or -1 with err. */
    int (*plugin_state)(mk_suite_env *env, const char *name, mk_plugin_info *out,
                        char *err, size_t errlen);
    /* Runs an exec step's command and waits for it (or its timeout, or
     * *cancel); -1 with err only when it could not be started at all. */
    int (*exec)(mk_suite_env *env, const mk_exec_req *req, mk_exec_res *res,
                char *err, size_t errlen);

    /* Optional: the plugin's recent log, attached to failures and to the
     * suite (malloc'd, or NULL). */
    char *(*log_tail)(mk_suite_env *env);
    /* Optional: progress reports (mk_suite_progress_stderr prints them). */
    void (*progress)(mk_suite_env *env, const mk_progress *p);
    /* Optional: set asynchronously (SIGINT, SIGTERM) to stop early; the
     * running case becomes an ERROR and the rest are skipped. */
    volatile sig_atomic_t *cancel;
    void *user;                   /* for the callbacks */
};

/* Runs every case (for each node to check) and adds one report suite with
 * one result per case and node. Returns mk_report_exit_code's value for
 * these results: 0 passed, 1 failed, 3 errors. */
int mk_suite_run(const mk_suite *s, mk_suite_env *env, mk_report *rep);

/* A progress callback for the CLI: on a terminal one line that updates in
 * place ("case 2/5 'xid 79' waiting 3.2s of 30s"), otherwise timestamped
 * lines at the start and end of each case and every 10 s of waiting.
 * Prints nothing under --quiet. */
void mk_suite_progress_stderr(mk_suite_env *env, const mk_progress *p);


/* embed.c: data files built into the CLI by gen_embed.sh: the default
 * suites (fixtures/suites). */
typedef struct mk_blob {
    const char *name;   /* file name without .yaml: "h100-sxm5-80gb" */
    const char *data;
    size_t len;
} mk_blob;

extern const mk_blob mk_suite_blobs[];   /* fixtures/suites; ends with a NULL name */

/* The blob called `name` (case-insensitive) in a NULL-name-terminated table. */
const mk_blob *mk_blob_find(const mk_blob *table, const char *name);


#endif
