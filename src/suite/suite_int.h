/* suite_int.h - what the suite loader, the value forms, the expectation
 * kinds and the runner share. Not for use outside src/suite_*.c. */
#ifndef MOKKA_SUITE_INT_H
#define MOKKA_SUITE_INT_H

#include <regex.h>
#include "util/util.h"
#include "suite.h"
#include "ytree.h"

/* --- variables (suite_vars.c) ---------------------------------------------- */

/* The variables a check sees: the environment's, then the case's own (such
 * as ${allocated}), which win. */
typedef struct mk_vars {
    const mk_suite_var *env, *local;
    size_t nenv, nlocal;
} mk_vars;

const char *mk_vars_lookup(const mk_vars *vars, const char *name);
/* Checks the ${name} references in a scalar; 0, or -1 with an error at n. */
int mk_vars_check(const mk_ynode *n, const char *what, mk_diags *d);
/* "unknown variable ${name} (known: ...)" into err. */
void mk_vars_unknown(const mk_vars *vars, const char *name, char *err, size_t errlen);
/* `s` with each ${name} replaced (malloc'd), or NULL with err set. */
char *mk_vars_expand(const char *s, const mk_vars *vars, char *err, size_t errlen);
/* Whether a character may appear in a variable name. */
int mk_var_char(int c);

/* --- regular expressions (suite_regex.c) ---------------------------------- */

/* What a suite's /regex/ may cost: its length, any one repetition count,
 * the size its repetitions expand it to, how many of those elements are
 * optional (regcomp's cost grows with their square), and how deep groups
 * nest. A part that can match nothing may not be repeated without bound. */
#define MK_RE_MAX_LEN 1024
#define MK_RE_MAX_REPEAT 1000
#define MK_RE_MAX_SIZE 10000
#define MK_RE_MAX_OPTIONAL 1000
#define MK_RE_MAX_DEPTH 32

/* 0 when the ERE is within the limits, else -1 with why naming the limit. */
int mk_regex_measure(const char *pat, char *why, size_t len);
/* mk_regex_measure, then regcomp (REG_EXTENDED | REG_NOSUB); 0, or -1 with
 * why (the limit, or regcomp's own reason). */
int mk_regex_compile(regex_t *re, const char *pat, char *why, size_t len);
/* The same with more regcomp flags (REG_NEWLINE for command output). */
int mk_regex_compile_flags(regex_t *re, const char *pat, int cflags, char *why, size_t len);

/* --- value forms (suite_value.c) ------------------------------------------- */

typedef enum { MK_OP_EQ, MK_OP_NE, MK_OP_LT, MK_OP_LE, MK_OP_GT, MK_OP_GE } mk_op;

/* A count or a comparison: 8, ">=1", "!=0", "${gpus}", "${gpus}-1". */
typedef struct mk_cmp {
    mk_op op;
    char *var;           /* the variable, or NULL */
    long long num;       /* the literal, or the offset added to the variable */
} mk_cmp;

int mk_cmp_parse(const mk_ynode *n, const char *what, mk_cmp *out, mk_diags *d);
void mk_cmp_free(mk_cmp *c);
/* The number to compare with; 0, or -1 with err (unknown or non-numeric variable). */
int mk_cmp_target(const mk_cmp *c, const mk_vars *vars, long long *target,
                  char *err, size_t errlen);
int mk_cmp_holds(mk_op op, long long actual, long long target);
/* "8" for ==, else "<op> 8". */
void mk_cmp_describe(mk_op op, long long target, char *buf, size_t len);

/* A string expectation: exact text, "/regex/" (POSIX extended, unanchored),
 * or YAML null for "absent". */
typedef enum { MK_MATCH_EXACT, MK_MATCH_REGEX, MK_MATCH_ABSENT } mk_match_kind;
typedef struct mk_match {
    mk_match_kind kind;
    char *text;          /* the text, or the regex without its slashes */
} mk_match;

int mk_match_parse(const mk_ynode *n, const char *what, int allow_absent,
                   mk_match *out, mk_diags *d);
