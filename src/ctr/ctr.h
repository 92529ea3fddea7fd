/* ctr.h - Mokka in workload containers, the way NVIDIA's container toolkit
 * puts the driver there: what a GPU container gets (the plan: Mokka's
 * libnvidia-ml.so.1 where the image's loader finds it, the nvidia-smi twin,
 * the node's live state, the variables that name them), written into an
 * OCI runtime spec by the runtime shim or into a CDI spec; the node's files
 * the plan is made of; the runc command line the shim wraps; and the
 * containerd config entry that installs the shim as a runtime handler. */
#ifndef MOKKA_CTR_H
#define MOKKA_CTR_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Where a GPU container finds Mokka: the state directory the library is
 * told about (MOKKA_STATE_DIR), with the node's live state file in it and
 * the universe's config beside it. */
#define MK_CTR_DIR "/run/mokka"
#define MK_CTR_STATE MK_CTR_DIR "/state"
#define MK_CTR_CONFIG MK_CTR_DIR "/config.yaml"
#define MK_CTR_SMI "/usr/bin/nvidia-smi"

/* nodefiles.c: the node's files, as host paths. */
typedef struct mk_ctr_node {
    char lib[4096];      /* Mokka's libnvidia-ml.so.1 */
    char yaml[4096];     /* libyaml-0.so.2, the library's one dependency; "" unknown */
    char smi[4096];      /* the nvidia-smi twin; "" when none was built */
    char state[4096];    /* the node's live state file */
    char config[4096];   /* the universe's config; "" for the built-in one */
    char node[256];      /* the node name the state's UUIDs derive from */
} mk_ctr_node;

/* What the caller names (NULL: look for it; see mk_ctr_node_find). */
typedef struct mk_ctr_where {
    const char *state_dir;   /* the node's state: DIR/state or DIR/<run>/state */
    const char *config, *node, *smi, *lib;
} mk_ctr_where;

#define MK_CTR_STATE_BASE "/run/mokka"

/* Finds the node's files: the live state under w->state_dir (default
 * MK_CTR_STATE_BASE: DIR/state, else the newest DIR/NAME/state), the
 * config (w->config, else gpus.yaml beside the state or in DIR, else the
 * path the state records when it exists here), the node name (w->node, else the
 * state's), the library (w->lib, else `mokka lib-path`'s) and the twin
 * (w->smi, else nvidia-smi beside the library). 0, or -1 with err saying
 * what is missing and how to provide it. */
int mk_ctr_node_find(const mk_ctr_where *w, mk_ctr_node *n, char *err, size_t errlen);
/* Only the files a container gets from Mokka: the library, its libyaml and
 * the twin (n->lib, yaml, smi), as mk_ctr_node_find finds them. */
int mk_ctr_node_files(const mk_ctr_where *w, mk_ctr_node *n, char *err, size_t errlen);
/* The executable `name` beside this program (lib/ in a build tree,
 * ../lib/mokka/ installed, or the same directory): 0 with its path, or -1. */
int mk_ctr_beside_self(const char *name, char *out, size_t len);
/* The universe config's path recorded in a state file, and its node. */
int mk_ctr_state_header(const char *path, char *config, size_t clen, char *node, size_t nlen,
                        char *err, size_t errlen);


/* plan.c: the edits for one GPU container. */
typedef struct mk_ctr_mount {
    char src[4096], dst[512];
    int rw;
} mk_ctr_mount;

typedef struct mk_ctr_plan {
    mk_ctr_mount mount[16];
    size_t nmount;
    char *env[4];            /* NAME=VALUE, owned */
    size_t nenv;
} mk_ctr_plan;

/* The library directories a loader searches, per machine (uname -m) name:
 * the multiarch ones first. NULL-terminated. */
const char *const *mk_ctr_libdirs(const char *arch);