void mk_match_free(mk_match *m);
/* 1 when `actual` (NULL: absent) matches, 0 when not, -1 with err. */
int mk_match_test(const mk_match *m, const char *actual, const mk_vars *vars,
                  char *err, size_t errlen);
/* "'text'", "/regex/" or "absent", variables expanded where possible. */
void mk_match_describe(const mk_match *m, const mk_vars *vars, char *buf, size_t len);

/* A list of strings (device ids), variables allowed. */
typedef struct mk_strv {
    char **v;
    size_t n;
} mk_strv;

int mk_strv_parse(const mk_ynode *n, const char *what, int allow_empty, mk_strv *out,
                  mk_diags *d);
void mk_strv_free(mk_strv *v);
/* A copy with variables expanded; 0, or -1 with err. */
int mk_strv_expand(const mk_strv *in, const mk_vars *vars, mk_strv *out,
                   char *err, size_t errlen);
int mk_strv_has(const mk_strv *v, const char *s);

/* Key -> string expectation (labels, annotations, env, mounts). */
typedef struct mk_kvmatch {
    char *key;
    mk_match m;
} mk_kvmatch;

typedef struct mk_kvmatches {
    mk_kvmatch *v;
    size_t n;
} mk_kvmatches;

int mk_kvm_parse(const mk_ynode *n, const char *what, int allow_absent,
                 mk_kvmatches *out, mk_diags *d);
void mk_kvm_free(mk_kvmatches *m);

/* 0 when n is a map, else -1 with an error "WHAT must be a map, not ...". */
int mk_yneed_map(const mk_ynode *n, const char *what, mk_diags *d);
/* A duration scalar; 0, or -1 with an error at n. */
int mk_ydur(const mk_ynode *n, const char *what, long long *ms, mk_diags *d);
/* A label selector: a map of labels (matchLabels) or kubectl's string form,
 * checked, into *out in the string form (malloc'd). 0, or -1 with an error. */
int mk_ysel(const mk_ynode *n, const char *what, char **out, mk_diags *d);

/* --- expectations (suite_expect.c, suite_expect_*.c) ----------------------------- */

typedef enum { MK_X_PASS, MK_X_FAIL, MK_X_ERROR } mk_xres;

/* What a check sees, and where it writes why it did not pass. */
typedef struct mk_xctx {
    mk_suite_env *env;
    const mk_vars *vars;
    const mk_exec_res *exec;       /* the case's last exec step's result, or NULL */
    const mk_nv_node *node;
    const char *resource;          /* the expectation's resource */
    const mk_nv_resource *res;     /* that resource on this node; NULL: not advertised */
    mk_sb msg;                     /* one line: what is wrong */
    mk_sb detail;                  /* expected/actual lines */
    const mk_nv_nodes *snap;       /* the whole snapshot (fleet expectations; node NULL) */
} mk_xctx;

enum {
    MK_XK_RESOURCE = 1,      /* about one resource: the runner looks up c->res */
    MK_XK_DEVICES = 2,       /* needs MK_ENV_DEVICE_LIST */
    MK_XK_NODE_OBJECT = 4,   /* needs MK_ENV_NODE_OBJECTS */
    MK_XK_CALLS_PLUGIN = 8,  /* asks the plugin: under within, re-checked every second too */
    MK_XK_LIST = 16,         /* the value may be a list: one expectation per item */
    MK_XK_EXEC = 32,         /* about the case's last exec: under within, it runs again */
    MK_XK_LABELS = 64,       /* needs MK_ENV_LABELS or MK_ENV_NODE_OBJECTS */
    MK_XK_FLEET = 128        /* about all the nodes at once (needs MK_ENV_PODS): the
                                case is checked once, as the target "fleet" */
};

typedef struct mk_expect mk_expect;

/* One kind of expectation: the key under `expect:` and how to parse and
 * check it. A new kind is one of these plus its line in suite_expect.c. */
typedef struct mk_xkind {
    const char *key;
    unsigned flags;                                    /* MK_XK_* */
    int (*parse)(mk_expect *x, const mk_ynode *val, mk_diags *d);  /* sets x->arg; -1 on errors */
    mk_xres (*check)(const mk_expect *x, mk_xctx *c);
    void (*free)(void *arg);
    const void *aux;                                   /* constant data for shared functions */
} mk_xkind;

struct mk_expect {
    const mk_xkind *kind;
    char *resource;
    int line, col;                 /* of the key */
    void *arg;
};

mk_xres mk_x_fail(mk_xctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
mk_xres mk_x_error(mk_xctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_x_detail(mk_xctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses an `expect:` value (a map, or a list of maps with their own
 * resource) into *xs. 0, or -1 after adding errors. */
int mk_expect_parse(const mk_ynode *n, mk_expect **xs, size_t *nx, mk_diags *d);
void mk_expect_free(mk_expect *xs, size_t n);

#define MK_DEFAULT_RESOURCE "nvidia.com/gpu"

/* The kinds (suite_expect_resource.c, suite_expect_plugin.c, suite_expect_node.c). */
extern const mk_xkind mk_xk_capacity, mk_xk_allocatable, mk_xk_devices,
    mk_xk_healthy_count, mk_xk_unhealthy_count, mk_xk_healthy, mk_xk_unhealthy,
    mk_xk_topology;
extern const mk_xkind mk_xk_allocate, mk_xk_preferred;
extern const mk_xkind mk_xk_condition, mk_xk_label, mk_xk_annotation, mk_xk_taint;
extern const mk_xkind mk_xk_exit, mk_xk_stdout, mk_xk_stderr;
extern const mk_xkind mk_xk_plugin, mk_xk_served_by;   /* suite_expect_plugstate.c */
extern const mk_xkind mk_xk_fleet;                      /* suite_expect_fleet.c */
/* What a fleet expectation needs watched (MK_FLEET_NEEDS_*). */
unsigned mk_fsum_needs(const mk_expect *x);

/* --- exec steps (suite_exec.c) ---------------------------------------------- */

#define MK_EXEC_DEFAULT_TIMEOUT_MS 60000

/* One exec step: a command (argv, or shell text run by /bin/sh -c), its
 * environment and timeout, and as-allocated: Allocate N devices first and
 * run it with the environment the plugin answered. */
typedef struct mk_execstep {
    int line, col;
    char **argv;               /* NULL-terminated; variables unexpanded */
    char **env;                /* NAME=VALUE, NULL-terminated */
    long long timeout_ms;
    long long alloc;           /* as-allocated N; 0: none */
    char *resource;            /* of the allocation */
} mk_execstep;

/* Parses `exec:` (a string, a map, or a list of them) onto *steps. 0, or -1
 * after adding errors. */
int mk_exec_parse(const mk_ynode *n, mk_execstep **steps, size_t *nsteps, mk_diags *d);
void mk_exec_free(mk_execstep *steps, size_t n);
/* Runs one step in env: the allocation, then the command. 0 with *res
 * filled, *allocated the ids an as-allocated step got (comma-separated,
 * malloc'd; else NULL) and what it did appended to log (for the report's
 * system-out); -1 with err when it could not run (the case is an ERROR). */
int mk_exec_run(mk_suite_env *env, const mk_vars *vars, const mk_execstep *st,
                mk_exec_res *res, char **allocated, mk_sb *log, char *err, size_t errlen);
/* "'nvidia-smi -L'" for messages. */
void mk_exec_describe(const mk_execstep *st, char *buf, size_t len);

/* --- the loaded suite ------------------------------------------------------- */

typedef struct mk_setop {
    unsigned gpu;
    char *metric, *value;
} mk_setop;

typedef struct mk_case {
    char *name;
    int line;
    char *skip;                /* the reason, or NULL */
    mk_inject *inj;
    size_t ninj;
    mk_setop *set;
    size_t nset;
    int restart;
    char *restart_name;        /* restart-plugin: NAME; NULL with restart: every plugin */
    long long wait_ms;
    mk_execstep *exec;
    size_t nexec;
    mk_expect *x;
    size_t nx;
    long long within_ms;       /* the case's, else the suite's timeout, else 0 */
} mk_case;

struct mk_suite {
    char *name, *file;
    mk_case *cases;
    size_t n;
};

#endif