/* The plan for a container whose root filesystem is at rootfs on the host
 * (NULL for a CDI spec, which sees no image: the defaults for arch). Looks
 * into the image for where its libc is, what it already ships
 * (libnvidia-ml.so.1 is mounted over, with a line on notes; its own
 * libyaml and nvidia-smi are kept) and whether it can take mountpoints.
 * 0, or -1 with err. */
int mk_ctr_plan_make(const mk_ctr_node *n, const char *rootfs, int rootfs_ro, const char *arch,
                     mk_ctr_plan *p, FILE *notes, char *err, size_t errlen);
void mk_ctr_plan_free(mk_ctr_plan *p);


/* ociedit.c: the plan in an OCI runtime spec (config.json). */
/* Whether the container asks for GPUs: process.env has
 * NVIDIA_VISIBLE_DEVICES, not empty, void or none. */
int mk_ctr_wants_gpus(json_t *spec);
/* A mount's options: a bind, read-only unless m->rw, no setuid, no devices. */
json_t *mk_ctr_mount_options(const mk_ctr_mount *m);
/* Adds the plan's mounts (after the spec's own, so they land on top; not
 * twice) and its variables (replacing the same names). */
void mk_ctr_apply(json_t *spec, const mk_ctr_plan *p);
/* The root filesystem's host path (root.path, relative to the bundle),
 * and whether root.readonly is set; 0, or -1 with err. */
int mk_ctr_rootfs(json_t *spec, const char *bundle, char *out, size_t len, int *readonly,
                  char *err, size_t errlen);


/* runcargs.c: a runc command line, read without changing it. */
typedef struct mk_runc_args {
    int verb;                /* index of the verb (create, start, ...) or -1 */
    const char *bundle;      /* --bundle/-b of create and run; NULL: cwd */
    const char *log;         /* the global --log file, or NULL */
    int log_json;            /* --log-format json */
} mk_runc_args;

void mk_runc_args_read(int argc, char *const *argv, mk_runc_args *a);
/* The real runc: `name` when it has a slash, else the first on PATH that
 * is not this program (no loop through a wrapper named runc). Malloc'd, or
 * NULL with err. */
char *mk_runc_find(const char *name, char *err, size_t errlen);


/* containerd.c: the runtime handler in containerd's config.toml (v2). */
/* The config text with handler `name` set to run `binary` (its section
 * replaced, or appended), or without it (binary NULL). The rest is kept
 * byte for byte. Malloc'd. */
char *mk_containerd_edit(const char *toml, const char *name, const char *binary);
/* Whether the text has handler `name`. */
int mk_containerd_has(const char *toml, const char *name);
/* A Kubernetes RuntimeClass named `name` for the handler. Malloc'd. */
char *mk_runtimeclass_yaml(const char *name);


/* install.c: the node's files that install writes. */
/* The wrapper script: exec program (mokka: with `container-runtime`)
 * with opts (NAME, VALUE pairs, NULL-terminated; a NULL VALUE is left out)
 * and runc's arguments. Malloc'd. */
char *mk_ctr_wrapper_text(const char *program, int is_mokka, const char *handler,
                          const char *const *opts);
/* Whether a file's text is such a script (uninstall removes only those). */
int mk_ctr_is_wrapper(const char *text);
/* A text file whole (*missing: it does not exist; then ""); NULL with err. */
char *mk_ctr_read_text(const char *path, int *missing, char *err, size_t errlen);
/* Writes a text file atomically with mode, making its directory; 0 or -1. */
int mk_ctr_write_text(const char *path, const char *text, mode_t mode, char *err, size_t errlen);
/* Copies a file with its permission bits, making dst's directory; 0 or -1. */
int mk_ctr_copy_file(const char *src, const char *dst, char *err, size_t errlen);


/* cdi.c: a CDI spec, kind nvidia.com/gpu: one device per GPU by index and
 * by UUID, and `all`, each naming its GPU in NVIDIA_VISIBLE_DEVICES, with
 * the plan's mounts and variables as common edits. */
json_t *mk_cdi_spec(const char *const *uuids, size_t n, const mk_ctr_plan *p);

#endif
